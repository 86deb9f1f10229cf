"""The camera check on table mode's page, in Chromium with its fake camera playing a table laid
for the cut (a deck design kept out of training, read by the shipped models): before the first
deal the page says in large type whether the camera reads the table and what to change, at
phone and desktop sizes; once a deal has started it is gone."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import cv2
import numpy as np
import pytest
from playwright.sync_api import Page

from cribtrain.data.clips import PLAY_ROW, write_y4m
from tests.vision.table.check_scenes import check_scene, held_out_deck
from tests.webui.test_browser_table_mode import table_page
from tests.webui.test_serve import Server

pytestmark = pytest.mark.slow  # a real browser reading real frames: left out of the fast loop

CHECK = "#camera-check"
STATUS = "document.getElementById('camera-status').textContent"


def _video(kind: str, path: Path) -> Path:
    """A few frames of the table laid for the cut, seen from overhead: at 1080p (`ready`), a
    far camera's 768 x 432 (`far`), or at a quarter of the light (`dark`)."""
    deck = held_out_deck()
    gain = 0.25 if kind == "dark" else 1.0
    scene = check_scene(deck, "overhead", "1080p", 2, row=PLAY_ROW, gain=gain)
    frame = scene.frame
    if kind == "far":
        frame = np.asarray(cv2.resize(frame, (768, 432), interpolation=cv2.INTER_AREA), np.uint8)
    write_y4m([frame] * 4, path, fps=2)
    return path


@contextmanager
def check_page(server: Server, video: Path, size: str) -> Iterator[tuple[Page, str]]:
    """A new two-player game's table mode page (no dealer yet), its camera playing `video`."""
    status, created = server.call("POST", "/api/games", {"players": 2, "names": ["Ann", "Bob"]})
    assert status == 201, created
    with table_page(server, created["id"], video, size) as page:
        yield page, created["id"]


@pytest.mark.parametrize("size", ["phone", "desktop"])
def test_a_good_camera_is_ready_and_the_check_goes_once_a_deal_starts(
    server: Server, tmp_path: Path, size: str
) -> None:
    with check_page(server, _video("ready", tmp_path / "ready.y4m"), size) as (page, game_id):
        page.wait_for_selector(f"{CHECK}[data-ready=true]")
        # the cards named on the picture too (the smoothed table keeps a card seen 3 frames)
        page.wait_for_function(f"/Camera on: [1-9]/.test({STATUS})")
        page.screenshot(path=str(tmp_path / f"check-ready-{size}.png"))
        box = page.locator(CHECK)
        assert box.locator(".check-title").inner_text().startswith("✓ Ready")
        assert "corners" in box.locator(".check-measures").inner_text()
        assert page.locator("#now").is_hidden()  # the count of 0 gives way to the check
        assert page.get_by_role("button", name="Ann").is_visible()  # who deals: still a tap
        # The whole page fits the screen: the check, the picture and who deals.
        assert page.evaluate("document.scrollingElement.scrollHeight <= window.innerHeight + 1")
        for action in ({"kind": "dealer", "seat": 0}, {"kind": "deal", "hands": None}):
            assert server.call("POST", f"/api/games/{game_id}/actions", action)[0] == 200
        box.wait_for(state="hidden")
        assert page.locator("#now").is_visible()


@pytest.mark.parametrize(("kind", "size", "advice"), [
    ("far", "phone", "Move the camera about"),
    ("dark", "desktop", "Too dark: turn on more light"),
])  # fmt: skip
def test_a_camera_that_cannot_read_the_table_says_what_to_change(
    server: Server, tmp_path: Path, kind: str, size: str, advice: str
) -> None:
    with check_page(server, _video(kind, tmp_path / f"{kind}.y4m"), size) as (page, _):
        page.wait_for_selector(f"{CHECK}[data-ready=false]")
        said = page.locator(f"{CHECK} .check-advice").all_inner_texts()
        page.screenshot(path=str(tmp_path / f"check-{kind}-{size}.png"))
        assert page.locator(f"{CHECK} .check-title").inner_text() == "Camera check: not ready yet"
        assert any(text.startswith(advice) for text in said), said
