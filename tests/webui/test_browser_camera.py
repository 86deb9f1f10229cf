"""The camera panel in a real browser: with no camera the page offers the demo photo and draws
what the detection endpoint says; the server camera's status reaches the page; "Settle it"
lists the count. Holds with or without a card model installed."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.webui.test_browser import chromium, game_in_the_play, phone_page
from tests.webui.test_serve import Server

pytestmark = pytest.mark.slow  # a real browser: left out of the fast loop

DEMO = Path(__file__).resolve().parents[2] / "webui" / "static" / "demo" / "table.jpg"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    running = Server(tmp_path / "games.sqlite3", tmp_path / "data", ["--camera", str(DEMO)])
    yield running
    running.stop()


def test_demo_photo_server_camera_and_settle_it(server: Server, tmp_path: Path) -> None:
    game_id = game_in_the_play(server, "5H", "4D", "6S")
    with chromium() as browser:
        errors: list[str] = []
        page = phone_page(browser, errors)
        page.goto(f"{server.url}/games/{game_id}")
        page.wait_for_selector("#live.on")
        page.wait_for_function(
            "document.getElementById('server-camera-status').textContent"
            ".startsWith('Server camera')"
        )
        page.click("#demo-photo")  # headless Chromium has no camera: the demo is offered
        page.wait_for_function(
            "/demo photo:|no card model installed/"
            ".test(document.getElementById('camera-status').textContent)"
        )
        assert page.evaluate("document.getElementById('demo-img').naturalWidth") == 640
        assert not page.is_visible("#camera-video")  # no empty camera box above the demo photo
        assert "move the camera" not in page.inner_text("#camera-status")  # indices of 27 px
        hints = page.evaluate("frameHints({small_indices: false, cut_at_edge: true})")
        assert "cut off and not read: move the camera so every card is in view" in hints
        assert page.evaluate("frameHints({small_indices: false, cut_at_edge: false})") == ""
        page.click("#settle summary")
        page.wait_for_selector("#settle-out li >> nth=2")
        text = page.inner_text("#settle-out")
        assert "Count 15" in text and "15 for 2, run of 3 for 3 (5)" in text
        page.screenshot(path=str(tmp_path / "settle.png"), full_page=True)
        assert errors == []
    assert (tmp_path / "settle.png").stat().st_size > 0
