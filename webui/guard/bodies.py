"""Reading request bodies strictly: every field checked, every refusal naming the problem (a
game's own fields, cards and seat names, are read by `webui.games.fields`)."""

from __future__ import annotations

import json
import math
import unicodedata
from collections.abc import Iterable, Mapping
from typing import Any

from flask import request

from webui.errors import ApiError
from webui.guard.limits import BOUNDS, limits


def json_body(root: str = "") -> Any:
    """The request's JSON body: `Content-Type: application/json` (a type no other site's page
    can send without the browser asking first), at most `json_bytes` long and `json_depth`
    deep, every value in it storable (`check_values`; `root`: what a refusal calls the body)."""
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
    check_values(body, root)
    return body


#: The largest integer a field without bounds of its own may hold (JSON's safe integers).
LARGEST_INTEGER = 2**53


def text_problem(text: str) -> str | None:
    """Why `text` cannot be stored and shown (None: it can): a lone UTF-16 surrogate cannot be
    written as UTF-8, and a control character is no part of any field.

    >>> text_problem("Åse"), text_problem("a\\ud800"), text_problem("a\\nb")
    (None, 'holds a lone surrogate U+D800', 'holds a control character U+000A')
    """
    for char in text:
        kind = unicodedata.category(char)
        if kind == "Cs":
            return f"holds a lone surrogate U+{ord(char):04X}"
        if kind == "Cc":
            return f"holds a control character U+{ord(char):04X}"
    return None


def check_values(body: Any, root: str = "") -> None:
    """Refuse, naming where it is (`names[0]`), any text (an object's keys too) that cannot be
    stored (`text_problem`) and a number that is not finite (`NaN`, `Infinity`): no handler
    meets one. (Each integer is bounded where its field is read: `integer`.)"""
    pending: list[tuple[Any, str]] = [(body, root)]
    while pending:
        value, path = pending.pop()
        if isinstance(value, str):
            problem = text_problem(value)
            if problem is not None:
                raise ApiError(f"'{path or 'body'}' {problem}")
        elif isinstance(value, bool) or value is None:
            continue
        elif isinstance(value, float):
            if not math.isfinite(value):
                raise ApiError(f"'{path or 'body'}' must be a finite number, not {value}")
        elif isinstance(value, list):
            pending.extend((item, f"{path}[{i}]") for i, item in enumerate(value))
        elif isinstance(value, dict):
            for key, item in value.items():
                problem = text_problem(key)
                if problem is not None:
                    raise ApiError(f"a field name in '{path or 'body'}' {problem}")
                pending.append((item, f"{path}.{key}" if path else key))


def text(
    body: Mapping[str, Any], name: str, *, required: bool = True, most: int = 64
) -> str | None:
    """A string field of at most `most` characters, in NFC (None when absent and not required)."""
    value = body.get(name)
    if value is None:
        if required:
            raise ApiError(f"'{name}' is required")
        return None
    if not isinstance(value, str):
        raise ApiError(f"'{name}' must be a string, not {type(value).__name__}")
    problem = text_problem(value)
    if problem is not None:
        raise ApiError(f"'{name}' {problem}")
    if len(value) > most:
        raise ApiError(f"'{name}' is at most {most} characters")
    return unicodedata.normalize("NFC", value)


def choice(body: Mapping[str, Any], name: str, options: Iterable[str], default: str) -> str:
    """A string field that is one of `options` (`default` when absent)."""
    value = body.get(name, default)
    allowed = list(options)
    if not isinstance(value, str) or value not in allowed:
        shown = value if isinstance(value, str) else type(value).__name__
        raise ApiError(f"'{name}' must be one of {', '.join(allowed)}, not {shown!r}")
    return value


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
    """An integer field, within `low`..`high` when given and ±`LARGEST_INTEGER` in any case (a
    seat is left to the engine, which refuses one that is no seat of the game)."""
    value = body.get(name)
    if value is None:
        if required:
            raise ApiError(f"'{name}' is required")
        return None
    if type(value) is not int:
        raise ApiError(f"'{name}' must be an integer, not {value!r}")
    if (low is not None and value < low) or (high is not None and value > high):
        raise ApiError(f"'{name}' must be {low} to {high}, not {shown_number(value)}")
    if abs(value) > LARGEST_INTEGER:
        raise ApiError(f"'{name}' is out of range: {shown_number(value)}")
    return value


def shown_number(value: int) -> str:
    """An integer as a refusal shows it: a huge one by its size alone.

    >>> shown_number(-5), shown_number(10**40)
    ('-5', 'a 41-digit number')
    """
    digits = len(str(abs(value)))
    return str(value) if digits <= 20 else f"a {digits}-digit number"


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
