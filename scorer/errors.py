"""Domain errors of the rules engine; each message names the offending input."""

from __future__ import annotations

from collections.abc import Iterable


class CribbageError(ValueError):
    """Base of every rules-engine error: bad input or an illegal action."""


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


def refuse_unknown_fields(
    data: Iterable[str],
    allowed: Iterable[str],
    what: str = "field",
    error: type[CribbageError] = CribbageError,
) -> None:
    """Raise `error` naming any key of a JSON object that is not one of `allowed`."""
    unknown = set(data) - set(allowed)
    if unknown:
        raise error(f"unknown {what}(s): {', '.join(sorted(unknown))}")
