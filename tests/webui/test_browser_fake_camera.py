"""The browser's camera path end to end: Chromium's fake camera plays a rendered show (a deck
design kept out of training), the page posts its frames, the shipped models read them, the
server smooths the table, and the page lists each hand with the right cards and show score."""

from __future__ import annotations

import statistics
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright import sync_api
from playwright.sync_api import Page

from cribtrain.data.clips import show_clip, write_y4m
from cribtrain.data.synth import load_decks
from scorer.cards import parse_cards
from scorer.show import score_show
from tests.helpers import FIXTURES
from tests.webui.test_browser import ARGS, CHROMIUM, phone_page
from tests.webui.test_serve import Server

pytestmark = pytest.mark.slow  # a real browser: left out of the fast loop

HELD_OUT = FIXTURES / "deck-dondorf"
HANDS = {"bottom": ["5H", "5C", "JD", "4S"], "top": ["7C", "8D", "9H", "KS"]}
CRIB, STARTER = ["2C", "3D", "QH", "6S"], "5D"


@contextmanager
def camera_page(server: Server, game_id: str, video: Path) -> Iterator[tuple[Page, list[str]]]:
    """A phone-sized game page whose camera (Chromium's fake one, playing `video`) is on; the
    list collects the page's errors."""
    camera_args = ["--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream",
                   f"--use-file-for-fake-video-capture={video}"]  # fmt: skip
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS + camera_args)
        try:
            errors: list[str] = []
            page = phone_page(browser, errors)
            page.goto(f"{server.url}/games/{game_id}")
            page.click("#camera-panel summary")
            page.click("#camera-start")
            yield page, errors
        finally:
            browser.close()


def test_fake_camera_shows_the_right_cards_and_show_scores(server: Server, tmp_path: Path) -> None:
    deck = load_decks([HELD_OUT])[0]
    video = tmp_path / "table.y4m"
    write_y4m(show_clip(deck, HANDS, CRIB, STARTER, dealer="bottom", seed=3).frames, video)
    status, created = server.call("POST", "/api/games", {"players": 2, "first_dealer": 0,
                                                          "names": ["Ann", "Bob"]})  # fmt: skip
    assert status == 201
    with camera_page(server, created["id"], video) as (page, errors):
        page.wait_for_selector("#camera-table li.camera-show[data-role=crib]")
        page.wait_for_function(  # the smoothed table settles over a few frames
            "document.querySelectorAll('#camera-table li.camera-show').length === 3"
        )
        page.screenshot(path=str(tmp_path / "fake-camera.png"), full_page=True)
        shown = {
            (li.get_attribute("data-role"), li.get_attribute("data-edge")):
                (sorted(str(li.get_attribute("data-cards")).split()),
                 li.get_attribute("data-total"))
            for li in page.query_selector_all("#camera-table li.camera-show")
        }  # fmt: skip
        latencies = page.evaluate("camera.latencies")
        status = page.inner_text("#camera-status")  # the clip's indices are about 21 px tall
    assert "move the camera closer or give it a higher resolution" in status, status
    expected = {("hand", "bottom"): HANDS["bottom"], ("hand", "top"): HANDS["top"],
                ("crib", "bottom"): CRIB}  # fmt: skip
    assert set(shown) == set(expected)
    for key, cards in expected.items():
        show = score_show(parse_cards(cards), parse_cards([STARTER])[0], crib=key[0] == "crib")
        assert shown[key] == (sorted(cards), str(show.total))
    assert (tmp_path / "fake-camera.png").stat().st_size > 0
    assert errors == []
    print(
        f"frame to overlay: median {statistics.median(latencies)} ms over {len(latencies)} frames"
    )
