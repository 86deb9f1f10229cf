"""The OpenAPI 3.1 description of the API, made from the routes' contracts (`routes.contract`)
and the same pydantic models that check the requests: ``GET /api/openapi.json``, and a page
that reads it for people, ``GET /api``."""

from __future__ import annotations

import inspect
import re
from collections.abc import Iterator
from dataclasses import dataclass
from importlib.metadata import version
from typing import Any

from flask import Blueprint, Flask, Response, current_app, jsonify, render_template
from pydantic import BaseModel
from pydantic.json_schema import models_json_schema
from werkzeug.routing import Rule

from webui.contract import answers
from webui.contract.reference import inline_code, page_operations
from webui.contract.routes import Contract, contract, contract_of
from webui.guard.limits import BOUNDS
from webui.languages.refusals import TEMPLATES

openapi = Blueprint("openapi", __name__)
openapi.add_app_template_filter(inline_code)

#: Routes of rooms below the contract (the server's guard, the app itself), declared here.
ELSEWHERE = {
    "healthz": Contract(answers={200: answers.Health}),
    "paired.listing": Contract(answers={200: answers.Devices}, refusals=(403,)),
    "paired.revoke": Contract(answers={200: answers.Devices}, refusals=(403, 404)),
}

#: What each status of a refusal means (webui/API.md has the whole list).
STATUSES = {
    200: "OK", 201: "Created", 202: "Accepted: running in the background",
    400: "The request is malformed or a field is refused (the error names it)",
    403: "Asked from another device, or from another web site",
    404: "No such game, enrolment, deck or picture",
    409: "It does not fit the game (or the deck) as it stands now",
    413: "The body is too large", 415: "The body's Content-Type is not the one this route takes",
    422: "No card corner was found in the photo", 503: "The card reader or a tune cannot run here",
}  # fmt: skip

#: Refusals any route may give: the server's own limits, a host it does not answer to, a
#: device not paired (`--lan`), a full disk.
DEFAULT_REFUSAL = ("The server's limits and guard (400 bad framing or Host, 401 not paired, "
                   "403 another web site, 405, 408, 413, 429, 431, 503 too many connections), "
                   "or 507: the disk is full")  # fmt: skip

#: A live stream's reconnect header (`webui.guard.bodies.event_id` reads it).
LAST_EVENT_ID = {
    "name": "Last-Event-ID", "in": "header", "required": False,
    "description": "The last event id seen: a reconnect sends only what is newer.",
    "schema": {"type": "string", "pattern": r"^[0-9]{0,10}$"},
}  # fmt: skip

_CONVERTER = re.compile(r"<(?:(\w+):)?(\w+)>")


@dataclass(frozen=True)
class Operation:
    rule: Rule
    method: str
    contract: Contract
    view: Any


class UndocumentedRouteError(LookupError):
    """An API route without a contract: every route the description lists must declare one."""


def operations(app: Flask) -> Iterator[Operation]:
    """Every API route and method with its contract, in path order."""
    for rule in sorted(app.url_map.iter_rules(), key=lambda r: (r.rule, r.endpoint)):
        if not (rule.rule.startswith("/api") or rule.rule == "/healthz"):
            continue
        view = app.view_functions[rule.endpoint]
        spec = contract_of(view) or ELSEWHERE.get(rule.endpoint)
        if spec is None:
            raise UndocumentedRouteError(f"{rule.rule} ({rule.endpoint}) declares no contract")
        for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"}):
            yield Operation(rule, method, spec, view)


def description(app: Flask) -> dict[str, Any]:
    """The OpenAPI 3.1 document of `app`'s API."""
    found = list(operations(app))
    models = _models(found)
    keyed, schemas = models_json_schema(
        [(model, mode) for model, mode in models], ref_template="#/components/schemas/{model}"
    )
    refs = {model: keyed[(model, mode)] for model, mode in models}
    paths: dict[str, dict[str, Any]] = {}
    for op in found:
        path, parameters = _path(op.rule)
        paths.setdefault(path, {})[op.method.lower()] = _operation(op, parameters, refs)
    _link(paths)
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "cribcam",
            "version": version("cribcam"),
            "description": "The JSON API of `cribcam serve`: games and their actions, the "
                           "camera, table mode and decks. webui/API.md is the guide.",
        },
        "paths": paths,
        "components": {"schemas": schemas.get("$defs", {})},
        "x-refusals": {code: TEMPLATES[code] for code in sorted(TEMPLATES)},
    }  # fmt: skip


#: Operations whose answer names what the paths under one path take as a parameter: a
#: game or an enrolment made (the 201 answer's `id`), the players listed (the first's name).
#: The links say so, for a client and for a stateful fuzz run.
SOURCES = {
    "api_create_game": ("201", "/api/games/{game_id}", "$response.body#/id"),
    "api_next_game": ("201", "/api/games/{game_id}", "$response.body#/id"),
    "enroll_start": ("201", "/api/enroll/{sid}", "$response.body#/id"),
    "records_api_list_players": ("200", "/api/players/{name}", "$response.body#/players/0/name"),
}


def _link(paths: dict[str, dict[str, Any]]) -> None:
    every = [(path, op) for path, methods in paths.items() for op in methods.values()]
    for _, source in every:
        if source["operationId"] not in SOURCES:
            continue
        status, named, where = SOURCES[source["operationId"]]
        parameter = named.rsplit("{", 1)[1].rstrip("}")
        source["responses"][status]["links"] = {
            op["operationId"]: {"operationId": op["operationId"], "parameters": {parameter: where}}
            for path, op in every
            if path.startswith(named)
        }


def _models(found: list[Operation]) -> list[tuple[type[BaseModel], Any]]:
    models: dict[tuple[type[BaseModel], str], None] = {(answers.Refusal, "serialization"): None}
    for op in found:
        spec = op.contract
        if spec.body is not None:
            models[(spec.body, "validation")] = None
        models.update({(m, "serialization"): None for m in spec.answers.values() if m})
    return list(models)


def _path(rule: Rule) -> tuple[str, list[dict[str, Any]]]:
    parameters = []
    for converter, name in _CONVERTER.findall(rule.rule):
        schema: dict[str, Any] = {"type": "string", "minLength": 1, "maxLength": 200}
        if converter == "int":
            schema = {"type": "integer", "minimum": 0, "maximum": BOUNDS.url_number}
        parameters.append({"name": name, "in": "path", "required": True, "schema": schema})
    return _CONVERTER.sub(r"{\2}", rule.rule), parameters


def _operation(
    op: Operation, parameters: list[dict[str, Any]], refs: dict[Any, dict[str, Any]]
) -> dict[str, Any]:
    spec = op.contract
    doc = inspect.getdoc(op.view) or op.rule.endpoint
    summary, _, rest = doc.partition("\n\n")
    summary = " ".join(summary.split())
    result: dict[str, Any] = {
        "operationId": op.rule.endpoint.replace(".", "_"),
        "summary": summary,
        "tags": [op.rule.endpoint.split(".")[0] if "." in op.rule.endpoint else "server"],
    }
    if rest.strip():
        result["description"] = " ".join(rest.split())
    if spec.query is not None:
        parameters = [*parameters, *_query(spec.query)]
    if op.rule.endpoint == "api.events":
        parameters = [*parameters, LAST_EVENT_ID]
    if parameters:
        result["parameters"] = parameters
    if spec.body is not None:
        result["requestBody"] = {
            "required": not spec.optional_body,
            "content": {"application/json": {"schema": refs[spec.body]}},
        }
    elif spec.image:
        binary = {"schema": {"type": "string", "format": "binary"}}
        result["requestBody"] = {
            "required": True,
            "content": {kind: binary for kind in ("image/jpeg", "image/png", "image/webp")},
        }
    responses: dict[str, Any] = {}
    medias = (spec.media,) if isinstance(spec.media, str) else spec.media
    for status, model in spec.answers.items():
        content = {media: {"schema": _answer_schema(media, model, refs)} for media in medias}
        responses[str(status)] = {"description": STATUSES.get(status, "OK"), "content": content}
    refusal = {"content": {"application/json": {"schema": refs[answers.Refusal]}}}
    for status in spec.refusals:
        responses[str(status)] = {"description": STATUSES[status], **refusal}
    responses["default"] = {"description": DEFAULT_REFUSAL, **refusal}
    result["responses"] = responses
    return result


def _answer_schema(
    media: str, model: type[BaseModel] | None, refs: dict[Any, dict[str, Any]]
) -> dict[str, Any]:
    if media == "application/json":
        return refs[model] if model is not None else {"type": "object"}
    if media.startswith("image/"):
        return {"type": "string", "format": "binary"}
    if media == "text/event-stream":  # each event, as a client parses it
        return {"type": "object", "properties": {k: {"type": "string"} for k in SSE_FIELDS}}
    return {"type": "string"}


#: The fields of a server-sent event: `data` is a game's state as JSON.
SSE_FIELDS = ("event", "id", "data", "retry")


def _query(model: type[BaseModel]) -> list[dict[str, Any]]:
    schema = model.model_json_schema()
    required = set(schema.get("required", ()))
    return [
        {"name": name, "in": "query", "required": name in required, "schema": field}
        for name, field in schema["properties"].items()
    ]


def described(app: Flask) -> dict[str, Any]:
    """`app`'s description, made once (the routes do not change once it serves)."""
    found: dict[str, Any] | None = app.extensions.get("cribcam.openapi")
    if found is None:
        found = app.extensions["cribcam.openapi"] = description(app)
    return found


@openapi.get("/api/openapi.json")
@contract(answers={200: None})
def description_json() -> Response:
    """This description: OpenAPI 3.1."""
    return jsonify(described(current_app._get_current_object()))  # type: ignore[attr-defined]


@openapi.get("/api")
@contract(answers={200: None}, media="text/html")
def reference() -> str:
    """The API's reference page, read from this description."""
    api = described(current_app._get_current_object())  # type: ignore[attr-defined]
    return render_template("api.html", api=api, operations=page_operations(api))
