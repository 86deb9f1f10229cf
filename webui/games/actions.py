"""The JSON form of a table action, applied through the engine's public `Game` methods.

Bodies look like the engine's action log with friendlier fields, e.g.
``{"kind": "play", "seat": 0, "card": "5H", "claim": 2}``; `seat` may be left out wherever the
engine knows whose turn it is. See API.md for every kind.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from scorer.errors import Phrase, phrase
from scorer.game import Game
from scorer.json_api import show_to_json
from webui.errors import ApiError
from webui.games.fields import card, cards
from webui.guard.bodies import check_fields, choice, integer, required_int
from webui.guard.limits import BOUNDS
from webui.languages.i18n import spoken

Result = dict[str, Any] | None
_Handler = Callable[[Game, dict[str, Any]], Result]


def _seat_or_turn(game: Game, body: dict[str, Any], action: Phrase) -> int:
    seat = integer(body, "seat", required=False)
    if seat is None:
        if game.turn is None:
            raise ApiError.coded("say_which_seat", 409, action=action)
        return game.turn
    return seat


def _seat(body: dict[str, Any]) -> int:
    return required_int(body, "seat")  # the engine refuses a seat the game does not have


def _dealer(game: Game, body: dict[str, Any]) -> Result:
    game.choose_dealer(_seat(body))
    return None


def _cut(game: Game, body: dict[str, Any]) -> Result:
    game.cut_for_deal(cards(body.get("cards"), "cards"))
    return None


def _deal(game: Game, body: dict[str, Any]) -> Result:
    hands = body.get("hands")
    if hands is None:
        game.deal(None)
        return None
    if not isinstance(hands, list):
        raise ApiError(f"'hands' must be a list of hands (lists of cards), not {hands!r}")
    crib = card(body, "crib_card") if body.get("crib_card") is not None else None
    game.deal([cards(hand, "hands") for hand in hands], crib)
    return None


def _discard(game: Game, body: dict[str, Any]) -> Result:
    given = body.get("cards")
    game.discard(_seat(body), None if given is None else cards(given, "cards"))
    return None


def _starter(game: Game, body: dict[str, Any]) -> Result:
    game.cut_starter(card(body, "card"))
    return None


def _play(game: Game, body: dict[str, Any]) -> Result:
    played = card(body, "card")
    claim = integer(body, "claim", required=False, low=0, high=BOUNDS.play_points)
    game.play(_seat_or_turn(game, body, phrase("play_a_card")), played, claim)
    return None


def _go(game: Game, body: dict[str, Any]) -> Result:
    game.go(_seat_or_turn(game, body, phrase("say_go")))
    return None


def _show(game: Game, body: dict[str, Any]) -> Result:
    given = body.get("cards")
    shown = None if given is None else cards(given, "cards")
    show = game.show(shown, integer(body, "claim", required=False, low=0,
                                    high=BOUNDS.show_points))  # fmt: skip
    return {"show": {**show_to_json(show), "spoken": spoken(show)}}


def _muggins(game: Game, body: dict[str, Any]) -> Result:
    game.muggins(_seat(body), required_int(body, "points", low=1, high=BOUNDS.show_points))
    return None


def _correct(game: Game, body: dict[str, Any]) -> Result:
    target = game.settings.target  # a correction moves a peg along the board, no further
    game.correct(_seat(body), required_int(body, "points", low=-target, high=target))
    return None


#: kind → (handler, the fields it takes besides "kind")
ACTIONS: dict[str, tuple[_Handler, set[str]]] = {
    "dealer": (_dealer, {"seat"}),
    "cut": (_cut, {"cards"}),
    "deal": (_deal, {"hands", "crib_card"}),
    "discard": (_discard, {"seat", "cards"}),
    "starter": (_starter, {"card"}),
    "play": (_play, {"seat", "card", "claim"}),
    "go": (_go, {"seat"}),
    "show": (_show, {"cards", "claim"}),
    "muggins": (_muggins, {"seat", "points"}),
    "correct": (_correct, {"seat", "points"}),
}


def parse_action(body: Any) -> Callable[[Game], Result]:
    """Check an action body's shape up front; the returned callable applies it to a game."""
    if not isinstance(body, dict):
        raise ApiError(f"an action is a JSON object, not {type(body).__name__}")
    kind = choice(body, "kind", ACTIONS, "")
    handler, fields = ACTIONS[kind]
    check_fields(body, fields | {"kind"}, f"a {kind} action")
    return lambda game: handler(game, body)
