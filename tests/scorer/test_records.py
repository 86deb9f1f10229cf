"""A finished game's figures per seat (`scorer.records`): the unfinished refused, the dealers
from a cut, partners sharing a result but keeping their own points."""

from __future__ import annotations

import pytest

from scorer.cards import parse_cards
from scorer.errors import GameError
from scorer.game import Game
from scorer.records import SeatRecord, dealers, game_record
from scorer.settings import Settings


def test_an_unfinished_game_has_no_record() -> None:
    with pytest.raises(GameError, match="not finished"):
        game_record(Game(Settings(), first_dealer=0))


def test_dealers_from_the_cut_then_clockwise() -> None:
    game = Game(Settings(players=3))
    game.cut_for_deal(parse_cards(["9C", "2D", "KH"]))  # seat 1 cuts lowest: deals first
    for _ in range(3):
        game.correct(0, 1)
    assert dealers(game) == {}  # nothing dealt yet
    game.deal(None)
    assert dealers(game) == {1: 1}


def test_partners_share_the_result_not_the_points() -> None:
    game = Game(Settings(players=4), first_dealer=3)
    game.correct(2, 60)
    game.correct(1, 50)
    game.correct(0, 61)  # side 0 (seats 0 and 2) reaches 121; side 1 at 50: double skunk
    records = game_record(game)
    figures = [(r.side, r.won, r.points, r.skunks_given, r.skunked, r.match_points)
               for r in records]  # fmt: skip
    assert figures == [(0, True, 61, 1, False, 3), (1, False, 50, 0, True, 0),
                       (0, True, 60, 1, False, 3), (1, False, 0, 0, True, 0)]  # fmt: skip
    assert SeatRecord.from_json(records[0].to_json()) == records[0]
