"""Server-sent events: every open page of a game gets its new state within a second.

Writers `publish` a game's new revision; each stream waits on a condition for at most
`POLL_SECONDS` and then also re-reads the revision from the database, so changes made by
another process on the same database reach the page too. A stream ends after
`SSE_MAX_SECONDS` (the browser's EventSource reconnects by itself), so a worker thread is never
held for ever by a page left open.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

POLL_SECONDS = 1.0
KEEPALIVE_SECONDS = 15.0


class Broker:
    """Wakes the streams of a game when its revision changes (in this process)."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._revisions: dict[str, int] = {}

    def publish(self, game_id: str, revision: int) -> None:
        with self._changed:
            self._revisions[game_id] = revision
            self._changed.notify_all()

    def wait(self, game_id: str, seen: int, timeout: float) -> None:
        """Return when `game_id` passes revision `seen` here, or after `timeout` seconds."""
        with self._changed:
            self._changed.wait_for(lambda: self._revisions.get(game_id, seen) != seen, timeout)


def event_stream(
    revision: Callable[[], int],
    state: Callable[[], dict[str, Any]],
    broker: Broker,
    game_id: str,
    max_seconds: float,
    last_seen: int | None = None,
) -> Iterator[str]:
    """The SSE text: a `state` event at once (unless the page is current), then on each change."""
    yield "retry: 1000\n\n"
    seen = -1 if last_seen is None else last_seen
    start = last_beat = time.monotonic()
    while True:
        current = revision()
        if current != seen:
            data = state()
            seen = int(data["revision"])
            yield f"id: {seen}\nevent: state\ndata: {json.dumps(data)}\n\n"
            last_beat = time.monotonic()
        now = time.monotonic()
        if now - start >= max_seconds:
            return
        if now - last_beat >= KEEPALIVE_SECONDS:
            yield ": keep-alive\n\n"  # also how a closed connection is noticed
            last_beat = now
        broker.wait(game_id, seen, min(POLL_SECONDS, max(max_seconds - (now - start), 0.01)))
