"""The play (pegging) for 2, 3 or 4 players, card by card.

`Pegging` is a small state machine: it knows the running count, whose turn it is, who has
said go, and it decides go points, count resets and the last card itself. When the players'
hands are known it also says go on a player's behalf when they cannot play, and refuses a
renege; with hidden hands (a camera only sees cards once laid) players say go explicitly.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from scorer.cards import Card, ensure_distinct
from scorer.errors import IllegalPlayError, Phrase, phrase

TARGET_COUNT = 31
#: The most a card counts (10 and the court cards): at a count of 21 or less any card plays.
HIGHEST_VALUE = 10


class PegKind(enum.StrEnum):
    FIFTEEN = "fifteen"
    THIRTY_ONE = "thirty-one"
    PAIR = "pair"
    RUN = "run"
    GO = "go"
    LAST_CARD = "last card"


class PegItem(NamedTuple):
    """Points scored in the play, with the cards that earn them."""

    kind: PegKind
    cards: tuple[Card, ...]
    points: int

    @property
    def name(self) -> str:
        """'15', '31', 'pair', 'pair royal', 'double pair royal', 'run of 4', 'go', 'last card'."""
        if self.kind is PegKind.FIFTEEN:
            return "15"
        if self.kind is PegKind.THIRTY_ONE:
            return "31"
        if self.kind is PegKind.PAIR:
            return {2: "pair", 3: "pair royal", 4: "double pair royal"}[len(self.cards)]
        if self.kind is PegKind.RUN:
            return f"run of {len(self.cards)}"
        return self.kind.value

    def __str__(self) -> str:
        return f"{self.name} for {self.points}"


class PegAction(enum.StrEnum):
    PLAY = "play"  # a seat lays a card
    GO = "go"  # a seat cannot play and says go
    GO_POINT = "go point"  # nobody can play: the last to lay a card pegs 1
    LAST_CARD = "last card"  # the last card of the play pegs 1 (not after 31)


@dataclass(frozen=True)
class PegEvent:
    """One step of the play, as it would be announced at the table."""

    action: PegAction
    seat: int
    card: Card | None
    count: int
    items: tuple[PegItem, ...] = ()

    @property
    def points(self) -> int:
        return sum(item.points for item in self.items)

    def to_json(self) -> dict[str, object]:
        return {
            "action": self.action.value,
            "seat": self.seat,
            "card": None if self.card is None else str(self.card),
            "count": self.count,
            "points": self.points,
            "items": [
                {"kind": i.kind.value, "name": i.name, "cards": [str(c) for c in i.cards],
                 "points": i.points}
                for i in self.items
            ],
        }  # fmt: skip

    def __str__(self) -> str:
        if self.action is PegAction.PLAY:
            said = f"seat {self.seat} plays {self.card}: {self.count}"
        else:
            said = f"seat {self.seat}: {self.action.value}"
        reasons = ", ".join(map(str, self.items))
        return f"{said} ({reasons})" if reasons else said


def score_play(count_cards: Sequence[Card]) -> tuple[PegItem, ...]:
    """Points for the last card of the current count (the cards laid since the last reset).

    >>> from scorer.cards import parse_cards
    >>> [str(i) for i in score_play(parse_cards(["4H", "6D", "5S"]))]
    ['15 for 2', 'run of 3 for 3']
    >>> [str(i) for i in score_play(parse_cards(["3C", "6D", "6S", "6H", "4D", "5C"]))]
    ['run of 3 for 3']
    """
    items: list[PegItem] = []
    total = sum(card.value for card in count_cards)
    if total == 15:
        items.append(PegItem(PegKind.FIFTEEN, tuple(count_cards), 2))
    elif total == TARGET_COUNT:
        items.append(PegItem(PegKind.THIRTY_ONE, tuple(count_cards), 2))
    last_rank = count_cards[-1].rank
    same = 1
    while same < len(count_cards) and count_cards[-1 - same].rank == last_rank:
        same += 1
    if same > 1:
        items.append(PegItem(PegKind.PAIR, tuple(count_cards[-same:]), same * (same - 1)))
    for length in range(len(count_cards), 2, -1):
        tail = count_cards[-length:]
        ranks = {card.rank for card in tail}
        if len(ranks) == length and max(ranks) - min(ranks) == length - 1:
            items.append(PegItem(PegKind.RUN, tuple(tail), length))
            break
    return tuple(items)


@dataclass
class Pegging:
    """The play of one deal. Seats are numbered 0..players-1 in turn order.

    `hands`, when given, are the cards each seat holds for the play; then go is automatic and a
    renege is refused. Without hands each seat holds `hand_size` unknown cards and says go itself.
    `single_count` plays the five-card variant: the play ends with the first go or 31.

    >>> from scorer.cards import parse_cards
    >>> peg = Pegging(2, dealer=1, hands=[parse_cards(["5D", "KH", "4C", "6S"]),
    ...                                   parse_cards(["10C", "5S", "9H", "AD"])])
    >>> [str(i) for i in peg.play(0, peg.hands[0][0])]
    []
    >>> [str(i) for i in peg.play(1, peg.hands[1][0])]
    ['15 for 2']
    """

    players: int
    dealer: int
    hands: list[list[Card]] | None = None
    hand_size: int = 4
    single_count: bool = False
    events: list[PegEvent] = field(default_factory=list)
    count_cards: list[Card] = field(default_factory=list)
    played: list[list[Card]] = field(init=False)
    said_go: set[int] = field(default_factory=set)
    turn: int | None = field(init=False)
    last_player: int | None = None
    finished: bool = False

    def __post_init__(self) -> None:
        if self.players not in (2, 3, 4):
            raise IllegalPlayError("pegging_players", players=self.players)
        if not 0 <= self.dealer < self.players:
            raise IllegalPlayError("dealer_not_a_seat", number=self.dealer, players=self.players)
        if self.hands is not None:
            self.hands = [list(hand) for hand in self.hands]
            if len(self.hands) != self.players:
                raise IllegalPlayError(
                    "hands_for_players", given=len(self.hands), players=self.players
                )
            ensure_distinct(card for hand in self.hands for card in hand)
            self.hand_size = max(len(hand) for hand in self.hands)
        self.played = [[] for _ in range(self.players)]
        self.turn = (self.dealer + 1) % self.players
        self._auto_go()

    # -- state -----------------------------------------------------------------------------
    @property
    def count(self) -> int:
        return sum(card.value for card in self.count_cards)

    def remaining(self, seat: int) -> int:
        """How many cards `seat` has not laid yet."""
        if self.hands is not None:
            return len(self.hands[seat]) - len(self.played[seat])
        return self.hand_size - len(self.played[seat])

    def playable(self, seat: int) -> list[Card] | None:
        """The cards `seat` could lay now, or None when its hand is unknown."""
        if self.hands is None:
            return None
        room = TARGET_COUNT - self.count
        return [c for c in self.hands[seat] if c not in self.played[seat] and c.value <= room]

    def may_say_go(self, seat: int) -> bool:
        """Whether `seat` may say go now: its turn, and no card it may hold can be played.

        With known hands that is never so (the engine says go itself for a seat that cannot
        play); with hidden hands a seat with cards left can play on any count up to 21.
        """
        if self.finished or seat != self.turn:
            return False
        playable = self.playable(seat)
        if playable is not None:
            return not playable
        return self.count + HIGHEST_VALUE > TARGET_COUNT

    def scores(self) -> list[int]:
        """Pegging points per seat so far, go and last card included."""
        totals = [0] * self.players
        for event in self.events:
            totals[event.seat] += event.points
        return totals

    # -- actions ---------------------------------------------------------------------------
    def play(self, seat: int, card: Card) -> tuple[PegItem, ...]:
        """Lay `card` from `seat`; returns what that card scores (fifteen, 31, pairs, runs).

        Go points and the last card that this play brings about are added as their own events.
        """
        self._check_turn(seat, phrase("play_card", card=card))
        if any(card in cards for cards in self.played):
            raise IllegalPlayError("already_played", card=card)
        if self.hands is not None and card not in self.hands[seat]:
            raise IllegalPlayError("not_held", seat=seat, card=card)
        if self.remaining(seat) == 0:
            raise IllegalPlayError("no_cards_left", seat=seat, card=card)
        if self.count + card.value > TARGET_COUNT:
            raise IllegalPlayError("past_31", card=card, count=self.count, limit=TARGET_COUNT)
        self.count_cards.append(card)
        self.played[seat].append(card)
        self.last_player = seat
        items = score_play(self.count_cards)
        self.events.append(PegEvent(PegAction.PLAY, seat, card, self.count, items))
        self._advance(seat)
        return items

    def go(self, seat: int) -> None:
        """`seat` says go: it cannot play without passing 31."""
        self._check_turn(seat, phrase("say_go"))
        playable = self.playable(seat)
        if playable:
            raise IllegalPlayError("renege", seat=seat, cards=playable, count=self.count)
        if not self.may_say_go(seat):
            raise IllegalPlayError("go_too_soon", seat=seat, count=self.count)
        self._say_go(seat)
        self._advance(seat)

    # -- the engine ------------------------------------------------------------------------
    def _check_turn(self, seat: int, action: Phrase) -> None:
        if self.finished:
            raise IllegalPlayError("play_over", seat=seat, action=action)
        if not 0 <= seat < self.players:
            raise IllegalPlayError("not_a_seat", seat=seat, players=self.players)
        if seat != self.turn:
            raise IllegalPlayError("not_your_turn", seat=seat, action=action, turn=self.turn)

    def _say_go(self, seat: int) -> None:
        self.said_go.add(seat)
        self.events.append(PegEvent(PegAction.GO, seat, None, self.count))

    def _in_count(self, seat: int) -> bool:
        return seat not in self.said_go and self.remaining(seat) > 0

    def _advance(self, actor: int) -> None:
        """Move the turn on after `actor` acted; end the count or the play when due."""
        if all(self.remaining(s) == 0 for s in range(self.players)):
            self._end_count(final=True)
            return
        if self.count == TARGET_COUNT:
            self._end_count(final=False)
            return
        for step in range(1, self.players + 1):
            seat = (actor + step) % self.players
            if self._in_count(seat):
                self.turn = seat
                self._auto_go()
                return
        self._end_count(final=False)

    def _auto_go(self) -> None:
        """With known hands, say go for a seat that cannot play, then move on."""
        if self.turn is not None and self.playable(self.turn) == []:
            seat = self.turn
            self._say_go(seat)
            self._advance(seat)

    def _end_count(self, *, final: bool) -> None:
        """The count is over: award go / last card (never after 31), reset, pick the leader."""
        last = self.last_player
        assert last is not None, "a count ends only after a card was laid"
        if self.count != TARGET_COUNT:
            kind, action = (
                (PegKind.LAST_CARD, PegAction.LAST_CARD)
                if final
                else (PegKind.GO, PegAction.GO_POINT)
            )
            item = PegItem(kind, (self.count_cards[-1],), 1)
            self.events.append(PegEvent(action, last, None, self.count, (item,)))
        self.count_cards = []
        self.said_go = set()
        if final or self.single_count:
            self.finished = True
            self.turn = None
            return
        for step in range(1, self.players + 1):
            seat = (last + step) % self.players
            if self.remaining(seat) > 0:
                self.turn = seat
                self._auto_go()
                return
