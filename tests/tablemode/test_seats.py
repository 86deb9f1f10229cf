"""Seats learnt from the game on the table plane: the first card of the play, or the cut."""

from __future__ import annotations

import math

import pytest

from scorer.cards import parse_card
from scorer.game import Game
from scorer.settings import Settings
from tablemode.seats import SeatLearner, table_phase
from tablemode.view import table_view
from tests.tabletop import card_detections, table
from vision.table.cards import cards_from_detections
from vision.table.roles import Seat, TableLayout, TableState, assign_roles
from vision.table.seating import Seating
from vision.table.smoothing import PlayEvent

SIDE = (640, 640)


def state(*cards: tuple[str, tuple[float, float]]) -> TableState:
    found = table([card_detections(code, at) for code, at in cards])
    return assign_roles(cards_from_detections(found), TableLayout(["bottom", "top"]), SIDE)


def near(a: tuple[float, float], b: tuple[float, float]) -> bool:
    return math.dist(a, b) < 1e-6


def test_nothing_learnt_is_the_picture_s_edges() -> None:
    assert SeatLearner(2, SIDE).seating == Seating.edges()


def test_the_first_card_of_the_play_says_where_its_player_sits() -> None:
    game = Game(Settings(players=2), first_dealer=1)  # seat 0 (bottom) lays first
    game.deal(None)
    game.discard(0, None)
    game.discard(1, None)
    learner = SeatLearner(2, SIDE)
    assert not learner.observe(game, state(("9C", (150, 300))))  # on the table before the play
    game.cut_starter(parse_card("6D"))
    starter = ("6D", (330, 310))
    assert not learner.observe(game, state(("9C", (150, 300)), starter))
    assert learner.observe(game, state(("9C", (150, 300)), starter, ("AH", (170, 310))))
    assert learner.laid_by == {parse_card("AH"): "bottom"}  # the turn's, wherever it lies
    seating = learner.seating
    assert seating.on_table and seating.centre is not None
    assert near(seating.centre, (330, 310))  # the starter lies on the pack, mid-table
    assert near(seating.axes["bottom"], (-1.0, 0.0))  # the camera is at the bottom's right
    assert near(seating.axes["top"], (1.0, 0.0))  # facing the bottom seat, not learnt yet
    game.play(0, parse_card("AH"))
    game.play(1, parse_card("2S"))  # the top's first card says where the top sits
    assert learner.observe(game, state(starter, ("AH", (170, 310)), ("2S", (490, 430))))
    assert learner.laid_by == {parse_card("AH"): "bottom", parse_card("2S"): "top"}
    assert near(learner.seating.axes["top"], (0.8, 0.6))  # where it lies, not just facing
    assert near(learner.seating.axes["bottom"], (-1.0, 0.0))


def test_the_cut_for_deal_seats_every_player_clockwise() -> None:
    learner = SeatLearner(4, SIDE)
    corner = [(100.0, 540.0), (100.0, 100.0), (540.0, 100.0), (540.0, 540.0)]  # seen at a corner
    learner.cut([corner[2], corner[0], corner[3], corner[1]], first=1)
    axes = learner.seating.axes
    s = math.sqrt(0.5)
    expected: dict[Seat, tuple[float, float]] = {
        "bottom": (-s, s), "left": (-s, -s), "top": (s, -s), "right": (s, s)
    }  # fmt: skip
    for seat, axis in expected.items():
        assert near(axes[seat], axis), seat
    with pytest.raises(ValueError, match="3 cards cut for 4"):
        learner.cut(corner[:3])


def test_the_phase_the_camera_is_told_follows_the_game() -> None:
    game = Game(Settings(players=2), first_dealer=0)
    assert table_phase(game) == "deal"
    game.deal(None)
    for seat in range(2):
        game.discard(seat, None)
    assert table_phase(game) == "deal"
    game.cut_starter(parse_card("5H"))
    assert table_phase(game) == "play"
    for seat, card in [(1, "10D"), (0, "5S"), (1, "6D"), (0, "JS"), (1, "4D"), (0, "3H"),
                       (1, "AD"), (0, "2S")]:  # fmt: skip
        game.play(seat, parse_card(card))
    assert table_phase(game) == "show"


def test_a_card_on_the_pack_beside_the_starter_says_nothing_of_the_seats() -> None:
    """The starter's other corner misread (or a card on the pack) is no card laid: the seat is
    learnt from the first card laid in front of a player."""
    game = Game(Settings(players=2), first_dealer=1)
    game.deal(None)
    game.discard(0, None)
    game.discard(1, None)
    game.cut_starter(parse_card("6D"))
    learner = SeatLearner(2, SIDE)
    crowd = (("6D", (320, 320)), ("6C", (330, 330)))
    assert not learner.observe(game, state(*crowd))
    assert learner.observe(game, state(*crowd, ("AH", (320, 500))))
    assert near(learner.seating.axes["bottom"], (0.0, 1.0))


def test_the_view_lays_a_card_the_seats_were_learnt_from_by_that_seat() -> None:
    """The side's 3-player seed 0 (issue #59): the first card laid lay where the picture's edges
    put the bottom seat, but it is the turn's (left's), as the seats are learnt from it."""
    first = PlayEvent("bottom", parse_card("JH"), 12)
    empty = TableState(TableLayout(["bottom", "left", "right"]), {})
    assert [p.seat for p in table_view(empty, [first], 3).plays] == [0]
    learnt = table_view(empty, [first], 3, laid_by={first.card: "left"})
    assert [p.seat for p in learnt.plays] == [1]
