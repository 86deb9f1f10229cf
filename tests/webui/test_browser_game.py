"""Whole games on the page in a real browser (Debian's Chromium through Playwright): a full
two-player deal entered by hand, muggins taking a short claim's points, and a server killed
with SIGKILL mid-game and restarted on the same database. Every number the page shows is set
beside the engine's (`scorer.game.Game`, `scorer.show.score_show`), run on the same actions in
the test: nothing here is a hard-coded total."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from functools import partial
from pathlib import Path

import pytest
from playwright import sync_api

from scorer.cards import RANK_NAMES, parse_card, parse_cards
from scorer.events import EventKind
from scorer.game import Game, Phase
from scorer.pegging import TARGET_COUNT, PegAction
from scorer.settings import Settings
from scorer.show import score_show
from tests.webui.test_browser import chromium, game_in_the_play, phone_page
from tests.webui.test_serve import Server, free_port

pytestmark = pytest.mark.slow  # a real browser: left out of the fast loop

NAMES = ["Ann", "Bob"]
DEALER = 1  # Bob deals, Ann leads
#: As dealt; the last two cards of each hand are laid away.
DEALT = [["10S", "9H", "4C", "QC", "3H", "AS"], ["5D", "7C", "KH", "8S", "2C", "6D"]]
DISCARDS = [hand[4:] for hand in DEALT]
KEPT = [hand[:4] for hand in DEALT]
STARTER = "5S"
#: The play, card by card (a card's holder lays it): a 15, a 31, a go point and the last card.
PLAY = ["10S", "5D", "9H", "7C", "4C", "KH", "QC", "8S"]

EngineStep = Callable[[Game], object]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    running = Server(tmp_path / "games.sqlite3", tmp_path / "data", port=free_port())
    yield running
    running.stop()


def screenshot(page: sync_api.Page, path: Path) -> None:
    page.evaluate("() => window.scrollTo(0, 0)")  # else the sticky header lands mid-picture
    page.screenshot(path=path, full_page=True)
    assert path.exists() and path.stat().st_size > 0


def scores_on(page: sync_api.Page) -> list[int]:
    return [int(n) for n in page.locator("#scores .score .n").all_inner_texts()]


class Table:
    """A game's page and the engine, given the same actions; after each, `check` compares."""

    def __init__(self, page: sync_api.Page, settings: Settings) -> None:
        self.page = page
        self.game = Game(settings)

    def act(
        self,
        engine: EngineStep,
        *,
        button: str | None = None,
        picks: Sequence[Sequence[str]] = (),
        claim: int | None = None,
    ) -> None:
        """On the page: click `button`, then choose each of `picks` in the card picker (the
        last with `claim`, typed first): the card that completes a pick sends it, and a pick of
        no cards (a proposed hand, a known one) is sent with OK. In the engine: `engine`. Then
        wait for the page, compare."""
        if button is not None:
            self.page.get_by_role("button", name=button, exact=True).click()
        for number, cards in enumerate(picks, start=1):
            if claim is not None and number == len(picks):
                self.page.fill("#claim", str(claim))
            for card in cards:
                self.page.click(f"#picker button[data-card='{card}']")
            if not cards:
                self.page.click("#picker-ok")
        engine(self.game)
        self.synced()
        self.check()

    def synced(self) -> None:
        """Wait until the page has drawn the state after the engine's last action."""
        self.page.wait_for_function(
            "n => typeof state !== 'undefined' && state !== null && state.actions === n",
            arg=len(self.game.actions),
        )

    def check(self) -> None:
        """The page shows the engine's scores (also on the board), count and turn."""
        page, game = self.page, self.game
        assert page.inner_text("#error") == ""
        assert scores_on(page) == list(game.scores)
        board = [page.text_content(f"#board text >> nth={side}") for side in range(2)]
        assert board == [f"{NAMES[side]}: {game.scores[side]}" for side in range(2)]
        if game.phase is Phase.PLAY:
            assert game.deal_state is not None and game.deal_state.pegging is not None
            assert game.turn is not None
            assert page.is_visible("#count-box")
            assert page.inner_text("#count") == str(game.deal_state.pegging.count)
            assert page.inner_text("#turn") == f"{NAMES[game.turn]} to play"
        else:
            assert page.is_hidden("#count-box")

    def lay(self, card: str, claim: int | None = None) -> None:
        """`card`'s holder lays it; whoever cannot lay it first says go (with hidden hands on
        the page's go button; with known hands the engine and the page say it by themselves)."""
        game = self.game
        seat = next(s for s, hand in enumerate(DEALT) if card in hand)
        assert game.deal_state is not None and game.deal_state.pegging is not None
        pegging = game.deal_state.pegging
        while game.turn != seat or pegging.count + parse_card(card).value > TARGET_COUNT:
            assert game.turn is not None
            self.act(partial(Game.go, seat=game.turn), button=f"{NAMES[game.turn]}: go")
        self.act(partial(Game.play, seat=seat, card=parse_card(card), claim=claim),
                 picks=[[card]], claim=claim)  # fmt: skip


def play_lines(game: Game) -> list[str]:
    """The page's account of this deal's play as the engine has it: each card with the count
    it made and its points, each go, go point and last card, and each new count."""
    assert game.deal_state is not None and game.deal_state.pegging is not None
    lines = []
    for step in game.deal_state.pegging.events:
        if step.action is PegAction.PLAY:
            assert step.card is not None
            card = RANK_NAMES[step.card.rank] + step.card.suit.symbol
            line = f"{NAMES[step.seat]} plays {card} — {step.count}"
        else:
            line = f"{NAMES[step.seat]}: {step.action.value}"
        lines.append(" ".join([line, *([", ".join(map(str, step.items))] if step.items else [])]))
        if step.action is PegAction.GO_POINT or any(i.name == "31" for i in step.items):
            lines.append("the count starts again at 0")
    return lines


def start_game(page: sync_api.Page, url: str, settings: Settings) -> Table:
    """The home page's form (names, muggins), Start; then the first dealer is chosen."""
    page.goto(url + "/")
    page.fill("input[name=names]", ", ".join(NAMES))
    if settings.muggins:
        page.check("input[name=muggins]")
    page.click("button[value=form]")
    page.wait_for_url("**/games/*")
    table = Table(page, settings)
    table.synced()
    table.check()
    table.act(partial(Game.choose_dealer, seat=DEALER), button=f"{NAMES[DEALER]} deals")
    return table


def to_the_play(table: Table, hands_known: bool) -> None:
    """Deal, lay away and turn the starter: entered hands with named discards, or hidden
    hands laid away face down."""
    if hands_known:
        table.act(partial(Game.deal, hands=[parse_cards(h) for h in DEALT]),
                  button="Enter the dealt hands", picks=DEALT)  # fmt: skip
    else:
        table.act(partial(Game.deal, hands=None), button="Dealt (hands stay hidden)")
    for seat in (0, 1):
        if hands_known:
            table.act(partial(Game.discard, seat=seat, cards=parse_cards(DISCARDS[seat])),
                      button=f"{NAMES[seat]}: name the cards", picks=[DISCARDS[seat]])  # fmt: skip
        else:
            table.act(partial(Game.discard, seat=seat, cards=None),
                      button=f"{NAMES[seat]}: laid away")  # fmt: skip
    assert table.page.inner_text("#now-title") == "Turn the starter"
    table.act(partial(Game.cut_starter, card=parse_card(STARTER)), picks=[[STARTER]])


@pytest.mark.parametrize("hands_known", [True, False], ids=["hands-entered", "hands-hidden"])
def test_a_full_deal_entered_by_hand(server: Server, tmp_path: Path, hands_known: bool) -> None:
    """Deal, discards, starter, the play card by card with its go and last card, and the show
    of both hands and the crib: after every step the page shows the engine's numbers.

    Entered hands: the picker takes both dealt hands and the discards are named; the page says
    go by itself. Hidden hands: the discards go face down, the page's go button is used, and
    the crib's cards are entered at the show."""
    with chromium() as browser:
        errors: list[str] = []
        page = phone_page(browser, errors)
        table = start_game(page, server.url, Settings())
        game = table.game
        assert page.inner_text("#now-title") == f"Deal 1: {NAMES[DEALER]} deals"
        to_the_play(table, hands_known)

        for card in PLAY:
            table.lay(card)
            assert game.phase is not Phase.PLAY or page.is_disabled(
                f"#picker button[data-card='{card}']"
            )
        assert game.phase is Phase.SHOW
        kinds = [event.kind for event in game.events]
        assert EventKind.GO_POINT in kinds and EventKind.LAST_CARD in kinds  # as the deal was made
        assert EventKind.GO in kinds
        shown = [" ".join(line.split()) for line in page.locator("#play li").all_inner_texts()]
        assert shown == play_lines(game)
        screenshot(page, tmp_path / "the-play.png")

        starter = parse_card(STARTER)
        totals: list[int] = []
        while (nxt := game.next_show()) is not None:
            what, seat = nxt
            assert page.inner_text("#now-title") == f"The show: {NAMES[seat]}'s {what}"
            cards = parse_cards(DISCARDS[0] + DISCARDS[1] if what == "crib" else KEPT[seat])
            total = score_show(cards, starter, crib=what == "crib").total
            entered = [] if hands_known or what == "hand" else [str(c) for c in cards]
            table.act(partial(Game.show, cards=parse_cards(entered) or None, claim=total),
                      picks=[entered], claim=total)  # fmt: skip
            totals.append(total)
            assert page.locator("#shows .total").all_inner_texts() == [str(t) for t in totals]
            assert page.locator("#shows .flag").all_inner_texts()[-1] == f"claimed {total}: exact"
        counted = [e.points for e in game.events if e.kind in (EventKind.HAND, EventKind.CRIB)]
        assert counted == totals
        assert game.state_json()["phase"] == Phase.DEAL and game.dealer == 0  # the next deal
        assert page.inner_text("#now-title") == f"Deal 2: {NAMES[0]} deals"
        screenshot(page, tmp_path / "the-show.png")
        assert errors == []


def symbols(text: str) -> str:
    """The page's way with the server's card names: 5C+5S -> 5♣+5♠."""
    suits = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
    return re.sub(r"\b(10|[2-9AJQK])([SHDC])\b", lambda m: m[1] + suits[m[2]], text)


def muggins_flag(page: sync_api.Page) -> str:
    return page.inner_text("#muggins .flag")


def test_muggins_takes_a_short_claim(server: Server, tmp_path: Path) -> None:
    """A muggins game (ticked on the home page): a short claim in the play and one at the show
    are flagged with what was missed, the opponent's Muggins! button takes the missed points,
    and the scores on the page follow the engine (the claimant pegs only the claim)."""
    with chromium() as browser:
        errors: list[str] = []
        page = phone_page(browser, errors)
        table = start_game(page, server.url, Settings(muggins=True))
        game = table.game
        to_the_play(table, hands_known=False)
        # the live stream's copy of the state just drawn (the echo of this page's own action)
        # must not clear a half-made claim
        page.fill("#claim", "3")
        page.evaluate("() => render(structuredClone(state))")
        assert page.input_value("#claim") == "3"
        page.fill("#claim", "")
        table.act(partial(Game.play, seat=0, card=parse_card(PLAY[0])), picks=[[PLAY[0]]])
        table.lay(PLAY[1], claim=0)  # Bob makes 15 and says nothing

        def take_muggins() -> None:
            opened = game.state_json()["muggins_open"]
            assert opened is not None and opened["outcome"] == "short"
            claimant, missed = opened["seat"], opened["missed"]
            assert muggins_flag(page) == f"{NAMES[claimant]}: {symbols(opened['description'])}"
            caller = 1 - claimant
            before = scores_on(page)
            assert before == list(game.scores)
            table.act(partial(Game.muggins, seat=caller, points=missed),
                      button=f"Muggins! {NAMES[caller]} takes {missed}")  # fmt: skip
            assert game.scores[caller] == before[caller] + missed
            assert game.scores[claimant] == before[claimant]
            assert page.locator("#muggins button").count() == 0  # taken: the window is shut
            assert muggins_flag(page) == f"{NAMES[claimant]}: {symbols(opened['description'])}"
            log = page.locator("#events li").first.text_content() or ""
            assert log.startswith(f"deal 1: {NAMES[caller]} muggins +{missed}")

        take_muggins()
        screenshot(page, tmp_path / "muggins-in-the-play.png")

        for card in PLAY[2:]:
            table.lay(card)
        what, seat = game.next_show() or ("", -1)
        assert (what, seat) == ("hand", 0)
        page.wait_for_selector("#muggins", state="hidden")  # the play's flag ends with the play
        total = score_show(parse_cards(KEPT[0]), parse_card(STARTER)).total
        assert total > 1
        table.act(partial(Game.show, claim=total - 1), picks=[[]], claim=total - 1)
        check = game.events[-1].claim
        assert check is not None and check.missed == 1
        assert page.inner_text("#shows .flag") == symbols(check.describe())
        take_muggins()
        screenshot(page, tmp_path / "muggins-at-the-show.png")
        assert errors == []


def test_the_server_killed_and_restarted_mid_game(server: Server, tmp_path: Path) -> None:
    """SIGKILL the server in the middle of the play and start it again on the same database
    file: the reloaded page shows the same count, scores, turn and play as before; a second
    page left open reconnects by itself, and the game goes on."""
    with chromium() as browser:
        errors: list[str] = []
        page = phone_page(browser, errors)
        table = start_game(page, server.url, Settings(muggins=True))
        game = table.game
        to_the_play(table, hands_known=True)
        for card in PLAY[:5]:
            table.lay(card, claim=0 if card == "5D" else None)
        assert game.turn is not None and game.scores != (0, 0)  # mid-play, something pegged
        watcher = phone_page(browser, errors)
        watcher.goto(page.url)
        watcher.wait_for_selector("#live.on")

        def drawn(on: sync_api.Page) -> dict[str, object]:
            return {
                "count": on.inner_text("#count"),
                "turn": on.inner_text("#turn"),
                "scores": scores_on(on),
                "play": on.locator("#play li").all_inner_texts(),
                "muggins": on.inner_text("#muggins"),
                "picker": on.eval_on_selector_all(
                    "#picker button:not([disabled])", "bs => bs.map((b) => b.dataset.card)"),
            }  # fmt: skip

        before = drawn(page)
        assert drawn(watcher) == before
        screenshot(page, tmp_path / "before-the-kill.png")

        watcher.evaluate("""() => {
            const live = document.getElementById("live");
            window.wentOff = false;
            const seen = () => { if (!live.classList.contains("on")) window.wentOff = true; };
            new MutationObserver(seen).observe(live, { attributes: true });
        }""")
        server.restart()
        watcher.wait_for_function("() => window.wentOff")  # it saw the server go
        page.reload()
        table.synced()
        table.check()
        assert drawn(page) == before
        screenshot(page, tmp_path / "after-the-restart.png")

        watcher.wait_for_selector("#live.on")  # it reconnected by itself
        table.lay(PLAY[5])
        watcher.wait_for_function(
            "c => document.getElementById('count').textContent === c",
            arg=page.inner_text("#count"),
        )
        assert scores_on(watcher) == list(game.scores)
        assert errors == []


def test_choosing_five_card_sets_the_game_to_61(server: Server) -> None:
    """Five-card cribbage is a 61-point game: the form follows the variant, and the player may
    still choose another length after it."""
    with chromium() as browser:
        page = browser.new_page()
        page.goto(server.url + "/")
        page.select_option("select[name=variant]", "five-card")
        assert page.input_value("select[name=target]") == "61"
        page.select_option("select[name=variant]", "six-card")
        assert page.input_value("select[name=target]") == "121"
        page.select_option("select[name=variant]", "five-card")
        page.click("button[value=form]")
        page.wait_for_url("**/games/*")
        game_id = page.url.rstrip("/").rsplit("/", 1)[1]
        status, game = server.call("GET", f"/api/games/{game_id}")
        assert status == 200
        assert (game["settings"]["variant"], game["settings"]["target"]) == ("five-card", 61)


def test_on_a_desktop_the_current_step_is_in_view_before_the_board(server: Server) -> None:
    """1280 x 800: the play's card buttons need no scrolling; the board comes after them."""
    game_id = game_in_the_play(server)
    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1280, "height": 800})
        page.goto(f"{server.url}/games/{game_id}")
        first = page.get_by_role("button", name="6 of spades")  # the leader holds it
        first.wait_for()
        box, board = first.bounding_box(), page.locator("#board").bounding_box()
        assert box is not None and board is not None
        assert box["y"] + box["height"] <= 800 and board["y"] > box["y"]
