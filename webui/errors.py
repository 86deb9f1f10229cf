"""Every failure the API can meet becomes a JSON `{"error": ...}` with a fitting 4xx status,
and, for a refusal that has one, its `code` and `values` (what it is, for other tools).

Domain errors say what was wrong with the input (400) or that the action does not fit the game
as it stands (409); a full disk is 507 (the write is rolled back; reads go on); only a genuine
bug reaches the catch-all, which logs it and answers 500 without a traceback.
"""

from __future__ import annotations

import errno
import logging
import sqlite3
from collections.abc import Mapping, Sequence
from typing import Self

from flask import Flask, Response, current_app, jsonify
from werkzeug.exceptions import HTTPException

from scorer.errors import (
    CribbageError,
    DuplicateCardError,
    GameError,
    IllegalPlayError,
    InvalidCardError,
    InvalidHandError,
    Value,
    english,
    json_values,
)
from webui.languages.i18n import language
from webui.languages.refusals import KINDS, TEMPLATES, in_language

log = logging.getLogger(__name__)


class ApiError(Exception):
    """A request the API refuses, with the HTTP status to answer. `code` and `values`: what the
    refusal is, answered beside the sentence; a code of `webui.languages.refusals.TEMPLATES`
    (made with `coded`) is said in the request's language, at a game's table (`names`: its seat
    names) in the table's words. Another code (an upload refused, a tune the server cannot run)
    is worded by the page itself, with what only the page knows (a file's name); the sentence of
    a refusal without a code stays English."""

    status = 400
    code: str | None = None

    def __init__(
        self, message: str, status: int | None = None, *, code: str | None = None,
        values: Mapping[str, Value] | None = None, names: Sequence[str] | None = None,
    ) -> None:  # fmt: skip
        super().__init__(message)
        if status is not None:
            self.status = status
        if code is not None:
            self.code = code
        self.values = dict(values or {})
        self.names = None if names is None else tuple(names)

    @classmethod
    def coded(cls, code: str, status: int | None = None, /, **values: object) -> Self:
        """The refusal `code` of `TEMPLATES` with its slots' `values`, in English."""
        given = json_values(TEMPLATES[code], values, KINDS)
        return cls(english(TEMPLATES[code], given, KINDS), status, code=code, values=given)


#: Codes of a refused upload a page words itself (`ApiError.code`): not an image at all, or an
#: image damaged or cut short (the sentence says how, for developers).
NOT_AN_IMAGE, DAMAGED_IMAGE = "not_an_image", "damaged_image"


class GameNotFoundError(ApiError):
    status = 404


class NoCardModelError(ApiError):
    status = 503


def disk_full(error: BaseException) -> bool:
    """Whether `error` is the database's or the file system's "no space left"."""
    if isinstance(error, sqlite3.Error):
        return getattr(error, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL
    return isinstance(error, OSError) and error.errno in (errno.ENOSPC, errno.EDQUOT)


def error_response(error: ApiError) -> tuple[Response, int]:
    """The JSON answer: `error`, the sentence (in the request's language where its code has a
    template), with its `code` and `values` when it has a code."""
    code = error.code
    if code is None:
        return jsonify(error=str(error)), error.status
    said = str(error)
    if code in TEMPLATES:
        said = in_language(code, error.values, error.names, language())
    return jsonify(error=said, code=code, values=error.values), error.status


def cribbage_status(error: CribbageError) -> int:
    """400 for input that is wrong in itself, 409 for an action the game's state forbids."""
    if isinstance(error, InvalidCardError | InvalidHandError | DuplicateCardError):
        return 400
    if isinstance(error, GameError | IllegalPlayError):
        return 409
    return 400


def as_api_error(error: ApiError | CribbageError, names: Sequence[str] | None = None) -> ApiError:
    """`error` as the API answers it; `names`: the seat names of the game it was refused at."""
    status = cribbage_status(error) if isinstance(error, CribbageError) else error.status
    return ApiError(str(error), status, code=error.code, values=error.values, names=names)


def register_error_handlers(app: Flask) -> None:
    @app.errorhandler(ApiError)
    def api_error(error: ApiError) -> tuple[Response, int]:
        return error_response(error)

    @app.errorhandler(CribbageError)
    def cribbage_error(error: CribbageError) -> tuple[Response, int]:
        return error_response(as_api_error(error))

    @app.errorhandler(HTTPException)
    def http_error(error: HTTPException) -> tuple[Response, int]:
        status = error.code or 500
        return error_response(_http_refusal(status) or ApiError(error.description or error.name,
                                                                status))  # fmt: skip

    @app.errorhandler(Exception)
    def bug(error: Exception) -> tuple[Response, int]:
        if disk_full(error):
            log.error("disk full: %s", error)
            return error_response(ApiError.coded("disk_full", 507))
        log.exception("unhandled error")
        return error_response(ApiError.coded("internal_error", 500, text=type(error).__name__))


def _http_refusal(status: int) -> ApiError | None:
    """The refusal of an HTTP error a page can meet (no such page, an upload too large)."""
    if status == 404:
        return ApiError.coded("no_such_page", 404)
    if status == 405:
        return ApiError.coded("method_not_allowed", 405)
    if status == 413:
        limit = current_app.config.get("MAX_CONTENT_LENGTH") or 0
        return ApiError.coded("too_large", 413, size=limit / 2**20)
    return None
