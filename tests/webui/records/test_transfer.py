"""Games to take away and to bring back: the export replays to the stored scores, the CSV's
rows add up as worked out by hand (`conftest`), an import gives the same records in another
database, and a bad import changes nothing."""

from __future__ import annotations

import copy
import csv
import io
import json
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from cribcam.cli import main
from scorer.replay import replay
from tests.webui.records.conftest import Games
from webui import create_app


def exported(client: FlaskClient, query: str = "") -> list[dict[str, Any]]:
    answer = client.get("/api/export" + query)
    assert answer.status_code == 200, answer.json
    assert "attachment" in answer.headers["Content-Disposition"]
    games: list[dict[str, Any]] = answer.json  # type: ignore[assignment]
    return games


def test_the_export_replays_to_the_same_scores(client: FlaskClient, games: Games) -> None:
    everything = exported(client)
    assert [game["id"] for game in everything] == [games.a, games.b, games.unfinished]
    for game in everything:
        stored = client.get(f"/api/games/{game['id']}").json
        assert replay(game).scores == tuple(stored["scores"])  # type: ignore[index]
        assert game["names"] == stored["names"]  # type: ignore[index]
    assert replay(everything[0]).scores == (121, 83)


def test_cribcam_replay_reads_an_exported_game(
    client: FlaskClient, games: Games, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "a.json"
    path.write_text(json.dumps(exported(client, f"?game={games.a}")[0]))
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert "his heels JH +2" in out and "side 0 wins 121-83 (side 1 skunk)" in out


def test_export_of_a_player_or_a_game(client: FlaskClient, games: Games) -> None:
    assert [g["id"] for g in exported(client, "?player=%20bob")] == [games.a, games.b]
    assert [g["id"] for g in exported(client, "?player=Carl")] == [games.unfinished]
    assert exported(client, "?player=Nobody") == []
    assert [g["id"] for g in exported(client, f"?game={games.b}")] == [games.b]
    assert client.get("/api/export?game=nothere").status_code == 404
    bad = client.get("/api/export?format=xml")
    assert bad.status_code == 400 and "json or csv" in bad.json["error"]  # type: ignore[index]
    assert client.get("/api/export?colour=red").status_code == 400


def test_the_csv_has_a_row_per_deal(client: FlaskClient, games: Games) -> None:
    answer = client.get(f"/api/export?format=csv&game={games.a}")
    assert answer.mimetype == "text/csv"
    rows = list(csv.DictReader(io.StringIO(answer.text)))
    seats = [{k: row[f"{k}{seat}"] for k in ("player", "pegging", "hand", "other", "score")}
             for row in rows for seat in (1, 2)]  # fmt: skip
    assert [(row["deal"], row["dealer"], row["crib"]) for row in rows] == [
        ("1", "Bob", "4"),
        ("2", "Ann", "0"),
    ]
    assert seats == [
        # deal 1: Ann's go, her 12 claimed; the corrections came after its show
        {"player": "Ann", "pegging": "1", "hand": "12", "other": "106", "score": "119"},
        # Bob's last card, his hand, muggins 2 and his correction (and the crib, 4)
        {"player": "Bob", "pegging": "1", "hand": "6", "other": "72", "score": "83"},
        {"player": "Ann", "pegging": "0", "hand": "0", "other": "2", "score": "121"},  # heels
        {"player": "Bob", "pegging": "0", "hand": "0", "other": "0", "score": "83"},
    ]
    assert rows[0]["player3"] == rows[0]["score4"] == ""  # two players: the rest empty


def test_an_import_gives_the_same_records(
    client: FlaskClient, games: Games, tmp_path: Path
) -> None:
    everything = exported(client)
    other = create_app({"TESTING": True, "DATABASE": tmp_path / "other.sqlite3"}).test_client()
    answer = other.post("/api/import", json=everything)
    assert answer.status_code == 200, answer.json
    assert answer.json == {"added": [games.a, games.b, games.unfinished], "extended": [],
                           "unchanged": []}  # fmt: skip
    for name in ("Ann", "Bob"):
        assert other.get(f"/api/players/{name}").json == client.get(f"/api/players/{name}").json
    assert exported(other) == everything
    again = other.post("/api/import", json=everything)  # merged by id: nothing twice
    assert again.json == {"added": [], "extended": [],
                          "unchanged": [games.a, games.b, games.unfinished]}  # fmt: skip


def test_an_import_carries_a_game_on(client: FlaskClient, games: Games, act: Any) -> None:
    before = exported(client, f"?game={games.unfinished}")
    act(games.unfinished, kind="correct", seat=1, points=121)  # Carl wins it here
    later = exported(client, f"?game={games.unfinished}")
    assert client.post("/api/import", json=before).json["unchanged"] == [games.unfinished]  # type: ignore[index]
    client.delete(f"/api/games/{games.unfinished}")
    client.post("/api/import", json=before)
    answer = client.post("/api/import", json=later)
    assert answer.json["extended"] == [games.unfinished]  # type: ignore[index]
    assert client.get("/api/players/Carl").json["wins"] == 1  # type: ignore[index]


def _state(client: FlaskClient) -> Any:
    return exported(client), client.get("/api/players").json


@pytest.mark.parametrize(
    ("spoil", "status", "said"),
    [
        # a card the deal does not hold: the record does not replay
        (lambda games: games[1]["actions"][5].update(cards=["AH"]), 400, "does not replay"),
        (lambda games: games[1]["actions"].append({"kind": "fly"}), 400, "does not replay"),
        (lambda games: games[1].update(actions="none"), 400, "'actions' must be a list"),
        (lambda games: games[1].update(names=["Ann"]), 400, "2 names"),
        (lambda games: games[1].update(id="../x"), 400, "'id' must be"),
        (lambda games: games[1].update(updated=float("1e300")), 400, "'updated' must be"),
        (lambda games: games[1].update(settings={"players": 9}), 400, "does not replay"),
        (lambda games: games.append(copy.deepcopy(games[1])), 400, "twice"),
        (lambda games: games.append("game"), 400, "an object"),
        # a game of this id is here with another record (another starter in its last deal),
        # met after the new games were written: they are rolled back
        (
            lambda games: (
                games[0]["actions"][-1].update(cards=["QS"]),
                games.append(games.pop(0)),
            ),
            409,
            "another record",
        ),
    ],
)
def test_a_bad_import_changes_nothing(
    client: FlaskClient, games: Games, spoil: Any, status: int, said: str
) -> None:
    before = _state(client)
    body = exported(client)  # games A, B and the unfinished one
    body.insert(1, copy.deepcopy(body[0]))
    for game in body[1:]:
        game["id"] = "new" + game["id"]  # new games, which would be added
    spoil(body)  # game A (here already, unchanged) or the copy of it (new)
    answer = client.post("/api/import", json=body)
    assert answer.status_code == status, answer.json
    assert said in answer.json["error"]  # type: ignore[index]
    assert _state(client) == before


@pytest.mark.parametrize("body", [{}, "games", 5, [[]], [{"id": "x"}], None])
def test_a_malformed_import_is_400(client: FlaskClient, body: Any) -> None:
    assert client.post("/api/import", json=body).status_code == 400


def test_cribcam_export_and_import(
    client: FlaskClient, games: Games, db_path: Path, tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    out = tmp_path / "games.json"
    assert main(["export", "--db", str(db_path), "-o", str(out)]) == 0
    assert json.loads(out.read_text()) == exported(client)
    assert main(["export", "--db", str(db_path), "--format", "csv", "--player", "ann"]) == 0
    assert capsys.readouterr().out.splitlines()[1].startswith(f"{games.a},1,Bob,4,Ann,1,12")
    other = tmp_path / "other.sqlite3"
    assert main(["import", str(out), "--db", str(other)]) == 0
    assert capsys.readouterr().out.strip() == "3 added, 0 extended, 0 unchanged"
    spoilt = json.loads(out.read_text())
    spoilt[2]["actions"].append({"kind": "fly"})
    out.write_text(json.dumps(spoilt))
    assert main(["import", str(out), "--db", str(tmp_path / "third.sqlite3")]) == 2
    assert "does not replay" in capsys.readouterr().err
