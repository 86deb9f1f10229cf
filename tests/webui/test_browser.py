"""The page in a real browser (Debian's Chromium through Playwright; `.ci/run` installs it):
start a game from the home page, play with the card picker, and watch a second page of the
same game follow live."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright import sync_api

from tests.webui.conftest import HANDS
from tests.webui.test_serve import Server

pytestmark = pytest.mark.slow  # a real browser: left out of the fast loop

CHROMIUM = os.environ.get("CRIBCAM_CHROMIUM", "/usr/bin/chromium")
assert Path(CHROMIUM).exists(), f"no Chromium at {CHROMIUM}: apt-get install chromium"

ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


#: Playwright's wait_for_function evaluates its predicate with eval, which the page's content
#: security policy forbids: these tests look past it; test_browser_security runs under it.
BYPASS_CSP = True


@contextmanager
def chromium() -> Iterator[sync_api.Browser]:
    """Debian's Chromium, headless, closed afterwards."""
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield browser
        finally:
            browser.close()


def game_in_the_play(server: Server, *plays: str) -> str:
    """A two-player game of the known deal (`HANDS`: seat 1 deals, seat 0 leads, starter 5S)
    at its play, after `plays`; its id."""
    status, created = server.call("POST", "/api/games", {"players": 2, "first_dealer": 1})
    assert status == 201
    actions = [
        {"kind": "deal", "hands": HANDS},
        {"kind": "discard", "seat": 0, "cards": ["9H", "QD"]},
        {"kind": "discard", "seat": 1, "cards": ["KH", "8S"]},
        {"kind": "starter", "card": "5S"},
        *({"kind": "play", "card": card} for card in plays),
    ]
    for action in actions:
        assert server.call("POST", f"/api/games/{created['id']}/actions", action)[0] == 200
    game_id: str = created["id"]
    return game_id


def phone_page(browser: sync_api.Browser, errors: list[str]) -> sync_api.Page:
    """A phone-sized page whose script errors land in `errors`."""
    page = browser.new_page(viewport={"width": 420, "height": 900}, bypass_csp=BYPASS_CSP)
    page.set_default_timeout(90_000)  # a loaded 2-core machine is slow
    page.on("pageerror", lambda error: errors.append(str(error)))
    return page


def test_play_from_the_page_and_a_second_page_follows(server: Server, tmp_path: Path) -> None:
    with chromium() as browser:
        errors: list[str] = []
        page = phone_page(browser, errors)
        page.goto(server.url + "/")
        page.fill("input[name=names]", "Ann, Bob")
        page.click("button[value=form]")
        page.wait_for_url("**/games/*")
        page.get_by_role("button", name="Bob deals").click()
        page.get_by_role("button", name="Dealt (hands stay hidden)").click()
        page.get_by_role("button", name="Ann: laid away").click()
        page.get_by_role("button", name="Bob: laid away").click()
        page.click("#picker button[data-card=JS]")  # the tap that completes a pick sends it
        page.wait_for_selector("text=His heels: Bob pegs 2")

        watcher = phone_page(browser, errors)
        watcher.goto(page.url)
        watcher.wait_for_selector("#live.on")

        page.click("#picker button[data-card='7H']")
        page.wait_for_function("document.getElementById('count').textContent === '7'")
        page.fill("#claim", "1")  # a short claim (15 for 2), typed before the card
        page.click("#picker button[data-card='8D']")
        watcher.wait_for_function("document.getElementById('count').textContent === '15'")
        assert "claimed 1 of 2" in watcher.inner_text("#muggins")
        assert watcher.locator("#muggins button").count() == 0  # not a muggins game
        scores = watcher.inner_text("#scores").split()
        assert scores == ["Ann", "0", "Bob", "4", "deals", "·", "crib"]  # heels + 15
        watcher.screenshot(path=str(tmp_path / "watcher.png"), full_page=True)

        page.click("#undo")
        watcher.wait_for_function("document.getElementById('count').textContent === '7'")
        assert page.is_disabled("#picker button[data-card='7H']")  # already played
        assert errors == []
    assert (tmp_path / "watcher.png").stat().st_size > 0
