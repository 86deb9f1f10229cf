"""Each refusal of the engine says what it is and its values: a code of `REFUSALS`, values as
JSON, and an English message that is the code's template filled (as the messages read before
they had codes)."""

from __future__ import annotations

import ast
import builtins
import copy
import json
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from scorer.advice import Role, advise
from scorer.cards import Card, parse_card
from scorer.errors import (
    CribbageError,
    GameError,
    IllegalPlayError,
    english,
    json_values,
    phrase,
    slots,
)
from scorer.game import Game
from scorer.json_api import peg_request, score_request
from scorer.match import Match
from scorer.pegging import Pegging
from scorer.refusals import REFUSALS, SLOTS
from scorer.replay import replay
from scorer.settings import Settings, Variant
from scorer.show import score_show
from tests.helpers import card, cards
from tests.scorer.test_game import two_player_deal

ROOT = Path(__file__).resolve().parents[2]
#: Where refusals are raised: the engine, and table mode's steps (which refuse as it does).
RAISING = [*sorted((ROOT / "scorer").glob("*.py")), ROOT / "tablemode" / "steps.py"]


def refused(action: Callable[[], Any]) -> CribbageError:
    with pytest.raises(CribbageError) as caught:
        action()
    return caught.value


def at_play() -> Game:
    game = Game(Settings(), first_dealer=1)
    two_player_deal(game)
    return game


def hidden_at_play() -> Game:
    game = Game(Settings(), first_dealer=1)
    game.deal(None)
    game.discard(0, None)
    game.discard(1, None)
    game.cut_starter(card("5S"))
    return game


# Each: the action refused, its English message (as it read before codes), its code, values.
SITUATIONS: list[tuple[Callable[[], Any], str, str, dict[str, Any]]] = [
    (lambda: parse_card("1X"), "'1X' is not a card", "not_a_card", {"value": "'1X'"}),
    (lambda: Card(14, "H"), "rank 14 is not a card rank (1 to 13)", "bad_rank", {"value": "14"}),
    (lambda: Card(5, "X"), "suit 'X' is not a suit (C, D, H or S)", "bad_suit",
     {"value": "'X'"}),
    (lambda: score_show(cards("5H 5H 6C 7D"), card("8S")), "5H appears twice", "duplicate_card",
     {"card": "5H"}),
    (lambda: score_show(cards("5H 6C"), card("8S")),
     "a hand to show holds 3 or 4 cards, got 2: 5H 6C", "hand_size",
     {"given": 2, "cards": ["5H", "6C"]}),
    (lambda: score_show(cards("5H 6C 7D"), card("8S"), crib=True),
     "a crib to show holds 4 cards, got 3: 5H 6C 7D", "crib_size",
     {"given": 3, "cards": ["5H", "6C", "7D"]}),
    (lambda: at_play().play(1, card("7C")),
     "deal 1: seat 1 cannot play 7C: it is seat 0's turn", "in_deal",
     {"number": 1, "message": {"code": "not_your_turn", "values": {
         "seat": 1, "action": {"code": "play_card", "values": {"card": "7C"}}, "turn": 0}}}),
    (lambda: at_play().go(0),
     "deal 1: seat 0 says go but can play 5H 5D JC 6S on 0 (a renege)", "in_deal",
     {"number": 1, "message": {"code": "renege", "values": {
         "seat": 0, "cards": ["5H", "5D", "JC", "6S"], "count": 0}}}),
    (lambda: at_play().play(0, card("7C")), "deal 1: seat 0 does not hold 7C", "in_deal",
     {"number": 1, "message": {"code": "not_held", "values": {"seat": 0, "card": "7C"}}}),
    (lambda: hidden_at_play().go(0),
     "deal 1: seat 0 cannot say go at a count of 0: any card can still be played", "in_deal",
     {"number": 1, "message": {"code": "go_too_soon", "values": {"seat": 0, "count": 0}}}),
    (lambda: at_play().play(0, card("9H")), "deal 1: 9H is in the crib", "in_deal",
     {"number": 1, "message": {"code": "card_in_crib", "values": {"card": "9H"}}}),
    (lambda: at_play().play(0, card("5S")), "deal 1: 5S is the starter", "in_deal",
     {"number": 1, "message": {"code": "card_is_starter", "values": {"card": "5S"}}}),
    (lambda: at_play().discard(0, cards("5H 5D")),
     "cannot discard now: the game is at the play phase", "wrong_phase",
     {"action": {"code": "discard", "values": {}}, "phase": "play"}),
    (lambda: at_play().show(), "cannot show now: the game is at the play phase", "wrong_phase",
     {"action": {"code": "show", "values": {}}, "phase": "play"}),
    (lambda: at_play().play(7, card("5H")), "seat 7 is not a seat of 2 players", "not_a_seat",
     {"seat": 7, "players": 2}),
    (lambda: at_play().play(None, card("5H")),  # type: ignore[arg-type]
     "seat None is not a seat of 2 players", "seat_not_a_number",
     {"value": "None", "players": 2}),
    (lambda: Game(Settings()).undo(), "nothing to undo", "nothing_to_undo", {}),
    (lambda: Game(Settings()).cut_for_deal(cards("5H 5D")),
     "tie for lowest cut (5H 5D): cut again", "tied_cut", {"cards": ["5H", "5D"]}),
    (lambda: Game(Settings()).cut_for_deal(cards("5H")), "cut for deal needs 2 cards, got 1",
     "cut_size", {"wanted": 2, "given": 1}),
    (lambda: Game(Settings(players=3), first_dealer=0).deal([cards("5H"), cards("5D")]),
     "deal 1: 3 hands of 5 and one crib card are 16 cards, got 2", "in_deal",
     {"number": 1, "message": {"code": "deal_size_with_crib_card", "values": {
         "players": 3, "per": 5, "wanted": 16, "given": 2}}}),
    (lambda: at_play().correct(0, 0), "a correction needs non-zero points, not 0",
     "zero_correction", {"value": "0"}),
    (lambda: at_play().muggins(1, 2), "muggins is not being played in this game", "no_muggins",
     {}),
    (lambda: Game.from_json([]), "a saved game is a JSON object, got []",
     "saved_game_not_object", {"value": "[]"}),
    (lambda: Game.from_json({"actions": [{"kind": "dealer", "seat": 5}]}),
     "action 1 {'kind': 'dealer', 'seat': 5}: seat 5 is not a seat of 2 players",
     "in_saved_action", {"number": 1, "value": "{'kind': 'dealer', 'seat': 5}", "message": {
         "code": "not_a_seat", "values": {"seat": 5, "players": 2}}}),
    (lambda: Game.from_json({"actions": [{"kind": "fly"}]}), "action 1 {'kind': 'fly'}: "
     "unknown action 'fly'", "in_saved_action", {"number": 1, "value": "{'kind': 'fly'}",
     "message": {"code": "unknown_action", "values": {"value": "'fly'"}}}),
    (lambda: Pegging(5, 0), "pegging needs 2, 3 or 4 players, not 5", "pegging_players",
     {"players": 5}),
    (lambda: Pegging(2, 3), "dealer seat 3 is not a seat of 2", "dealer_not_a_seat",
     {"number": 3, "players": 2}),
    (lambda: Settings(players=5), "players must be 2, 3 or 4, not 5", "players_range",
     {"value": "5"}),
    (lambda: Settings(players=3, variant=Variant.FIVE_CARD),
     "five-card cribbage is for two players", "five_card_players", {}),
    (lambda: Settings.from_json({"colour": 1}), "unknown setting(s): colour", "unknown_settings",
     {"names": "colour"}),
    (lambda: Settings.from_json({"match_points": {"win": True}}),
     "match_points.win must be int: True", "match_point_type",
     {"name": "win", "type": "int", "value": "True"}),
    (lambda: Settings(skunk_line=200), "skunk_line must be between 1 and 120: 200",
     "skunk_line_range", {"name": "skunk_line", "limit": 120, "value": "200"}),
    (lambda: Match(Settings()).record_game(Game(Settings())), "the game is not finished",
     "game_not_finished", {}),
    (lambda: advise(cards("5H 5D JC 6S 9H"), role=Role.DEALER),
     "two players, six-card cribbage deals 6 cards, got 5: 5H 5D JC 6S 9H (five-card cribbage "
     "is --variant five-card; three or four players, --players)", "advice_five_cards",
     {"wanted": 6, "given": 5, "cards": ["5H", "5D", "JC", "6S", "9H"]}),
    (lambda: advise(cards("5H 5D JC 6S"), settings=Settings(players=3)),
     "three players deals 5 cards, got 4: 5H 5D JC 6S", "advice_three_players",
     {"wanted": 5, "given": 4, "cards": ["5H", "5D", "JC", "6S"]}),
    (lambda: advise(cards("5H 5D JC 6S 9H QD"), role=Role.PARTNER),
     "only four-player cribbage has partners", "no_partners", {}),
    (lambda: replay([]), "a recorded game is a JSON object, got list",
     "recorded_game_not_object", {"type": "list"}),
    (lambda: replay({"first_dealer": 0, "deals": [{"hands": "x"}]}),
     "deal 1: 'hands' must list each seat's cards as dealt", "in_deal",
     {"number": 1, "message": {"code": "hands_not_listed", "values": {}}}),
    (lambda: replay({"first_dealer": 0, "deals": [1]}),
     "deal 1: a deal must be an object, got 1", "in_deal",
     {"number": 1, "message": {"code": "deal_not_object", "values": {"value": "1"}}}),
    (lambda: score_request({"hand": [], "starter": "5H", "wild": 1}), "unknown field(s): wild",
     "unknown_fields", {"names": "wild"}),
    (lambda: peg_request({"players": 2, "dealer": 0, "plays": [[1, "5H"], [1, "6H"]]}),
     "play 2 [1, '6H']: seat 1 cannot play 6H: it is seat 0's turn", "in_peg_request",
     {"number": 2, "value": "[1, '6H']", "message": {"code": "not_your_turn", "values": {
         "seat": 1, "action": {"code": "play_card", "values": {"card": "6H"}}, "turn": 0}}}),
]  # fmt: skip


@pytest.mark.parametrize(("action", "message", "code", "values"), SITUATIONS)
def test_a_refusal_is_its_code_and_values_and_reads_as_its_template(
    action: Callable[[], Any], message: str, code: str, values: dict[str, Any]
) -> None:
    error = refused(action)
    assert (str(error), error.code, error.values) == (message, code, values)
    assert english(REFUSALS[code], error.values) == message
    assert json.loads(json.dumps(error.values)) == values


def test_every_template_s_slots_say_what_they_hold() -> None:
    unknown = {code: slots(t) - set(SLOTS) for code, t in REFUSALS.items() if slots(t) - set(SLOTS)}
    assert unknown == {}


#: Callables taking a refusal's code, and which positional argument it is (error classes: 0).
CODE_ARGUMENT = {"phrase": 0, "_deal_error": 1, "_cards": 1, "refuse_unknown_fields": 2}


def _strings(node: ast.expr) -> set[str]:
    """A code written out, or either code of `"a" if x else "b"`."""
    if isinstance(node, ast.IfExp):
        return _strings(node.body) | _strings(node.orelse)
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value}
    return set()


def codes_raised(path: Path) -> set[str]:
    """The codes `path` makes refusals with: the code argument of an error class or of a
    callable of `CODE_ARGUMENT`, and what a variable named `code` is set to."""
    codes: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "code" for target in node.targets
        ):
            codes |= _strings(node.value)
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
        ours = name.endswith("Error") and not hasattr(builtins, name)
        index = 0 if ours else CODE_ARGUMENT.get(name)
        if index is not None and len(node.args) > index:
            codes |= _strings(node.args[index])
    return codes


def test_every_code_raised_has_a_template_and_every_template_is_raised() -> None:
    """A code without a template would fail only when raised; a template nothing raises is
    dead (and a translation for nothing)."""
    raised = set().union(*(codes_raised(path) for path in RAISING))
    assert raised - set(REFUSALS) == set()
    assert set(REFUSALS) - raised == set()
    with pytest.raises(KeyError):
        GameError("no_such_refusal")


def test_a_refusal_takes_exactly_its_template_s_slots() -> None:
    with pytest.raises(TypeError, match=r"takes \['card'\], not \['cards'\]"):
        GameError("card_in_crib", cards=["5H"])
    with pytest.raises(TypeError):
        phrase("play_card")


def test_a_refusal_keeps_its_code_through_pickle_and_copy() -> None:
    error = refused(lambda: at_play().play(1, card("7C")))
    for again in (pickle.loads(pickle.dumps(error)), copy.copy(error)):
        assert type(again) is IllegalPlayError
        assert (again.code, again.values, str(again)) == (error.code, error.values, str(error))


def test_values_are_json_whatever_the_caller_gave() -> None:
    """Cards as their text, a nested error as its phrase, a value given as text as text."""
    inner = IllegalPlayError("already_played", card=card("10D"))
    outer = GameError("in_deal", number=2, message=inner)
    assert outer.values == {"number": 2, "message": {"code": "already_played",
                                                     "values": {"card": "10D"}}}  # fmt: skip
    assert json_values(REFUSALS["renege"], {"seat": 1, "cards": cards("AS 2S"), "count": 30}) == {
        "seat": 1, "cards": ["AS", "2S"], "count": 30}  # fmt: skip
