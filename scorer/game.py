"""A whole game of cribbage as a state machine driven by an append-only action log.

Every user action (cut, deal, discard, starter, play, go, show, muggins) is validated, appended
to `actions`, and produces scoring `events`: who, what, points, and the cards that justify
them. The state is a pure function of the actions, so a game serialises as its settings and
actions, replays to the same state, and `undo()` is "drop the last action and replay". An
illegal action raises a domain error and leaves the game exactly as it was.

Hands may be known (a replayed or manually entered deal) or hidden (a camera sees cards only
once they are laid): with hidden hands players say go themselves and each hand is shown from
the cards it played, or given at the show.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from scorer.cards import Card, ensure_distinct
from scorer.errors import CribbageError, GameError, IllegalPlayError, Phrase, phrase
from scorer.events import Action, Event, EventKind, Outcome
from scorer.muggins import ClaimCheck, ClaimOutcome, check_claim
from scorer.pegging import PegAction, Pegging
from scorer.settings import Settings, Variant
from scorer.show import Show, score_show


class Phase(enum.StrEnum):
    CUT_FOR_DEAL = "cut for deal"
    DEAL = "deal"
    DISCARD = "discard"
    STARTER = "starter"
    PLAY = "play"
    SHOW = "show"
    OVER = "over"


_PEG_EVENT = {
    PegAction.PLAY: EventKind.PLAY,
    PegAction.GO: EventKind.GO,
    PegAction.GO_POINT: EventKind.GO_POINT,
    PegAction.LAST_CARD: EventKind.LAST_CARD,
}


def _deal_error(number: int, code: str, /, **values: object) -> GameError:
    """A refusal about deal `number`, named first: "deal 3: seat 1 has already discarded"."""
    return GameError("in_deal", number=number, message=phrase(code, **values))


@dataclass
class _Muggable:
    """A short claim that an opponent may still take (until the next action)."""

    seat: int
    check: ClaimCheck


@dataclass
class _Deal:
    number: int
    dealer: int
    hands: list[list[Card]] | None  # as dealt; None when hidden
    crib_from_pack: tuple[Card, ...] = ()
    discards: dict[int, tuple[Card, ...]] = field(default_factory=dict)
    starter: Card | None = None
    pegging: Pegging | None = None
    shown: int = 0  # how many of the show steps are done
    counted: list[Card] = field(default_factory=list)  # cards of the hands shown so far


class Game:
    """One game. Seats 0..players-1 sit clockwise; the dealer's left is `dealer + 1`.

    >>> from scorer.cards import parse_card, parse_cards
    >>> game = Game(Settings(), first_dealer=1)
    >>> game.deal([parse_cards("5H 5D JC 6S 9H QD".split()),
    ...            parse_cards("2C 3C 4D KH 8S 7C".split())])
    >>> game.discard(0, parse_cards(["9H", "QD"]))
    >>> game.discard(1, parse_cards(["KH", "8S"]))
    >>> game.cut_starter(parse_card("JS"))
    >>> game.scores, str(game.events[-1])
    ((0, 2), 'deal 1: seat 1 his heels JS +2')
    """

    def __init__(self, settings: Settings | None = None, *, first_dealer: int | None = None):
        self.settings = settings or Settings()
        self.first_dealer = first_dealer
        if first_dealer is not None:
            self._check_seat(first_dealer)
        self.actions: list[Action] = []
        self._reset()

    # -- derived state ---------------------------------------------------------------------
    def _reset(self) -> None:
        self.events: list[Event] = []
        self._scores = [0] * self.settings.sides
        self.phase = Phase.CUT_FOR_DEAL
        self.dealer: int | None = None
        self.deal_state: _Deal | None = None
        self.deals_played = 0
        self.outcome: Outcome | None = None
        self._muggable: _Muggable | None = None
        if self.first_dealer is not None:
            self._start(self.first_dealer)

    @property
    def scores(self) -> tuple[int, ...]:
        return tuple(self._scores)

    @property
    def players(self) -> int:
        return self.settings.players

    def seat_points(self) -> list[int]:
        """Points each seat earned itself (partners share a score, but disputes need this)."""
        totals = [0] * self.players
        for event in self.events:
            if event.seat is not None and not event.for_interest:
                totals[event.seat] += event.points
        return totals

    def show_order(self) -> list[tuple[str, int]]:
        """The counting order: each hand from the dealer's left round to the dealer, then crib."""
        if self.dealer is None:
            return []
        seats = [(self.dealer + step) % self.players for step in range(1, self.players + 1)]
        return [("hand", seat) for seat in seats] + [("crib", self.dealer)]

    def next_show(self) -> tuple[str, int] | None:
        deal = self.deal_state
        if deal is None or self.phase not in (Phase.SHOW, Phase.OVER):
            return None
        if deal.pegging is None or not deal.pegging.finished:
            return None
        order = self.show_order()
        return order[deal.shown] if deal.shown < len(order) else None

    @property
    def turn(self) -> int | None:
        """Whose turn it is in the play, else None."""
        if self.phase is Phase.PLAY and self.deal_state and self.deal_state.pegging:
            return self.deal_state.pegging.turn
        return None

    @property
    def go_possible(self) -> bool:
        """Whether the seat whose turn it is may say go (see `Pegging.may_say_go`)."""
        turn = self.turn
        if turn is None or self.deal_state is None or self.deal_state.pegging is None:
            return False
        return self.deal_state.pegging.may_say_go(turn)

    # -- actions ---------------------------------------------------------------------------
    def cut_for_deal(self, cuts: Sequence[Card]) -> None:
        """Each seat's cut card, in seat order; the lowest deals."""
        self._perform(Action("cut", cards=tuple(cuts)))

    def choose_dealer(self, seat: int) -> None:
        self._perform(Action("dealer", seat=seat))

    def deal(self, hands: Sequence[Sequence[Card]] | None, crib_card: Card | None = None) -> None:
        """Record the deal: each seat's cards as dealt (None when hands are hidden)."""
        if hands is None:
            self._perform(Action("deal", hidden=True))
            return
        cards = tuple(card for hand in hands for card in hand)
        extra = () if crib_card is None else (crib_card,)
        self._perform(Action("deal", cards=cards + extra))

    def discard(self, seat: int, cards: Sequence[Card] | None) -> None:
        """`seat` lays cards away to the crib (None: face down, unseen)."""
        if cards is None:
            self._perform(Action("discard", seat=seat, hidden=True))
        else:
            self._perform(Action("discard", seat=seat, cards=tuple(cards)))

    def cut_starter(self, card: Card) -> None:
        self._perform(Action("starter", cards=(card,)))

    def play(self, seat: int, card: Card, claim: int | None = None) -> None:
        self._perform(Action("play", seat=seat, cards=(card,), claim=claim))

    def go(self, seat: int) -> None:
        self._perform(Action("go", seat=seat))

    def show(self, cards: Sequence[Card] | None = None, claim: int | None = None) -> Show:
        """Count the next hand (or the crib) in counting order; returns its breakdown."""
        nxt = self.next_show()
        seat = None if nxt is None else nxt[1]
        self._perform(Action("show", seat=seat, cards=tuple(cards or ()), claim=claim))
        return self._last_show

    def muggins(self, seat: int, points: int, *, moot_if_over: bool = False) -> None:
        """`seat` calls muggins for `points` on the claim just made.

        Once the game is won a call is refused, unless `moot_if_over` (a recorded game being
        replayed): the call is then kept in the log as moot, for no points, as at a table.
        """
        moot = moot_if_over and self.phase is Phase.OVER
        self._perform(Action("muggins", seat=seat, points=points, moot=moot))

    def correct(self, seat: int, points: int) -> None:
        """A manual correction of `seat`'s score (e.g. to match the physical board)."""
        self._perform(Action("correct", seat=seat, points=points))

    def undo(self) -> Action:
        """Remove the last action and everything it caused."""
        if not self.actions:
            raise GameError("nothing_to_undo")
        action = self.actions.pop()
        self._replay()
        return action

    # -- serialisation ---------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        return {
            "settings": self.settings.to_json(),
            "first_dealer": self.first_dealer,
            "actions": [action.to_json() for action in self.actions],
        }

    @classmethod
    def from_json(cls, data: Any) -> Game:
        if not isinstance(data, dict):
            raise GameError("saved_game_not_object", value=repr(data))
        game = cls(Settings.from_json(data.get("settings", {})),
                   first_dealer=data.get("first_dealer"))  # fmt: skip
        for number, raw in enumerate(data.get("actions", []), start=1):
            try:
                game._perform(Action.from_json(raw))
            except CribbageError as error:
                raise GameError("in_saved_action", number=number, value=repr(raw),
                                message=error) from None  # fmt: skip
        return game

    def state_json(self) -> dict[str, Any]:
        """Everything a page needs to draw the table."""
        deal = self.deal_state
        pegging = deal.pegging if deal else None
        nxt = self.next_show()
        return {
            "settings": self.settings.to_json(),
            "phase": self.phase.value,
            "dealer": self.dealer,
            "deal": deal.number if deal else 0,
            "scores": list(self.scores),
            "seat_points": self.seat_points(),
            "turn": self.turn,
            "go_possible": self.go_possible,
            "count": pegging.count if pegging else 0,
            "count_cards": [str(c) for c in pegging.count_cards] if pegging else [],
            "starter": str(deal.starter) if deal and deal.starter else None,
            "next_show": None if nxt is None else {"what": nxt[0], "seat": nxt[1]},
            "muggins_open": None if self._muggable is None else {
                "seat": self._muggable.seat, **self._muggable.check.to_json()},
            "outcome": None if self.outcome is None else self.outcome.to_json(),
            "events": [event.to_json() for event in self.events],
            "actions": len(self.actions),
        }  # fmt: skip

    # -- the engine ------------------------------------------------------------------------
    def _perform(self, action: Action) -> None:
        try:
            self._apply(action)
        except CribbageError:
            self._replay()  # anything half-applied is rebuilt from the log
            raise
        self.actions.append(action)

    def _replay(self) -> None:
        actions, self.actions = self.actions, []
        self._reset()
        for action in actions:
            self._apply(action)
            self.actions.append(action)

    def _apply(self, action: Action) -> None:
        muggable, self._muggable = self._muggable, None  # the window closes with any action
        if action.moot and action.kind != "muggins":
            raise GameError("moot_not_muggins", kind=action.kind)
        if action.kind == "muggins":
            self._apply_muggins(action, muggable)
            return
        handler = {
            "cut": self._apply_cut,
            "dealer": self._apply_dealer,
            "deal": self._apply_deal,
            "discard": self._apply_discard,
            "starter": self._apply_starter,
            "play": self._apply_play,
            "go": self._apply_go,
            "show": self._apply_show,
            "correct": self._apply_correct,
        }.get(action.kind)
        if handler is None:
            raise GameError("unknown_action", value=repr(action.kind))
        if self.phase is Phase.OVER and action.kind != "show":
            raise GameError("game_over", kind=action.kind)
        handler(action)

    def _expect(self, phase: Phase, action: Phrase) -> None:
        if self.phase is not phase:
            raise GameError("wrong_phase", action=action, phase=self.phase.value)

    def _check_seat(self, seat: int | None) -> int:
        players = self.settings.players
        if type(seat) is not int:
            raise GameError("seat_not_a_number", value=repr(seat), players=players)
        if not 0 <= seat < players:
            raise GameError("not_a_seat", seat=seat, players=players)
        return seat

    def _start(self, dealer: int) -> None:
        self.dealer = dealer
        self.phase = Phase.DEAL
        if self.settings.variant is Variant.FIVE_CARD:
            pone = (dealer + 1) % self.players
            self._score(pone, EventKind.THREE_FOR_LAST, 3, note="three for last to the non-dealer")

    def _apply_cut(self, action: Action) -> None:
        self._expect(Phase.CUT_FOR_DEAL, phrase("cut_for_deal"))
        cuts = action.cards
        if len(cuts) != self.players:
            raise GameError("cut_size", wanted=self.players, given=len(cuts))
        ensure_distinct(cuts)
        low = min(card.rank for card in cuts)
        lowest = [seat for seat, card in enumerate(cuts) if card.rank == low]
        if len(lowest) > 1:
            raise GameError("tied_cut", cards=cuts)
        self._start(lowest[0])

    def _apply_dealer(self, action: Action) -> None:
        self._expect(Phase.CUT_FOR_DEAL, phrase("choose_dealer"))
        self._start(self._check_seat(action.seat))

    def _apply_deal(self, action: Action) -> None:
        self._expect(Phase.DEAL, phrase("deal"))
        assert self.dealer is not None
        settings = self.settings
        number = self.deals_played + 1
        if action.hidden:
            self.deal_state = _Deal(number, self.dealer, None)
        else:
            per, extra = settings.dealt_per_player, settings.crib_cards_from_pack
            wanted = per * self.players + extra
            if len(action.cards) != wanted:
                code = "deal_size_with_crib_card" if extra else "deal_size"
                raise _deal_error(number, code, players=self.players, per=per, wanted=wanted,
                                  given=len(action.cards))  # fmt: skip
            ensure_distinct(action.cards)
            hands = [list(action.cards[s * per : (s + 1) * per]) for s in range(self.players)]
            self.deal_state = _Deal(number, self.dealer, hands, action.cards[wanted - extra :])
        self.deals_played = number
        self.phase = Phase.DISCARD

    def _apply_discard(self, action: Action) -> None:
        self._expect(Phase.DISCARD, phrase("discard"))
        deal = self._deal()
        seat = self._check_seat(action.seat)
        if seat in deal.discards:
            raise _deal_error(deal.number, "already_discarded", seat=seat)
        wanted = self.settings.discards_per_player
        if action.hidden:
            if deal.hands is not None:
                raise _deal_error(deal.number, "hands_known")
        else:
            if len(action.cards) != wanted:
                raise _deal_error(deal.number, "discard_size", seat=seat, wanted=wanted,
                                  given=len(action.cards), cards=action.cards)  # fmt: skip
            ensure_distinct(action.cards)
            for card in action.cards:
                if deal.hands is not None and card not in deal.hands[seat]:
                    raise _deal_error(deal.number, "not_dealt", seat=seat, card=card)
                self._check_unseen(card, deal)
        deal.discards[seat] = action.cards
        if len(deal.discards) == self.players:
            self.phase = Phase.STARTER

    def _apply_starter(self, action: Action) -> None:
        self._expect(Phase.STARTER, phrase("turn_starter"))
        deal = self._deal()
        if len(action.cards) != 1:
            raise GameError("starter_one_card")
        starter = action.cards[0]
        self._check_unseen(starter, deal)
        if deal.hands is not None and any(starter in hand for hand in deal.hands):
            raise _deal_error(deal.number, "starter_dealt", card=starter)
        if starter in deal.crib_from_pack:
            raise _deal_error(deal.number, "starter_in_crib", card=starter)
        deal.starter = starter
        kept = None
        if deal.hands is not None:
            kept = [[c for c in hand if c not in deal.discards[seat]]
                    for seat, hand in enumerate(deal.hands)]  # fmt: skip
        deal.pegging = Pegging(
            self.players,
            deal.dealer,
            kept,
            hand_size=self.settings.hand_size,
            single_count=self.settings.variant is Variant.FIVE_CARD,
        )
        self.phase = Phase.PLAY
        if starter.rank == 11:
            self._score(deal.dealer, EventKind.HIS_HEELS, 2, cards=(starter,))
        if self.phase is Phase.PLAY:
            self._absorb_pegging(deal, start=0)

    def _apply_play(self, action: Action) -> None:
        self._expect(Phase.PLAY, phrase("play_a_card"))
        deal = self._deal()
        seat = self._check_seat(action.seat)
        card = action.cards[0] if len(action.cards) == 1 else None
        if card is None:
            raise GameError("play_one_card")
        self._check_unseen(card, deal, playing=True)
        pegging = self._pegging(deal)
        start = len(pegging.events)
        try:
            pegging.play(seat, card)
        except IllegalPlayError as error:
            raise IllegalPlayError("in_deal", number=deal.number, message=error) from None
        self._absorb_pegging(deal, start, claim=action.claim)

    def _apply_go(self, action: Action) -> None:
        self._expect(Phase.PLAY, phrase("say_go"))
        deal = self._deal()
        pegging = self._pegging(deal)
        start = len(pegging.events)
        try:
            pegging.go(self._check_seat(action.seat))
        except IllegalPlayError as error:
            raise IllegalPlayError("in_deal", number=deal.number, message=error) from None
        self._absorb_pegging(deal, start)

    def _absorb_pegging(self, deal: _Deal, start: int, claim: int | None = None) -> None:
        """Turn the pegging engine's new events into game events; the claim is the card's."""
        pegging = self._pegging(deal)
        for index, peg in enumerate(pegging.events[start:]):
            kind = _PEG_EVENT[peg.action]
            cards = (peg.card,) if peg.card is not None else ()
            items = tuple(str(item) for item in peg.items)
            own_claim = claim if index == 0 and kind is EventKind.PLAY else None
            self._score(peg.seat, kind, peg.points, cards=cards, items=items,
                        claim_items=peg.items, claim=own_claim)  # fmt: skip
            if self.phase is Phase.OVER:
                return
        if pegging.finished:
            self.phase = Phase.SHOW

    def _apply_show(self, action: Action) -> None:
        if self.phase not in (Phase.SHOW, Phase.OVER):
            raise GameError("wrong_phase", action=phrase("show"), phase=self.phase.value)
        deal = self._deal()
        nxt = self.next_show()
        if nxt is None:
            raise _deal_error(deal.number, "all_shown")
        what, seat = nxt
        if action.seat is not None and action.seat != seat:
            raise _deal_error(deal.number, "not_their_count", owner=seat, what=what,
                              seat=action.seat)  # fmt: skip
        cards = self._shown_cards(deal, what, seat, action.cards)
        assert deal.starter is not None
        show = score_show(cards, deal.starter, crib=what == "crib")
        deal.counted.extend(cards)
        self._last_show = show
        kind = EventKind.CRIB if what == "crib" else EventKind.HAND
        deal.shown += 1
        self._score(seat, kind, show.total, cards=show.hand,
                    items=tuple(str(i) for i in show.items), claim_items=show.items,
                    claim=action.claim)  # fmt: skip
        if deal.shown == len(self.show_order()) and self.phase is Phase.SHOW:
            self.dealer = (deal.dealer + 1) % self.players
            self.phase = Phase.DEAL

    def _shown_cards(
        self, deal: _Deal, what: str, seat: int, given: tuple[Card, ...]
    ) -> tuple[Card, ...]:
        """The cards to count: as entered, else from the deal, else from the play."""
        pegging = self._pegging(deal)
        if what == "crib":
            known = [c for s in range(self.players) for c in deal.discards.get(s, ())]
            known += deal.crib_from_pack
            complete = len(known) == 4
        elif deal.hands is not None:
            known = [c for c in deal.hands[seat] if c not in deal.discards[seat]]
            complete = True
        else:
            known = list(pegging.played[seat])
            complete = len(known) == self.settings.hand_size
        if not given:
            if not complete:
                raise _deal_error(deal.number, "enter_shown_cards", seat=seat, what=what)
            return tuple(known)
        ensure_distinct(given)
        missing = [c for c in known if c not in given]
        if missing:
            raise _deal_error(deal.number, "show_missing_cards", seat=seat, what=what,
                              cards=missing)  # fmt: skip
        for card in given:
            if card not in known:
                self._check_unseen(card, deal)
        return given

    def _apply_correct(self, action: Action) -> None:
        seat = self._check_seat(action.seat)
        if action.points is None or action.points == 0:
            raise GameError("zero_correction", value=repr(action.points))
        self._score(seat, EventKind.CORRECTION, action.points, note="manual correction")

    def _apply_muggins(self, action: Action, muggable: _Muggable | None) -> None:
        if not self.settings.muggins:
            raise GameError("no_muggins")
        caller = self._check_seat(action.seat)
        points = action.points
        if points is None or points < 1:
            raise GameError("muggins_points", value=repr(points))
        deal_no = self.deal_state.number if self.deal_state else 0
        if self.phase is Phase.OVER:
            if not action.moot:
                raise GameError("game_over", kind="muggins")
            # A moot call (only a replay makes one) stays in the log for the record.
            self.events.append(Event(deal_no, EventKind.MUGGINS, caller, 0,
                                     note=f"called for {points}", moot=True))  # fmt: skip
            return
        if action.moot:
            raise GameError("moot_too_soon", seat=caller, points=points)
        if muggable is None:
            raise GameError("nothing_to_muggins")
        claimant = muggable.seat
        if self.settings.side_of(caller) == self.settings.side_of(claimant):
            raise GameError("muggins_own_side", seat=caller)
        if muggable.check.outcome is not ClaimOutcome.SHORT:
            return self._wrong_muggins(caller, points, claimant, deal_no)
        taken = min(points, muggable.check.missed)
        self._muggable = None
        self._score(caller, EventKind.MUGGINS, taken, items=muggable.check.missed_items,
                    note=f"muggins on seat {claimant}: {muggable.check.describe()}")  # fmt: skip

    def _wrong_muggins(self, caller: int, points: int, claimant: int, deal: int) -> None:
        """ACC 10.4: a call where nothing was missed gives the points to the other side."""
        note = f"wrong muggins call by seat {caller} for {points}: nothing was missed"
        if self.settings.muggins_penalties:
            self._score(claimant, EventKind.PENALTY, points, note=note)
        else:
            self.events.append(
                Event(deal, EventKind.PENALTY, caller, 0, note=f"{note} (no penalty)")
            )

    def _score(
        self,
        seat: int,
        kind: EventKind,
        points: int,
        *,
        cards: tuple[Card, ...] = (),
        items: tuple[str, ...] = (),
        claim_items: Sequence[Any] = (),
        claim: int | None = None,
        note: str = "",
    ) -> None:
        """Record an event and peg its points, checking claims and the end of the game."""
        deal = self.deal_state.number if self.deal_state else 0
        if self.phase is Phase.OVER:
            self.events.append(Event(deal, kind, seat, 0, cards, items, note=note,
                                     for_interest=True))  # fmt: skip
            return
        check = None
        pegged = points
        if claim is not None:
            check = check_claim(claim, claim_items)
            if self.settings.muggins:
                self._muggable = _Muggable(seat, check)
                if check.outcome is ClaimOutcome.SHORT:
                    pegged = claim
        self.events.append(Event(deal, kind, seat, pegged, cards, items, check, note))
        self._peg(seat, pegged)
        if check is not None and check.outcome is ClaimOutcome.OVER:
            self._over_claim(seat, check, deal)

    def _over_claim(self, seat: int, check: ClaimCheck, deal: int) -> None:
        """Corrected to the true count; ACC 8.4 when the claim falsely reached game."""
        side = self.settings.side_of(seat)
        target = self.settings.target
        false_game = self._scores[side] + check.over >= target and self.phase is not Phase.OVER
        if not (false_game and self.settings.false_game_penalty):
            return
        to_game = min(check.over, target - self._scores[side])
        opponent = next(s for s in range(self.players) if self.settings.side_of(s) != side)
        self.events.append(
            Event(
                deal,
                EventKind.PENALTY,
                seat,
                -15,
                note=f"false claim of game ({check.describe()}): 15 back",
            )
        )
        self._peg(seat, -15)
        self._score(opponent, EventKind.PENALTY, to_game,
                    note=f"false claim of game by seat {seat}: overclaimed points")  # fmt: skip

    def _peg(self, seat: int, points: int) -> None:
        if self.phase is Phase.OVER:
            return
        side = self.settings.side_of(seat)
        self._scores[side] = max(self._scores[side] + points, 0)
        if self._scores[side] >= self.settings.target:
            self._finish(side)

    def _finish(self, winner: int) -> None:
        self.phase = Phase.OVER
        self._muggable = None
        scheme = self.settings.match_points
        skunks = {side: self.settings.skunk_level(score)
                  for side, score in enumerate(self._scores) if side != winner}  # fmt: skip
        level = min(skunks.values())  # the winner is paid by its best-placed opponent
        points = [scheme.loss] * self.settings.sides
        points[winner] = scheme.for_winner(level)
        self.outcome = Outcome(winner, tuple(self._scores), skunks, tuple(points))

    # -- helpers ---------------------------------------------------------------------------
    def _deal(self) -> _Deal:
        if self.deal_state is None:
            raise GameError("no_deal")
        return self.deal_state

    def _pegging(self, deal: _Deal) -> Pegging:
        if deal.pegging is None:
            raise _deal_error(deal.number, "no_starter")
        return deal.pegging

    def _check_unseen(self, card: Card, deal: _Deal, *, playing: bool = False) -> None:
        """A card is in one place only: refuse one already cut, laid away, played or shown."""
        if card == deal.starter:
            raise _deal_error(deal.number, "card_is_starter", card=card)
        if any(card in cards for cards in deal.discards.values()):
            raise _deal_error(deal.number, "card_in_crib", card=card)
        if card in deal.counted:
            raise _deal_error(deal.number, "card_shown", card=card)
        if not playing and deal.pegging and any(card in p for p in deal.pegging.played):
            raise _deal_error(deal.number, "card_played", card=card)

    _last_show: Show
