"""A whole deal on video, for 2, 3 or 4 players: from the face-down pack to the table cleared.

Hands are held and discards lie face down (TABLE-MODE.md), so the camera sees: the pack; the
starter turned on it; each card of the play laid into its player's row, a hand reaching in from
that seat's edge; the rows left lying for the show; the crib turned face up beside the dealer;
the table cleared. In five-card cribbage (`DealScript.single_count`) the play ends at the first go
or 31, and each player turns the cards left in hand face up in their row for the show, before
the crib. Who lays what comes from the rules engine (`scorer.pegging.Pegging`): each
player lays the first card of their hand that keeps the count at 31 or under, else says go.
The truth comes with the frames: the plays in order and the first frame of each table event.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Literal

import cv2
import numpy as np

from cribtrain.data.clips import (
    DEFAULT_CAMERA,
    PLAY_ROW,
    CameraConfig,
    Image,
    _lighting,
    _render,
    _Table,
    _through_camera,
    withdrawing,
)
from cribtrain.data.poses import MARGIN, View, through_view
from cribtrain.data.synth import Deck
from scorer.cards import Card, ensure_distinct, parse_card
from scorer.pegging import PegAction, Pegging
from vision.table.roles import Role, Seat, TableLayout

#: The crib's place beside the dealer, in pixels: this far towards the dealer's edge (where the
#: held hand would lie) and to the dealer's right, clear of every other seat's axis.
CRIB_ALONG = 235.0
CRIB_LATERAL = 185.0
#: Frames the hand that laid a card takes to withdraw.
WITHDRAW = 2

MarkKind = Literal["starter", "play", "show", "crib", "clear"]

#: Where the players sit on the table plane, in the engine's order of play (clockwise seen from
#: above, `tablemode.seats.LAYOUTS`): 2 face each other, 3 leave the top side free, 4 are two
#: pairs of partners facing each other (seats 0 and 2, 1 and 3).
SEATINGS: dict[int, tuple[Seat, ...]] = {
    2: ("bottom", "top"),
    3: ("bottom", "left", "right"),
    4: ("bottom", "left", "top", "right"),
}


@dataclass(frozen=True)
class Go:
    """`seat` said go at `count`, after `after` cards of the play were laid."""

    seat: Seat
    count: int
    after: int


@dataclass(frozen=True)
class DealMark:
    """A table event and the first frame it is visible in."""

    kind: MarkKind
    frame: int
    seat: Seat | None = None
    cards: tuple[Card, ...] = ()


@dataclass(frozen=True)
class DealScript:
    """One deal: the seats in order of play (clockwise), the dealer (an index into `seats`),
    the four cards each player keeps (three in five-card cribbage: `single_count`), the crib
    and the starter."""

    seats: tuple[Seat, ...]
    dealer: int
    hands: Mapping[Seat, tuple[Card, ...]] = field(hash=False)
    crib: tuple[Card, ...]
    starter: Card
    #: Five-card cribbage: two players keep three cards each, and the play is a single count.
    single_count: bool = False

    def __post_init__(self) -> None:
        TableLayout(self.seats)  # raises for an unknown, repeated or wrong number of seats
        if not 0 <= self.dealer < len(self.seats):
            raise ValueError(f"dealer {self.dealer} is not an index into {self.seats}")
        if set(self.hands) != set(self.seats):
            raise ValueError(f"hands for {sorted(self.hands)}, seats {list(self.seats)}")
        if self.single_count and len(self.seats) != 2:
            raise ValueError(f"five-card cribbage is for 2 players, not {len(self.seats)}")
        kept = self.hand_size
        if any(len(hand) != kept for hand in self.hands.values()) or len(self.crib) != 4:
            raise ValueError(f"each hand holds {kept} cards and the crib 4")
        ensure_distinct([*(c for hand in self.hands.values() for c in hand), *self.crib,
                         self.starter])  # fmt: skip

    @classmethod
    def of(
        cls,
        seats: Sequence[Seat],
        dealer: int,
        hands: Mapping[Seat, Sequence[str]],
        crib: Sequence[str],
        starter: str,
        *,
        single_count: bool = False,
    ) -> DealScript:
        """A script from card text: ``DealScript.of(("bottom", "top"), 0, {...}, [...], "5D")``."""
        return cls(
            tuple(seats),
            dealer,
            {seat: tuple(parse_card(c) for c in hand) for seat, hand in hands.items()},
            tuple(parse_card(c) for c in crib),
            parse_card(starter),
            single_count,
        )

    @property
    def hand_size(self) -> int:
        return 3 if self.single_count else 4

    @property
    def dealer_seat(self) -> Seat:
        return self.seats[self.dealer]

    @cached_property
    def _pegging(self) -> Pegging:
        """The play as the rules engine runs it: each player lays the first card of their
        hand that fits (the engine says go for a player with none)."""
        hands = [list(self.hands[s]) for s in self.seats]
        pegging = Pegging(len(self.seats), self.dealer, hands=hands, single_count=self.single_count)
        while not pegging.finished:
            seat = pegging.turn
            assert seat is not None
            playable = pegging.playable(seat)
            assert playable, "the engine says go for a player who cannot play"
            pegging.play(seat, playable[0])
        return pegging

    @property
    def plays(self) -> tuple[tuple[Seat, Card], ...]:
        """Every card of the play in order: (seat, card)."""
        return tuple(
            (self.seats[e.seat], e.card)
            for e in self._pegging.events
            if e.action is PegAction.PLAY and e.card is not None
        )

    @property
    def unplayed(self) -> dict[Seat, tuple[Card, ...]]:
        """Each seat's cards the play left in hand (five-card cribbage's single count)."""
        laid = {card for _, card in self.plays}
        return {seat: tuple(c for c in self.hands[seat] if c not in laid) for seat in self.seats}

    @property
    def goes(self) -> tuple[Go, ...]:
        """Who said go, at which count, after how many cards."""
        goes: list[Go] = []
        laid = 0
        for event in self._pegging.events:
            if event.action is PegAction.PLAY:
                laid += 1
            elif event.action is PegAction.GO:
                goes.append(Go(self.seats[event.seat], event.count, laid))
        return tuple(goes)


@dataclass(frozen=True)
class DealClip:
    """The frames (BGR) of one deal and their truth."""

    frames: tuple[Image, ...]
    script: DealScript
    #: Every card of the play in order: (seat, card).
    plays: tuple[tuple[Seat, Card], ...]
    #: Each table event (starter, each play, crib, clear) and its first frame, in order.
    marks: tuple[DealMark, ...]
    #: Each card's role once the crib is turned: starter, each play row, the dealer's crib.
    roles: dict[Card, Role]


@dataclass(frozen=True)
class _State:
    """One state of the table; `mark` names the event it shows first, `hand` where the hand
    that made it withdraws from (the spot it laid a card at, and its seat)."""

    table: _Table
    mark: DealMark | None = None
    hand: tuple[tuple[float, float, float], Seat] | None = None


def _states(deck: Deck, script: DealScript, glyph: float) -> list[_State]:
    """The deal's table states in order: pack, starter, each play, the show, crib, clear."""
    plays, dealer = script.plays, script.dealer_seat

    def table(laid: int, crib: bool = False, shown: Sequence[Seat] = ()) -> _Table:
        t = _Table(deck, glyph)
        t.pack_with_starter(str(script.starter))
        rows: dict[Seat, list[Card]] = {}
        for seat, card in plays[:laid]:
            rows.setdefault(seat, []).append(card)
        for seat in shown:  # the cards left in hand, turned up at the end of the row
            rows.setdefault(seat, []).extend(script.unplayed[seat])
        for seat, cards in rows.items():
            for card, (x, y, angle) in zip(cards, t.row_spots(seat, 4, PLAY_ROW, 0.5),
                                           strict=False):  # fmt: skip
                t.put(str(card), (x, y), angle)
        if crib:
            for card, (x, y, angle) in zip(script.crib, crib_spots(t, dealer), strict=True):
                t.put(str(card), (x, y), angle)
        return t

    pack, cleared = _Table(deck, glyph), _Table(deck, glyph)
    pack.pack()
    cleared.pack()  # every card gathered face down
    states = [_State(pack), _State(table(0), DealMark("starter", 0, None, (script.starter,)))]
    for laid, (seat, card) in enumerate(plays, start=1):
        t = table(laid)
        spot = t.row_spots(seat, 4, PLAY_ROW, 0.5)[[s for s, _ in plays[:laid]].count(seat) - 1]
        states.append(_State(t, DealMark("play", 0, seat, (card,)), (spot, seat)))
    states.append(_State(table(len(plays))))  # the show: each row is its player's hand
    shown: list[Seat] = []
    for seat in script.seats:  # five-card: what the play left in hand, turned up seat by seat
        if script.unplayed[seat]:
            shown.append(seat)
            t = table(len(plays), shown=shown)
            last = [s for s, _ in plays].count(seat) + len(script.unplayed[seat]) - 1
            spot = t.row_spots(seat, 4, PLAY_ROW, 0.5)[last]
            states.append(_State(t, DealMark("show", 0, seat, script.unplayed[seat]), (spot, seat)))
    t = table(len(plays), crib=True, shown=shown)
    crib = DealMark("crib", 0, dealer, script.crib)
    states.append(_State(t, crib, (crib_spots(t, dealer)[-1], dealer)))
    states.append(_State(cleared, DealMark("clear", 0)))
    return states


def crib_spots(table: _Table, dealer: Seat) -> list[tuple[float, float, float]]:
    """Where the crib's four cards lie, turned face up beside the dealer."""
    return table.row_spots(dealer, 4, CRIB_ALONG, 0.32, CRIB_LATERAL)


def deal_clip(
    deck: Deck, script: DealScript, *, seed: int, camera: CameraConfig = DEFAULT_CAMERA,
    hold: int = 6, sight: View | None = None, crib_hold: int | None = None,
) -> DealClip:  # fmt: skip
    """The deal's table states, each held `hold` frames (the crib `crib_hold`: the players
    count it before they clear the table), seen by a shaking camera in a room
    whose light drifts slowly; a hand withdraws over the table after each card laid and the
    crib turned. The camera looks straight down on a square picture, or from `sight`'s pose
    (`camera.glyph` is then the index height on the table plane, before the projection)."""
    rng = np.random.default_rng([seed, 5])
    light = _lighting(seed)
    states = _states(deck, script, camera.glyph)
    holds = [crib_hold if s.mark is not None and s.mark.kind == "crib" and crib_hold else hold
             for s in states]  # fmt: skip
    total = sum(holds)
    phase = rng.uniform(0, 2 * np.pi)
    detail, margin = (1, 0) if sight is None else (sight.detail, MARGIN)
    frames: list[Image] = []
    marks: list[DealMark] = []
    for state, held in zip(states, holds, strict=True):
        rendered = _render(deck, state.table.placements, seed, camera.glyph, detail, margin)
        if state.mark is not None:
            marks.append(replace(state.mark, frame=len(frames)))
        for k in range(held):
            hand = None
            if state.hand is not None and k < WITHDRAW:
                spot, seat = state.hand
                hand = (withdrawing(spot, seat, k, rng), seat)
            gain = 1 + camera.light_drift * math.sin(2 * math.pi * len(frames) / total + phase)
            if sight is None:
                frames.append(_through_camera(rendered, light, rng, camera, hand, gain))
            else:
                frames.append(through_view(rendered, light, rng, camera, sight, detail, hand, gain))
    plays, dealer = script.plays, script.dealer_seat
    roles = {card: Role("play", seat) for seat, card in plays}
    roles |= {card: Role("play", seat) for seat, cards in script.unplayed.items() for card in cards}
    roles |= {card: Role("crib", dealer) for card in script.crib}
    roles[script.starter] = Role("starter")
    return DealClip(tuple(frames), script, plays, tuple(marks), roles)


def knocked(clip: DealClip, degrees: float, shift: float, *, after_plays: int = 3) -> DealClip:
    """`clip` with its camera knocked mid-deal: from two frames before the play after the first
    `after_plays` plays, every frame turned `degrees` about the picture's middle and moved
    `shift` pixels right and half as many down (the phone nudged on its stand), for good."""
    plays = [mark.frame for mark in clip.marks if mark.kind == "play"]
    start = plays[min(after_plays, len(plays) - 1)] - 2
    height, width = clip.frames[0].shape[:2]
    matrix = np.asarray(cv2.getRotationMatrix2D((width / 2, height / 2), degrees, 1.0), float)
    matrix[:, 2] += np.array([shift, shift / 2])
    frames = tuple(
        frame if index < start
        else np.asarray(cv2.warpAffine(frame, matrix, (width, height),
                                       borderMode=cv2.BORDER_REPLICATE), np.uint8)
        for index, frame in enumerate(clip.frames)
    )  # fmt: skip
    return replace(clip, frames=frames)
