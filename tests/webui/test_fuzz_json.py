"""Issue #65: no JSON body is a server error. For every route of the app that takes a JSON body
(read from its url_map, so a new route is fuzzed too), Hypothesis posts JSON values (huge
integers, non-finite numbers, lone surrogates, control characters, lists and objects where text
or numbers belong, the routes' own field names) through the test client: each answer is below
500 and, when a refusal, a JSON error that changed nothing stored. Bounded to run in well under
a minute."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from webui import create_app

#: Routes that take image bytes or a form, not JSON (their refusals have tests of their own).
NOT_JSON = {"enroll.add_shot", "enroll.add_correction", "camera.detect", "camera.frame",
            "pages.pair"}  # fmt: skip
#: Field names and values the handlers look for, so that examples reach past "unknown field".
FIELDS = ["kind", "seat", "card", "cards", "claim", "hands", "crib_card", "points", "hand",
          "role", "players", "variant", "target", "names", "first_dealer", "match_points",
          "games_per_match", "muggins", "name", "mode", "suits", "tune", "use", "key", "frame",
          "starter", "crib", "skunk_line", "acc"]  # fmt: skip
WORDS = ["play", "go", "show", "deal", "dealer", "discard", "starter", "cut", "muggins",
         "correct", "pone", "partner", "six-card", "five-card", "5H", "10D", "JC", "acc", "any",
         "suits", "CDHS", "\ud800", "a\udfffb", "\x00", "Ann\n", "A\u030a", ""]  # fmt: skip

SCALARS = (
    st.none() | st.booleans()
    | st.integers(min_value=-5, max_value=130)
    | st.sampled_from([2**53, 2**53 + 1, 2**63, -(2**64), 10**25, 10**300])
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.sampled_from(WORDS) | st.text(max_size=8)
)  # fmt: skip
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=6)
        | st.dictionaries(st.sampled_from(FIELDS) | st.text(max_size=4), inner, max_size=5)
    ),
    max_leaves=12,
)
BODIES = VALUES | st.dictionaries(st.sampled_from(FIELDS), VALUES, min_size=1, max_size=6)


def json_routes(app: Flask) -> list[tuple[str, str, str]]:
    """(endpoint, method, rule) of every route taking a body, but for `NOT_JSON`."""
    found = []
    for rule in app.url_map.iter_rules():
        for method in sorted((rule.methods or set()) & {"POST", "PUT", "PATCH"}):
            if rule.endpoint not in NOT_JSON:
                found.append((rule.endpoint, method, rule.rule))
    return found


def _routes() -> list[tuple[str, str, str]]:
    with tempfile.TemporaryDirectory() as folder:
        return json_routes(create_app({"TESTING": True, "DATABASE": Path(folder) / "g.sqlite3"}))


ROUTES = _routes()


def test_the_fuzz_reaches_the_json_routes() -> None:
    endpoints = {endpoint for endpoint, _, _ in ROUTES}
    assert {"api.act", "api.create_game", "api.advise_discard", "enroll.start"} <= endpoints


def filled(rule: str, game_id: str, session_id: str) -> str:
    """`rule` with its parts filled: the game and enrolment session made for the test, a deck
    unknown."""
    return (rule.replace("<game_id>", game_id).replace("<int:number>", "1")
            .replace("<sid>", session_id).replace("<name>", "kitchen"))  # fmt: skip


@pytest.mark.parametrize(("endpoint", "method", "rule"), ROUTES)
def test_no_json_body_is_a_server_error(
    tmp_path: Path, endpoint: str, method: str, rule: str
) -> None:
    app = create_app({"TESTING": True, "DATABASE": tmp_path / "games.sqlite3",
                      "DECKS_DIR": tmp_path / "decks"})  # fmt: skip
    client: FlaskClient = app.test_client()
    game = client.post("/api/games", json={"players": 2, "first_dealer": 0, "muggins": True})
    session = client.post("/api/enroll", json={"name": "Kitchen"})
    assert session.status_code == 201, session.json
    path = filled(rule, game.json["id"], session.json["id"])  # type: ignore[index]

    watched = (
        "/api/games",
        f"/api/games/{game.json['id']}/saved",  # type: ignore[index]
        f"/api/enroll/{session.json['id']}",  # type: ignore[index]
        "/api/decks",
    )

    def stored() -> list[Any]:
        """What a request could change: the games, the game's log, the enrolment, the decks."""
        return [client.get(page).json for page in watched]

    @settings(max_examples=80, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow])  # fmt: skip
    @given(body=BODIES)
    def post(body: Any) -> None:
        before = stored()
        data = json.dumps(body)  # ensure_ascii: lone surrogates travel as \\ud800
        answer = client.open(path, method=method, data=data, content_type="application/json")
        assert answer.status_code < 500, (endpoint, data, answer.get_data(as_text=True))
        if answer.status_code >= 400:
            assert "error" in answer.json  # type: ignore[operator]
            assert stored() == before, (endpoint, data)  # a refused request changes nothing

    post()
