"""The finished games' summaries as the records read them, kept parsed between requests while
the database's finished games stay the same (`GameStore.finished_generation`, one small query),
so a record is added up without reading and parsing every summary again."""

from __future__ import annotations

import threading
from typing import Any

from flask import current_app

from webui.games.api import store
from webui.games.store import FinishedGame, GameStore


class Summaries:
    """The last `GameStore.finished()` read, with the generation it was read at."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._generation: tuple[Any, ...] | None = None
        self._games: list[FinishedGame] = []

    def finished(self, games: GameStore) -> list[FinishedGame]:
        generation = games.finished_generation()
        with self._lock:
            if generation != self._generation:
                self._games, self._generation = games.finished(), generation
            return self._games


def finished() -> list[FinishedGame]:
    """The app's finished games, most recently played first (read once per change)."""
    kept: Summaries = current_app.extensions.setdefault("cribcam.summaries", Summaries())
    return kept.finished(store())
