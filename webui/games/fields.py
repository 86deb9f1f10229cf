"""A game's fields in a request body: cards and seat names, each refusal naming the problem."""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping
from typing import Any

from scorer.cards import Card, parse_card, parse_cards
from webui.errors import ApiError
from webui.guard.bodies import text_problem


def card(body: Mapping[str, Any], name: str) -> Card:
    value = body.get(name)
    if not isinstance(value, str):
        raise ApiError(f"'{name}' must be a card such as \"5H\", not {value!r}")
    return parse_card(value)


def cards(value: Any, name: str) -> list[Card]:
    if not isinstance(value, list) or not all(isinstance(c, str) for c in value):
        raise ApiError(f'\'{name}\' must be a list of cards such as ["5H", "JC"], not {value!r}')
    return parse_cards(value)


def names(value: Any, players: int, *, required: bool = False) -> list[str]:
    """Seat names: default 'Seat 1'.. (unless `required`); each a short non-empty string, in
    NFC, without a lone surrogate or a control character."""
    if value is None and not required:
        return [f"Seat {seat + 1}" for seat in range(players)]
    if not isinstance(value, list) or len(value) != players:
        raise ApiError.coded("names_count", players=players, text=repr(value))
    result = []
    for seat, name in enumerate(value):
        if isinstance(name, str):
            problem = text_problem(name)
            if problem is not None:
                raise ApiError(f"'names[{seat}]' {problem}")
            name = unicodedata.normalize("NFC", name).strip()
        if not isinstance(name, str) or not name or len(name) > 40:
            raise ApiError.coded("name_length", text=repr(name))
        result.append(name)
    return result
