"""Issue 49 in a real browser (Debian's Chromium) at a laptop's 1280 x 800 and a phone's
390 x 844: a whole two-deal game entered by tap (the first deal with its hands entered, the
second with them hidden), counting every tap; go offered only when a go is possible; errors
beside the control that caused them, in the players' names and suit symbols; a deal's muggins
flag kept to its deal and by its claim; the camera button. Every number the page shows is set
beside the engine's (`scorer.game.Game`), run on the same actions here: nothing hard-coded.

Each step's screenshot is kept in the test's tmp_path, and one set is copied to
/tmp/issue49-shots/<size>/ for a person to look at."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from playwright import sync_api

from scorer.cards import parse_card, parse_cards
from scorer.events import EventKind
from scorer.game import Game, Phase
from scorer.match import Match
from scorer.settings import Settings, Skunk
from scorer.show import score_show
from tests.webui.conftest import HANDS
from tests.webui.test_browser import BYPASS_CSP, chromium
from tests.webui.test_browser_game import scores_on, symbols
from tests.webui.test_serve import Server

pytestmark = pytest.mark.slow  # a real browser: left out of the fast loop

SIZES = {"desktop": (1280, 800), "phone": (390, 844)}
SHOTS = Path("/tmp/issue49-shots")
NAMES = ["Ann", "Bob"]
SETTINGS = Settings(target=61, muggins=True, games_per_match=3)
#: Deal 1 (Bob deals): hands entered; the last two cards of each are laid away.
DEALT = [["5H", "5D", "5C", "JS", "KC", "QC"], ["10D", "7C", "8S", "9H", "2C", "3C"]]
STARTER_1 = "5S"
SHORT = "10D"  # Bob makes 15 with it and claims nothing: Ann takes the 2 by muggins
#: Deal 2 (Ann deals): hands hidden. Each seat's cards in the order laid (Bob leads), the
#: starter, and the crib's four cards, entered at its show.
LAID = [["3S", "3H", "4S", "4H"], ["AS", "AD", "2S", "2D"]]
STARTER_2 = "5C"
CRIB_2 = ["5H", "5D", "JC", "10S"]
#: The most taps a deal with hidden hands may take.
HIDDEN_DEAL_TAPS = 15

EngineStep = Callable[[Game], object]


def sized_page(browser: sync_api.Browser, size: str, errors: list[str]) -> sync_api.Page:
    width, height = SIZES[size]
    page = browser.new_page(viewport={"width": width, "height": height}, bypass_csp=BYPASS_CSP)
    page.set_default_timeout(90_000)  # a loaded 2-core machine is slow
    page.on("pageerror", lambda error: errors.append(str(error)))
    return page


def in_view(page: sync_api.Page, selector: str) -> bool:
    """Whether the element is wholly on the screen as it is scrolled now."""
    return bool(page.eval_on_selector(selector, """e => {
        const r = e.getBoundingClientRect();
        return r.height > 0 && r.top >= 0 && r.bottom <= window.innerHeight;
    }"""))  # fmt: skip


def chosen_cards(page: sync_api.Page) -> list[str]:
    return sorted(
        page.eval_on_selector_all("#picker button.chosen", "bs => bs.map(b => b.dataset.card)")
    )


def offered_cards(page: sync_api.Page) -> list[str]:
    offered = "#picker button:not([hidden]):not([disabled])"
    return sorted(page.eval_on_selector_all(offered, "bs => bs.map(b => b.dataset.card)"))


def count_of(game: Game) -> int:
    assert game.deal_state is not None and game.deal_state.pegging is not None
    return game.deal_state.pegging.count


def go_buttons(page: sync_api.Page) -> int:
    return page.locator("#controls button", has_text=": go").count()


class Play:
    """A game's page and the engine, given the same actions. Every tap (click or typing into a
    field) the test makes on the page goes through `tap`/`type`, and is counted."""

    def __init__(self, page: sync_api.Page, size: str, shots: Path) -> None:
        self.page, self.size, self.shots = page, size, shots
        self.game = Game(SETTINGS)
        self.taps = 0
        self.step = 0

    def tap(self, selector: str) -> None:
        self.taps += 1
        self.page.click(selector)

    def tap_button(self, name: str) -> None:
        self.taps += 1
        self.page.get_by_role("button", name=name, exact=True).click()

    def tap_card(self, card: str) -> None:
        self.tap(f"#picker button[data-card='{card}']")

    def type(self, selector: str, text: str) -> None:
        self.taps += 1  # a tap on the field, then the keyboard
        self.page.fill(selector, text)

    def engine(self, *steps: EngineStep) -> None:
        """The same actions in the engine; then wait for the page to draw them, and compare."""
        for step in steps:
            step(self.game)
        self.page.wait_for_function(
            "n => typeof state !== 'undefined' && state !== null && state.actions === n",
            arg=len(self.game.actions),
        )
        self.check()

    def check(self) -> None:
        """The page shows the engine's scores (in the panel, the sticky bar and on the board),
        count and turn; the bar is on the screen, and so is an open picker's OK."""
        page, game = self.page, self.game
        assert page.inner_text("#error") == ""
        assert scores_on(page) == list(game.scores)
        board = [page.text_content(f"#board text >> nth={side}") for side in range(2)]
        assert board == [f"{NAMES[side]}: {game.scores[side]}" for side in range(2)]
        bar = " ".join(page.inner_text("#bar").split())
        assert bar.startswith(f"{NAMES[0]} {game.scores[0]} {NAMES[1]} {game.scores[1]}"), bar
        if game.phase is Phase.PLAY:
            assert game.deal_state is not None and game.deal_state.pegging is not None
            assert game.turn is not None
            count = game.deal_state.pegging.count
            assert page.inner_text("#count") == str(count)
            assert page.inner_text("#turn") == f"{NAMES[game.turn]} to play"
            assert bar.endswith(f"count {count} {NAMES[game.turn]} to play"), bar
        else:
            assert page.is_hidden("#count-box")
        if page.is_visible("#picker-box"):
            # the player scrolls to the picker's cards: its OK is on the screen with them
            page.locator("#picker button:not([hidden])").first.scroll_into_view_if_needed()
            assert in_view(page, "#picker-ok")
        assert in_view(page, "#bar")  # the scores stay in view, wherever the page is scrolled

    def muggins(self, label: str) -> str:
        """The claim just made was short: its flag (names, suit symbols) and the opponent's
        Muggins! button are by the claim, on the screen above the next picker; the button is
        tapped. The flag's text is returned."""
        page, game = self.page, self.game
        opened = game.state_json()["muggins_open"]
        assert opened is not None and opened["outcome"] == "short"
        flag = f"{NAMES[opened['seat']]}: {symbols(opened['description'])}"
        assert page.inner_text("#muggins .flag") == flag
        caller = 1 - opened["seat"]
        page.locator("#picker-box").scroll_into_view_if_needed()
        muggins_box = page.locator("#muggins").bounding_box()
        picker_box = page.locator("#picker-box").bounding_box()
        assert muggins_box is not None and picker_box is not None
        assert muggins_box["y"] < picker_box["y"]  # above the next count's picker, not below
        assert in_view(page, "#muggins button")
        self.shot(label)
        self.tap_button(f"Muggins! {NAMES[caller]} takes {opened['missed']}")
        self.engine(partial(Game.muggins, seat=caller, points=opened["missed"]))
        return flag

    def shot(self, label: str) -> None:
        self.step += 1
        path = self.shots / f"{self.step:02d}-{label}.png"
        self.page.screenshot(path=str(path))  # what the player sees: the screen, not the page
        copy = SHOTS / self.size
        copy.mkdir(parents=True, exist_ok=True)
        shutil.copy(path, copy / path.name)


def keep(page: sync_api.Page, folder: Path, size: str, name: str) -> None:
    """A screenshot of the screen in the test's folder, copied to SHOTS/size."""
    path = folder / f"{size}-{name}.png"
    page.screenshot(path=str(path))
    (SHOTS / size).mkdir(parents=True, exist_ok=True)
    shutil.copy(path, SHOTS / size / f"{name}.png")


def deal_events(game: Game, deal: int) -> dict[int, dict[str, int]]:
    """Each seat's points in `deal` as the summary groups them, from the engine's events."""
    out = {seat: {"pegging": 0, "hand": 0, "crib": 0, "other": 0, "deal": 0} for seat in (0, 1)}
    for event in game.events:
        if event.deal != deal or event.seat is None or event.for_interest or event.moot:
            continue
        kind = event.kind
        other = (EventKind.MUGGINS, EventKind.PENALTY, EventKind.CORRECTION)
        group = ("hand" if kind is EventKind.HAND else "crib" if kind is EventKind.CRIB
                 else "other" if kind in other else "pegging")  # fmt: skip
        out[event.seat][group] += event.points
        out[event.seat]["deal"] += event.points
    return out


def check_summary(page: sync_api.Page, game: Game, deal: int) -> None:
    assert page.is_visible("#summary")
    assert page.inner_text("#summary h3") == f"Deal {deal} summary"
    expected = deal_events(game, deal)
    for seat in (0, 1):
        cells = page.locator(f"#summary tr[data-seat='{seat}'] td").all_inner_texts()
        points = expected[seat]
        assert cells == [str(points[k]) for k in ("pegging", "hand", "crib", "other", "deal")] + [
            str(game.scores[seat])
        ]
    # the "other" column says what it holds
    assert "other: muggins taken, penalties and score corrections" in page.inner_text("#summary")


@pytest.mark.parametrize("size", list(SIZES))
def test_a_two_deal_game_entered_by_tap(server: Server, tmp_path: Path, size: str) -> None:
    """A muggins game to 61 in a match of three, from the home page to the game-over screen
    and back to the home list. Deal 1: hands entered (no go button: the page says go); a short
    claim's flag and Muggins! button by the claim, not in the next deal. Deal 2: hands hidden,
    the starter one tap, each card one tap, each hand proposed as laid (one tap), the crib's
    four cards: at most HIDDEN_DEAL_TAPS taps."""
    shots = tmp_path / size
    shots.mkdir()
    shutil.rmtree(SHOTS / size, ignore_errors=True)
    with chromium() as browser:
        errors: list[str] = []
        page = sized_page(browser, size, errors)
        page.goto(server.url + "/")
        page.fill("input[name=names]", ", ".join(NAMES))
        page.select_option("select[name=target]", "61")
        page.fill("input[name=games_per_match]", "3")
        page.check("input[name=muggins]")
        page.click("button[value=form]")
        page.wait_for_url("**/games/*")
        play = Play(page, size, shots)
        game = play.game
        play.engine()
        play.shot("new-game")
        play.tap_button(f"{NAMES[1]} deals")
        play.engine(partial(Game.choose_dealer, seat=1))
        play.shot("deal-1")

        # -- deal 1: the hands entered -------------------------------------------------------
        play.taps = 0
        play.tap_button("Enter the dealt hands")
        for hand in DEALT:  # the card that completes a hand moves on to the next
            for card in hand:
                play.tap_card(card)
        play.engine(partial(Game.deal, hands=[parse_cards(h) for h in DEALT]))
        play.shot("dealt")
        for seat in (0, 1):
            play.tap_button(f"{NAMES[seat]}: name the cards")
            assert offered_cards(page) == sorted(DEALT[seat])  # only that player's cards
            for card in DEALT[seat][4:]:
                play.tap_card(card)
            play.engine(partial(Game.discard, seat=seat, cards=parse_cards(DEALT[seat][4:])))
        play.tap_card(STARTER_1)
        play.engine(partial(Game.cut_starter, card=parse_card(STARTER_1)))
        play.shot("starter")
        left = [hand[:4] for hand in DEALT]
        while game.phase is Phase.PLAY:
            assert go_buttons(page) == 0  # the hands are known: the page says go by itself
            turn, count = game.turn, count_of(game)
            assert turn is not None
            seat = turn
            card = next(c for c in left[seat] if count + parse_card(c).value <= 31)
            assert offered_cards(page) == sorted(
                c for c in left[seat] if count + parse_card(c).value <= 31
            )
            left[seat].remove(card)
            claim = 0 if card == SHORT else None
            if claim is not None:
                play.type("#claim", str(claim))
            play.tap_card(card)
            play.engine(partial(Game.play, seat=seat, card=parse_card(card), claim=claim))
            if card == SHORT:
                play.muggins("muggins-in-the-play")
        play.shot("the-play")
        assert game.phase is Phase.SHOW
        while game.phase is Phase.SHOW and (nxt := game.next_show()) is not None:
            what, seat = nxt
            assert page.inner_text("#now-title") == f"The show: {NAMES[seat]}'s {what}"
            known = DEALT[0][4:] + DEALT[1][4:] if what == "crib" else DEALT[seat][:4]
            assert chosen_cards(page) == sorted(known)  # proposed: one tap
            claim = None
            if seat == 0:  # Ann forgets her nobs: J♠ with the starter 5♠
                claim = score_show(parse_cards(known), parse_card(STARTER_1)).total - 1
                play.type("#claim", str(claim))
            play.tap("#picker-ok")
            play.engine(partial(Game.show, cards=None, claim=claim))
            play.shot(f"show-{NAMES[seat]}-{what}")
            if claim is not None:
                assert "J♠+5♠" in play.muggins("muggins-at-the-show")
        hands_entered_taps = play.taps
        assert game.state_json()["phase"] == Phase.DEAL and game.dealer == 0  # the next deal
        check_summary(page, game, 1)
        # bug 4: deal 1's claim flag stays with deal 1 (its show list and the summary)
        assert page.is_hidden("#muggins")
        assert page.locator("text=Muggins!").count() == 0
        play.shot("deal-1-summary")

        # -- deal 2: the hands hidden ---------------------------------------------------------
        play.taps = 0
        assert page.inner_text("#now-title") == f"Deal 2: {NAMES[0]} deals"
        play.tap_card(STARTER_2)  # dealt, laid away, the starter turned: one tap
        play.engine(partial(Game.deal, hands=None), partial(Game.discard, seat=0, cards=None),
                    partial(Game.discard, seat=1, cards=None),
                    partial(Game.cut_starter, card=parse_card(STARTER_2)))  # fmt: skip
        assert page.is_hidden("#muggins")  # a new deal: no flag from the last
        play.shot("deal-2-starter")
        order = [LAID[1][i // 2] if i % 2 == 0 else LAID[0][i // 2] for i in range(8)]
        for card in order:
            turn = game.turn
            assert turn is not None and card in LAID[turn]
            seat = turn
            # a go only where one may be: the JSON says, or (before it said) count 22 and up
            may_go = game.state_json().get("go_possible", count_of(game) >= 22)
            assert go_buttons(page) == (1 if may_go else 0)
            play.tap_card(card)
            play.engine(partial(Game.play, seat=seat, card=parse_card(card)))
        play.shot("deal-2-play")
        while game.phase is Phase.SHOW and (nxt := game.next_show()) is not None:
            what, seat = nxt
            if what == "hand":
                assert chosen_cards(page) == sorted(LAID[seat])  # as laid in the play
                play.tap("#picker-ok")
                play.engine(partial(Game.show, cards=None))
            else:
                assert not set(offered_cards(page)) & {*LAID[0], *LAID[1], STARTER_2}
                for card in CRIB_2:
                    play.tap_card(card)
                play.engine(partial(Game.show, cards=parse_cards(CRIB_2)))
            play.shot(f"deal-2-{NAMES[seat]}-{what}")
        hidden_taps = play.taps
        print(f"{size}: taps, hands entered {hands_entered_taps}, hands hidden {hidden_taps}")
        assert hidden_taps <= HIDDEN_DEAL_TAPS

        # -- game over ------------------------------------------------------------------------
        outcome = game.outcome
        assert outcome is not None and game.state_json()["phase"] == Phase.OVER
        loser = 1 - outcome.winner
        assert page.inner_text("#now-title") == "Game over"
        assert page.inner_text(".over-winner") == f"{NAMES[outcome.winner]} wins"
        assert (
            page.inner_text(".over-score")
            == f"{outcome.scores[outcome.winner]} – {outcome.scores[loser]}"
        )
        skunk = outcome.skunks.get(loser, Skunk.NONE)
        words = {Skunk.NONE: "No skunk", Skunk.SKUNK: f"{NAMES[loser]} is skunked",
                 Skunk.DOUBLE: f"{NAMES[loser]} is double skunked",
                 Skunk.TRIPLE: f"{NAMES[loser]} is triple skunked"}  # fmt: skip
        assert page.inner_text(".over-skunk") == words[skunk]
        match = Match(SETTINGS)
        match.record_game(game)
        standing = " – ".join(f"{n} {p}" for n, p in zip(NAMES, match.standings(), strict=True))
        assert page.inner_text(".over-match") == f"Match points after game 1 of 3: {standing}"
        check_summary(page, game, 2)
        page.locator("#now").scroll_into_view_if_needed()
        play.shot("game-over")
        assert page.get_by_role("button", name="Next game").is_visible()

        page.goto(server.url + "/")
        item = page.locator(".games li").first
        text = " ".join(item.inner_text().split())
        assert text.startswith(f"{NAMES[0]} {game.scores[0]} · {NAMES[1]} {game.scores[1]}"), text
        assert f"Finished: {NAMES[outcome.winner]} won" in text
        shown_time = item.locator("time").inner_text()
        assert shown_time and "T" not in shown_time  # in the reader's words, not ISO
        play.shot("home")
        assert errors == []


def start_hidden_play(server: Server, count_to: int) -> str:
    """A game (Ann, Bob; Bob deals) at the play with hidden hands, laid to `count_to` or so."""
    status, created = server.call(
        "POST", "/api/games", {"players": 2, "first_dealer": 1, "names": NAMES}
    )
    assert status == 201
    actions = [{"kind": "deal"}, {"kind": "discard", "seat": 0}, {"kind": "discard", "seat": 1},
               {"kind": "starter", "card": "5S"}]  # fmt: skip
    laid = 0
    for card in ["10H", "10D", "3C"]:  # Ann, Bob, Ann: count 23
        if laid >= count_to:
            break
        actions.append({"kind": "play", "card": card})
        laid += parse_card(card).value
    for action in actions:
        assert server.call("POST", f"/api/games/{created['id']}/actions", action)[0] == 200
    return str(created["id"])


def refuse(page: sync_api.Page, message: str) -> None:
    """The game's next action is answered 409 with `message` (as the server words a refusal)."""
    page.route(
        "**/actions",
        lambda route: route.fulfill(
            status=409, content_type="application/json", json={"error": message}
        ),
        times=1,
    )


@pytest.mark.parametrize("size", list(SIZES))
def test_go_only_when_possible_and_errors_by_the_control(
    server: Server, tmp_path: Path, size: str
) -> None:
    """Hidden hands: no go button below a count of 22 (every card fits), one at 23. A refused
    go and a refused card are each told beside the button tapped, on the screen, with the
    players' names and suit symbols (the server's "seat 1" and "KS" as the table says them)."""
    low = start_hidden_play(server, 20)
    high = start_hidden_play(server, 23)
    with chromium() as browser:
        errors: list[str] = []
        page = sized_page(browser, size, errors)
        page.goto(f"{server.url}/games/{low}")
        page.wait_for_selector("#live.on")
        state: dict[str, Any] = page.evaluate("state")
        assert state["count"] == 20
        assert go_buttons(page) == (1 if state.get("go_possible", False) else 0) == 0

        page.goto(f"{server.url}/games/{high}")
        page.wait_for_selector("#live.on")
        state = page.evaluate("state")
        assert state["count"] == 23 and state["turn"] == 1
        assert go_buttons(page) == 1 and state.get("go_possible", True)
        assert offered_cards(page) == sorted(  # what may be laid: no card past 31
            c for c in offered_cards(page) if parse_card(c).value <= 8
        )

        refuse(page, "deal 1: seat 1 cannot say go: it holds 5S KS")
        page.get_by_role("button", name=f"{NAMES[1]}: go").click()
        page.wait_for_function("document.getElementById('error').textContent !== ''")
        said = page.inner_text("#error")
        assert said == "deal 1: Bob cannot say go: it holds 5♠ K♠", said
        # right under the buttons it answers, on the screen
        assert (
            page.evaluate("document.getElementById('error').previousElementSibling.id")
            == "controls"
        )
        assert in_view(page, "#error")
        keep(page, tmp_path, size, "go-refused")

        refuse(page, "deal 1: seat 1 was not dealt 8S")
        page.click("#picker button[data-card='8S']")
        page.wait_for_function("document.getElementById('error').textContent.includes('8♠')")
        assert page.inner_text("#error") == "deal 1: Bob was not dealt 8♠"
        assert page.evaluate("document.getElementById('error').closest('#picker-actions') !== null")
        assert in_view(page, "#error")
        keep(page, tmp_path, size, "card-refused")

        # the same pick is tried again, and taken
        page.click("#picker button[data-card='8S']")
        page.wait_for_function(
            "state.play.some((step) => step.card === '8S')"
        )  # 31: the count is 0 again
        assert page.inner_text("#error") == ""
        assert errors == []


FAKE_CAMERA = """(() => {
    // a camera the page can start: a canvas's stream
    navigator.mediaDevices.getUserMedia = async () => {
        const canvas = document.createElement("canvas");
        canvas.width = 320; canvas.height = 240;
        const ctx = canvas.getContext("2d");
        setInterval(() => {
            ctx.fillStyle = `hsl(${Math.random() * 360} 60% 50%)`;
            ctx.fillRect(0, 0, 320, 240);
        }, 100);
        return canvas.captureStream(10);
    };
})();"""

REFUSING_CAMERA = """(() => {
    navigator.mediaDevices.getUserMedia = async () => {
        throw new DOMException("denied", "NotAllowedError");
    };
})();"""


@pytest.mark.parametrize("size", list(SIZES))
def test_camera_button(server: Server, tmp_path: Path, size: str) -> None:
    """No camera: "No camera found" (not "refused"); a refused camera: refused; a camera that
    starts: the button turns to "Stop camera" and back; a camera the server stops (its frames
    refused) turns the button back by itself."""
    status, created = server.call("POST", "/api/games", {"players": 2, "names": NAMES})
    assert status == 201
    url = f"{server.url}/games/{created['id']}"
    with chromium() as browser:
        errors: list[str] = []
        page = sized_page(browser, size, errors)
        page.goto(url)  # headless Chromium has no camera at all
        page.click("#camera-panel summary")
        page.click("#camera-start")
        page.wait_for_function(
            "document.getElementById('camera-status').textContent.startsWith('No camera')"
        )
        assert "refused" not in page.inner_text("#camera-status")
        assert page.inner_text("#camera-start") == "Start camera"
        keep(page, tmp_path, size, "no-camera")

        page.add_init_script(REFUSING_CAMERA)
        page.reload()
        page.click("#camera-panel summary")
        page.click("#camera-start")
        page.wait_for_function(
            "document.getElementById('camera-status').textContent.includes('refused')"
        )
        assert page.inner_text("#camera-start") == "Start camera"

        page = sized_page(browser, size, errors)
        page.add_init_script(FAKE_CAMERA)
        held: list[sync_api.Route] = []
        page.route("**/frame", lambda route: held.append(route))  # unanswered: the camera stays on
        page.goto(url)
        page.click("#camera-panel summary")
        page.click("#camera-start")
        page.wait_for_function(
            "document.getElementById('camera-start').textContent === 'Stop camera'"
        )
        assert page.evaluate("camera.running")
        page.locator("#camera-start").scroll_into_view_if_needed()
        keep(page, tmp_path, size, "camera-on")
        page.click("#camera-start")
        page.wait_for_function(
            "document.getElementById('camera-start').textContent === 'Start camera'"
        )
        assert not page.evaluate("camera.running")

        for route in held:  # the frame in flight ends (the camera sends one at a time)
            route.abort()
        page.unroute("**/frame")
        page.route(
            "**/frame",
            lambda route: route.fulfill(
                status=503,
                content_type="application/json",
                json={"error": "no card model installed"},
            ),
        )
        page.click("#camera-start")
        page.wait_for_function(
            "document.getElementById('camera-status').textContent === 'no card model installed'"
        )
        page.wait_for_function(
            "document.getElementById('camera-start').textContent === 'Start camera'"
        )
        assert errors == []


@pytest.mark.parametrize("size", list(SIZES))
def test_deal_2s_hands_can_be_entered(server: Server, size: str) -> None:
    """After a deal played with its hands entered, "Enter the dealt hands" at deal 2 offers
    every card again: deal 1's cards are not greyed out."""
    status, created = server.call("POST", "/api/games", {"players": 2, "first_dealer": 1})
    assert status == 201
    game_id = created["id"]

    def act(**action: object) -> dict[str, Any]:
        status, answer = server.call("POST", f"/api/games/{game_id}/actions", action)
        assert status == 200, answer
        return dict(answer)

    act(kind="deal", hands=HANDS)
    act(kind="discard", seat=0, cards=["9H", "QD"])
    act(kind="discard", seat=1, cards=["KH", "8S"])
    act(kind="starter", card="5S")
    for card in ["5H", "7C", "5D", "3C", "JC", "2C", "6S", "4D"]:
        act(kind="play", card=card)
    for _ in range(3):  # both hands and the crib
        after = act(kind="show")
    assert after["phase"] == "deal" and after["deal"] == 1
    with chromium() as browser:
        errors: list[str] = []
        page = sized_page(browser, size, errors)
        page.goto(f"{server.url}/games/{game_id}")
        page.get_by_role("button", name="Enter the dealt hands", exact=True).click()
        assert len(offered_cards(page)) == 52
        assert errors == []
