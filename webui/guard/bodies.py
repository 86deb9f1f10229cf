"""Reading request bodies strictly: every field checked, every refusal naming the problem (a
game's own fields, cards and seat names, are read by `webui.games.fields`)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from flask import request

from webui.errors import ApiError
from webui.guard.limits import BOUNDS, limits


def json_body() -> Any:
    """The request's JSON body: `Content-Type: application/json` (a type no other site's page
    can send without the browser asking first), at most `json_bytes` long and `json_depth`
    deep."""
    limit = limits()
    if (request.content_length or 0) > limit.json_bytes:
        raise ApiError(f"a JSON body is at most {limit.json_bytes // 1024} KiB", 413)
    raw = request.get_data(cache=True)
    if not raw.strip():
        raise ApiError("expected a JSON body")
    if not _is_json(request.mimetype):
        raise ApiError(f"send the JSON body with Content-Type application/json, not "
                       f"{request.mimetype or 'none'!r}", 415)  # fmt: skip
    try:
        body = json.loads(raw)
    except RecursionError:
        raise ApiError(f"the JSON body is nested too deeply (at most {limit.json_depth} "
                       "levels)") from None  # fmt: skip
    except (ValueError, UnicodeDecodeError) as error:
        raise ApiError(f"the body is not valid JSON: {error}") from None
    if json_depth(body) > limit.json_depth:
        raise ApiError(f"the JSON body is nested too deeply (at most {limit.json_depth} levels)")
    return body


def _is_json(mimetype: str) -> bool:
    return mimetype == "application/json" or (
        mimetype.startswith("application/") and mimetype.endswith("+json")
    )


def json_depth(value: Any) -> int:
    """How deeply arrays and objects nest in `value` (without recursion: any depth is safe).

    >>> json_depth(1), json_depth([]), json_depth({"a": [[1], 2]})
    (0, 1, 3)
    """
    deepest = 0
    pending = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        children = item.values() if isinstance(item, dict) else item
        if isinstance(item, dict | list):
            deepest = max(deepest, depth)
            pending.extend((child, depth + 1) for child in children)
    return deepest


def json_object() -> dict[str, Any]:
    body = json_body()
    if not isinstance(body, dict):
        raise ApiError(f"expected a JSON object, got {type(body).__name__}")
    return body


def check_fields(body: Mapping[str, Any], allowed: set[str], what: str) -> None:
    unknown = set(body) - allowed
    if unknown:
        raise ApiError(f"unknown field(s) for {what}: {', '.join(sorted(unknown))}")


def integer(
    body: Mapping[str, Any],
    name: str,
    *,
    required: bool = True,
    low: int | None = None,
    high: int | None = None,
) -> int | None:
    """An integer field, within `low`..`high` when given (a seat is left to the engine, which
    refuses one that is no seat of the game)."""
    value = body.get(name)
    if value is None:
        if required:
            raise ApiError(f"'{name}' is required")
        return None
    if type(value) is not int:
        raise ApiError(f"'{name}' must be an integer, not {value!r}")
    if (low is not None and value < low) or (high is not None and value > high):
        raise ApiError(f"'{name}' must be {low} to {high}, not {value}")
    return value


def required_int(
    body: Mapping[str, Any], name: str, *, low: int | None = None, high: int | None = None
) -> int:
    value = integer(body, name, low=low, high=high)
    assert value is not None
    return value


def event_id(header: str | None) -> int | None:
    """A live stream's `Last-Event-ID`: None when absent, else a revision (a small integer).

    >>> event_id(None), event_id("12")
    (None, 12)
    """
    if header is None or header == "":
        return None
    digits = header.isascii() and header.isdigit() and len(header) <= 10
    if not digits or int(header) > BOUNDS.event_id:
        raise ApiError(f"'Last-Event-ID' must be an event id this server sent, not {header!r}")
    return int(header)
