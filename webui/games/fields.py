"""Seat names in a game record (an import), each refusal naming the problem."""

from __future__ import annotations

import unicodedata
from typing import Any

from webui.errors import ApiError
from webui.guard.bodies import text_problem


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
