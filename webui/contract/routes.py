"""`contract`: what a route takes and answers, checked before its handler runs.

A route declares its body (a model of `bodies`, or an image), its query, its answers and the
refusals it may give; the body is read by `webui.guard.bodies.json_body` (size, type, depth,
storable text, finite numbers), then validated by its model, and the handler is called with
the model (`body=`, `query=`). A refusal is a 400 naming the field's path and the reason with
a code of `webui.languages.refusals.TEMPLATES`, so it is said in the device's language.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from flask import request
from pydantic import BaseModel, RootModel, ValidationError
from pydantic_core import ErrorDetails

from scorer.errors import CribbageError
from webui.contract.fields import shown
from webui.errors import ApiError
from webui.guard.bodies import json_body
from webui.languages.refusals import API_REFUSALS

View = TypeVar("View", bound=Callable[..., Any])

#: The attribute of a view that holds its `Contract`.
ATTRIBUTE = "cribcam_contract"


@dataclass(frozen=True)
class Contract:
    """What a route takes and answers.

    `body`: its JSON body's model (`optional_body`: an empty body is `{}`; `large_body`: up to
    the server's body limit, a file of games, not a JSON body's), or `image`: raw
    image bytes; `query`: its query string's model; `root`: what a refusal calls the body when
    it is no object (`names[1]`); `context`: run on the path's values before the body is read,
    it refuses what the path names that does not exist (404) and gives the values the body's
    checks need (the stored game's number of players); `answers`: status to the answer's
    model (None: an answer with no model), `media` its type (or types: JSON or CSV);
    `refusals`: the error statuses it may give.
    """

    body: type[BaseModel] | None = None
    optional_body: bool = False
    large_body: bool = False
    image: bool = False
    query: type[BaseModel] | None = None
    root: str = ""
    context: Callable[..., dict[str, Any]] | None = None
    answers: Mapping[int, type[BaseModel] | None] = field(default_factory=dict)
    media: str | tuple[str, ...] = "application/json"
    refusals: tuple[int, ...] = ()


def contract(**declared: Any) -> Callable[[View], View]:
    """Declare a route's `Contract` and check its body and query before the handler."""
    spec = Contract(**declared)

    def decorate(view: View) -> View:
        @functools.wraps(view)
        def checked(**path: Any) -> Any:
            given: dict[str, Any] = {}
            context = spec.context(**path) if spec.context is not None else None
            if spec.body is not None:
                raw = {} if spec.optional_body and not request.get_data(cache=True).strip() \
                    else json_body(spec.root, large=spec.large_body)  # fmt: skip
                given["body"] = validated(spec.body, raw, spec.root, context)
            if spec.query is not None:
                given["query"] = validated(spec.query, request.args.to_dict(), "")
            return view(**path, **given)

        setattr(checked, ATTRIBUTE, spec)
        return checked  # type: ignore[return-value]

    return decorate


def contract_of(view: Callable[..., Any]) -> Contract | None:
    found: Contract | None = getattr(view, ATTRIBUTE, None)
    return found


def validated(
    model: type[BaseModel], raw: Any, root: str, context: dict[str, Any] | None = None
) -> BaseModel:
    """`raw` as `model`, or the refusal of its first problem."""
    try:
        return model.model_validate(raw, context=context)
    except ValidationError as error:
        raise refusal(error.errors(), root, _tag(model, raw), _tags(model)) from None


def _tag(model: type[BaseModel], raw: Any) -> str | None:
    """A tagged union's tag (an action's `kind`), which pydantic puts first in a path."""
    if issubclass(model, RootModel) and isinstance(raw, dict):
        tag = raw.get("kind")
        return tag if isinstance(tag, str) else None
    return None


@functools.cache
def _tags(model: type[BaseModel]) -> str:
    """A tagged union's tags, as a refusal lists them."""
    mapping = model.model_json_schema().get("discriminator", {}).get("mapping", {})
    return ", ".join(mapping)


#: pydantic's error types and the refusal of each (with `field` and `text`).
_TYPE_CODES = {
    "int_type": "not_integer", "int_parsing": "not_integer", "int_from_float": "not_integer",
    "string_type": "not_text", "bool_type": "not_boolean", "float_type": "not_number",
    "list_type": "not_list", "dict_type": "not_object", "model_type": "not_object",
    "model_attributes_type": "not_object",
}  # fmt: skip


def refusal(
    errors: list[ErrorDetails], root: str, tag: str | None = None, tags: str = ""
) -> Exception:
    """The refusal of the first of `errors` (a body's or a field's own refusal as it is)."""
    first = errors[0]
    kind, ctx = first["type"], dict(first.get("ctx") or {})
    loc = list(first["loc"])
    if tag is not None and loc[:1] == [tag]:
        loc = loc[1:]
    place = field_path(root, loc) + str(ctx.pop("at", ""))
    if kind == "value_error" and isinstance(ctx.get("error"), CribbageError | ApiError):
        error: Exception = ctx["error"]
        return error  # the engine's own refusal, with its code
    if kind in ("body_not_object", "action_body_not_object", "unknown_body_fields"):
        return ApiError.coded(kind, **ctx)
    if kind in _TYPE_CODES:
        if not loc and not root:
            return ApiError.coded("body_not_object", type=type(first["input"]).__name__)
        return ApiError.coded(_TYPE_CODES[kind], field=place, text=shown(first["input"]))
    if kind == "missing":
        return ApiError.coded("field_required", field=place)
    if kind == "union_tag_not_found":
        return ApiError.coded("not_one_of", field=_unquoted(ctx["discriminator"]), options=tags,
                              text="''")  # fmt: skip
    if kind == "union_tag_invalid":
        options = _unquoted(ctx["expected_tags"])
        return ApiError.coded("not_one_of", field=_unquoted(ctx["discriminator"]),
                              options=options, text=repr(ctx["tag"]))  # fmt: skip
    if kind == "literal_error":
        return ApiError.coded("not_one_of", field=place, options=_unquoted(ctx["expected"]),
                              text=shown(first["input"]))  # fmt: skip
    if kind == "string_too_long":
        return ApiError.coded("too_long_text", field=place, most=ctx["max_length"])
    if kind == "string_too_short":
        return ApiError.coded("empty_text", field=place)
    if kind == "too_long":
        return ApiError.coded("too_many_items", field=place, most=ctx["max_length"])
    if kind == "too_short":
        return ApiError.coded("too_few_items", field=place, least=ctx["min_length"])
    if kind in API_REFUSALS:
        return ApiError.coded(kind, **({"field": place} | ctx if "{field}" in API_REFUSALS[kind]
                                       else ctx))  # fmt: skip
    return ApiError.coded("field_invalid", field=place, text=first["msg"])


def field_path(root: str, loc: list[int | str]) -> str:
    """A field's path as a refusal names it.

    >>> field_path("", ["hands", 1, 0]), field_path("names", [1]), field_path("", [])
    ('hands[1][0]', 'names[1]', 'body')
    """
    path = root
    for part in loc:
        if isinstance(part, int):
            path += f"[{part}]"
        elif _FIELD.fullmatch(part):  # not a union member's label ("list[...]")
            path += f".{part}" if path else part
    return path or "body"


_FIELD = re.compile(r"[a-z_][a-z0-9_]*")


def _unquoted(text: str) -> str:
    return text.replace("'", "")
