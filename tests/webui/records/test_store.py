"""The summaries the store keeps: written with the change that finishes a game (and taken back
by its undo), made for games stored before the summaries, and what the home list and the
records read instead of replaying games."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from scorer.game import Game
from tests.webui.conftest import Act
from tests.webui.records.conftest import Games, play_game_a
from webui.games.store import GameStore


def summary(db_path: Path, game_id: str) -> tuple[Any, ...]:
    with sqlite3.connect(db_path) as db:
        row = db.execute("SELECT scores, winner, seats IS NOT NULL FROM game_summaries"
                         " WHERE game_id = ?", (game_id,)).fetchone()  # fmt: skip
    return tuple(row)


def test_the_finishing_action_writes_the_figures_and_undo_takes_them_back(
    client: FlaskClient, act: Act, db_path: Path
) -> None:
    game_id = play_game_a(client, act)
    assert summary(db_path, game_id) == ("[121, 83]", 0, 1)
    client.post(f"/api/games/{game_id}/undo")  # the JH starter: no his heels, no win
    assert summary(db_path, game_id) == ("[119, 83]", None, 0)
    assert client.get("/api/players/Ann").status_code == 404


def test_games_stored_before_the_summaries_get_them_when_opened(
    client: FlaskClient, games: Games, db_path: Path
) -> None:
    figures = client.get("/api/players/Ann").json
    with sqlite3.connect(db_path) as db:
        db.execute("DROP TABLE game_summaries")  # as a database of an earlier cribcam
    store = GameStore(db_path)
    assert summary(db_path, games.a) == ("[121, 83]", 0, 1)
    assert summary(db_path, games.unfinished) == ("[5, 0]", None, 0)
    assert [game.id for game in store.finished()] == [games.b, games.a]
    assert client.get("/api/players/Ann").json == figures


def test_the_home_list_and_records_replay_no_game(
    client: FlaskClient, games: Games, monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_replay(data: Any) -> Game:
        raise AssertionError("a game was replayed")

    monkeypatch.setattr(Game, "from_json", staticmethod(no_replay))
    home = client.get("/")
    assert home.status_code == 200
    text = home.text
    assert "Ann <b>121</b> · Bob <b>83</b>" in text and "Ann <b>5</b> · Carl <b>0</b>" in text
    assert 'href="/players/ANN"' in text and 'href="/players/Bob"' in text
    assert client.get("/api/players/Ann").status_code == 200
    assert client.get("/api/players/Ann/against/Bob").status_code == 200
    assert client.get("/players/Ann").status_code == 200
