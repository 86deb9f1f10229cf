"""Live updates: an open event stream receives the new state after an action."""

from __future__ import annotations

import json
import queue
import threading
from typing import Any

from flask.testing import FlaskClient

from webui.games.live import Broker, event_stream


def _events(chunks: Any) -> Any:
    """Yield each SSE `state` event's data as it arrives."""
    buffer = ""
    for chunk in chunks:
        buffer += chunk.decode() if isinstance(chunk, bytes) else chunk
        while "\n\n" in buffer:
            block, buffer = buffer.split("\n\n", 1)
            lines = block.splitlines()
            if "event: state" in lines:
                data = next(line[6:] for line in lines if line.startswith("data: "))
                yield json.loads(data)


def test_stream_sends_state_then_each_change(client: FlaskClient) -> None:
    game_id = client.post("/api/games", json={"players": 2}).json["id"]  # type: ignore[index]
    response = client.get(f"/api/games/{game_id}/events", buffered=False)
    assert response.status_code == 200
    assert response.mimetype == "text/event-stream"
    events = _events(response.response)
    first = next(events)
    assert first["id"] == game_id and first["phase"] == "cut for deal"
    client.post(f"/api/games/{game_id}/actions", json={"kind": "dealer", "seat": 1})
    second = next(events)
    assert second["dealer"] == 1 and second["revision"] == first["revision"] + 1
    client.post(f"/api/games/{game_id}/undo")
    assert next(events)["dealer"] is None
    response.close()


def test_stream_skips_a_state_the_page_already_has(client: FlaskClient) -> None:
    game_id = client.post("/api/games", json={"players": 2}).json["id"]  # type: ignore[index]
    response = client.get(
        f"/api/games/{game_id}/events", buffered=False, headers={"Last-Event-ID": "0"}
    )
    events = _events(response.response)
    client.post(f"/api/games/{game_id}/actions", json={"kind": "dealer", "seat": 0})
    assert next(events)["revision"] == 1
    response.close()


def test_a_closed_broker_ends_every_stream_at_once() -> None:
    broker = Broker()
    stream = event_stream(lambda: 1, lambda: {"revision": 1}, broker, "g", max_seconds=600)
    chunks: queue.Queue[str] = queue.Queue()
    reader = threading.Thread(target=lambda: [chunks.put(chunk) for chunk in stream])
    reader.start()
    while "event: state" not in chunks.get(timeout=10):
        pass  # the first state is out: the stream goes on to wait for a change
    broker.close()
    reader.join(timeout=10)  # without close it would run for max_seconds
    assert not reader.is_alive()
