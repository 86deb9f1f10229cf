"""Table mode's page in a real browser, on what the players meet before the deal flows: the cards
it cannot place said in large type with what to do (once it lasts, gone once fixed), the card
names on the picture large enough to read across the table, the demo photo where there is no
camera, and card buttons named as cards ("10 of spades") to a screen reader."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from playwright import sync_api
from playwright.sync_api import Page, Route, ViewportSize

from tests.webui.test_browser import ARGS, BYPASS_CSP, CHROMIUM
from tests.webui.test_serve import Server

pytestmark = pytest.mark.slow  # a real browser: left out of the fast loop

SIZES: dict[str, ViewportSize] = {
    "phone": {"width": 390, "height": 844},
    "desktop": {"width": 1280, "height": 800},
}
#: Screenshots go here too when set, to be looked at (they always go to the test's tmp_path).
SHOTS = os.environ.get("CRIBCAM_SHOTS")
#: A card off every seat (at the left of the fake camera's picture) and a hand in two groups at
#: Bob's edge, as the frame endpoint's table says them.
OFF_SEAT = {"cards": ["7H"], "reason": "not in front of any seat", "code": "no seat",
            "edges": [], "zone": "", "count": 0}  # fmt: skip
SPLIT = [{"cards": [card], "reason": "2 separate groups in seat top's hand zone", "code": "groups",
          "edges": ["top"], "zone": "hand", "count": 2} for card in ("2C", "KD")]  # fmt: skip
#: Their boxes, as fractions of the picture's width and height.
BOXES = {"7H": (0.05, 0.42, 0.12, 0.58), "2C": (0.23, 0.02, 0.3, 0.12),
         "KD": (0.7, 0.02, 0.77, 0.12)}  # fmt: skip
SAID = [
    "7♥ at the left of the picture is not in front of any player: move it in front of a player.",
    "Bob's hand lies in 2 separate groups: keep it together.",
]
#: The label height on the screen (CSS px) of the overlay's last drawing.
LABEL_PX = """(() => { const canvas = document.getElementById("overlay");
  const px = Number(/(\\d+)px/.exec(canvas.getContext("2d").font)[1]);
  return px * canvas.clientWidth / canvas.width; })()"""
#: A device without a camera: none listed, none to open.
NO_CAMERA = """const devices = navigator.mediaDevices;
Object.defineProperty(devices, "enumerateDevices", { value: async () => [] });
Object.defineProperty(devices, "getUserMedia", {
  value: async () => { throw new DOMException("no camera", "NotFoundError"); } });"""
FAKE_CAMERA = ("--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream")
#: Whether the trouble box was ever shown, from when this runs on.
WATCH_TROUBLE = """window.troubleShown = false;
new MutationObserver(() => { window.troubleShown ||= !document.getElementById("trouble").hidden; })
  .observe(document.getElementById("trouble"), { attributes: true, childList: true })"""


def frame_answer(undecided: list[dict[str, Any]], size: tuple[int, int]) -> dict[str, Any]:
    """The frame endpoint's answer in table mode with these groups undecided, for a picture of
    `size` (width, height)."""
    width, height = size
    boxes = {card: [x1 * width, y1 * height, x2 * width, y2 * height]
             for card, (x1, y1, x2, y2) in BOXES.items()}  # fmt: skip
    cards = [{"card": c, "confidence": 0.9, "box": boxes[c], "index_boxes": [boxes[c]],
              "in_frame": True, "role": "undecided"}
             for group in undecided for c in group["cards"]]  # fmt: skip
    table = {"cards": cards, "play": {"bottom": [], "top": []}, "starter": None, "crib": [],
             "undecided": undecided, "conflicts": [], "seats": {"bottom": 0, "top": 1},
             "shows": []}  # fmt: skip
    return {"image": "x", "cards": cards, "table": table, "frame": "f",
            "table_mode": {"question": None, "last": None}}  # fmt: skip


@contextmanager
def browser(*extra: str) -> Iterator[sync_api.Browser]:
    with sync_api.sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, args=ARGS + list(extra))
        try:
            yield launched
        finally:
            launched.close()


def new_page(chromium: sync_api.Browser, size: str, errors: list[str], **options: Any) -> Page:
    page = chromium.new_page(viewport=SIZES[size], bypass_csp=BYPASS_CSP, **options)
    page.set_default_timeout(90_000)  # a loaded 2-core machine is slow
    page.on("pageerror", lambda error: errors.append(str(error)))
    return page


def shot(page: Page, tmp_path: Path, name: str) -> None:
    page.screenshot(path=str(tmp_path / f"{name}.png"))
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / f"{name}.png"))


def dealt_by_ann(server: Server) -> str:
    status, created = server.call("POST", "/api/games", {"players": 2, "names": ["Ann", "Bob"]})
    assert status == 201, created
    game_id = str(created["id"])
    status, _ = server.call("POST", f"/api/games/{game_id}/actions", {"kind": "dealer", "seat": 0})
    assert status == 200
    return game_id


def test_what_the_camera_cannot_place_is_said_once_it_lasts_and_unsaid_once_fixed(
    server: Server, tmp_path: Path
) -> None:
    """The frames' answers stood in for (the server's side is test_table_mode's): one frame's
    slip says nothing; a card off every seat and a split hand, held, are said with what to do,
    in large type, and go once the cards are moved. The card names on the picture are large."""
    game_id = dealt_by_ann(server)
    seen: dict[str, Any] = {"undecided": [], "frames": 0, "once": False, "size": (640, 480)}

    def answer(route: Route) -> None:
        seen["frames"] += 1
        body = frame_answer(seen["undecided"], seen["size"])
        if seen["once"]:
            seen["undecided"] = []  # the slip lasts one frame
        route.fulfill(status=200, content_type="application/json", body=json.dumps(body))

    def frames(n: int, page: Page, seconds: float = 0.0) -> None:
        """Until `n` more frames are answered, and `seconds` have passed (the page forgets a
        slip by its age, not a count of frames: they come as fast as they are answered)."""
        until, after = seen["frames"] + n, time.monotonic() + seconds
        while seen["frames"] < until or time.monotonic() < after:
            page.wait_for_timeout(50)

    errors: list[str] = []
    label_px: dict[str, float] = {}
    with browser(*FAKE_CAMERA) as chromium:
        for size in SIZES:
            page = new_page(chromium, size, errors)
            page.route(f"**/api/games/{game_id}/frame?table=1", answer)
            page.goto(f"{server.url}/games/{game_id}/table")
            page.wait_for_selector(".prompt .hint")
            page.wait_for_function("document.getElementById('camera-video').videoWidth > 0")
            video = page.locator("#camera-video")
            seen["size"] = tuple(video.evaluate("(v) => [v.videoWidth, v.videoHeight]"))
            page.evaluate(WATCH_TROUBLE)
            seen.update(undecided=[OFF_SEAT], once=True)
            frames(10, page, 2.5)  # frames for 2.5 s after the slip
            assert page.evaluate("window.troubleShown") is False

            seen.update(undecided=[OFF_SEAT, *SPLIT], once=False)
            held = time.monotonic()
            trouble = page.locator("#trouble")
            trouble.locator("p").first.wait_for()
            assert time.monotonic() - held >= 1.4  # said once it lasts, not on the first frame
            assert trouble.locator("p").all_inner_texts() == SAID
            assert float(trouble.evaluate("(e) => parseFloat(getComputedStyle(e).fontSize)")) >= 20
            assert page.is_hidden(".prompt .hint")  # the hint gives way to what to do
            label_px[size] = page.evaluate(LABEL_PX)
            shot(page, tmp_path, f"table-trouble-{size}")

            seen.update(undecided=[])
            trouble.wait_for(state="hidden")
            assert page.is_visible(".prompt .hint")
            page.close()
    # the card names on the picture: readable across a table, larger on a larger picture
    assert 22 <= label_px["phone"] < label_px["desktop"] <= 45, label_px  # 44 px, rounded
    assert errors == []


def test_without_a_camera_the_demo_photo_is_read_and_the_game_left_as_it_is(
    server: Server, tmp_path: Path
) -> None:
    game_id = dealt_by_ann(server)
    before = server.call("GET", f"/api/games/{game_id}")[1]
    errors: list[str] = []
    posted: list[str] = []
    with browser() as chromium:
        page = new_page(chromium, "phone", errors)
        page.add_init_script(NO_CAMERA)
        page.on("request", lambda request: posted.append(request.url))
        page.goto(f"{server.url}/games/{game_id}/table")
        page.get_by_role("button", name="Try the demo photo").click()
        page.wait_for_function(
            "document.getElementById('camera-status').textContent.startsWith('The demo photo:')"
        )
        status = page.inner_text("#camera-status")
        assert "cards read" in status, status
        assert page.is_visible("#demo-img") and page.is_hidden("#demo-photo")
        assert page.evaluate(LABEL_PX) >= 22  # its cards named as large as the camera's
        shot(page, tmp_path, "table-demo-phone")
        page.close()
    frames = [url for url in posted if "/frame" in url]
    assert frames and all("table=1" not in url for url in frames)  # read, never applied
    after = server.call("GET", f"/api/games/{game_id}")[1]
    assert (after["revision"], after["phase"]) == (before["revision"], "deal")
    assert errors == []


QUESTION = {
    "key": "deal 1 play 1", "kind": "play", "seat": 1, "sure": False, "claim": False,
    "frame": None, "text": "seat 1 played 10S", "doubt": "not surely read",
    "doubt_code": "unsure", "doubt_args": {},
    "options": [{"cards": [card], "chance": 0.5,
                 "actions": [{"kind": "play", "seat": 1, "card": card}]}
                for card in ("10S", "10C")],
}  # fmt: skip


@pytest.mark.parametrize(("language", "names", "picker"), [
    ("en", ["10 of spades", "10 of clubs"], "ace of spades"),
    ("da", ["spar 10", "klør 10"], "spar es"),
    ("ro", ["10 de pică", "10 de treflă"], "as de pică"),
])  # fmt: skip
def test_card_buttons_are_named_as_cards_in_the_page_s_language(
    server: Server, language: str, names: list[str], picker: str
) -> None:
    game_id = dealt_by_ann(server)
    errors: list[str] = []
    with browser() as chromium:
        page = new_page(chromium, "phone", errors)
        page.context.add_cookies([{"name": "cribcam-lang", "value": language, "url": server.url}])
        page.add_init_script(NO_CAMERA)
        asked = {"question": QUESTION, "last": None}
        page.route(f"**/api/games/{game_id}/table", lambda route: route.fulfill(json=asked))
        page.goto(f"{server.url}/games/{game_id}/table")
        buttons = page.locator(".question .options")
        answers = [buttons.get_by_role("button", name=name, exact=True) for name in names]
        assert [button.inner_text() for button in answers] == ["10♠", "10♣"]  # to the eye
        page.goto(f"{server.url}/games/{game_id}")  # the form's picker
        assert page.get_attribute("#picker button[data-card=AS]", "aria-label") == picker
        page.close()
    assert errors == []


#: A crib seen with a card never read (`Proposal.partial`).
UNREAD = {
    "key": "deal 1 crib of seat 0", "kind": "crib", "seat": 0, "sure": False, "claim": False,
    "frame": None, "text": "seat 0's crib 9C 9D QS and a card unread",
    "doubt": "a crib card is not seen", "doubt_code": "crib card unseen", "doubt_args": {},
    "options": [], "partial": ["9C", "9D", "QS"],
}  # fmt: skip


@contextmanager
def faked_table(server: Server, game_id: str, status: dict[str, Any], size: str,
                errors: list[str]) -> Iterator[tuple[Page, list[dict[str, Any]]]]:  # fmt: skip
    """Table mode's page showing `status` (its question and last step), with the bodies of the
    answers and undos it posts, kept and not sent."""
    posted: list[dict[str, Any]] = []

    def keep(route: Route) -> None:
        posted.append(json.loads(route.request.post_data or "{}"))
        route.fulfill(json={"question": None, "last": None})

    with browser() as chromium:
        page = new_page(chromium, size, errors)
        page.add_init_script(NO_CAMERA)
        page.route(f"**/api/games/{game_id}/table", lambda route: route.fulfill(json=status))
        for reply in ("answer", "undo"):
            page.route(f"**/api/games/{game_id}/table/{reply}", keep)
        page.goto(f"{server.url}/games/{game_id}/table")
        yield page, posted
        page.close()


@pytest.mark.parametrize("size", SIZES)
def test_a_crib_card_never_read_is_one_tap_in_the_question_s_picker(
    server: Server, tmp_path: Path, size: str
) -> None:
    """The question says the three crib cards read; the picker leaves them out, and a tap on
    the fourth answers with all four."""
    game_id = dealt_by_ann(server)
    errors: list[str] = []
    with faked_table(server, game_id, {"question": UNREAD, "last": None}, size, errors) as (
        page, posted
    ):  # fmt: skip
        ask = page.locator(".question .ask")
        ask.wait_for()
        assert ask.inner_text() == "Ann's crib 9♣ 9♦ Q♠?"
        assert page.locator(".question .doubt").inner_text() == "a crib card is not seen"
        picker = page.locator(".question .picker")
        assert picker.locator("button[data-card=QS]").is_hidden()
        shot(page, tmp_path, f"table-crib-unread-{size}")
        picker.get_by_role("button", name="9 of hearts", exact=True).click()
        page.wait_for_function("() => !document.querySelector('.question')")
    assert posted == [{"key": UNREAD["key"], "cards": ["9C", "9D", "QS", "9H"]}]
    assert errors == []


def test_a_play_question_takes_any_other_card_by_its_seat_in_one_tap(
    server: Server, tmp_path: Path
) -> None:
    """A card misread, or laid where the camera missed it: the question's picker names it."""
    game_id = dealt_by_ann(server)
    errors: list[str] = []
    with faked_table(server, game_id, {"question": QUESTION, "last": None}, "phone", errors) as (
        page, posted
    ):  # fmt: skip
        other = page.locator(".question .ask-other")
        other.wait_for()
        assert other.inner_text() == "Another card by Bob:"
        shot(page, tmp_path, "table-play-question-phone")
        page.locator(".question .picker").get_by_role("button", name="3 of clubs").click()
        page.wait_for_function("() => !document.querySelector('.question')")
    assert posted == [{"key": QUESTION["key"], "cards": ["3C"]}]
    assert errors == []


def test_a_card_applied_by_itself_is_corrected_with_any_card_in_two_taps(
    server: Server, tmp_path: Path
) -> None:
    """ "Wrong card?" opens the other options and the picker; a card tapped there is the
    correction the page sends."""
    game_id = dealt_by_ann(server)
    revision = server.call("GET", f"/api/games/{game_id}")[1]["revision"]
    errors: list[str] = []
    applied = {**QUESTION, "sure": True, "doubt": "", "doubt_code": "",
               "applied": QUESTION["options"][0], "steps": 1, "revision": revision,
               "at": time.time()}  # fmt: skip
    with faked_table(server, game_id, {"question": None, "last": applied}, "phone", errors) as (
        page, posted
    ):  # fmt: skip
        page.get_by_role("button", name="Wrong card?").click()
        picker = page.locator(".applied .picker")
        picker.wait_for()
        shot(page, tmp_path, "table-wrong-card-phone")
        picker.get_by_role("button", name="3 of clubs").click()
        page.wait_for_function("() => !document.querySelector('.applied .picker')")
    assert posted == [{"key": QUESTION["key"], "cards": ["3C"]}]
    assert errors == []
