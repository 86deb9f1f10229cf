"""The deck-enrolment page in a real browser, with the shipped models: a photo of one suit laid
out A to K (the page's second way) is uploaded, the grid of corners appears, one card is
corrected with the picker, the deck is saved without tuning and listed."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import pytest

from cribtrain.data.synth import load_decks
from tests.vision.decks.test_enroll import CLUBS, FIXTURE, layout
from tests.webui.test_browser import BYPASS_CSP, chromium, phone_page
from tests.webui.test_serve import Server
from vision.decks.layout import RANKS
from vision.detection.detections import CLASS_NAMES

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


#: Real photos for the same run (`CRIBCAM_DEV_REAL`: the dev-real set's folder, which the
#: checkout does not hold): four webcam stills of many cards on a white table.
DEV_REAL = os.environ.get("CRIBCAM_DEV_REAL")
REAL_PHOTOS = ("dev_0575.jpg", "dev_0588.jpg", "dev_0591.jpg", "dev_0598.jpg")
#: Where the screenshots go (`CRIBCAM_SHOTS`), to be looked at; else the test's own folder.
SHOTS = os.environ.get("CRIBCAM_SHOTS")


def spread(tmp_path: Path) -> list[Path]:
    """The whole deck laid out over 4 photos, 13 cards in each, in no suit's order."""
    decks = load_decks([FIXTURE])
    order = [CLASS_NAMES[k] for k in np.random.default_rng(7).permutation(52)]
    photos = []
    for k in range(4):
        image, _ = layout(decks, order[13 * k : 13 * k + 13], seed=30 + k)
        photos.append(tmp_path / f"spread-{k + 1}.png")
        assert cv2.imwrite(str(photos[-1]), image)
    return photos


def real(tmp_path: Path) -> list[Path]:
    if not DEV_REAL:
        pytest.skip("CRIBCAM_DEV_REAL (the dev-real photos' folder) is not set")
    return [Path(DEV_REAL) / "images" / name for name in REAL_PHOTOS]


#: The sizes the teaching page is looked at: a phone's and a laptop's.
SIZES = {"phone": (390, 844), "desktop": (1280, 800)}


@pytest.mark.parametrize(
    ("photos", "size"),
    [(spread, "phone"), (spread, "desktop"), (real, "phone")],
    ids=["rendered-phone", "rendered-desktop", "dev-real-phone"],
)
def test_a_deck_spread_over_four_photos_each_card_boxed_on_its_photo(
    server: Server, tmp_path: Path, photos: Callable[[Path], list[Path]], size: str
) -> None:
    """Four photos chosen at once are read one after another with a progress bar; every
    proposal is shown as its whole card boxed on its photo (the `where` image, numbered, its
    photo named), and the correcting dialog shows it too, with the likeliest names as buttons.
    The rendered deck of four-index cards is proposed card for card: each of the 52 once."""
    files = photos(tmp_path)
    out = Path(SHOTS) if SHOTS else tmp_path
    out.mkdir(parents=True, exist_ok=True)
    stem = f"{files[0].stem.split('-')[0]}-{size}"
    width, height = SIZES[size]
    with chromium() as browser:
        errors: list[str] = []
        page = browser.new_page(viewport={"width": width, "height": height},
                                bypass_csp=BYPASS_CSP)  # fmt: skip
        page.set_default_timeout(90_000)  # a loaded 2-core machine is slow
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(server.url + "/enroll")
        page.fill("#start-form input[name=name]", "spread")
        page.click("#start-form button[type=submit]")
        page.wait_for_selector("#shoot-panel:not([hidden])")
        page.set_input_files("#shot-file", [str(f) for f in files])
        page.wait_for_selector("#shot-progress:not([hidden])", state="attached")
        page.wait_for_function("document.querySelectorAll('#shots li').length === 4")
        page.wait_for_function("document.getElementById('shot-progress').hidden")
        assert "4 photos read" in page.inner_text("#shot-progress-text")
        page.evaluate("document.querySelectorAll('#grid img').forEach((i) => i.loading = 'eager')")
        page.wait_for_function("[...document.querySelectorAll('#grid img')]"
                               ".every((i) => i.complete && i.naturalWidth > 0)")  # fmt: skip
        tiles = page.query_selector_all("#grid .tile")
        sources = [t.query_selector("img").get_attribute("src") for t in tiles]  # type: ignore[union-attr]
        numbers = [t.query_selector(".num").inner_text() for t in tiles]  # type: ignore[union-attr]
        labels = [t.query_selector(".label").inner_text() for t in tiles]  # type: ignore[union-attr]
        problems = page.inner_text("#problems")
        page.screenshot(path=str(out / f"{stem}-grid.png"), full_page=True)
        page.locator("#grid").screenshot(path=str(out / f"{stem}-tiles.png"))
        tiles[0].click()
        page.wait_for_selector("#fix-dialog[open]")
        page.wait_for_function("document.getElementById('fix-img').naturalWidth > 0")
        choices = page.query_selector_all("#fix-choices button")
        page.screenshot(path=str(out / f"{stem}-fix.png"))
        page.click("#fix-cancel")
    if files[0].stem.startswith("spread"):
        assert len(tiles) == 52 and len(set(labels)) == 52  # one proposal a card, none twice
        assert "52 cards ready" in problems
    else:
        assert len(tiles) >= 10
    assert all(s and s.endswith("/where.jpg") for s in sources)
    assert all("photo" in n for n in numbers) and {n.split()[-1] for n in numbers} == {
        "1", "2", "3", "4"
    }  # fmt: skip
    assert 1 <= len(choices) <= 4
    assert errors == []
