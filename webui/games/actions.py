"""A table action, checked by its schema (`webui.contract.bodies.Action`), applied through the
engine's public `Game` methods.

Bodies look like the engine's action log with friendlier fields, e.g.
``{"kind": "play", "seat": 0, "card": "5H", "claim": 2}``; `seat` may be left out wherever the
engine knows whose turn it is. See API.md for every kind.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from scorer.cards import parse_card, parse_cards
from scorer.errors import Phrase, phrase
from scorer.game import Game
from scorer.json_api import show_to_json
from webui.contract import bodies
from webui.contract.fields import as_cards
from webui.errors import ApiError
from webui.languages.i18n import spoken

Result = dict[str, Any] | None


def _seat_or_turn(game: Game, seat: int | None, action: Phrase) -> int:
    if seat is None:
        if game.turn is None:
            raise ApiError.coded("say_which_seat", 409, action=action)
        return game.turn
    return seat


def _apply(game: Game, action: Any) -> Result:
    match action:
        case bodies.Dealer(seat=seat):
            game.choose_dealer(seat)
        case bodies.Cut(cards=cut):
            game.cut_for_deal(parse_cards(cut))
        case bodies.Deal(hands=hands, crib_card=crib):
            dealt = None if hands is None else [parse_cards(hand) for hand in hands]
            game.deal(dealt, None if crib is None else parse_card(crib))
        case bodies.Discard(seat=seat, cards=laid):
            game.discard(seat, as_cards(laid))
        case bodies.Starter(card=card):
            game.cut_starter(parse_card(card))
        case bodies.Play(seat=seat, card=card, claim=claim):
            played = parse_card(card)
            game.play(_seat_or_turn(game, seat, phrase("play_a_card")), played, claim)
        case bodies.Go(seat=seat):
            game.go(_seat_or_turn(game, seat, phrase("say_go")))
        case bodies.Show(cards=shown, claim=claim):
            show = game.show(as_cards(shown), claim)
            return {"show": {**show_to_json(show), "spoken": spoken(show)}}
        case bodies.Muggins(seat=seat, points=points):
            game.muggins(seat, points)
        case bodies.Correct(seat=seat, points=points):
            target = game.settings.target  # a correction moves a peg along the board, no further
            if not -target <= points <= target:
                raise ApiError.coded("out_of_range", field="points", low=-target, high=target,
                                     text=str(points))  # fmt: skip
            game.correct(seat, points)
    return None


def action_of(action: bodies.ActionBody) -> Callable[[Game], Result]:
    """The checked `action` as a callable that applies it to a game."""
    return lambda game: _apply(game, action)
