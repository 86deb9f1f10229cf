"""The shared game views (#51: live streams must not starve other requests): computed once per
change, and never stale, whoever changed the game or its match."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from scorer.settings import Settings
from webui.errors import GameNotFoundError
from webui.games.store import GameStore
from webui.games.view_cache import ViewCache


def test_a_view_is_computed_once_per_change(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                            ) -> None:  # fmt: skip
    store = GameStore(tmp_path / "games.sqlite3")
    game = store.create(Settings(), ["Ann", "Bob"], 0)
    cache = ViewCache()
    replays = []
    match_games = store.match_games
    monkeypatch.setattr(store, "match_games", lambda m: replays.append(m) or match_games(m))
    results: list[object] = []
    threads = [threading.Thread(target=lambda: results.append(cache.view(store, game)))
               for _ in range(8)]  # fmt: skip
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(replays) == 1 and all(r is results[0] for r in results)
    other = GameStore(tmp_path / "games.sqlite3")  # another process on the same database
    other.act(game, lambda g: g.correct(0, 5))
    assert cache.view(store, game)["scores"] == [5, 0] and len(replays) == 2


def test_a_new_game_of_the_match_changes_the_view_of_the_last(tmp_path: Path) -> None:
    store = GameStore(tmp_path / "games.sqlite3")
    first = store.create(Settings(games_per_match=3), ["Ann", "Bob"], 0)
    cache = ViewCache()
    assert cache.view(store, first)["match"]["games"] == [first]
    second = store.create(Settings(games_per_match=3), ["Ann", "Bob"], 1, match_id=first)
    assert cache.view(store, first)["match"]["games"] == [first, second]
    store.delete(second)
    assert cache.view(store, first)["match"]["games"] == [first]
    store.delete(first)
    with pytest.raises(GameNotFoundError):
        cache.view(store, first)


def test_the_cache_is_bounded(tmp_path: Path) -> None:
    store = GameStore(tmp_path / "games.sqlite3")
    cache = ViewCache(size=3)
    for _ in range(10):
        cache.view(store, store.create(Settings(), ["Ann", "Bob"]))
    assert len(cache._views) == 3


def test_a_written_game_s_view_is_kept_for_the_pages_about_to_wake(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = GameStore(tmp_path / "games.sqlite3")
    first = store.create(Settings(games_per_match=3), ["Ann", "Bob"], 0)
    store.act(first, lambda g: g.correct(1, 121))
    second = store.create(Settings(games_per_match=3), ["Ann", "Bob"], 1, match_id=first)
    cache = ViewCache()
    _, stored = store.act(second, lambda g: g.correct(0, 7))
    written = cache.published(store, stored)
    assert written == ViewCache().view(store, second)  # as a fresh replay has it
    assert written["match"]["games"] == [first, second] and written["scores"] == [7, 0]
    monkeypatch.setattr(store, "match_games", lambda m: pytest.fail("replayed again"))
    assert cache.view(store, second) is written
