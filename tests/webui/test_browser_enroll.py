"""The deck-enrolment page in a real browser, with the shipped models: a photo of one suit laid
out A to K (the page's second way) is uploaded, the grid of corners appears, one card is
corrected with the picker, the deck is saved without tuning and listed."""

from __future__ import annotations

from pathlib import Path

import cv2
import pytest

from cribtrain.data.synth import load_decks
from tests.vision.decks.test_enroll import CLUBS, FIXTURE, layout
from tests.webui.test_browser import chromium, phone_page
from tests.webui.test_serve import Server
from vision.decks.layout import RANKS

pytestmark = pytest.mark.slow  # a real browser: left out of the fast loop


def test_enrol_a_suit_correct_a_card_and_save(server: Server, tmp_path: Path) -> None:
    image, _ = layout(load_decks([FIXTURE]), CLUBS, seed=20)
    shot = tmp_path / "clubs.jpg"
    assert cv2.imwrite(str(shot), image)
    with chromium() as browser:
        errors: list[str] = []
        page = phone_page(browser, errors)
        page.goto(server.url + "/")
        page.click("a[href='/enroll']")
        page.wait_for_url("**/enroll")
        page.fill("#start-form input[name=name]", "kitchen")
        page.select_option("#mode", "suits")  # any photos is the default
        page.fill("#start-form input[name=suits]", "C")
        page.click("#start-form button[type=submit]")
        page.wait_for_selector("#shoot-panel:not([hidden])")
        page.set_input_files("#shot-file", str(shot))
        page.wait_for_selector("#shots li")  # the photo is read
        page.screenshot(path=str(tmp_path / "grid.png"), full_page=True)
        tiles = page.query_selector_all("#grid .tile")
        assert len(tiles) >= 10, "the model should find most of the 13 clubs"
        labels = [t.query_selector(".label").inner_text() for t in tiles]  # type: ignore[union-attr]
        first = tiles[0].get_attribute("data-number")
        tiles[0].click()
        page.wait_for_selector("#fix-dialog[open]")
        page.click("#picker button[data-card=AS]")  # the picker holds one card: AS replaces it
        page.click("#fix-ok")
        page.wait_for_function(
            f"document.querySelector(\"#grid .tile[data-number='{first}'] .label\")"
            ".textContent.includes('♠')"
        )
        page.wait_for_selector("#problems .flag")
        problems = page.inner_text("#problems")
        assert "Not seen" in problems and "A♣" in problems  # AC is now missing from the clubs
        page.click("#save-only")
        page.wait_for_function("document.getElementById('finish-status').textContent"
                               ".includes('Saved')")  # fmt: skip
        page.wait_for_selector("#decks li:has-text('kitchen')")
        page.screenshot(path=str(tmp_path / "enrol.png"), full_page=True)
    assert set(labels) <= {f"{rank}♣" for rank in RANKS}
    assert (tmp_path / "enrol.png").stat().st_size > 0
    assert (tmp_path / "decks" / "kitchen" / "profile.json").exists()
    assert errors == []
