"""Issue #65: bodies that reached handler code (and answered 500) are refused up front with a
400 naming the field, and a finished game's rules cannot be changed."""

from __future__ import annotations

import json
import sqlite3
import unicodedata
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from tests.webui.conftest import Act


def raw_post(client: FlaskClient, path: str, body: str, method: str = "post") -> Any:
    """`body` sent as written (a JSON text may hold what Python's json.dumps would not)."""
    return client.open(path, method=method.upper(), data=body.encode(),
                       content_type="application/json")  # fmt: skip


# -- 1. text that cannot be stored -----------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "reason"),
    [("\\ud800", "lone surrogate U+D800"), ("A\\udfffB", "lone surrogate U+DFFF"),
     ("Ann\\u0000", "control character U+0000"), ("Bo\\nb", "control character U+000A")],
)  # fmt: skip
def test_a_name_that_cannot_be_stored_is_400_naming_it(
    client: FlaskClient, new_game: Callable[..., str], name: str, reason: str
) -> None:
    created = raw_post(client, "/api/games", f'{{"players": 2, "names": ["Ann", "{name}"]}}')
    assert created.status_code == 400
    assert "names[1]" in created.json["error"] and reason in created.json["error"]
    game_id = new_game()
    renamed = raw_post(client, f"/api/games/{game_id}/names", f'["{name}", "Bob"]', "put")
    assert renamed.status_code == 400 and reason in renamed.json["error"]
    assert "names[0]" in renamed.json["error"]
    assert client.get("/").status_code == 200


def test_text_anywhere_in_a_body_is_checked(
    client: FlaskClient, new_game: Callable[..., str]
) -> None:
    game_id = new_game()
    answer = raw_post(
        client, f"/api/games/{game_id}/actions", '{"kind": "play", "card": "5\\ud83d"}'
    )
    assert answer.status_code == 400 and "'card'" in answer.json["error"]
    key = raw_post(client, "/api/games", '{"players": 2, "\\udc00": 1}')
    assert key.status_code == 400 and "field name" in key.json["error"]


def test_names_are_stored_in_nfc(client: FlaskClient) -> None:
    decomposed = "A\u030ase"  # Å as A and a combining ring
    created = client.post("/api/games", json={"players": 2, "names": [decomposed, "Bob"]})
    state = client.get(f"/api/games/{created.json['id']}").json
    assert state["names"][0] == unicodedata.normalize("NFC", decomposed) == "\u00c5se"


def test_a_bad_name_stored_before_the_checks_does_not_take_the_home_page_down(
    client: FlaskClient, new_game: Callable[..., str], db_path: Path
) -> None:
    game_id = new_game()
    with sqlite3.connect(db_path) as db:
        db.execute("UPDATE games SET names = ? WHERE id = ?",
                   (json.dumps(["\ud800", "Bob"]), game_id))  # fmt: skip
    home = client.get("/")
    assert home.status_code == 200 and "Bob" in home.get_data(as_text=True)
    assert client.get(f"/games/{game_id}").status_code == 200
    assert client.get(f"/api/games/{game_id}").json["names"] == ["?", "Bob"]


# -- 2. fields of the wrong type or out of bounds --------------------------------------------
@pytest.mark.parametrize(
    ("path", "body", "field"),
    [("actions", {"kind": ["play"]}, "'kind'"), ("actions", {"kind": {"a": 1}}, "'kind'"),
     ("actions", {"kind": "dealer", "seat": 10**25}, "'seat'"),
     ("actions", {"kind": "go", "seat": -(10**30)}, "'seat'"),
     ("actions", {"kind": "correct", "seat": 0, "points": 10**25}, "'points'"),
     ("table/answer", {"key": "x", "claim": 10**25}, "'claim'"),
     ("table/answer", {"key": "x", "claim": 30}, "'claim' must be 0 to 29")],
)  # fmt: skip
def test_action_fields_of_the_wrong_type_or_size_are_400(
    client: FlaskClient, new_game: Callable[..., str], path: str, body: Any, field: str
) -> None:
    answer = client.post(f"/api/games/{new_game()}/{path}", json=body)
    assert answer.status_code == 400, answer.json
    assert field in answer.json["error"]


@pytest.mark.parametrize("role", [["dealer"], {"a": 1}, 1, None])
def test_advice_role_of_the_wrong_type_is_400(client: FlaskClient, role: Any) -> None:
    hand = ["5H", "5D", "JC", "6S", "9H", "QD"]
    answer = client.post("/api/advise", json={"hand": hand, "role": role})
    assert answer.status_code == 400 and "'role'" in answer.json["error"]


def test_a_huge_seat_in_a_danish_refusal_is_400(
    client: FlaskClient, new_game: Callable[..., str]
) -> None:
    huge = {"kind": "dealer", "seat": 10**25}
    answer = client.post(f"/api/games/{new_game()}/actions", json=huge,
                         headers={"Accept-Language": "da"})  # fmt: skip
    assert answer.status_code == 400
    big = client.post(f"/api/games/{new_game()}/actions", json={"kind": "dealer", "seat": 2**53},
                      headers={"Accept-Language": "da"})  # fmt: skip
    assert big.status_code == 409 and big.json["code"] == "not_a_seat"


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_numbers_that_are_not_finite_are_400(client: FlaskClient, number: str) -> None:
    answer = raw_post(client, "/api/games", f'{{"players": 2, "target": {number}}}')
    assert answer.status_code == 400


# -- 5. a finished game's outcome stands -----------------------------------------------------
def test_a_finished_game_cannot_be_reopened_by_its_settings(
    client: FlaskClient, new_game: Callable[..., str], act: Act
) -> None:
    game_id = new_game(target=61, games_per_match=3)
    act(game_id, kind="dealer", seat=0)
    over = act(game_id, kind="correct", seat=0, points=61)
    assert over["outcome"]["winner"] == 0
    assert client.post(f"/api/games/{game_id}/next").status_code == 201  # the match moves on
    before = client.get(f"/api/games/{game_id}").json
    for lang in ("en", "da", "ro"):
        answer = client.put(f"/api/games/{game_id}/settings", json={"players": 2, "target": 121},
                            headers={"Accept-Language": lang})  # fmt: skip
        assert answer.status_code == 409 and answer.json["code"] == "game_finished"
    after = client.get(f"/api/games/{game_id}").json
    assert after["outcome"] == before["outcome"] and after["revision"] == before["revision"]
    assert after["settings"]["target"] == 61
    # the same rules again change nothing; its names are final too (its players' records)
    same = client.put(f"/api/games/{game_id}/settings", json=before["settings"])
    assert same.status_code == 200
    renamed = client.put(f"/api/games/{game_id}/names", json=["Ann", "Bob"])
    assert renamed.status_code == 409 and renamed.json["code"] == "names_final"
    assert client.put(f"/api/games/{game_id}/names", json=before["names"]).status_code == 200
    assert client.get(f"/api/games/{game_id}").json["names"] == before["names"]
    # nor can it be undone back into play once the match has moved on
    revision = client.get(f"/api/games/{game_id}").json["revision"]
    undone = client.post(f"/api/games/{game_id}/undo")
    assert undone.status_code == 409 and undone.json["code"] == "match_continues"
    assert client.get(f"/api/games/{game_id}").json["revision"] == revision
