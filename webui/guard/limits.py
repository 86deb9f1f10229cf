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
    """WSGI middleware: the body is read here, whole, before the app sees any of it, so that

    - a body over the limit gets 413 before the app reads any of it, also a chunked one (which
      has no Content-Length: it is read up to one byte past the limit, so none of it is
      applied and its rest is never read as the next request);
    - a body that stalls (the connection's deadline, `webui.guard.connections`) gets 408, and
      malformed chunked framing or a body cut short gets 400, each closing the connection
      (read in the app they were a 500, or a connection closed without an answer).

    The app then reads the body from memory, as a sized body."""

    def __init__(self, app: WsgiApp, limits: ServerLimits) -> None:
        self.app = app
        self.limits = limits

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        limit = self.limits.body_bytes
        length = environ.get("CONTENT_LENGTH") or ""
        if length.isdigit() and int(length) > limit:
            return self._too_large(start_response)
        chunked = "chunked" in environ.get("HTTP_TRANSFER_ENCODING", "").lower()
        wanted = limit + 1 if chunked else int(length) if length.isdigit() else 0
        if wanted == 0:
            return self.app(environ, start_response)
        try:
            body = _read(environ["wsgi.input"], wanted)
        except TimeoutError:
            rate = f"{self.limits.body_bytes_per_second / 1024:g} KiB/s"
            slow = f"the request's body came too slowly (at least {rate})"
            return _refuse(start_response, "408 Request Timeout", slow)
        except ValueError as error:  # cheroot's reading of a malformed chunked body
            return _refuse(start_response, "400 Bad Request", f"malformed chunked body: {error}")
        except OSError as error:
            unread = f"the body could not be read: {error}"
            return _refuse(start_response, "400 Bad Request", unread)
        if chunked and len(body) > limit:
            return self._too_large(start_response)
        if not chunked and len(body) < wanted:
            return _refuse(start_response, "400 Bad Request",
                           f"the body ended after {len(body)} of its {wanted} bytes")  # fmt: skip
        environ["wsgi.input"] = io.BytesIO(body)  # the app sees it as a sized body
        environ["CONTENT_LENGTH"] = str(len(body))
        environ.pop("HTTP_TRANSFER_ENCODING", None)
        environ.pop("wsgi.input_terminated", None)
        return self.app(environ, start_response)

    def _too_large(self, start_response: StartResponse) -> list[bytes]:
        message = f"the upload is too large: the limit is {self.limits.body_bytes / 2**20:g} MiB"
        return _refuse(start_response, "413 Request Entity Too Large", message)


def _read(stream: Any, most: int) -> bytes:
    """Up to `most` bytes of `stream`, fewer only where it ends."""
    parts, left = [], most
    while left > 0:
        part = stream.read(min(left, 2**16))
        if not part:
            break
        parts.append(part)
        left -= len(part)
    return b"".join(parts)


def _refuse(start_response: StartResponse, status: str, message: str) -> list[bytes]:
    """A JSON refusal that closes the connection (what is left of the body is never read)."""
    body = json.dumps({"error": message}).encode()
    start_response(status, [
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
