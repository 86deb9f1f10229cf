"""Each game's view (`webui.games.views.game_view`), computed once per change and shared.

Every open page of a game wakes on each change and asks for the new state, and pages poll
too: without sharing, one change made every watcher replay the game's log (and its match's).
A view is kept under its match's game revisions (`GameStore.match_revisions`, one query), so
it is exact: any change to the game or to its match, by this process or another on the same
database, makes a new key. Views handed out are shared: read them, never change them.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from webui.games.store import GameStore, StoredGame
from webui.games.views import game_view

Key = tuple[tuple[str, int], ...]


class ViewCache:
    """The latest view of up to `size` games (least recently used dropped; thread-safe)."""

    def __init__(self, size: int = 256, stripes: int = 16) -> None:
        self.size = size
        self._lock = threading.Lock()
        self._views: OrderedDict[str, tuple[Key, dict[str, Any]]] = OrderedDict()
        #: Computing one game's view is done once at a time, so the pages that wake together
        #: on a change wait for one replay instead of each making its own.
        self._computing = [threading.Lock() for _ in range(stripes)]

    def view(self, store: GameStore, game_id: str) -> dict[str, Any]:
        """The game's current view (404 `GameNotFoundError` for no such game)."""
        _, key = store.match_revisions(game_id)
        found = self._get(game_id, key)
        if found is not None:
            return found
        with self._computing[hash(game_id) % len(self._computing)]:
            found = self._get(game_id, key)
            if found is not None:
                return found
            match_id, key = store.match_revisions(game_id)
            match = store.match_games(match_id)
            stored = next((game for game in match if game.id == game_id), None)
            if stored is None:  # deleted meanwhile
                store.revision(game_id)  # raises GameNotFoundError
            assert stored is not None
            result = game_view(stored, match)
            if tuple((game.id, game.revision) for game in match) == key:
                self._put(game_id, key, result)
            return result

    def published(self, store: GameStore, stored: StoredGame) -> dict[str, Any]:
        """The view of a game just changed (`stored`, as the write left it), without replaying
        it again, kept for the pages about to wake on the change."""
        match_id, key = store.match_revisions(stored.id)
        games = {stored.id: stored}
        if len(key) > 1:  # the match's other games, as they are now
            games |= {g.id: g for g in store.match_games(match_id) if g.id != stored.id}
        match = [games[game_id] for game_id, _ in key if game_id in games]
        result = game_view(stored, match)
        if tuple((game.id, game.revision) for game in match) == key:
            self._put(stored.id, key, result)
        return result

    def _get(self, game_id: str, key: Key) -> dict[str, Any] | None:
        with self._lock:
            entry = self._views.get(game_id)
            if entry is None or entry[0] != key:
                return None
            self._views.move_to_end(game_id)
            return entry[1]

    def _put(self, game_id: str, key: Key, view: dict[str, Any]) -> None:
        with self._lock:
            self._views[game_id] = (key, view)
            self._views.move_to_end(game_id)
            while len(self._views) > self.size:
                self._views.popitem(last=False)
