"""Where the players sit, on the table plane: each seat's direction from the table's centre.

Seats are named as `TableLayout` names them (bottom, left, top, right: the engine's clockwise
order, `tablemode.seats.LAYOUTS`), but where a seat *is* need not be that picture edge: a phone
at the side or at a corner of the table sees the players anywhere around the picture. A
`Seating` says where each seat lies on the table, as a unit direction from the table's centre in
the canonical frame (`vision.table.plane`, y down), and how far a seat's edge is from the centre
(`RoleZones.half_table`, in index sizes): the roles then measure a group's position along and
across that seat's axis in table units, whatever the picture's edges.

`Seating.edges()` is the picture-edge layout, measured as before in normalised picture
coordinates (centre 0, edges ±1): the fallback while nothing is learnt. Table mode learns the
seats from the game (`tablemode.seats.SeatLearner`) and hands the result to the smoother; this
module knows nothing of the game.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from vision.table.roles import Seat

Vector = tuple[float, float]

#: Each picture edge's direction from the picture's centre (y down).
EDGE_AXES: dict[Seat, Vector] = {
    "bottom": (0.0, 1.0),
    "left": (-1.0, 0.0),
    "top": (0.0, -1.0),
    "right": (1.0, 0.0),
}


@dataclass(frozen=True)
class Seating:
    """Each seat's unit direction from the table's centre; the centre in frame pixels (None:
    the frame's centre); `on_table`: positions measured on the table plane in index sizes
    (`RoleZones.half_table` from the centre to a seat's edge), else in normalised picture
    coordinates (the picture-edge layout)."""

    axes: Mapping[Seat, Vector] = field(default_factory=lambda: dict(EDGE_AXES), hash=False)
    centre: Vector | None = None
    on_table: bool = False

    @classmethod
    def edges(cls) -> Seating:
        """The picture-edge layout: seats at the picture's edges, as a camera overhead has it."""
        return cls()

    def __post_init__(self) -> None:
        for seat, (x, y) in self.axes.items():
            if not math.isclose(math.hypot(x, y), 1.0, rel_tol=1e-6):
                raise ValueError(f"seat {seat}'s direction {(x, y)} is not a unit vector")

    def position(
        self, point: Vector, frame_size: tuple[int, int], glyph: float, half_table: float
    ) -> Vector:
        """`point` (frame pixels) in seat units: 0 at the centre, 1 at a seat's edge."""
        width, height = frame_size
        if not self.on_table:
            return point[0] / (width / 2) - 1, point[1] / (height / 2) - 1
        cx, cy = self.centre if self.centre is not None else (width / 2, height / 2)
        unit = max(glyph, 1e-6) * half_table
        return (point[0] - cx) / unit, (point[1] - cy) / unit

    def along(self, seat: Seat, u: float, v: float) -> float:
        """How far from the centre towards the seat: 0 at the centre line, 1 at its edge."""
        dx, dy = self.axes[seat]
        return u * dx + v * dy

    def lateral(self, seat: Seat, u: float, v: float) -> float:
        """Position across the seat's axis, positive on the player's right."""
        dx, dy = self.axes[seat]
        return u * dy - v * dx


DEFAULT_SEATING = Seating.edges()
