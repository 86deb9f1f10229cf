"""Reading request bodies strictly: every value checked, every refusal naming the problem (a
body's fields, checked by their schema, are read by `webui.contract`)."""

from __future__ import annotations

import json
import math
import unicodedata
from typing import Any

from flask import request

from webui.errors import ApiError
from webui.guard.limits import BOUNDS, limits


def json_body(root: str = "", *, large: bool = False) -> Any:
    """The request's JSON body: `Content-Type: application/json` (a type no other site's page
    can send without the browser asking first), at most `json_bytes` long (`large`: a file of
    games, `body_bytes`) and `json_depth` deep, every value in it storable (`check_values`;
    `root`: what a refusal calls the body)."""
    limit = limits()
    most = limit.body_bytes if large else limit.json_bytes
    if (request.content_length or 0) > most:
        raise ApiError(f"a JSON body is at most {most // 1024} KiB", 413)
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


def check_values(body: Any, root: str = "") -> None:
    """Refuse, naming where it is (`names[0]`), any text (an object's keys too) that cannot be
    stored (`first_unstorable`) and a number that is not finite (`NaN`, `Infinity`): no handler
    meets one. (Each integer is bounded where its field is read: `integer`.)"""
    pending: list[tuple[Any, str]] = [(body, root)]
    while pending:
        value, path = pending.pop()
        if isinstance(value, str):
            unstorable(value, path or "body")
        elif isinstance(value, bool) or value is None:
            continue
        elif isinstance(value, float):
            if not math.isfinite(value):
                raise ApiError.coded("not_finite", field=path or "body", text=str(value))
        elif isinstance(value, list):
            pending.extend((item, f"{path}[{i}]") for i, item in enumerate(value))
        elif isinstance(value, dict):
            for key, item in value.items():
                char = first_unstorable(key)
                if char is not None:
                    raise ApiError.coded("field_name_unstorable", field=path or "body",
                                         text=f"U+{ord(char):04X}")  # fmt: skip
                pending.append((item, f"{path}.{key}" if path else key))


def first_unstorable(text: str) -> str | None:
    """The first character of `text` that cannot be stored and shown: a lone UTF-16 surrogate
    cannot be written as UTF-8, and a control character is no part of any field.

    >>> first_unstorable("Åse"), first_unstorable("a\\ud800"), first_unstorable("a\\nb")
    (None, '\\ud800', '\\n')
    """
    return next((c for c in text if unicodedata.category(c) in ("Cs", "Cc")), None)


def unstorable(text: str, field: str) -> None:
    """Refuse `text` (the field `field`) when it holds a character it cannot be stored with."""
    char = first_unstorable(text)
    if char is None:
        return
    if unicodedata.category(char) == "Cs":
        raise ApiError.coded("lone_surrogate", field=field, text=f"U+{ord(char):04X}")
    raise ApiError.coded("control_character", field=field, text=f"U+{ord(char):04X}")


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


def shown_number(value: int) -> str:
    """An integer as a refusal shows it: a huge one by its size alone.

    >>> shown_number(-5), shown_number(10**40)
    ('-5', 'a 41-digit number')
    """
    digits = len(str(abs(value)))
    return str(value) if digits <= 20 else f"a {digits}-digit number"


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
