"""Reading request bodies strictly: every field checked, every refusal naming the problem."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from flask import request

from scorer.cards import Card, parse_card, parse_cards
from webui.errors import ApiError


def json_body() -> Any:
    """The request's JSON body, whatever its Content-Type (curl users forget it)."""
    raw = request.get_data(cache=True)
    if not raw.strip():
        raise ApiError("expected a JSON body")
    try:
        return json.loads(raw)
    except (ValueError, UnicodeDecodeError) as error:
        raise ApiError(f"the body is not valid JSON: {error}") from None


def json_object() -> dict[str, Any]:
    body = json_body()
    if not isinstance(body, dict):
        raise ApiError(f"expected a JSON object, got {type(body).__name__}")
    return body


def check_fields(body: Mapping[str, Any], allowed: set[str], what: str) -> None:
    unknown = set(body) - allowed
    if unknown:
        raise ApiError(f"unknown field(s) for {what}: {', '.join(sorted(unknown))}")


def integer(body: Mapping[str, Any], name: str, *, required: bool = True) -> int | None:
    value = body.get(name)
    if value is None:
        if required:
            raise ApiError(f"'{name}' is required")
        return None
    if type(value) is not int:
        raise ApiError(f"'{name}' must be an integer, not {value!r}")
    return value


def required_int(body: Mapping[str, Any], name: str) -> int:
    value = integer(body, name)
    assert value is not None
    return value


def card(body: Mapping[str, Any], name: str) -> Card:
    value = body.get(name)
    if not isinstance(value, str):
        raise ApiError(f"'{name}' must be a card such as \"5H\", not {value!r}")
    return parse_card(value)


def cards(value: Any, name: str) -> list[Card]:
    if not isinstance(value, list) or not all(isinstance(c, str) for c in value):
        raise ApiError(f'\'{name}\' must be a list of cards such as ["5H", "JC"], not {value!r}')
    return parse_cards(value)


def names(value: Any, players: int) -> list[str]:
    """Seat names: default 'Seat 1'..; each a short non-empty string."""
    if value is None:
        return [f"Seat {seat + 1}" for seat in range(players)]
    if not isinstance(value, list) or len(value) != players:
        raise ApiError(f"'names' must be a list of {players} names, not {value!r}")
    result = []
    for name in value:
        if not isinstance(name, str) or not name.strip() or len(name) > 40:
            raise ApiError(f"a seat name is 1 to 40 characters, not {name!r}")
        result.append(name.strip())
    return result
