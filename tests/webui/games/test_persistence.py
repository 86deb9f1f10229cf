"""Games survive the app: a new app on the same database file resumes the same state, and
concurrent writers never corrupt a game's log."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest

from webui import create_app
from webui.games.store import GameStore


def _post(client: Any, game_id: str, **action: Any) -> Any:
    response = client.post(f"/api/games/{game_id}/actions", json=action)
    assert response.status_code == 200, response.json
    return response.json


def test_state_is_identical_in_a_new_app(db_path: Path) -> None:
    first = create_app({"TESTING": True, "DATABASE": db_path}).test_client()
    game_id = first.post("/api/games", json={"players": 2, "muggins": True}).json["id"]
    _post(first, game_id, kind="cut", cards=["3H", "9C"])
    _post(first, game_id, kind="deal")
    _post(first, game_id, kind="discard", seat=0)
    _post(first, game_id, kind="discard", seat=1)
    _post(first, game_id, kind="starter", card="JD")
    _post(first, game_id, kind="play", card="5C", claim=0)
    _post(first, game_id, kind="play", card="10H", claim=0)  # short: muggins is open
    before = first.get(f"/api/games/{game_id}").json
    assert before["muggins_open"] is not None

    second = create_app({"TESTING": True, "DATABASE": db_path}).test_client()
    assert second.get(f"/api/games/{game_id}").json == before
    _post(second, game_id, kind="muggins", seat=1, points=2)
    assert second.get(f"/api/games/{game_id}").json["scores"] == [2, 2]


def test_concurrent_actions_are_serialised(db_path: Path) -> None:
    """Eight threads race to play the same card: exactly one wins; the log stays valid."""
    app = create_app({"TESTING": True, "DATABASE": db_path})
    client = app.test_client()
    game_id = client.post("/api/games", json={"players": 2, "first_dealer": 1}).json["id"]
    for action in [
        {"kind": "deal"},
        {"kind": "discard", "seat": 0},
        {"kind": "discard", "seat": 1},
        {"kind": "starter", "card": "2S"},
    ]:
        _post(client, game_id, **action)
    statuses: list[int] = []
    barrier = threading.Barrier(8)

    def play() -> None:
        local = app.test_client()
        barrier.wait()
        statuses.append(
            local.post(
                f"/api/games/{game_id}/actions", json={"kind": "play", "card": "7H"}
            ).status_code
        )

    threads = [threading.Thread(target=play) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(statuses) == [200] + [409] * 7
    saved = client.get(f"/api/games/{game_id}/saved").json
    assert [a["kind"] for a in saved["actions"]][-1] == "play"
    assert len(saved["actions"]) == 5


def test_a_failed_action_writes_nothing(db_path: Path) -> None:
    store = GameStore(db_path)
    from scorer.settings import Settings

    game_id = store.create(Settings(), ["A", "B"], first_dealer=0)
    revision = store.revision(game_id)

    def explode(game: Any) -> None:
        game.deal(None)  # applied in memory...
        raise RuntimeError("...then a bug")

    with pytest.raises(RuntimeError):
        store.act(game_id, explode)
    assert store.revision(game_id) == revision
    assert store.load(game_id).game.actions == []


def test_wal_mode(db_path: Path) -> None:
    import sqlite3

    GameStore(db_path)
    with sqlite3.connect(db_path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
