"""Fixtures as in Flask's tutorial: an app on a fresh database file, and its test client."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.webui.test_serve import Server
from webui import create_app


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "games.sqlite3"


@pytest.fixture
def app(db_path: Path) -> Flask:
    return create_app({"TESTING": True, "DATABASE": db_path, "SSE_MAX_SECONDS": 3.0})


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


Act = Callable[..., Any]


@pytest.fixture
def new_game(client: FlaskClient) -> Callable[..., str]:
    def make(**settings: Any) -> str:
        response = client.post("/api/games", json={"players": 2, **settings})
        assert response.status_code == 201, response.json
        game_id: str = response.json["id"]  # type: ignore[index]
        return game_id

    return make


@pytest.fixture
def act(client: FlaskClient) -> Act:
    """POST an action; asserts the status (200 unless told) and returns the JSON."""

    def post(game_id: str, status: int = 200, **action: Any) -> Any:
        response = client.post(f"/api/games/{game_id}/actions", json=action)
        assert response.status_code == status, response.json
        return response.json

    return post


#: A known deal (from the scorer's doctests): seat 1 deals, seat 0 leads.
HANDS = [["5H", "5D", "JC", "6S", "9H", "QD"], ["2C", "3C", "4D", "KH", "8S", "7C"]]


def play_to_pegging(act: Act, game_id: str) -> None:
    """Deal the known hands, discard and turn the 5S starter: the play begins."""
    act(game_id, kind="deal", hands=HANDS)
    act(game_id, kind="discard", seat=0, cards=["9H", "QD"])
    act(game_id, kind="discard", seat=1, cards=["KH", "8S"])
    act(game_id, kind="starter", card="5S")


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    """`cribcam serve` on a free port with its own database and deck folder (never the
    checkout's models/decks)."""
    running = Server(
        tmp_path / "games.sqlite3", tmp_path / "data", ["--decks", str(tmp_path / "decks")]
    )
    yield running
    running.stop()
