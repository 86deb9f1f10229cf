"""The API's description read for people: each route's fields as rows of a table (a field's
path, its type and bounds, whether it is required, what it means)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from markupsafe import Markup, escape

#: How deep nested objects are spelled out (an action's hands' cards are deep enough).
DEPTH = 3

#: The order the page lists the rooms in, and what each is called there.
ROOMS = {
    "api": "Games", "table_api": "Table mode", "camera": "Camera", "enroll": "Decks",
    "records": "Players and records", "paired": "Paired devices", "server": "Server",
    "openapi": "This description",
}  # fmt: skip


@dataclass
class Row:
    path: str
    kind: str
    required: bool
    about: str


@dataclass
class PageOperation:
    method: str
    path: str
    summary: str
    description: str
    parameters: list[Row]
    body: list[Row]
    body_kind: str
    answers: list[tuple[str, str, str]]  # status, what it means, the answer's type
    anchor: str


@dataclass
class Room:
    name: str
    operations: list[PageOperation] = field(default_factory=list)


def inline_code(text: str) -> Markup:
    """`text` with its `code` spans (CommonMark's backticks) as HTML, the rest escaped.

    >>> str(inline_code("keeps `frame` <b>"))
    'keeps <code>frame</code> &lt;b&gt;'
    """
    parts = str(escape(text)).split("`")
    return Markup("".join(f"<code>{p}</code>" if i % 2 else p for i, p in enumerate(parts)))


def page_operations(api: dict[str, Any]) -> list[Room]:
    """The description's operations by room, as the page lists them."""
    schemas = api["components"]["schemas"]
    rooms: dict[str, Room] = {}
    for path, methods in api["paths"].items():
        for method, op in methods.items():
            tag = op["tags"][0]
            room = rooms.setdefault(tag, Room(ROOMS.get(tag, tag)))
            room.operations.append(_operation(path, method, op, schemas))
    order = list(ROOMS)
    return [
        rooms[t] for t in sorted(rooms, key=lambda t: (order.index(t) if t in order else 99, t))
    ]


def _operation(
    path: str, method: str, op: dict[str, Any], schemas: dict[str, Any]
) -> PageOperation:
    parameters = [
        Row(p["name"], f"{p['in']}: {kind_of(p['schema'], schemas)}", p.get("required", False),
            p.get("description", p["schema"].get("description", "")))
        for p in op.get("parameters", ())
    ]  # fmt: skip
    body: list[Row] = []
    body_kind = ""
    if "requestBody" in op:
        content = op["requestBody"]["content"]
        if "application/json" in content:
            schema = content["application/json"]["schema"]
            body_kind = "JSON" + ("" if op["requestBody"]["required"] else " (may be empty)")
            body = rows(schema, schemas)
        else:
            body_kind = "the image's bytes: " + ", ".join(content)
    answers = []
    for status, answer in op["responses"].items():
        content = answer.get("content", {})
        media, shown = next(iter(content.items()), ("", {"schema": {}}))
        kind = _ref_name(shown["schema"]) or media
        answers.append((status, answer["description"], kind))
    return PageOperation(method.upper(), path, op.get("summary", ""), op.get("description", ""),
                         parameters, body, body_kind, answers, op["operationId"])  # fmt: skip


def _ref_name(schema: dict[str, Any]) -> str:
    ref = schema.get("$ref", "")
    return str(ref.rsplit("/", 1)[-1]) if ref else ""


def _resolved(schema: dict[str, Any], schemas: dict[str, Any]) -> dict[str, Any]:
    name = _ref_name(schema)
    return {**schemas[name], **{k: v for k, v in schema.items() if k != "$ref"}} if name else schema


def rows(schema: dict[str, Any], schemas: dict[str, Any], prefix: str = "",
         depth: int = 0) -> list[Row]:  # fmt: skip
    """A body's fields, nested objects spelled out as `parent.field`."""
    schema = _resolved(schema, schemas)
    if "oneOf" in schema:  # a tagged union: each kind's own fields
        found = []
        for option in schema["oneOf"]:
            resolved = _resolved(option, schemas)
            tag = resolved.get("properties", {}).get("kind", {}).get("const", "")
            found.append(Row(f"kind = {tag}", "object", True, resolved.get("description", "")))
            found.extend(rows(option, schemas, f"{tag}: ", depth + 1))
        return found
    properties = schema.get("properties")
    if properties is None:
        return [Row(prefix.rstrip(": ") or "body", kind_of(schema, schemas), True,
                    schema.get("description", ""))]  # fmt: skip
    required = set(schema.get("required", ()))
    found = []
    for name, field_schema in properties.items():
        if name == "kind" and "const" in field_schema:
            continue
        path = f"{prefix}{name}"
        about = field_schema.get("description", "")
        default = field_schema.get("default")
        if default is not None and name not in required:
            about = f"{about} Default {default!r}.".strip()
        found.append(Row(path, kind_of(field_schema, schemas), name in required, about))
        nested = _object_of(field_schema, schemas)
        if nested is not None and depth < DEPTH:
            found.extend(rows(nested, schemas, f"{path}.", depth + 1))
    return found


def _object_of(schema: dict[str, Any], schemas: dict[str, Any]) -> dict[str, Any] | None:
    for option in schema.get("anyOf", [schema]):
        resolved = _resolved(option, schemas)
        if "properties" in resolved:
            return resolved
    return None


def kind_of(schema: dict[str, Any], schemas: dict[str, Any]) -> str:
    """A field's type and bounds in a few words.

    >>> kind_of({"type": "integer", "minimum": 0, "maximum": 14}, {})
    'integer 0 to 14'
    >>> kind_of({"anyOf": [{"type": "string", "maxLength": 40}, {"type": "null"}]}, {})
    'string, at most 40 characters, or null'
    """
    if "anyOf" in schema:
        kinds = [kind_of(option, schemas) for option in schema["anyOf"]]
        null = "null" in kinds
        named = [k for k in kinds if k != "null"]
        return " or ".join(named) + (", or null" if null else "")
    name = _ref_name(schema)
    if name:
        return name if "properties" in schemas[name] else kind_of(schemas[name], schemas)
    if "const" in schema:
        return repr(schema["const"])
    if "enum" in schema:
        return "one of " + ", ".join(str(v) for v in schema["enum"])
    kind = schema.get("type", "any")
    if kind == "integer":
        low, high = schema.get("minimum"), schema.get("maximum")
        if low is None or high is None or max(abs(low), abs(high)) >= 2**53:
            return "integer"  # bounded only as JSON's safe integers
        return f"integer {low} to {high}"
    if kind == "string":
        if schema.get("examples") and "pattern" in schema:
            return f"card such as {schema['examples'][0]}"
        most = schema.get("maxLength")
        return "string" + (f", at most {most} characters" if most is not None else "")
    if kind == "array":
        item = kind_of(schema.get("items", {}), schemas)
        most = schema.get("maxItems")
        return f"list of {item}" + (f" (at most {most})" if most is not None else "")
    return str(kind)
