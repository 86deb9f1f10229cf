"""Domain errors of the rules engine: each says what it is and its values, not only a sentence.

An error is a refusal code of `scorer.refusals.REFUSALS` with the values of its template's slots
(`error.code`, `error.values`, both JSON: seats and counts as numbers, cards as their text "5H",
a refusal or an action inside it as ``{"code", "values"}``); `str(error)` is the template filled
in English.

>>> error = IllegalPlayError("not_your_turn", seat=1, action=phrase("say_go"), turn=0)
>>> str(error)
"seat 1 cannot say go: it is seat 0's turn"
>>> error.code, error.values
('not_your_turn', {'seat': 1, 'action': {'code': 'say_go', 'values': {}}, 'turn': 0})
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import cache
from string import Formatter
from typing import Any, TypeAlias, TypedDict, cast

from scorer.refusals import REFUSALS, SLOTS, Slot


class Phrase(TypedDict):
    """A refusal or an action as JSON: its code and its slots' values."""

    code: str
    values: dict[str, Value]


Value: TypeAlias = "int | float | str | list[str] | Phrase"


class CribbageError(ValueError):
    """Base of every rules-engine error: bad input or an illegal action. `code` is one of
    `REFUSALS`; `values` fill its template's slots, each given as `SLOTS` says (a card or a
    card's text, a list of cards, an error or a `phrase` for a nested refusal)."""

    def __init__(self, code: str, /, **values: object) -> None:
        self.code = code
        self.values = json_values(REFUSALS[code], values)
        super().__init__(english(REFUSALS[code], self.values))

    def __reduce__(self) -> tuple[Any, ...]:
        # The default rebuilds from the message alone, which is no code (pickle, copy).
        return _rebuilt, (type(self), self.code, self.values)

    def phrase(self) -> Phrase:
        return {"code": self.code, "values": self.values}


class InvalidCardError(CribbageError):
    """Text or fields that do not name one of the 52 cards."""


class DuplicateCardError(CribbageError):
    """The same card given twice where a deck holds it once."""


class InvalidHandError(CribbageError):
    """A hand of the wrong size for the show."""


class IllegalPlayError(CribbageError):
    """A pegging action the rules forbid: out of turn, past 31, a card not held, a renege."""


class GameError(CribbageError):
    """An action that does not fit the game's phase or state."""


def _rebuilt(kind: type[CribbageError], code: str, values: dict[str, Value]) -> CribbageError:
    return kind(code, **values)


def phrase(code: str, /, **values: object) -> Phrase:
    """A refusal or an action of `REFUSALS` to put in another's slot: ``phrase("say_go")``."""
    return {"code": code, "values": json_values(REFUSALS[code], values)}


@cache
def slots(template: str) -> frozenset[str]:
    """The names of `template`'s slots."""
    return frozenset(name for _, name, _, _ in Formatter().parse(template) if name)


def json_values(
    template: str, values: Mapping[str, object], kinds: Mapping[str, Slot] = SLOTS
) -> dict[str, Value]:
    """`values` as JSON, each slot of `template` given once (a TypeError names a mismatch)."""
    if set(values) != slots(template):
        raise TypeError(f"{template!r} takes {sorted(slots(template))}, not {sorted(values)}")
    return {name: _json_value(kinds[name], value) for name, value in values.items()}


def _json_value(kind: Slot, value: Any) -> Value:
    if kind is Slot.CARD or kind is Slot.TEXT:
        return str(value)
    if kind is Slot.CARDS:
        return [str(card) for card in value]
    if isinstance(value, CribbageError):
        return value.phrase()
    return cast(Value, value)  # a number, a seat, a word or a phrase


def english(template: str, values: Mapping[str, Value], kinds: Mapping[str, Slot] = SLOTS) -> str:
    """`template` filled with JSON `values` in English: ``seat 1``, ``5H 5D``, a phrase's own
    template filled."""
    return template.format(**{name: _english(kinds[name], v) for name, v in values.items()})


def _english(kind: Slot, value: Value) -> str:
    if kind is Slot.SEAT:
        return f"seat {value}"
    if isinstance(value, list):
        return " ".join(value)
    if isinstance(value, dict):
        return english(REFUSALS[value["code"]], value["values"])
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def refuse_unknown_fields(
    data: Iterable[str],
    allowed: Iterable[str],
    code: str,
    error: type[CribbageError] = CribbageError,
) -> None:
    """Raise `error` (code `code`, a template of one slot, `names`) naming any key of a JSON
    object that is not one of `allowed`."""
    unknown = set(data) - set(allowed)
    if unknown:
        raise error(code, names=", ".join(sorted(unknown)))
