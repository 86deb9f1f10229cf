"""Server-sent events: every open page of a game gets its new state within a second.

Writers `publish` a game's new revision; each stream waits on a condition for at most
`POLL_SECONDS` and then also re-reads the revision from the database, so changes made by
another process on the same database reach the page too. A stream ends after
`SSE_MAX_SECONDS` (the browser's EventSource reconnects by itself), so a worker thread is never
held for ever by a page left open.

With a server camera, the same stream also carries `camera` events: the camera's table as this
game sees it (`webui.camera.camera_view`), sent when the camera's table or the game changes.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

POLL_SECONDS = 1.0
KEEPALIVE_SECONDS = 15.0
#: The broker key the server camera publishes its revisions under (game ids are hex).
CAMERA_KEY = "camera"


class Broker:
    """Wakes the streams of a game when its revision changes (in this process)."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._revisions: dict[str, int] = {}
        self._closed = False

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        """The server is stopping: wake every stream so that it ends now, not at its next
        keep-alive (a worker in a stream would hold the shutdown up to 15 s)."""
        with self._changed:
            self._closed = True
            self._changed.notify_all()

    def publish(self, game_id: str, revision: int) -> None:
        with self._changed:
            self._revisions[game_id] = revision
            self._changed.notify_all()

    def wait(self, game_id: str, seen: int, timeout: float) -> None:
        """Return when `game_id` passes revision `seen` here, or after `timeout` seconds."""
        self.wait_any({game_id: seen}, timeout)

    def wait_any(self, seen: dict[str, int], timeout: float) -> None:
        """Return when any key passes its revision in `seen`, or after `timeout` seconds."""
        with self._changed:
            self._changed.wait_for(
                lambda: (
                    self._closed or any(self._revisions.get(k, v) != v for k, v in seen.items())
                ),
                timeout,
            )


@dataclass(frozen=True)
class CameraEvents:
    """What a stream needs of the server camera: its revision, and the view for this game."""

    revision: Callable[[], int]
    view: Callable[[], dict[str, Any]]


#: A game's camera events by its id, None without a server camera: the camera lends them
#: (`webui.camera.camera_view.camera_events`), so the games import no camera.
GameCamera = Callable[[str], CameraEvents | None]


def event_stream(
    revision: Callable[[], int],
    state: Callable[[], dict[str, Any]],
    broker: Broker,
    game_id: str,
    max_seconds: float,
    last_seen: int | None = None,
    camera: CameraEvents | None = None,
) -> Iterator[str]:
    """The SSE text: a `state` event at once (unless the page is current), then on each change;
    with `camera`, a `camera` event at once and whenever the camera or the game changes."""
    yield "retry: 1000\n\n"
    seen = -1 if last_seen is None else last_seen
    camera_seen = (-1, -1)
    start = last_beat = time.monotonic()
    while True:
        current = revision()
        if current != seen:
            data = state()
            seen = int(data["revision"])
            yield f"id: {seen}\nevent: state\ndata: {json.dumps(data)}\n\n"
            last_beat = time.monotonic()
        if camera is not None and (camera.revision(), seen) != camera_seen:
            view = camera.view()
            camera_seen = (int(view.get("revision", -1)), seen)
            yield f"event: camera\ndata: {json.dumps(view)}\n\n"
            last_beat = time.monotonic()
        now = time.monotonic()
        if now - start >= max_seconds or broker.closed:
            return
        if now - last_beat >= KEEPALIVE_SECONDS:
            yield ": keep-alive\n\n"  # also how a closed connection is noticed
            last_beat = now
        keys = {game_id: seen} | ({CAMERA_KEY: camera_seen[0]} if camera is not None else {})
        broker.wait_any(keys, min(POLL_SECONDS, max(max_seconds - (now - start), 0.01)))
