"""Seats on the table plane: a seating turned from the picture's edges places each seat's rows
where the players sit, and the picture-edge seating places them as before."""

from __future__ import annotations

import pytest

from tests.tabletop import row_detections, table
from vision.table.cards import cards_from_detections
from vision.table.roles import TableLayout, assign_roles
from vision.table.seating import EDGE_AXES, Seating

SIDE = (640, 640)  # the canonical frame of the table plane, 20 px an index here
#: A camera at the left side of the table: the bottom seat's player sits at the picture's left.
QUARTER = Seating({"bottom": (-1.0, 0.0), "top": (1.0, 0.0)}, on_table=True)


def roles(seating: Seating) -> dict[str, str]:
    frame = cards_from_detections(
        table([
            row_detections(["AH", "2H", "3H"], (170, 280), rotation=1),  # the bottom's row
            row_detections(["4S", "5S"], (470, 360), rotation=3),  # the top's
            row_detections(["6D"], (320, 320)),  # the starter on the pack
        ])
    )  # fmt: skip
    state = assign_roles(frame, TableLayout(["bottom", "top"]), SIDE, seating=seating)
    return {str(card): str(role) for card, role in state.roles().items()}


def test_seats_learnt_on_the_table_take_the_rows_where_the_players_sit() -> None:
    assert roles(QUARTER) == {"AH": "play:bottom", "2H": "play:bottom", "3H": "play:bottom",
                              "4S": "play:top", "5S": "play:top", "6D": "starter"}  # fmt: skip


def test_seats_at_the_picture_s_edges_leave_side_rows_to_nobody() -> None:
    got = roles(Seating.edges())
    assert {got[c] for c in ("AH", "2H", "3H", "4S", "5S")} == {"undecided"}
    assert got["6D"] == "starter"


def test_a_seat_s_row_reads_left_to_right_as_its_player_sees_it() -> None:
    frame = cards_from_detections(row_detections(["AH", "2H", "3H"], (170, 280), rotation=1))
    state = assign_roles(frame, TableLayout(["bottom", "top"]), SIDE, seating=QUARTER)
    assert [str(c.card) for c in state.seats["bottom"].play] == ["AH", "2H", "3H"]


def test_a_seat_s_direction_is_a_unit_vector() -> None:
    assert Seating.edges().axes == EDGE_AXES
    with pytest.raises(ValueError, match="unit"):
        Seating({"bottom": (0.0, 2.0)})
