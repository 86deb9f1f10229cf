"""The schemas against the engine they guard: never stricter than the rules (what the engine
takes, the schema takes), and refusals that name the field in the device's language."""

from __future__ import annotations

import dataclasses
import re
from typing import Any

import hypothesis.strategies as st
from flask.testing import FlaskClient
from hypothesis import given, settings

from scorer.advice import Role
from scorer.cards import parse_card
from scorer.errors import CribbageError
from scorer.settings import MatchPoints, Settings
from webui.contract.bodies import AdviceRequest, MatchPointsBody, SettingsBody
from webui.contract.fields import CARD_PATTERN

SETTING_VALUES = st.one_of(
    st.integers(-5, 200), st.booleans(), st.none(),
    st.sampled_from(["six-card", "five-card", "acc", "x"]),
)  # fmt: skip


def test_the_settings_schema_has_the_engine_s_fields() -> None:
    assert set(SettingsBody.model_fields) == {f.name for f in dataclasses.fields(Settings)}
    assert set(MatchPointsBody.model_fields) == {f.name for f in dataclasses.fields(MatchPoints)}
    assert set(AdviceRequest.model_fields["role"].annotation.__args__) == {r.value for r in Role}  # type: ignore[union-attr]


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from([f.name for f in dataclasses.fields(Settings)]),
                       SETTING_VALUES, max_size=5))  # fmt: skip
def test_settings_the_engine_takes_the_schema_takes(data: dict[str, Any]) -> None:
    try:
        Settings.from_json(data)
    except CribbageError:
        return
    SettingsBody.model_validate(data)  # raises if the schema were stricter than the engine


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet="AaTtJjQqKk0123456789CDHScdhsXx♣♦♥♠♡ \t", max_size=5))
def test_the_card_pattern_is_what_the_engine_reads(text: str) -> None:
    try:
        parse_card(text)
        reads = True
    except CribbageError:
        reads = False
    assert bool(re.match(CARD_PATTERN, text)) == reads, text


def test_a_refusal_names_the_field_s_path(client: FlaskClient, new_game: Any) -> None:
    game_id = new_game(first_dealer=0)
    deal = {"kind": "deal", "hands": [["AH", "2H", "3H", "4H", "5H", "6H"], ["7H", 8]]}
    answer = client.post(f"/api/games/{game_id}/actions", json=deal)
    assert answer.status_code == 400
    assert answer.json == {"error": "'hands[1]' must be a list of cards such as "
                                    "[\"5H\", \"JC\"], not ['7H', 8]", "code": "cards_list",
                           "values": {"field": "hands[1]", "text": "['7H', 8]"}}  # fmt: skip
    danish = client.post(f"/api/games/{game_id}/actions", json={"kind": "go", "seat": "1"},
                         headers={"Accept-Language": "da"})  # fmt: skip
    assert danish.json["error"] == "'seat' skal være et heltal, ikke '1'"  # type: ignore[index]
    unknown = client.post("/api/advise", json={"hand": ["5H"], "colour": 1},
                          headers={"Accept-Language": "ro"})  # fmt: skip
    assert unknown.json["code"] == "unknown_body_fields"  # type: ignore[index]
    assert unknown.json["error"] == "câmpuri necunoscute pentru sfat: colour"  # type: ignore[index]


def test_a_query_is_checked_like_a_body(client: FlaskClient) -> None:
    refused = client.get("/api/export?format=xml&colour=red")
    assert refused.status_code == 400
    assert refused.json["code"] == "unknown_body_fields"  # type: ignore[index]
    assert client.get("/api/export?format=csv").mimetype == "text/csv"


def test_what_the_path_names_is_looked_up_before_the_body_is_read(client: FlaskClient) -> None:
    answer = client.patch("/api/decks/nothere", data="[[[", content_type="application/json")
    assert answer.status_code == 404 and "no deck named" in answer.json["error"]  # type: ignore[index]


def test_a_file_of_games_may_be_larger_than_a_json_body(client: FlaskClient) -> None:
    padded = [{"id": f"g{i}", "names": ["x" * 30, "y" * 30]} for i in range(5000)]
    assert 256 * 1024 < len(str(padded)) < 8 * 2**20
    answer = client.post("/api/import", json=padded)
    assert answer.status_code == 400  # read and checked: the games have no actions
    assert "actions" in answer.json["error"]  # type: ignore[index]
    too_large = client.post("/api/advise", json={"hand": ["5H"] * 100_000})
    assert too_large.status_code == 413
