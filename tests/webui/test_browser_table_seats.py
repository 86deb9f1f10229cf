"""The seats the camera learnt, on table mode's page in a real browser: each player's name over
the picture where the camera learnt they sit, and a tap on one says who sits there instead (the
frame endpoint's answers and the seat fix stood in for: the server's side is test_seats)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Request, Route

from tests.webui.test_browser_table_page import (
    FAKE_CAMERA,
    SIZES,
    browser,
    frame_answer,
    new_page,
    shot,
)
from tests.webui.test_serve import Server

pytestmark = pytest.mark.slow  # a real browser: left out of the fast loop

NAMES = ["Ann", "Bob", "Cy", "Di"]
#: Where the camera learnt three of the four seats, as fractions of the picture.
LEARNT = {0: (0.5, 0.85), 1: (0.15, 0.5), 2: (0.5, 0.2)}


def test_learnt_seats_are_named_on_the_picture_and_a_tap_puts_one_right(
    server: Server, tmp_path: Path
) -> None:
    status, created = server.call("POST", "/api/games", {"players": 4, "names": NAMES})
    assert status == 201, created
    game_id = str(created["id"])
    assert (
        server.call("POST", f"/api/games/{game_id}/actions", {"kind": "dealer", "seat": 3})[0]
        == 200
    )
    errors: list[str] = []
    fixes: list[dict[str, Any]] = []
    picture: dict[str, int] = {}  # the fake camera's frame, width and height

    def learnt(where: dict[int, tuple[float, float]]) -> list[dict[str, Any]]:
        width, height = picture["width"], picture["height"]
        return [{"seat": s, "at": [x * width, y * height], "fixed": False}
                for s, (x, y) in where.items()]  # fmt: skip

    def answer(route: Route) -> None:
        body = frame_answer([], (picture["width"], picture["height"]))
        body["table"]["learnt"] = learnt(LEARNT)
        route.fulfill(status=200, content_type="application/json", body=json.dumps(body))

    def fix(route: Route, request: Request) -> None:
        body = request.post_data_json
        assert isinstance(body, dict)
        fixes.append(body)
        swapped = {1: LEARNT[0], 0: LEARNT[1], 2: LEARNT[2]}
        route.fulfill(status=200, content_type="application/json",
                      body=json.dumps({"learnt": learnt(swapped)}))  # fmt: skip

    with browser(*FAKE_CAMERA) as chromium:
        for size in SIZES:
            page = new_page(chromium, size, errors)

            page.goto(f"{server.url}/games/{game_id}/table")
            page.wait_for_function("document.getElementById('camera-video').videoWidth > 0")
            size_now = page.locator("#camera-video").evaluate(
                "(v) => [v.videoWidth, v.videoHeight]"
            )
            picture.update(width=size_now[0], height=size_now[1])
            page.route(f"**/api/games/{game_id}/frame?table=1", answer)
            page.route(f"**/api/games/{game_id}/table/seats", fix)
            marks = page.locator(".seat-mark")
            marks.nth(2).wait_for()
            assert marks.all_inner_texts() == ["Ann", "Bob", "Cy"]  # Di's seat not learnt yet
            # each name where its seat was learnt, as a share of the picture shown
            view = page.locator("#view").bounding_box()
            ann = marks.nth(0).bounding_box()
            assert view is not None and ann is not None
            x = (ann["x"] + ann["width"] / 2 - view["x"]) / view["width"]
            y = (ann["y"] + ann["height"] / 2 - view["y"]) / view["height"]
            assert abs(x - 0.5) < 0.03 and abs(y - 0.85) < 0.05, (x, y)
            shot(page, tmp_path, f"table-seats-{size}")

            marks.nth(0).click()  # Ann's name lies where Bob sits
            chooser = page.locator(".seat-chooser")
            chooser.wait_for()
            assert chooser.locator("button").all_inner_texts() == ["Bob", "Cy", "Di", "Cancel"]
            shot(page, tmp_path, f"table-seat-chooser-{size}")
            chooser.locator("button", has_text="Bob").click()
            chooser.wait_for(state="detached")
            assert fixes[-1] == {"seat": 0, "player": 1}
            page.close()
    assert errors == []
