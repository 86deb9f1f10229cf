"""Teaching the deck as a first-run step, in a real browser: the camera's first start on a device
reading with the base model offers "Read your deck better: take 4 photos" (table mode and the
form's camera), the link opens the enrol page in a new tab and leaves the game open, and once
dismissed the offer stays gone on that device. The enrol page's default is any photos of the
deck, and a finished tune shows the figure it measured in plain words."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import cv2
import pytest
from playwright import sync_api
from playwright.sync_api import BrowserContext, Page, Route, ViewportSize

from cribtrain.data.synth import load_decks
from tests.vision.decks.test_enroll import FIXTURE, layout
from tests.webui.test_browser import ARGS, BYPASS_CSP, CHROMIUM
from tests.webui.test_serve import Server

pytestmark = pytest.mark.slow  # a real browser: left out of the fast loop

PHONE: ViewportSize = {"width": 390, "height": 844}
DESKTOP: ViewportSize = {"width": 1280, "height": 800}
OFFER = "Read your deck better: take 4 photos"
#: Screenshots go here too when set, to be looked at (they always go to the test's tmp_path).
SHOTS = os.environ.get("CRIBCAM_SHOTS")


@contextmanager
def fake_camera() -> Iterator[sync_api.Browser]:
    """Chromium with its fake camera (its own test pattern) allowed without asking."""
    camera = ["--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream"]
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS + camera)
        try:
            yield browser
        finally:
            browser.close()


def new_page(context: BrowserContext, errors: list[str]) -> Page:
    page = context.new_page()
    page.set_default_timeout(90_000)  # a loaded 2-core machine is slow
    page.on("pageerror", lambda error: errors.append(str(error)))
    return page


def shot(page: Page, tmp_path: Path, name: str, **options: Any) -> None:
    page.screenshot(path=str(tmp_path / f"{name}.png"), **options)
    if SHOTS:
        Path(SHOTS).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(SHOTS) / f"{name}.png"), **options)


def camera_on(page: Page) -> None:
    """Wait until the page's camera has started (the offer is decided as it starts)."""
    page.wait_for_function(
        "document.getElementById('camera-status').textContent.startsWith('Camera on')"
    )


def new_game(server: Server) -> str:
    status, created = server.call("POST", "/api/games", {"players": 2, "names": ["Ann", "Bob"]})
    assert status == 201, created
    return str(created["id"])


def test_the_camera_s_first_start_offers_teaching_until_dismissed(
    server: Server, tmp_path: Path
) -> None:
    game = new_game(server)
    errors: list[str] = []
    with fake_camera() as browser:
        for size, viewport in (("phone", PHONE), ("desktop", DESKTOP)):
            context = browser.new_context(viewport=viewport, bypass_csp=BYPASS_CSP)
            page = new_page(context, errors)
            page.goto(f"{server.url}/games/{game}/table")  # the camera starts by itself
            offer = page.locator("#teach-offer")
            offer.wait_for()
            link = offer.get_by_role("link", name=OFFER)
            assert (link.get_attribute("href"), link.get_attribute("target")) == (
                "/enroll",
                "_blank",
            )
            box, view = offer.bounding_box(), page.locator("#view").bounding_box()
            assert box and view and box["y"] >= view["y"] + view["height"]  # never over the picture
            assert box["y"] + box["height"] <= viewport["height"]  # in sight without scrolling
            assert box["x"] + box["width"] <= viewport["width"]  # nothing overflows the screen
            shot(page, tmp_path, f"offer-table-{size}")

            with context.expect_page() as opened:
                link.click()
            enrol = opened.value
            enrol.wait_for_load_state()
            assert enrol.url == f"{server.url}/enroll"
            assert page.url == f"{server.url}/games/{game}/table"  # the game stays open
            enrol.close()

            page.get_by_role("button", name="Not now").click()
            offer.wait_for(state="detached")
            page.reload()
            camera_on(page)
            assert page.locator("#teach-offer").count() == 0  # gone on this device
            form = new_page(context, errors)  # ...on the form's camera too
            form.goto(f"{server.url}/games/{game}")
            form.click("#camera-panel summary")
            form.click("#camera-start")
            camera_on(form)
            assert form.locator("#teach-offer").count() == 0
            context.close()
    assert errors == []


def test_the_form_s_camera_offers_teaching_unless_a_deck_is_in_use(
    server: Server, tmp_path: Path
) -> None:
    game = new_game(server)
    errors: list[str] = []
    with fake_camera() as browser:
        context = browser.new_context(viewport=PHONE, bypass_csp=BYPASS_CSP)
        page = new_page(context, errors)
        page.goto(f"{server.url}/games/{game}")
        page.click("#camera-panel summary")
        # a deck in use reads the cards already: nothing to offer
        page.evaluate("document.getElementById('game').dataset.deck = 'kitchen'")
        page.click("#camera-start")
        camera_on(page)
        assert page.locator("#teach-offer").count() == 0
        page.click("#camera-start")  # stop it
        page.evaluate("document.getElementById('game').dataset.deck = ''")
        page.click("#camera-start")
        page.locator("#teach-slot #teach-offer").wait_for()
        assert page.get_by_role("link", name=OFFER).get_attribute("href") == "/enroll"
        page.locator("#teach-offer").scroll_into_view_if_needed()
        shot(page, tmp_path, "offer-form-phone")
        context.close()
    assert errors == []


def test_the_enrol_page_takes_any_photos_and_shows_the_measured_figure(
    server: Server, tmp_path: Path
) -> None:
    """Two photos where a card repeats are both taken (the shipped models read them); a
    finished tune (its status stood in for: the tune itself is tested in test_tune.py and
    decks/test_api.py) shows its figure, and the device no longer offers teaching."""
    decks = load_decks([FIXTURE])
    photos = []
    for k, cards in enumerate((["QH", "3S", "10D", "AC"], ["AC", "5H", "9C", "QH"])):
        photos.append(tmp_path / f"photo-{k}.jpg")
        assert cv2.imwrite(str(photos[-1]), layout(decks, cards, seed=20 + k)[0])
    done = {"state": "done", "deck": "My deck", "fraction": 1.0, "text": "done", "seconds": 171.0,
            "accuracy_before": 0.913, "accuracy_after": 0.981, "held_out": 52,
            "kept_base": False, "ink": "dark"}  # fmt: skip

    def decks_with_the_tune_done(route: Route) -> None:
        answer = route.fetch()
        route.fulfill(response=answer, body=json.dumps({**answer.json(), "tune": done}))

    errors: list[str] = []
    with fake_camera() as browser:
        for size, viewport in (("phone", PHONE), ("desktop", DESKTOP)):
            context = browser.new_context(viewport=viewport, bypass_csp=BYPASS_CSP)
            page = new_page(context, errors)
            page.goto(f"{server.url}/enroll")
            assert page.input_value("#mode") == "any" and page.is_hidden("#suits-label")
            assert page.input_value("#start-form input[name=name]") == "My deck"
            page.click("#start-form button[type=submit]")
            page.wait_for_selector("#shoot-panel:not([hidden])")
            assert page.inner_text("#shot-title") == "Photo 1 of 4: any cards of your deck"
            for k, photo in enumerate(photos):
                page.set_input_files("#shot-file", str(photo))
                page.wait_for_selector(f"#shots li:nth-child({k + 1})")  # read, not refused
            assert page.inner_text("#shot-title") == "Photo 3 of 4: any cards of your deck"
            assert page.locator("#grid .tile").count() >= 6
            shot(page, tmp_path, f"enrol-photos-{size}", full_page=True)

            page.route("**/api/decks", decks_with_the_tune_done)
            page.reload()
            figure = page.locator("#tune-figure")
            figure.wait_for()
            assert figure.inner_text() == "Your deck's corners read right: 91% before, 98% now."
            assert "52 corners of your photos" in page.inner_text("#tune-result")
            assert page.evaluate("localStorage.getItem('cribcam-teach-offer')") == "taught"
            shot(page, tmp_path, f"enrol-result-{size}")
            context.close()
    assert errors == []
