"""Assign the cards of one frame to table roles: hands, play rows, starter, crib.

The camera looks down on the table; each player sits at one edge of the frame (set once per
table with `TableLayout`). Cards laid together form groups, found by proximity measured in
index sizes so that the same rules work at any camera distance. Each group is then placed by
where it lies, in coordinates normalised to the frame (centre 0, edges ±1):

- near the frame centre, a lone card is the starter (it may lie on the face-down pack);
- otherwise the group belongs to the seat whose edge it is clearly nearest: near that edge it
  is the seat's hand, further in (between hand and centre) it is the seat's play row;
- a group of exactly 4 cards beside the dealer (off to the side of the dealer's axis) is the
  crib. Convention: the crib is put to one side of the dealer, not in front.

What the game says of the deal (`TablePhase`, from the caller: this module knows nothing of the
game) rules roles out: once the play has begun a lone card in the centre is no starter (the
starter turned before keeps its role in the smoother) but a card of the seat it lies towards.

Whatever does not fit one role (a group between two seats, two groups in one zone, a crowd in
the centre, a side group when the dealer is unknown) goes to ``undecided`` with the reason: the
caller shows it to the players instead of scoring a guess.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal, get_args

from scorer.cards import Card
from vision.errors import InvalidLayoutError
from vision.table.cards import Conflict, FrameCards, SeenCard
from vision.table.seating import DEFAULT_SEATING, Seating

Seat = Literal["bottom", "left", "top", "right"]
SEATS: tuple[Seat, ...] = get_args(Seat)
RoleKind = Literal["hand", "play", "starter", "crib", "undecided"]
#: Why cards are undecided, as data: the page says it in its language (`Undecided.reason` is
#: the English for logs).
UndecidedCode = Literal[
    "centre", "no seat", "between seats", "crib no dealer", "too many", "groups", "lone cards",
    "cribs", "two cribs",
]  # fmt: skip


#: Where the deal is, as the game says (TABLE-MODE.md): before the play (the deal, the discards,
#: the starter), the play, or after it (the show: the crib is turned).
TablePhase = Literal["deal", "play", "show"]


@dataclass(frozen=True)
class TableLayout:
    """Where the 2, 3 or 4 players sit, as frame edges, in order of play (clockwise)."""

    seats: tuple[Seat, ...]

    def __init__(self, seats: Iterable[str]) -> None:
        chosen = tuple(seats)
        unknown = [s for s in chosen if s not in SEATS]
        if unknown:
            raise InvalidLayoutError(f"unknown seat(s) {unknown}: use {', '.join(SEATS)}")
        if len(set(chosen)) != len(chosen):
            raise InvalidLayoutError(f"seats {list(chosen)} name a seat twice")
        if not 2 <= len(chosen) <= 4:
            raise InvalidLayoutError(f"{len(chosen)} seats: cribbage needs 2, 3 or 4")
        object.__setattr__(self, "seats", chosen)


@dataclass(frozen=True)
class RoleZones:
    """Thresholds. Link distances are in index sizes; positions are normalised frame units."""

    #: Two cards are in one group if their centres are this close...
    link_centre: float = 5.0
    #: ...or any index of one is this close to an index of the other (overlapping cards).
    link_glyph: float = 2.5
    #: Groups whose centre lies within this radius of the frame centre are "centre" groups.
    centre_radius: float = 0.2
    #: A group belongs to a seat if it is at least this far from the centre towards its edge...
    seat_min: float = 0.15
    #: ...and at most ``1 - seat_ratio`` of that towards any other seat's edge (within ~35° of
    #: the seat's axis for 0.3); groups in the corners between two seats are undecided.
    seat_ratio: float = 0.3
    #: From this far towards the edge on, a seat's group is its hand; before, its play row.
    hand_edge: float = 0.6
    #: A 4-card group of the dealer this far to the side (across the dealer's axis) is the crib.
    crib_lateral: float = 0.45
    #: Largest plausible hand (6 dealt in a 2-player game) and play row.
    max_hand: int = 6
    max_play: int = 4
    #: The crib's cards: after the play, this many cards turned up together are the crib.
    crib_cards: int = 4
    #: Where seats are placed on the table plane (`Seating.on_table`): index sizes from the
    #: table's centre to a seat's edge, the unit of the positions above (the clips' table: 320
    #: px from its centre at 21 px an index).
    half_table: float = 15.2


#: The default thresholds (a module-level value so that other modules can use it as a default).
DEFAULT_ZONES = RoleZones()


@dataclass(frozen=True)
class Role:
    kind: RoleKind
    seat: Seat | None = None

    def __str__(self) -> str:
        return self.kind if self.seat is None else f"{self.kind}:{self.seat}"


@dataclass(frozen=True)
class SeatCards:
    """One seat's cards, each row ordered left to right as the player sees it."""

    hand: tuple[SeenCard, ...] = ()
    play: tuple[SeenCard, ...] = ()


@dataclass(frozen=True)
class Undecided:
    """Cards no one role fits, and why: `reason` in English, and as `code` with the `seats` it
    names, the seat's `zone` (`hand` or `play`) and the cards or groups it counts (`count`)."""

    cards: tuple[SeenCard, ...]
    reason: str
    code: UndecidedCode | None = None
    seats: tuple[Seat, ...] = ()
    zone: str = ""
    count: int = 0


@dataclass(frozen=True)
class TableState:
    """Every card of a frame in exactly one role, or undecided with a reason."""

    layout: TableLayout
    seats: Mapping[Seat, SeatCards]
    starter: SeenCard | None = None
    crib: tuple[SeenCard, ...] = ()
    crib_seat: Seat | None = None
    undecided: tuple[Undecided, ...] = ()
    conflicts: tuple[Conflict, ...] = field(default=())
    #: Where the seats were taken to sit (picture edges unless learnt on the table plane).
    seating: Seating = DEFAULT_SEATING

    def roles(self) -> dict[Card, Role]:
        """Each card's role, e.g. ``{Card('5H'): Role('hand', 'bottom')}``."""
        out: dict[Card, Role] = {}
        for seat, cards in self.seats.items():
            out |= {c.card: Role("hand", seat) for c in cards.hand}
            out |= {c.card: Role("play", seat) for c in cards.play}
        if self.starter is not None:
            out[self.starter.card] = Role("starter")
        out |= {c.card: Role("crib", self.crib_seat) for c in self.crib}
        out |= {c.card: Role("undecided") for u in self.undecided for c in u.cards}
        return out


def find_groups(
    cards: Sequence[SeenCard], zones: RoleZones = DEFAULT_ZONES
) -> list[list[SeenCard]]:
    """Cards laid out together: single-linkage clusters by centre or index proximity."""
    parent = list(range(len(cards)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, a in enumerate(cards):
        for j in range(i + 1, len(cards)):
            if _linked(a, cards[j], zones):
                parent[root(i)] = root(j)
    groups: dict[int, list[SeenCard]] = {}
    for i, card in enumerate(cards):
        groups.setdefault(root(i), []).append(card)
    return list(groups.values())


def _linked(a: SeenCard, b: SeenCard, zones: RoleZones) -> bool:
    g = (a.glyph_size + b.glyph_size) / 2
    if math.dist(a.centre, b.centre) <= zones.link_centre * g:
        return True
    return any(
        math.dist(p, q) <= zones.link_glyph * g
        for p in a.detections.centres.tolist()
        for q in b.detections.centres.tolist()
    )


def assign_roles(
    frame: FrameCards,
    layout: TableLayout,
    frame_size: tuple[int, int],
    *,
    dealer: Seat | None = None,
    zones: RoleZones = DEFAULT_ZONES,
    seating: Seating = DEFAULT_SEATING,
    phase: TablePhase | None = None,
) -> TableState:
    """Place every card of ``frame`` (a ``width, height`` image) in a role or in undecided;
    seats are where `seating` puts them (the picture's edges unless learnt on the table).
    `phase` (None: unknown) rules out what the game rules out: no new starter once the play
    has begun, and no hand face up during it."""
    width, height = frame_size
    if width <= 0 or height <= 0:
        raise InvalidLayoutError(f"frame size {width}×{height} is not positive")
    if dealer is not None and dealer not in layout.seats:
        raise InvalidLayoutError(f"dealer {dealer!r} is not one of the seats {layout.seats}")
    undecided: list[Undecided] = []
    starters: list[list[SeenCard]] = []
    cribs: list[list[SeenCard]] = []
    zoned: dict[tuple[Seat, str], list[list[SeenCard]]] = {}
    place = _Placing(seating, frame_size, _glyph(frame.cards), zones.half_table)
    _along, _lateral = seating.along, seating.lateral
    for group in find_groups(frame.cards, zones):
        centre = (sum(c.centre[0] for c in group) / len(group),
                  sum(c.centre[1] for c in group) / len(group))  # fmt: skip
        u, v = place.at(centre)
        # The play has begun: a lone card in the centre is laid, no starter.
        starter_possible = phase in (None, "deal") or len(group) > 1
        if math.hypot(u, v) < zones.centre_radius and starter_possible:
            if len(group) == 1:
                starters.append(group)
            else:
                reason = f"{len(group)} cards in the centre"
                undecided.append(Undecided(_ordered(group), reason, "centre", count=len(group)))
            continue
        ranked = sorted(layout.seats, key=lambda s: -_along(s, u, v))
        best = ranked[0]
        if dealer is not None and len(group) == 4 and _beside(dealer, u, v, layout, zones,
                                                               seating):  # fmt: skip
            cribs.append(group)
            continue
        if _along(best, u, v) < zones.seat_min:
            undecided.append(Undecided(_ordered(group), "not in front of any seat", "no seat"))
            continue
        if _along(ranked[1], u, v) > (1 - zones.seat_ratio) * _along(best, u, v):
            reason = f"between seats {best} and {ranked[1]}"
            pair = (best, ranked[1])
            undecided.append(Undecided(_ordered(group), reason, "between seats", pair))
            continue
        if len(group) == 4 and dealer is None and abs(_lateral(best, u, v)) >= zones.crib_lateral:
            reason = f"4 cards beside seat {best}: the crib? dealer not set"
            undecided.append(Undecided(_ordered(group), reason, "crib no dealer", (best,)))
            continue
        # During the play no hand lies face up: a long row reaching towards its seat is played.
        hand = phase != "play" and _along(best, u, v) >= zones.hand_edge
        zone = "hand" if hand else "play"
        zoned.setdefault((best, zone), []).append(group)

    seats: dict[Seat, SeatCards] = {}
    for seat in layout.seats:
        rows: dict[str, tuple[SeenCard, ...]] = {}
        for zone, limit in (("hand", zones.max_hand), ("play", zones.max_play)):
            groups = zoned.get((seat, zone), [])
            if len(groups) == 1 and len(groups[0]) <= limit:
                rows[zone] = _ordered(groups[0], seat, place)
            elif len(groups) == 1:
                reason = f"{len(groups[0])} cards in seat {seat}'s {zone} zone (at most {limit})"
                count = len(groups[0])
                undecided.append(
                    Undecided(_ordered(groups[0]), reason, "too many", (seat,), zone, count)
                )
            elif groups:
                reason = f"{len(groups)} separate groups in seat {seat}'s {zone} zone"
                undecided.extend(
                    Undecided(_ordered(g), reason, "groups", (seat,), zone, len(groups))
                    for g in groups
                )
        seats[seat] = SeatCards(rows.get("hand", ()), rows.get("play", ()))

    starter = None
    if len(starters) == 1:
        starter = starters[0][0]
    elif starters:
        reason = f"{len(starters)} lone cards in the centre"
        undecided.extend(
            Undecided(tuple(s), reason, "lone cards", count=len(starters)) for s in starters
        )
    crib: tuple[SeenCard, ...] = ()
    if len(cribs) == 1:
        crib = _ordered(cribs[0])
    elif cribs:
        reason = f"{len(cribs)} groups of 4 beside the dealer"
        undecided.extend(
            Undecided(_ordered(c), reason, "cribs", (dealer,) if dealer else (), count=len(cribs))
            for c in cribs
        )
    return TableState(
        layout,
        seats,
        starter,
        crib,
        dealer if crib else None,
        tuple(undecided),
        frame.conflicts,
        seating,
    )


def with_roles(
    state: TableState,
    roles: Mapping[Card, Role],
    frame_size: tuple[int, int],
    zones: RoleZones = DEFAULT_ZONES,
) -> TableState:
    """`state` with each card of `roles` moved to that role (a smoother keeps a card's role
    until the card moves; one frame's grouping must not re-zone it). Roles of cards not in
    `state` are ignored; an undecided group keeps its reason for the cards left in it, and a
    second starter is undecided."""
    seen = _every_card(state)
    now = state.roles()
    moved = {c: r for c, r in roles.items() if c in seen and r.kind != "undecided" and now[c] != r}
    if not moved:
        return state
    place = _Placing(state.seating, frame_size, _glyph(list(seen.values())), zones.half_table)
    target = now | moved

    def placed(kind: RoleKind, seat: Seat | None = None) -> list[SeenCard]:
        return [seen[c] for c, r in target.items() if r.kind == kind and r.seat == seat]

    seats = {
        seat: SeatCards(
            _ordered(placed("hand", seat), seat, place),
            _ordered(placed("play", seat), seat, place),
        )
        for seat in state.layout.seats
    }
    undecided = [
        replace(u, cards=kept)
        for u in state.undecided
        if (kept := tuple(c for c in u.cards if c.card not in moved))
    ]
    starters = sorted(placed("starter"), key=lambda c: c is not state.starter)
    if len(starters) > 1:
        reason = f"{len(starters)} lone cards in the centre"
        count = len(starters)
        undecided.extend(Undecided((c,), reason, "lone cards", count=count) for c in starters[1:])
    crib_seats = [r.seat for r in target.values() if r.kind == "crib"]
    crib_seat = max(crib_seats, key=crib_seats.count) if crib_seats else None
    crib = placed("crib", crib_seat) if crib_seat is not None else []
    undecided.extend(
        Undecided(
            (seen[c],),
            f"crib of seat {r.seat} and of seat {crib_seat}",
            "two cribs",
            tuple(s for s in (r.seat, crib_seat) if s is not None),
        )
        for c, r in target.items()
        if r.kind == "crib" and r.seat != crib_seat
    )
    return TableState(
        state.layout,
        seats,
        starters[0] if starters else None,
        _ordered(crib),
        crib_seat,
        tuple(undecided),
        state.conflicts,
        state.seating,
    )


def _every_card(state: TableState) -> dict[Card, SeenCard]:
    cards = [c for seat in state.seats.values() for c in (*seat.hand, *seat.play)]
    cards += [*state.crib, *(c for u in state.undecided for c in u.cards)]
    if state.starter is not None:
        cards.append(state.starter)
    return {c.card: c for c in cards}


class _Placing:
    """Frame pixels to seat units under a seating (`Seating.position`)."""

    def __init__(
        self, seating: Seating, frame_size: tuple[int, int], glyph: float, half_table: float
    ) -> None:
        self.seating, self.frame_size = seating, frame_size
        self.glyph, self.half_table = glyph, half_table

    def at(self, point: tuple[float, float]) -> tuple[float, float]:
        return self.seating.position(point, self.frame_size, self.glyph, self.half_table)


def _glyph(cards: Sequence[SeenCard]) -> float:
    """The frame's index size: the median of its cards' (1 with none)."""
    sizes = sorted(c.glyph_size for c in cards)
    return sizes[len(sizes) // 2] if sizes else 1.0


def _beside(
    dealer: Seat, u: float, v: float, layout: TableLayout, zones: RoleZones, seating: Seating
) -> bool:
    """In the dealer's half, off to the side, and not clearly in front of another seat."""
    along = seating.along(dealer, u, v)
    if along < zones.seat_min or abs(seating.lateral(dealer, u, v)) < zones.crib_lateral:
        return False
    return all(
        along > (1 - zones.seat_ratio) * seating.along(other, u, v)
        for other in layout.seats
        if other != dealer
    )


def _ordered(
    group: Sequence[SeenCard], seat: Seat = "bottom", place: _Placing | None = None
) -> tuple[SeenCard, ...]:
    """Cards left to right as the seat's player sees them (by x when no seat is given)."""
    if place is None:
        return tuple(sorted(group, key=lambda c: c.centre[0]))

    def key(c: SeenCard) -> float:
        return place.seating.lateral(seat, *place.at(c.centre))

    return tuple(sorted(group, key=key))
