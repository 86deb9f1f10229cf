"""Where the game's seats sit: in the camera picture, and on the table plane as learnt.

The engine numbers seats 0..n-1 in order of play; the camera names frame edges. Seat 0 (the
first name) sits at the bottom edge of the picture and play goes clockwise as seen in it
(bottom → left → top → right), so:

- 2 players: seat 0 bottom, seat 1 top (facing each other);
- 3 players: seat 0 bottom, seat 1 left, seat 2 right (the top edge stays free);
- 4 players: seat 0 bottom, seat 1 left, seat 2 top, seat 3 right (partners face each other).

>>> table_seat(3, 2), game_seat(4, "top"), game_seat(2, "left") is None
('right', 2, True)
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from scorer.cards import Card
from scorer.game import Game, Phase
from vision.table.roles import Seat, TableLayout, TablePhase, TableState
from vision.table.seating import EDGE_AXES, Seating

LAYOUTS: dict[int, tuple[Seat, ...]] = {
    2: ("bottom", "top"),
    3: ("bottom", "left", "right"),
    4: ("bottom", "left", "top", "right"),
}


def layout_for(players: int) -> TableLayout:
    """The camera layout of a game of `players` (2, 3 or 4)."""
    return TableLayout(LAYOUTS[players])


def table_seat(players: int, seat: int) -> Seat:
    """The frame edge where game seat `seat` sits."""
    return LAYOUTS[players][seat]


def table_phase(game: Game) -> TablePhase | None:
    """Where the deal is, in the camera's terms (`vision.table.roles.TablePhase`): the roles
    the table can hold follow from it (no starter once the play has begun; after the play the
    cards turned up together are the crib). None between games."""
    phase = game.phase
    if phase in (Phase.DEAL, Phase.DISCARD, Phase.STARTER):
        return "deal"
    if phase is Phase.PLAY:
        return "play"
    if phase is Phase.SHOW:
        return "show"
    return None


def game_seat(players: int, edge: str) -> int | None:
    """The game seat sitting at frame edge `edge`, or None when nobody sits there."""
    seats = LAYOUTS[players]
    return seats.index(edge) if edge in seats else None


class SeatLearner:
    """Where each seat of a game sits on the table plane, learnt from the game (TABLE-MODE.md):
    the cut for deal puts one card in front of each player (`cut`); without a cut, the first
    card of the play lies in front of the player whose turn it is, and each seat's first card
    applied in the play says where that seat is (`observe`). Until a seat is learnt, it sits
    where the picture-edge layout puts it turned as the learnt seats are turned; until none is,
    `seating` is the picture-edge layout itself (a camera overhead, `Seating.edges`).

    Positions are in the canonical frame of the table plane (`vision.table.plane`): the
    caller feeds it the smoothed table of cards placed on the plane, never picture pixels."""

    def __init__(self, players: int, frame_size: tuple[int, int]) -> None:
        self.seats = LAYOUTS[players]
        self.middle = frame_size[0] / 2, frame_size[1] / 2
        #: Each learnt seat's position on the table plane (canonical pixels).
        self.learnt: dict[Seat, tuple[float, float]] = {}
        #: The table's centre: where the starter lies on the pack, once seen.
        self.centre: tuple[float, float] | None = None
        #: The seats a player put right (`fix`): never learnt again from the game.
        self.fixed: set[Seat] = set()
        #: The cards of this deal's play that a seat was learnt from, by the seat that laid them:
        #: the first card laid is the turn's, wherever the seats not yet learnt put it.
        self.laid_by: dict[Card, Seat] = {}
        self._before_play: set[Card] = set()
        self._deal = 0

    @property
    def seating(self) -> Seating:
        """The seating as now learnt (the picture-edge layout while nothing is)."""
        if not self.learnt:
            return Seating.edges()
        centre = self.centre or self.middle
        axes = {seat: _unit(x - centre[0], y - centre[1]) for seat, (x, y) in self.learnt.items()}
        # The seats not learnt: the layout turned as far as the learnt seats are turned.
        turns = [_angle(axes[s]) - _angle(EDGE_AXES[s]) for s in axes]
        turn = math.atan2(sum(math.sin(t) for t in turns), sum(math.cos(t) for t in turns))
        for seat in self.seats:
            if seat not in axes:
                angle = _angle(EDGE_AXES[seat]) + turn
                axes[seat] = (math.cos(angle), math.sin(angle))
        return Seating(axes, self.centre, on_table=True)

    def cut(self, positions: Sequence[tuple[float, float]], first: int = 0) -> None:
        """The cut for deal: one card in front of each player (canonical pixels, any order);
        `first` is the index of game seat 0's card (the page asks which). The others follow
        clockwise around the table's centre."""
        if len(positions) != len(self.seats):
            raise ValueError(f"{len(positions)} cards cut for {len(self.seats)} players")
        centre = self.centre or self.middle
        start = _angle((positions[first][0] - centre[0], positions[first][1] - centre[1]))

        def clockwise(p: tuple[float, float]) -> float:  # y down: angles grow clockwise
            return (_angle((p[0] - centre[0], p[1] - centre[1])) - start) % (2 * math.pi)

        ordered = sorted(positions, key=clockwise)
        self.centre = centre
        self.learnt = dict(zip(self.seats, ordered, strict=True))

    def fix(self, where: Seat, who: Seat) -> bool:
        """A player says seat `who` sits where seat `where` was learnt: the two swap places
        (`who` not learnt yet: `where` is to be learnt again). Whether anything changed."""
        if where not in self.learnt:
            raise ValueError(f"no seat was learnt at {where}")
        if where == who:
            self.fixed.add(who)
            return False
        spot, other = self.learnt.pop(where), self.learnt.pop(who, None)
        self.learnt[who] = spot
        if other is not None:
            self.learnt[where] = other
            self.fixed.add(where)
        else:
            self.fixed.discard(where)
        self.fixed.add(who)
        return True

    def observe(self, game: Game, state: TableState) -> bool:
        """Learn from the smoothed table `state` of `game` (before the game takes this
        frame's steps); whether the seating changed."""
        deal = game.deal_state
        number = deal.number if deal is not None else 0
        if number != self._deal:
            self._deal, self._before_play, self.laid_by = number, set(), {}
        cards = _positions(state)
        playing = game.phase is Phase.PLAY and deal is not None and deal.pegging is not None
        played = deal.pegging.played if playing and deal and deal.pegging else []
        if state.starter is not None and not any(played):
            self.centre = state.starter.centre  # the pack lies mid-table
        if not playing or deal is None:
            self._before_play |= set(cards)
            return False
        before = dict(self.learnt)
        for seat, laid in zip(self.seats, played, strict=False):
            if seat not in self.learnt and seat not in self.fixed and laid and laid[0] in cards:
                self.learnt[seat], self.laid_by[laid[0]] = cards[laid[0]], seat
        turn = game.turn
        if not any(played) and turn is not None and self.seats[turn] not in self.learnt:
            starter = deal.starter
            # A card in a crowd at the centre lies on the pack with the starter (its other
            # corner misread, or the pack's top card): no card laid in front of a player.
            crowd = {c.card for u in state.undecided if u.code == "centre" for c in u.cards}
            new = [
                c for c in cards if c not in self._before_play and c != starter and c not in crowd
            ]
            if len(new) == 1:  # the first card of the play: laid by the player whose turn it is
                self.learnt[self.seats[turn]] = cards[new[0]]
                self.laid_by[new[0]] = self.seats[turn]
        return self.learnt != before


def _positions(state: TableState) -> dict[Card, tuple[float, float]]:
    seen = [c for cards in state.seats.values() for c in (*cards.hand, *cards.play)]
    seen += [*state.crib, *(c for u in state.undecided for c in u.cards)]
    return {c.card: c.centre for c in seen}


def _angle(vector: tuple[float, float]) -> float:
    return math.atan2(vector[1], vector[0])


def _unit(x: float, y: float) -> tuple[float, float]:
    norm = math.hypot(x, y) or 1.0
    return x / norm, y / norm
