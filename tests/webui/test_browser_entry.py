"""A half-made entry on the form survives a reload (or a phone locked and woken): the dealt
hands picked so far come back, in the same entry mode, and nothing is recorded meanwhile; the
next taps go on with the entry, never to the hidden-hands starter picker beside it."""

from __future__ import annotations

from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from playwright import sync_api

from scorer.cards import parse_cards
from scorer.game import Game
from scorer.settings import Settings
from tests.webui.test_browser import chromium, phone_page
from tests.webui.test_browser_game import DEALT, NAMES, Table, start_game
from tests.webui.test_serve import Server, free_port

pytestmark = pytest.mark.slow  # a real browser: left out of the fast loop

SHOTS = Path("/tmp/shots2")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    running = Server(tmp_path / "games.sqlite3", tmp_path / "data", port=free_port())
    yield running
    running.stop()


def recorded(server: Server, page: sync_api.Page) -> dict[str, Any]:
    """What the server holds of the page's game: its phase, log and revision."""
    game_id = page.url.rstrip("/").rsplit("/", 1)[1]
    status, answer = server.call("GET", f"/api/games/{game_id}")
    assert status == 200, answer
    return {key: answer[key] for key in ("phase", "log", "revision", "actions")}


def chosen(page: sync_api.Page) -> list[str]:
    cards: list[str] = page.locator("#picker button.chosen").evaluate_all(
        "bs => bs.map(b => b.dataset.card)"
    )
    return cards


def reload(table: Table) -> None:
    table.page.reload()
    table.synced()


def shoot(page: sync_api.Page, name: str) -> None:
    """Screenshots at phone and desktop size, for a person to look at."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    for width, height in ((390, 844), (1280, 800)):
        page.set_viewport_size({"width": width, "height": height})
        page.evaluate("() => document.getElementById('now').scrollIntoView()")
        page.evaluate("() => window.scrollBy(0, -110)")  # out from under the sticky header
        page.screenshot(path=str(SHOTS / f"{name}-{width}.png"))
    page.set_viewport_size({"width": 420, "height": 900})


def test_dealt_hands_half_entered_survive_a_reload(server: Server) -> None:
    with chromium() as browser:
        errors: list[str] = []
        page = phone_page(browser, errors)
        table = start_game(page, server.url, Settings())
        page.get_by_role("button", name="Enter the dealt hands").click()
        for card in DEALT[0][:3]:
            page.click(f"#picker button[data-card='{card}']")
        before = recorded(server, page)
        assert before["phase"] == "deal"

        reload(table)
        assert chosen(page) == DEALT[0][:3]
        assert page.inner_text("#picker-prompt") == "Ann's 6 cards"
        assert page.get_by_role("button", name="Dealt (hands stay hidden)").count() == 0
        shoot(page, "entry-after-reload")
        assert recorded(server, page) == before  # nothing was recorded by the reload

        for card in DEALT[0][3:] + DEALT[1][:2]:  # the first hand done, the second begun
            page.click(f"#picker button[data-card='{card}']")
        reload(table)
        assert page.inner_text("#picker-prompt") == "Bob's 6 cards"
        assert chosen(page) == DEALT[1][:2]
        assert all(page.is_hidden(f"#picker button[data-card='{c}']") for c in DEALT[0])
        assert recorded(server, page) == before

        table.act(partial(Game.deal, hands=[parse_cards(h) for h in DEALT]), picks=[DEALT[1][2:]])
        log = recorded(server, page)["log"]
        assert log[-1]["kind"] == "deal" and log[-1]["cards"] == DEALT[0] + DEALT[1]
        assert page.evaluate("() => Object.keys(localStorage)") == []  # the draft is done with
        reload(table)
        assert page.inner_text("#now-title") == "Lay away to the crib"
        assert errors == []


def test_leaving_the_hands_entry_is_its_own_tap(server: Server) -> None:
    """The starter picker (whose one tap records the deal and its starter) comes back only by
    the button that says so, and stays back after a reload."""
    with chromium() as browser:
        errors: list[str] = []
        page = phone_page(browser, errors)
        table = start_game(page, server.url, Settings())
        page.get_by_role("button", name="Enter the dealt hands").click()
        page.click(f"#picker button[data-card='{DEALT[0][0]}']")
        before = recorded(server, page)
        page.get_by_role("button", name="Stop entering the hands (keep them hidden)").click()
        assert page.inner_text("#picker-prompt").startswith("Hands hidden")
        assert chosen(page) == []
        reload(table)
        assert page.inner_text("#picker-prompt").startswith("Hands hidden")
        assert recorded(server, page) == before
        assert NAMES[0] in page.inner_text("#scores")
        assert errors == []
