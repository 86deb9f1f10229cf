"""Domain errors of the rules engine; each message names the offending input."""


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
