"""Table roles for 2, 3 and 4 seats: hands, play rows, starter, crib, and undecided groups."""

from __future__ import annotations

import pytest

from scorer.cards import parse_card
from tests.tabletop import card_detections, row_detections, table
from vision.detection.detections import Detections
from vision.errors import InvalidLayoutError
from vision.table.cards import cards_from_detections
from vision.table.roles import Role, TableLayout, assign_roles, with_roles

SIZE = (1280, 720)

# Where each seat's hand and play row lie (start of the row, card rotation) on a 1280×720 frame.
HAND = {
    "bottom": ((560, 640), 0),
    "top": ((720, 80), 2),
    "left": ((70, 300), 1),
    "right": ((1210, 420), 3),
}
PLAY = {
    "bottom": ((560, 490), 0),
    "top": ((720, 230), 2),
    "left": ((330, 300), 1),
    "right": ((950, 420), 3),
}


def row(where: dict[str, tuple[tuple[int, int], int]], seat: str, cards: str) -> Detections:
    start, rotation = where[seat]
    return row_detections(cards.split(), start, rotation=rotation)


def roles(d: Detections, seats: list[str], dealer: str | None = None) -> dict[str, str]:
    state = assign_roles(cards_from_detections(d), TableLayout(seats), SIZE, dealer=dealer)  # type: ignore[arg-type]
    return {str(card): str(role) for card, role in state.roles().items()}


def test_layout_validation() -> None:
    assert TableLayout(["bottom", "top"]).seats == ("bottom", "top")
    for bad, message in [
        (["bottom"], "needs 2, 3 or 4"),
        (["bottom", "top", "left", "right", "bottom"], "twice"),
        (["bottom", "north"], "unknown seat"),
    ]:
        with pytest.raises(InvalidLayoutError, match=message):
            TableLayout(bad)
    with pytest.raises(InvalidLayoutError, match="dealer"):
        assign_roles(cards_from_detections(Detections.empty()), TableLayout(["bottom", "top"]),
                     SIZE, dealer="left")  # fmt: skip


SEATINGS = [["bottom", "top"], ["bottom", "left", "right"], ["bottom", "left", "top", "right"]]
SUITS = {"bottom": "S", "top": "D", "left": "C", "right": "H"}


@pytest.mark.parametrize("seats", SEATINGS)
def test_hands_and_play_rows_for_each_seating(seats: list[str]) -> None:
    parts = [card_detections("KH", (640, 360))]
    expected = {"KH": "starter"}
    for seat in seats:
        s = SUITS[seat]
        hand, play = f"A{s} 2{s} 3{s}", f"7{s} 8{s}"
        parts += [row(HAND, seat, hand), row(PLAY, seat, play)]
        expected |= {c: f"hand:{seat}" for c in hand.split()}
        expected |= {c: f"play:{seat}" for c in play.split()}
    assert roles(table(parts), seats) == expected


def test_play_rows_are_ordered_left_to_right_for_their_player() -> None:
    d = table([row(PLAY, s, f"2{SUITS[s]} 3{SUITS[s]} 4{SUITS[s]}") for s in SUITS])
    state = assign_roles(cards_from_detections(d), TableLayout(list(SUITS)), SIZE)
    for seat, suit in SUITS.items():
        assert [str(c.card) for c in state.seats[seat].play] == [f"{r}{suit}" for r in "234"]  # type: ignore[index]


def test_show_two_hands_crib_and_starter() -> None:
    d = table([
        row(HAND, "bottom", "5S 5D JH 10C"),
        row(HAND, "top", "2D 3D 4D 9D"),
        row_detections(["6C", "7C", "8C", "9C"], (1000, 610)),  # beside the dealer
        card_detections("5H", (640, 360)),
    ])  # fmt: skip
    got = roles(d, ["bottom", "top"], dealer="bottom")
    assert got == (
        {c: "hand:bottom" for c in ["5S", "5D", "JH", "10C"]}
        | {c: "hand:top" for c in ["2D", "3D", "4D", "9D"]}
        | {c: "crib:bottom" for c in ["6C", "7C", "8C", "9C"]}
        | {"5H": "starter"}
    )
    # Without a dealer the side group is not guessed.
    state = assign_roles(cards_from_detections(d), TableLayout(["bottom", "top"]), SIZE)
    (undecided,) = state.undecided
    assert "dealer not set" in undecided.reason and len(undecided.cards) == 4
    assert state.crib == () and state.crib_seat is None


def test_crib_in_a_four_seat_corner_goes_to_the_dealer() -> None:
    seats = ["bottom", "left", "top", "right"]
    d = table(
        [row(HAND, "bottom", "AS 2S 3S 4S"), row_detections(["6C", "7C", "8C", "9C"], (1000, 610))]
    )
    got = roles(d, seats, dealer="bottom")
    assert {got[c] for c in ["6C", "7C", "8C", "9C"]} == {"crib:bottom"}
    assert roles(d, seats, dealer="top")["6C"] == "undecided"  # between bottom and right


def test_ambiguous_groups_are_undecided_with_reasons() -> None:
    seats = ["bottom", "top"]
    cases = {
        "not in front of any seat": [row_detections(["AS", "2S"], (80, 360))],  # no seat there
        "lone cards in the centre": [
            card_detections("AS", (580, 360)),
            card_detections("KS", (700, 360)),
        ],
        "3 cards in the centre": [row_detections(["AS", "2S", "3S"], (600, 360))],
        "separate groups in seat bottom's hand zone": [
            row_detections(["AS", "2S"], (300, 640)),
            row_detections(["AD", "2D"], (900, 640)),
        ],
        "(at most 4)": [row_detections(["AS", "2S", "3S", "4S", "5S"], (500, 490))],
    }
    four = ["bottom", "left", "top", "right"]
    cases["between seats left and bottom"] = [row_detections(["AS", "2S"], (120, 640))]
    codes = {  # the same reasons as data, for a page to say in its language
        "not in front of any seat": ("no seat", (), "", 0),
        "lone cards in the centre": ("lone cards", (), "", 2),
        "3 cards in the centre": ("centre", (), "", 3),
        "separate groups in seat bottom's hand zone": ("groups", ("bottom",), "hand", 2),
        "(at most 4)": ("too many", ("bottom",), "play", 5),
        "between seats left and bottom": ("between seats", ("left", "bottom"), "", 0),
    }
    for reason, parts in cases.items():
        layout = TableLayout(four if "left" in reason else seats)
        state = assign_roles(cards_from_detections(table(parts)), layout, SIZE)
        assert state.undecided, reason
        assert all(reason in u.reason for u in state.undecided), (reason, state.undecided)
        assert {(u.code, u.seats, u.zone, u.count) for u in state.undecided} == {codes[reason]}
        assert set(state.roles().values()) == {Role("undecided")}


def test_conflicts_pass_through() -> None:
    d = table([card_detections("QH", (200, 200)), card_detections("QH", (900, 500))])
    state = assign_roles(cards_from_detections(d), TableLayout(["bottom", "top"]), SIZE)
    assert [c.card for c in state.conflicts] == [parse_card("QH")]
    assert state.roles() == {}


def test_with_roles_moves_cards_and_keeps_the_rest_as_they_were() -> None:
    d = table([
        card_detections("KC", (640, 360)),
        card_detections("QD", (700, 370)),  # two cards in the centre: undecided
        row(PLAY, "bottom", "5H 6H"),
    ])  # fmt: skip
    two = TableLayout(["bottom", "top"])
    state = assign_roles(cards_from_detections(d), two, SIZE)
    assert {str(c.card) for u in state.undecided for c in u.cards} == {"KC", "QD"}
    kept = with_roles(state, {parse_card("KC"): Role("starter")}, SIZE)
    assert kept.starter is not None and str(kept.starter.card) == "KC"
    assert [str(c.card) for u in kept.undecided for c in u.cards] == ["QD"]
    assert kept.undecided[0].reason == state.undecided[0].reason
    assert [str(c.card) for c in kept.seats["bottom"].play] == ["5H", "6H"]
    both = with_roles(kept, {parse_card("QD"): Role("starter")}, SIZE)
    assert both.starter is kept.starter  # a second starter is undecided
    assert [str(c.card) for u in both.undecided for c in u.cards] == ["QD"]
    moved = with_roles(state, {parse_card("6H"): Role("play", "top")}, SIZE)
    assert [str(c.card) for c in moved.seats["top"].play] == ["6H"]
    assert [str(c.card) for c in moved.seats["bottom"].play] == ["5H"]
    assert with_roles(state, {parse_card("5H"): Role("undecided")}, SIZE) is state


@pytest.mark.parametrize(("phase", "starter"), [(None, True), ("deal", True), ("play", False),
                                                ("show", False)])  # fmt: skip
def test_a_lone_card_in_the_centre_is_a_starter_only_before_the_play(
    phase: str | None, starter: bool
) -> None:
    frame = cards_from_detections(table([card_detections("KC", (640, 360))]))
    state = assign_roles(frame, TableLayout(["bottom", "top"]), SIZE, phase=phase)  # type: ignore[arg-type]
    assert (state.starter is not None) is starter


@pytest.mark.parametrize(("phase", "kind"), [(None, "hand"), ("deal", "hand"), ("play", "play"),
                                             ("show", "hand")])  # fmt: skip
def test_cards_towards_a_seat_are_its_hand_except_during_the_play(phase: str | None, kind: str
                                                                   ) -> None:  # fmt: skip
    """During the play no hand lies face up: a row reaching into the hand zone is played."""
    frame = cards_from_detections(table([row(HAND, "top", "5S 6S")]))
    state = assign_roles(frame, TableLayout(["bottom", "top"]), SIZE, phase=phase)  # type: ignore[arg-type]
    assert {str(role) for role in state.roles().values()} == {str(Role(kind, "top"))}
