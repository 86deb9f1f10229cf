"""Every failure the API can meet becomes a JSON `{"error": ...}` with a fitting 4xx status.

Domain errors say what was wrong with the input (400) or that the action does not fit the game
as it stands (409); a full disk is 507 (the write is rolled back; reads go on); only a genuine
bug reaches the catch-all, which logs it and answers 500 without a traceback.
"""

from __future__ import annotations

import errno
import logging
import re
import sqlite3
from collections.abc import Sequence

from flask import Flask, Response, current_app, jsonify
from werkzeug.exceptions import HTTPException

from scorer.cards import Suit
from scorer.errors import (
    CribbageError,
    DuplicateCardError,
    GameError,
    IllegalPlayError,
    InvalidCardError,
    InvalidHandError,
)
from webui.i18n import language

log = logging.getLogger(__name__)


class ApiError(Exception):
    """A request the API refuses, with the HTTP status to answer. `english` and `names`: the
    sentence as refused and, for a refusal at a game's table, its seat names (the answer says
    it in the players' language and the table's words). `code`: the refusal as a code, answered
    beside `error`, where a page words it itself (with what only the page knows: a file's name)."""

    status = 400
    code: str | None = None

    def __init__(
        self, message: str, status: int | None = None, *, english: str | None = None,
        names: Sequence[str] | None = None, code: str | None = None,
    ) -> None:  # fmt: skip
        super().__init__(message)
        if status is not None:
            self.status = status
        if code is not None:
            self.code = code
        self.english = message if english is None else english
        self.names = None if names is None else tuple(names)


#: Codes of a refused upload (`ApiError.code`): not an image at all, an image damaged or cut
#: short, one too large (its bytes or its pixels).
NOT_AN_IMAGE, DAMAGED, TOO_LARGE = "not an image", "damaged", "too large"


class GameNotFoundError(ApiError):
    status = 404


class NoCardModelError(ApiError):
    status = 503


def disk_full(error: BaseException) -> bool:
    """Whether `error` is the database's or the file system's "no space left"."""
    if isinstance(error, sqlite3.Error):
        return getattr(error, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL
    return isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EDQUOT)


def error_response(
    message: str, status: int, names: Sequence[str] | None = None, code: str | None = None
) -> tuple[Response, int]:
    """The JSON answer, its message in the request's language where the catalogs have it (at
    a game's table, `names`: in the table's words too), and its `code` when it has one."""
    from webui.refusals import in_language  # refusals build on this module's table_words

    coded = {} if code is None else {"code": code}
    return jsonify(error=in_language(message, names, language()), **coded), status


def cribbage_status(error: CribbageError) -> int:
    """400 for input that is wrong in itself, 409 for an action the game's state forbids."""
    if isinstance(error, InvalidCardError | InvalidHandError | DuplicateCardError):
        return 400
    if isinstance(error, GameError | IllegalPlayError):
        return 409
    return 400


_SEAT = re.compile(r"\bseat (\d+)\b")
_CARD = re.compile(r"\b(10|[2-9AJQK])([CDHS])\b")


def table_words(message: str, names: Sequence[str]) -> str:
    """An engine message as the table says it: each seat by its player's name (a seat number
    that is no seat stays as it is) and each card with its suit symbol (5S → 5♠).

    >>> table_words("deal 1: seat 1 cannot play 7C: it is seat 0's turn", ["Ann", "Bob"])
    "deal 1: Bob cannot play 7♣: it is Ann's turn"
    >>> table_words("seat 9 is not a seat of 2 players; 10D", ["Ann", "Bob"])
    'seat 9 is not a seat of 2 players; 10♦'
    """

    def seat(match: re.Match[str]) -> str:
        number = int(match[1])
        return names[number] if number < len(names) else match[0]

    def card(match: re.Match[str]) -> str:
        return match[1] + Suit(match[2]).symbol

    return _CARD.sub(card, _SEAT.sub(seat, message))


def refusal_at_table(error: ApiError | CribbageError, names: Sequence[str]) -> ApiError:
    """A refused action on a stored game, as an `ApiError` in the table's words."""
    status = error.status if isinstance(error, ApiError) else cribbage_status(error)
    english = error.english if isinstance(error, ApiError) else str(error)
    return ApiError(table_words(str(error), names), status, english=english, names=names)


def register_error_handlers(app: Flask) -> None:
    @app.errorhandler(ApiError)
    def api_error(error: ApiError) -> tuple[Response, int]:
        return error_response(error.english, error.status, error.names, error.code)

    @app.errorhandler(CribbageError)
    def cribbage_error(error: CribbageError) -> tuple[Response, int]:
        return error_response(str(error), cribbage_status(error))

    @app.errorhandler(HTTPException)
    def http_error(error: HTTPException) -> tuple[Response, int]:
        status = error.code or 500
        limit = current_app.config.get("MAX_CONTENT_LENGTH") or 0
        messages = {
            404: "no such page or endpoint",
            405: "method not allowed here",
            413: f"the upload is too large: the limit is {limit / 2**20:g} MiB",
        }
        message = messages.get(status, error.description or error.name)
        return error_response(message, status, code=TOO_LARGE if status == 413 else None)

    @app.errorhandler(Exception)
    def bug(error: Exception) -> tuple[Response, int]:
        if disk_full(error):
            log.error("disk full: %s", error)
            return error_response(
                "the server's disk is full: nothing was saved; free some "
                "space on it and try again (games can still be read)",
                507,
            )
        log.exception("unhandled error")
        return error_response(f"internal error ({type(error).__name__}); see the server log", 500)
