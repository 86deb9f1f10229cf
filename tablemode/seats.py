"""Where the game's seats sit in the camera picture.

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

from vision.table.roles import Seat, TableLayout

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


def game_seat(players: int, edge: str) -> int | None:
    """The game seat sitting at frame edge `edge`, or None when nobody sits there."""
    seats = LAYOUTS[players]
    return seats.index(edge) if edge in seats else None
