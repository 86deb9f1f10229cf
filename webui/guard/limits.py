"""Every limit the server enforces, in one place, and the parts of the app that enforce them:
the bounds of numbers a body may carry, live-stream slots, and request bodies before Flask.

The HTTP server (`webui.guard.connections`) reads its limits from the same `ServerLimits`, so a
test or a benchmark can tighten or widen them all at once with `create_app({"LIMITS": ...})`
and `make_server(..., limits=...)`.
"""

from __future__ import annotations

import io
import json
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from flask import Flask, Response, current_app, g, request
from werkzeug.routing import IntegerConverter, Map

from webui.errors import ApiError

StartResponse = Callable[..., Any]
WsgiApp = Callable[[dict[str, Any], StartResponse], Iterable[bytes]]


@dataclass(frozen=True)
class ServerLimits:
    """What one client, one request and one body may take of the server."""

    #: Worker threads for ordinary requests. Live streams have threads of their own (below),
    #: so open pages never starve the API or /healthz.
    request_threads: int = 32
    #: Live-update streams open at once; each holds a thread while open, so one more is
    #: refused (503) instead of taking a request thread.
    live_streams: int = 64
    #: The listen backlog: connections the kernel queues until the server accepts them.
    backlog: int = 1024
    #: Connections one client address may hold open (a browser opens at most six per host,
    #: plus its live stream); more are closed at once, so one device cannot hold every thread.
    connections_per_address: int = 16
    #: Idle keep-alive connections kept open (they hold no thread).
    keep_alive_connections: int = 256
    #: Bytes of request line and headers, and how many header lines, before 431.
    header_bytes: int = 16 * 1024
    header_count: int = 64
    #: Seconds for the TLS handshake, request line and headers to arrive in full: a client
    #: that trickles them (a header line every few seconds) is cut off with 408.
    head_seconds: float = 10.0
    #: The slowest a body may arrive, in bytes a second, on top of `head_seconds`.
    body_bytes_per_second: int = 32 * 1024
    #: Seconds a connection may stay idle between requests, and the socket between packets.
    idle_seconds: float = 10.0
    #: A request body (image uploads are the largest: a phone JPEG is well under this).
    body_bytes: int = 8 * 1024 * 1024
    #: A JSON body: every one the page sends is a few hundred bytes.
    json_bytes: int = 256 * 1024
    #: Nesting of arrays and objects in a JSON body (the deepest the API takes is 3).
    json_depth: int = 32
    #: Pixels of an uploaded image, read from its header before it is decoded: a phone's
    #: default photo and a 6000 x 4000 camera fit; a decompression bomb does not.
    upload_pixels: int = 24_000_000
    #: Pairing: wrong codes one client address may enter before it must wait; then each wrong
    #: code doubles its wait, from `pairing_backoff_seconds` up to `pairing_backoff_max_seconds`.
    pairing_free_tries: int = 5
    pairing_backoff_seconds: float = 1.0
    pairing_backoff_max_seconds: float = 3600.0
    #: Client addresses whose wrong codes are remembered (a bounded table).
    pairing_clients: int = 1024

    @property
    def threads(self) -> int:
        return self.request_threads + self.live_streams

    def body_seconds(self, length: int) -> float:
        """How long a body of `length` bytes may take to arrive."""
        return self.head_seconds + length / self.body_bytes_per_second


LIMITS = ServerLimits()


@dataclass(frozen=True)
class NumberBounds:
    """The numbers a body may carry: what cribbage allows, and what a URL or header needs."""

    #: The most one card can peg: a double pair royal (12) that also makes 15 or 31 (2).
    play_points: int = 14
    #: The largest hand or crib (RULES.md); a muggins call can take no more than a count missed.
    show_points: int = 29
    #: A live stream's event id is a game's revision.
    event_id: int = 2**31 - 1
    #: An integer in a URL (an action's frame, a card or photo number).
    url_number: int = 1_000_000


BOUNDS = NumberBounds()


def limits() -> ServerLimits:
    """The running app's limits."""
    result: ServerLimits = current_app.config["LIMITS"]
    return result


# -- live streams ----------------------------------------------------------------------------
class StreamSlots:
    """How many live streams may be open at once; a slot is taken without waiting."""

    def __init__(self, size: int) -> None:
        self._free = threading.BoundedSemaphore(size)
        self.size = size

    def take(self) -> bool:
        return self._free.acquire(blocking=False)

    def give_back(self) -> None:
        self._free.release()


STREAM_ENDPOINTS = {"api.events"}


def install(app: Flask) -> None:
    """Live streams take a slot for as long as they are open (until the server closes the
    streamed response), and bodies are checked before Flask."""
    slots = app.extensions["cribcam.streams"] = StreamSlots(app.config["LIMITS"].live_streams)

    @app.before_request
    def take_stream_slot() -> None:
        if request.endpoint not in STREAM_ENDPOINTS:
            return
        if not slots.take():
            raise ApiError(f"{slots.size} live streams are open already: close a page and "
                           "reload this one", 503)  # fmt: skip
        g.stream_slot = True

    @app.after_request
    def hold_stream_slot(response: Response) -> Response:
        if g.pop("stream_slot", False):  # the answer holds it (a stream, or an error)
            response.call_on_close(slots.give_back)
        return response

    @app.teardown_request
    def give_back_stream_slot(error: BaseException | None) -> None:
        if g.pop("stream_slot", False):  # no answer was made to hold it
            slots.give_back()

    app.wsgi_app = BodyLimit(app.wsgi_app, app.config["LIMITS"])  # type: ignore[method-assign]


class BodyLimit:
    """WSGI middleware: a body over the limit gets 413 before the app reads any of it, also a
    chunked one (which has no Content-Length: it is read here, up to one byte past the limit,
    so none of it is applied and its rest is never read as the next request)."""

    def __init__(self, app: WsgiApp, limits: ServerLimits) -> None:
        self.app = app
        self.limits = limits

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        limit = self.limits.body_bytes
        length = environ.get("CONTENT_LENGTH") or ""
        if length.isdigit() and int(length) > limit:
            return self._too_large(start_response)
        if "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower():
            body = environ["wsgi.input"].read(limit + 1)
            if len(body) > limit:
                return self._too_large(start_response)
            environ["wsgi.input"] = io.BytesIO(body)  # the app sees it as a sized body
            environ["CONTENT_LENGTH"] = str(len(body))
            del environ["HTTP_TRANSFER_ENCODING"]
            environ.pop("wsgi.input_terminated", None)
        return self.app(environ, start_response)

    def _too_large(self, start_response: StartResponse) -> list[bytes]:
        message = f"the upload is too large: the limit is {self.limits.body_bytes / 2**20:g} MiB"
        body = json.dumps({"error": message}).encode()
        start_response("413 Request Entity Too Large", [
            ("Content-Type", "application/json"),
            ("Content-Length", str(len(body))),
            ("Connection", "close"),
        ])  # fmt: skip
        return [body]


class BoundedInt(IntegerConverter):
    """The `int` URL converter with bounds: 0..`url_number` unless a route says otherwise, so a
    number no game or session can hold (2^63, 10^30) is a 404, not a database overflow."""

    def __init__(
        self,
        map: Map,
        fixed_digits: int = 0,
        min: int | None = None,
        max: int | None = None,
        signed: bool = False,
    ) -> None:
        super().__init__(map, fixed_digits, 0 if min is None else min,
                         BOUNDS.url_number if max is None else max, signed)  # fmt: skip
