"""The server camera's overlay in a real browser: only the cards read on the frame shown are
drawn on it; a card the smoothed table keeps through a gap (`in_frame` false: read on an
earlier picture) is not drawn at its old place on the current one."""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from playwright.sync_api import Route

from tests.webui.test_browser import chromium, phone_page
from tests.webui.test_serve import Server

pytestmark = pytest.mark.slow  # a real browser: left out of the fast loop


JPEG = cv2.imencode(".jpg", np.full((48, 64, 3), 90, np.uint8))[1].tobytes()


def card(code: str, in_frame: bool) -> dict[str, object]:
    boxes = [[10, 10, 20, 30]] if in_frame else []
    return {"card": code, "confidence": 0.9, "box": [10, 10, 60, 90], "index_boxes": boxes,
            "in_frame": in_frame, "role": "play:bottom"}  # fmt: skip


def view(revision: int, cards: list[dict[str, object]]) -> dict[str, object]:
    table = {"cards": cards, "undecided": [], "conflicts": [], "shows": [], "starter": None}
    return {"enabled": True, "source": "fake", "state": "live", "detail": "", "model": True,
            "revision": revision, "watching": True, "suggestions": [], "table": table,
            "frame": {"index": revision, "size": [640, 480], "small_indices": False,
                      "cut_at_edge": False}}  # fmt: skip


DRAW = """async (views) => {
  const drawn = [];
  window.drawBoxes = (canvas, width, height, cards) => drawn.push(cards.map((c) => c.card));
  const make = (tag) => document.createElement(tag);
  const els = {status: make("p"), img: new Image(), overlay: make("canvas"),
               suggestions: make("ol")};
  const camera = new ServerCamera(document.getElementById("game").dataset.game, els, () => {});
  for (const v of views) {
    const loaded = new Promise((ok, fail) => {
      els.img.addEventListener("load", ok, {once: true});
      els.img.addEventListener("error", () => fail(new Error("no picture")), {once: true});
    });
    camera.show(v);
    await loaded;
    await new Promise((ok) => setTimeout(ok, 0));  // the page's own onload has drawn
  }
  return drawn;
}"""


def test_the_overlay_draws_only_the_cards_read_on_the_frame_shown(server: Server) -> None:
    status, created = server.call("POST", "/api/games", {"players": 2, "first_dealer": 1})
    assert status == 201
    with chromium() as browser:
        errors: list[str] = []
        page = phone_page(browser, errors)

        def frame(route: Route) -> None:  # the server camera's picture, as a test JPEG
            route.fulfill(status=200, content_type="image/jpeg", body=JPEG)

        page.route("**/api/camera/frame.jpg*", frame)
        page.goto(f"{server.url}/games/{created['id']}")
        page.wait_for_function("typeof ServerCamera === 'function'")
        frames = [
            view(1, [card("5H", True), card("KS", True)]),
            view(2, [card("5H", False), card("KS", True)]),  # 5H gone from the new picture
        ]
        drawn = page.evaluate(DRAW, frames)
    assert drawn == [["5H", "KS"], ["KS"]]
    assert errors == []
