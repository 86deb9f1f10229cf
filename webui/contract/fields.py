"""The fields request bodies are made of, each with its JSON Schema bounds and its refusal.

A field refused by its own schema (a wrong type, a number out of bounds) is refused with one
code of `webui.languages.refusals.TEMPLATES` and the slots `field` (its path, filled in by
`routes`) and `text` (what the request gave): ``'claim' must be 0 to 14, not 15``.
"""

from __future__ import annotations

import re
import unicodedata
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeAlias

from pydantic import Field, ValidationError, ValidatorFunctionWrapHandler, WrapValidator
from pydantic_core import PydanticCustomError

from scorer.cards import Card, parse_cards
from scorer.errors import InvalidCardError
from webui.guard.bodies import first_unstorable, shown_number
from webui.guard.limits import BOUNDS

#: The largest integer a field without bounds of its own holds (JSON's safe integers).
LARGEST_INTEGER = 2**53
#: The most characters of a refused value a refusal repeats.
SHOWN_CHARACTERS = 40


def shown(value: Any) -> str:
    """A refused value as a refusal writes it: Python's repr, a huge number by its size, and
    anything long cut short.

    >>> shown("x"), shown(10**40), shown(True), shown(None)
    ("'x'", 'a 41-digit number', 'True', 'None')
    """
    if type(value) is int:
        return shown_number(value)
    text = repr(value)
    return text if len(text) <= SHOWN_CHARACTERS else text[: SHOWN_CHARACTERS - 1] + "…"


def refused(code: str, value: Any, **values: Any) -> PydanticCustomError:
    """The refusal `code` of a field given `value` (its `field` slot is added from its path)."""
    return PydanticCustomError(code, code, {**values, "text": shown(value)})


def refused_as(code: str, **values: Any) -> WrapValidator:
    """A field whose own schema refuses a value as `code`, whatever the reason."""

    def check(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        try:
            return handler(value)
        except ValidationError:
            raise refused(code, value, **values) from None

    return WrapValidator(check)


def integer(low: int, high: int, description: str) -> Any:
    """An integer `low`..`high` (true and 1.0 are not integers), refused as `not_integer` or
    `out_of_range`."""

    def check(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
        try:
            return handler(value)
        except ValidationError as error:
            if error.errors()[0]["type"] == "int_type":
                raise refused("not_integer", value) from None
            raise refused("out_of_range", value, low=low, high=high) from None

    return Annotated[int, Field(ge=low, le=high, strict=True, description=description),
                     WrapValidator(check)]  # fmt: skip


if TYPE_CHECKING:  # mypy sees the value a field's checks leave; pydantic the checks
    Seat: TypeAlias = int
    PlayClaim: TypeAlias = int
    ShowClaim: TypeAlias = int
    MugginsPoints: TypeAlias = int
    Correction: TypeAlias = int
else:
    #: A seat: 0 is the first name given. The engine refuses one the game does not have (409).
    Seat = integer(-LARGEST_INTEGER, LARGEST_INTEGER, "A seat: 0 is the first name given (the "
                   "engine refuses one the game has not, 409).")  # fmt: skip
    PlayClaim = integer(0, BOUNDS.play_points, "The points the player claims for the card.")
    ShowClaim = integer(0, BOUNDS.show_points, "The points the player claims for the show.")
    MugginsPoints = integer(1, BOUNDS.show_points, "The points an opponent missed.")
    #: A correction moves a peg at most a game's length (the handler bounds it by the target).
    Correction = integer(-121, 121, "Points to add to (or take from) the seat's score.")

#: Card texts as `scorer.cards.parse_card` reads them: rank then suit, any case, suit letters
#: or symbols (``5H``, ``10d``, ``TD``, ``J♠``).
CARD_PATTERN = r"^\s*(10|[2-9AaJjQqKkTt])[CDHScdhs♣♦♥♠♧♢♡♤]\s*$"
_CARD = re.compile(CARD_PATTERN)


def _card(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
    if not isinstance(value, str):
        raise refused("card_text", value)
    if _CARD.match(value) is None:
        raise InvalidCardError("not_a_card", value=repr(value))  # the engine's own refusal
    return handler(value)


CardText = Annotated[
    str,
    Field(pattern=CARD_PATTERN, max_length=8, description="A card: rank then suit.",
          examples=["5H", "10D", "QS"]),
    WrapValidator(_card),
]  # fmt: skip


def _cards(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
    if not isinstance(value, list) or not all(isinstance(c, str) for c in value):
        raise refused("cards_list", value)
    return handler(value)


def cards(most: int, description: str) -> Any:
    """A list of at most `most` cards (the engine refuses a card given twice)."""
    bounds = Field(max_length=most, description=description, examples=[["5H", "JC"]])
    return Annotated[list[CardText], bounds, WrapValidator(_cards)]


def _stored_text(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
    """Text that can be stored and shown, in NFC (a lone surrogate or a control character
    cannot: `webui.guard.bodies.first_unstorable`)."""
    if isinstance(value, str):
        char = first_unstorable(value)
        if char is not None and unicodedata.category(char) == "Cs":
            raise PydanticCustomError("lone_surrogate", "", {"text": f"U+{ord(char):04X}"})
        if char is not None:
            raise PydanticCustomError("control_character", "", {"text": f"U+{ord(char):04X}"})
        value = unicodedata.normalize("NFC", value)
    return handler(value)


#: No control characters (C0, DEL, C1): the JSON Schema form of `first_unstorable`'s rule.
PRINTABLE = r"^[^\u0000-\u001f\u007f-\u009f]*$"


def text(most: int, description: str, *, least: int = 0) -> Any:
    """A string of `least`..`most` characters that can be stored and shown, in NFC."""
    return Annotated[str, Field(min_length=least, max_length=most, pattern=PRINTABLE,
                                description=description), WrapValidator(_stored_text)]  # fmt: skip


def _seat_name(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
    if isinstance(value, str):
        value = value.strip()
    try:
        return handler(value)
    except ValidationError as error:
        if error.errors()[0]["type"] in ("lone_surrogate", "control_character"):
            raise
        raise refused("name_length", value) from None


if TYPE_CHECKING:
    SeatName: TypeAlias = str
else:
    #: A player's name at the table: 1 to 40 characters once trimmed.
    SeatName = Annotated[text(40, "A player's name at the table.", least=1),
                         WrapValidator(_seat_name)]  # fmt: skip

#: An id the server gave: a game, an enrolment, a frame.
Id = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")]

FrameId = Annotated[Id, Field(description="A frame id from a detection or a camera suggestion: "
                                          "its picture is kept with the action."),
                    refused_as("frame_id")]  # fmt: skip

if TYPE_CHECKING:
    DeckName: TypeAlias = str
else:
    #: A deck's name (the deck store refuses a name it cannot be a folder for).
    DeckName = Annotated[text(64, "A deck's name.", least=1), refused_as("deck_name")]

#: A suit in an enrolment's order (either case).
Suit = Literal["C", "D", "H", "S", "c", "d", "h", "s"]


def as_cards(texts: list[str] | None) -> list[Card] | None:
    """Checked card texts as cards, none given twice (None stays None)."""
    return None if texts is None else parse_cards(texts)
