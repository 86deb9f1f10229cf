"""The game's pages in English, Danish and Romanian in a real browser at phone size: the browser's
language chooses, the switch in the header changes it and the device keeps it, the counts are
said in the language, nothing is wider than the phone or cut off in a button. Screenshots of the
form and of table mode in each language are kept in CRIBCAM_SHOTS (default
/tmp/cribcam-language-shots) for a person to look at; the README shows table mode's."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from playwright import sync_api

from scorer.cards import parse_card
from tests.webui.conftest import HANDS
from tests.webui.test_browser import ARGS, BYPASS_CSP, CHROMIUM
from tests.webui.test_serve import Server

pytestmark = pytest.mark.slow  # a real browser: left out of the fast loop

SHOTS = Path(os.environ.get("CRIBCAM_SHOTS", "/tmp/cribcam-language-shots"))
PHONE = {"width": 390, "height": 844}
#: What the pages say after the first deal, written out per language: the form's title, table
#: mode's turn line, and the crib's count as said (9H QD KH 8S with the 5S).
SAID = {
    "en": ("Deal 2: Ann deals", "Ann deals", "fifteen two, and fifteen four"),
    "da": ("Giv 2: Ann giver", "Ann giver", "femten to og femten fire"),
    "ro": ("Împărțirea 2: împarte Ann", "Ann împarte", "cincisprezece doi și cincisprezece patru"),
}
BROWSER_LOCALES = {"en": "en-US", "da": "da-DK", "ro": "ro-RO"}
PLURALS = {
    "en": ["1 card", "2 cards", "21 cards", "101 cards"],
    "da": ["1 kort", "2 kort", "21 kort", "101 kort"],
    "ro": ["1 carte", "2 cărți", "21 de cărți", "101 cărți"],
}
#: Table mode's question about a card read as 7H where it cannot be (Ann said go, Bob laid a 7),
#: its doubt, and its button for "not a card", per language.
ASKED = {
    "en": ("Ann said go, Bob played 7♦?", "read as 7♥, which cannot be there", "Not a card"),
    "da": ("Ann sagde go, Bob spillede 7♦?", "læst som 7♥, som ikke kan ligge der", "Ikke et kort"),
    "ro": (
        "Ann a spus go, Bob a jucat 7♦?",
        "citită ca 7♥, care nu poate fi acolo",
        "Nu e o carte",
    ),
}
QUESTION = {
    "key": "deal 2 play 2", "kind": "play", "seat": 1, "sure": False, "claim": False,
    "frame": None, "text": "seat 0 said go, seat 1 played 7D",
    "doubt": "read as 7H, which cannot be there", "doubt_code": "misread",
    "doubt_args": {"card": "7H"},
    "options": [
        {"cards": [card], "chance": chance,
         "actions": [{"kind": "go", "seat": 0}, {"kind": "play", "seat": 1, "card": card}]}
        for card, chance in (("7D", 0.5), ("7C", 0.3))
    ],
}  # fmt: skip


def first_deal_counted(server: Server) -> str:
    """A game (Ann, Bob; Bob deals) whose first deal is played out and counted, crib and all:
    the next deal is Ann's."""
    status, created = server.call(
        "POST", "/api/games", {"players": 2, "first_dealer": 1, "names": ["Ann", "Bob"]}
    )
    assert status == 201
    game_id = str(created["id"])

    def act(**action: Any) -> Any:
        status, answer = server.call("POST", f"/api/games/{game_id}/actions", action)
        assert status == 200, answer
        return answer

    act(kind="deal", hands=HANDS)
    act(kind="discard", seat=0, cards=["9H", "QD"])
    act(kind="discard", seat=1, cards=["KH", "8S"])
    game = act(kind="starter", card="5S")
    while game["phase"] == "play":  # each lays the first card that fits, else says go
        held = [c for c in HANDS[game["turn"]] if c not in ("9H", "QD", "KH", "8S")]
        played = {step["card"] for step in game["play"]}
        card = next((c for c in held if c not in played
                     and parse_card(c).value + game["count"] <= 31), None)  # fmt: skip
        game = act(**({"kind": "play", "card": card} if card else {"kind": "go"}))
    while game["phase"] == "show":
        game = act(kind="show")
    assert game["phase"] == "deal" and game["deal"] == 1
    return game_id


def fits_the_phone(page: sync_api.Page) -> None:
    """Nothing is wider than the screen, and no button's words run out of it."""
    found = page.evaluate("""() => ({
      wide: document.documentElement.scrollWidth - window.innerWidth,
      clipped: [...document.querySelectorAll("button, a.button, .langs summary, .score, .side")]
        .filter((e) => e.offsetParent !== null && e.scrollWidth > e.clientWidth + 1)
        .map((e) => e.textContent.trim()),
    })""")
    assert found == {"wide": 0, "clipped": []}


def shoot(page: sync_api.Page, name: str, full_page: bool) -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=full_page)


@pytest.fixture(scope="module")
def browser() -> Any:
    with sync_api.sync_playwright() as p:
        launched = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield launched
        launched.close()


@pytest.mark.parametrize("language", list(SAID))
def test_the_game_in_each_language_at_phone_size(
    server: Server, browser: sync_api.Browser, language: str
) -> None:
    title, turn, crib = SAID[language]
    game_id = first_deal_counted(server)
    context = browser.new_context(
        viewport=PHONE, locale=BROWSER_LOCALES[language], bypass_csp=BYPASS_CSP
    )
    errors: list[str] = []
    page = context.new_page()
    page.set_default_timeout(90_000)  # a loaded 2-core machine is slow
    page.on("pageerror", lambda error: errors.append(str(error)))

    page.goto(f"{server.url}/games/{game_id}")
    page.wait_for_function("document.getElementById('now-title').textContent !== ''")
    assert page.get_attribute("html", "lang") == language
    assert page.inner_text("#now-title") == title
    assert f"“{crib}”" in page.locator("#shows .spoken").all_inner_texts()
    assert page.get_attribute(".langs a[aria-current]", "hreflang") == language
    fits_the_phone(page)
    counted = page.evaluate("[1, 2, 21, 101].map((n) => tn('{n} card', '{n} cards', n))")
    assert counted == PLURALS[language]  # the language's plural forms, through Intl
    shoot(page, f"game-{language}", full_page=False)
    shoot(page, f"game-{language}-full", full_page=True)

    page.goto(f"{server.url}/games/{game_id}/table")
    page.wait_for_selector(".show[data-what=crib]")
    assert page.inner_text("#turn") == turn
    assert crib in page.inner_text(".show[data-what=crib] .show-total")
    fits_the_phone(page)
    shoot(page, f"table-{language}", full_page=False)

    # the camera's question, as table mode's status would hold it: the page builds its words
    asked, doubt, not_a_card = ASKED[language]
    page.route("**/api/games/*/table", lambda route: route.fulfill(
        json={"question": QUESTION, "last": None}))  # fmt: skip
    page.reload()
    page.wait_for_selector(".question[data-key='deal 2 play 2']")
    assert page.inner_text(".question .ask") == asked
    assert page.inner_text(".question .doubt") == doubt
    assert page.locator(".question .options button").all_inner_texts() == ["7♦", "7♣", not_a_card]
    fits_the_phone(page)
    shoot(page, f"table-question-{language}", full_page=False)
    assert errors == []
    context.close()


def test_the_switch_changes_the_language_and_the_device_keeps_it(
    server: Server, browser: sync_api.Browser
) -> None:
    game_id = first_deal_counted(server)
    context = browser.new_context(viewport=PHONE, locale="en-US", bypass_csp=BYPASS_CSP)
    page = context.new_page()
    page.set_default_timeout(90_000)
    page.goto(f"{server.url}/games/{game_id}/table")
    page.wait_for_selector(".show[data-what=crib]")
    assert page.inner_text("#speak") == "Voice off"
    page.click(".langs summary")  # the switch lists the languages
    fits_the_phone(page)
    shoot(page, "switch-open", full_page=False)
    page.click(".langs a[hreflang=ro]")
    page.wait_for_selector("html[lang=ro] .show[data-what=crib]")
    assert page.url.endswith(f"/games/{game_id}/table")  # back on the same page
    assert page.inner_text("#speak") == "Voce oprită"
    again = context.new_page()  # the same device (its cookies), the browser still English
    again.goto(f"{server.url}/")
    assert again.get_attribute("html", "lang") == "ro"
    assert again.inner_text("#new-game button.primary") == "Începe la masă (camera)"
    context.close()
