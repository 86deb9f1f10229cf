"""The API's description: valid OpenAPI 3.1, made from the routes' own contracts, every API
route in it, and a reference page that reads it."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from openapi_spec_validator import validate

from webui.contract.openapi import UndocumentedRouteError, description


@pytest.fixture
def spec(client: FlaskClient) -> dict[str, Any]:
    answer = client.get("/api/openapi.json")
    assert answer.status_code == 200 and answer.is_json
    found: dict[str, Any] = answer.json  # type: ignore[assignment]
    return found


def test_the_description_is_valid_openapi_3_1(spec: dict[str, Any]) -> None:
    validate(spec)  # raises on any error of the document
    assert spec["openapi"] == "3.1.0"


def test_every_api_route_and_method_is_described(app: Flask, spec: dict[str, Any]) -> None:
    wanted = {
        (rule.rule.replace("<int:", "{").replace("<", "{").replace(">", "}"), method.lower())
        for rule in app.url_map.iter_rules()
        if rule.rule.startswith("/api") or rule.rule == "/healthz"
        for method in (rule.methods or set()) - {"HEAD", "OPTIONS"}
    }
    described = {(path, method) for path, methods in spec["paths"].items() for method in methods}
    assert len(wanted) > 40 and described == wanted


def test_a_route_without_a_contract_fails_the_description(app: Flask) -> None:
    app.add_url_rule("/api/forgotten", "forgotten", lambda: "")
    with pytest.raises(UndocumentedRouteError, match="/api/forgotten"):
        description(app)


def test_bodies_and_refusals_come_from_the_models(spec: dict[str, Any]) -> None:
    act = spec["paths"]["/api/games/{game_id}/actions"]["post"]
    schema = act["requestBody"]["content"]["application/json"]["schema"]
    action = spec["components"]["schemas"][schema["$ref"].rsplit("/", 1)[-1]]
    kinds = set(action["discriminator"]["mapping"])
    assert kinds == {"dealer", "cut", "deal", "discard", "starter", "play", "go", "show",
                     "muggins", "correct"}  # fmt: skip
    play = spec["components"]["schemas"]["Play"]
    assert play["additionalProperties"] is False and play["required"] == ["kind", "card"]
    claim = play["properties"]["claim"]["anyOf"][0]
    assert (claim["minimum"], claim["maximum"]) == (0, 14)
    assert {"400", "404", "409", "default"} <= set(act["responses"])
    refusal = act["responses"]["409"]["content"]["application/json"]["schema"]["$ref"]
    assert refusal.endswith("/Refusal")
    assert "names_final" in spec["x-refusals"] and "not_integer" in spec["x-refusals"]


def test_a_new_game_links_to_what_can_be_done_with_it(spec: dict[str, Any]) -> None:
    created = spec["paths"]["/api/games"]["post"]["responses"]["201"]
    links = created["links"]
    assert links["api_act"]["parameters"] == {"game_id": "$response.body#/id"}
    assert len(links) == sum("{game_id}" in path for path in spec["paths"]
                             for _ in spec["paths"][path])  # fmt: skip


def test_the_reference_page_lists_every_route(client: FlaskClient, spec: dict[str, Any]) -> None:
    page = client.get("/api")
    assert page.status_code == 200 and page.mimetype == "text/html"
    text = page.get_data(as_text=True)
    for path in spec["paths"]:
        assert f"<code>{path}</code>" in text
    assert "integer 0 to 14" in text  # a play's claim, read from its bounds
    assert "<code>names_final</code>" in text
