"""Issue #51 on the real server (cheroot, in this process, on 127.0.0.1 only): chunked bodies
over the limit, oversized headers, slow clients, greedy addresses, open live streams and the
listen backlog. Other loopback addresses (127.0.0.2, ...) stand for other devices: every
socket here stays on loopback.

Waits are bounded (socket timeouts, queue timeouts) and assert no speed: how fast the server
answers is the benchmark's business (`benchmarks/bench_server.py`)."""

from __future__ import annotations

import dataclasses
import json
import queue
import socket
import ssl
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from webui import create_app
from webui.guard.limits import LIMITS, ServerLimits
from webui.guard.server import Server, make_server
from webui.guard.tls import ensure_certificate

#: How long a test waits for an answer that must come: a bound against a hang.
WAIT = 30.0


@dataclass
class Running:
    server: Server
    port: int
    tls: bool

    @property
    def url(self) -> str:
        return f"{'https' if self.tls else 'http'}://127.0.0.1:{self.port}"

    def connect(self, source: str = "127.0.0.1", handshake: bool = True) -> socket.socket:
        """A connection from `source` (a loopback address), through TLS when the server
        speaks it."""
        sock = socket.socket()
        sock.bind((source, 0))
        sock.settimeout(WAIT)
        sock.connect(("127.0.0.1", self.port))
        if self.tls and handshake:
            return client_tls().wrap_socket(sock)
        return sock

    def get(self, path: str = "/healthz", source: str = "127.0.0.1") -> tuple[int, Any]:
        with self.connect(source) as sock:
            sock.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
                         .encode())  # fmt: skip
            return parse(read_all(sock))


def client_tls() -> ssl.SSLContext:
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE  # the test's own self-signed certificate
    return context


def read_all(sock: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection."""
    data = b""
    while chunk := sock.recv(65536):
        data += chunk
    return data


def parse(answer: bytes) -> tuple[int, Any]:
    """Status and JSON body of one HTTP answer."""
    head, _, body = answer.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1])
    if b"chunked" in head.lower():
        body = body.split(b"\r\n", 1)[1].rsplit(b"\r\n0\r\n", 1)[0]
    return status, json.loads(body) if body.strip() else None


def closing_answer(answer: bytes) -> tuple[int, Any]:
    """Status and JSON body of the only answer on a connection the server then closed."""
    assert answer.count(b"HTTP/1.1 ") == 1, answer[:500]
    assert b"Connection: close" in answer
    return parse(answer)


@contextmanager
def running(
    tmp_path: Path, limits: ServerLimits = LIMITS, tls: bool = False, **config: Any
) -> Iterator[Running]:
    app = create_app({"DATABASE": tmp_path / "games.sqlite3", "LIMITS": limits, **config})
    certificate = ensure_certificate(tmp_path / "tls") if tls else None
    server = make_server(app, "127.0.0.1", 0, certificate)
    server.prepare()
    thread = threading.Thread(target=server.serve, daemon=True)
    thread.start()
    try:
        yield Running(server, server.bind_addr[1], tls)
    finally:
        app.extensions["cribcam.broker"].close()
        server.stop()
        thread.join(WAIT)


# -- bodies and headers -----------------------------------------------------------------------
def test_a_chunked_body_over_the_limit_is_413_and_its_rest_is_never_a_request(
    tmp_path: Path,
) -> None:
    """The first `body_bytes` of the body are a valid game, its rest a smuggled request: the
    server must apply neither."""
    limits = dataclasses.replace(LIMITS, body_bytes=2**20, json_bytes=2**20)
    with running(tmp_path, limits) as server:
        game = b'{"players": 2, "names": ["Ann", "Bob"]}'
        body = game + b" " * (limits.body_bytes - len(game))
        body += b"GET /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        with server.connect() as sock:
            sock.sendall(
                b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
            )
            for start in range(0, len(body), 65536):
                chunk = body[start : start + 65536]
                sock.sendall(b"%x\r\n%s\r\n" % (len(chunk), chunk))
            sock.sendall(b"0\r\n\r\n")
            answer = read_all(sock)  # ends: the server closed the connection
        status, error = closing_answer(answer)
        assert status == 413 and "too large" in error["error"]
        assert server.get("/api/games")[1] == {"games": []}


def test_a_chunked_body_within_the_limit_is_served(tmp_path: Path) -> None:
    with running(tmp_path) as server, server.connect() as sock:
        body = b'{"players": 2}'
        sock.sendall(b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                     b"Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
                     b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body))  # fmt: skip
        assert parse(read_all(sock))[0] == 201


def test_a_content_length_over_the_limit_is_413_before_the_body(tmp_path: Path) -> None:
    with running(tmp_path) as server, server.connect() as sock:
        sock.sendall(b"POST /api/games/x/undo HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                     b"Content-Length: %d\r\n\r\n" % (LIMITS.body_bytes + 1))  # fmt: skip
        status, error = parse(read_all(sock))  # no body sent: answered and closed at once
        assert status == 413 and "8 MiB" in error["error"]


def send_until_answered(sock: socket.socket, head: bytes, filler: bytes, most: int) -> bytes:
    """Send `head`, then `filler` up to `most` bytes, and return the server's answer: it may
    answer (and close) before everything is sent."""
    sock.sendall(head)
    try:
        for _ in range(most // len(filler)):
            sock.sendall(filler)
    except OSError:  # the server answered and closed: it read no more
        pass
    return read_all(sock)


@pytest.mark.parametrize("tls", [False, True], ids=["loopback", "lan"])
def test_a_huge_header_is_431_without_reading_it(tmp_path: Path, tls: bool) -> None:
    """With --lan (TLS, pairing) the header is refused before pairing is asked for."""
    with running(tmp_path, tls=tls, PAIRING_CODE="123456" if tls else None) as server:
        with server.connect("127.0.0.2") as sock:
            answer = send_until_answered(sock, b"GET /api/games HTTP/1.1\r\nHost: x\r\nX-Big: ",
                                         b"a" * 65536, 64 * 2**20)  # fmt: skip
        status, error = parse(answer)
        assert status == 431 and "16384 bytes" in error["error"]
        assert server.get()[0] == 200


def test_too_many_headers_are_431(tmp_path: Path) -> None:
    with running(tmp_path) as server:

        def ask(count: int) -> tuple[int, Any]:
            with server.connect() as sock:
                lines = b"".join(b"X-Item-%d: 1\r\n" % n for n in range(count))
                sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                             + lines + b"\r\n")  # fmt: skip
                return parse(read_all(sock))

        status, error = ask(LIMITS.header_count)
        assert status == 431 and "more than 64 header lines" in error["error"]
        assert ask(LIMITS.header_count - 2)[0] == 200  # Host and Connection count too


# -- slow and many clients --------------------------------------------------------------------
SLOW = dataclasses.replace(LIMITS, head_seconds=2.0, idle_seconds=WAIT, request_threads=4,
                           live_streams=2, connections_per_address=4)  # fmt: skip


def trickle(sock: socket.socket, tls: bool, lines: int) -> str:
    """A slow client: a request line, then one header line at a time, each after waiting a
    moment for an answer; what the server did: "408", "503" or "closed"."""
    try:
        if tls:
            sock = client_tls().wrap_socket(sock)
        sock.sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        for number in range(lines):
            sock.settimeout(0.25)
            try:
                answer = sock.recv(65536)
            except (TimeoutError, ssl.SSLError):  # nothing yet: one more line
                sock.sendall(b"X-Slow-%d: 1\r\n" % number)
                continue
            sock.settimeout(WAIT)
            answer += read_all(sock)
            return str(parse(answer)[0]) if answer else "closed"
    except OSError:  # the server closed it (a TLS handshake it refused, or a reset)
        return "closed"
    finally:
        sock.close()
    return f"no answer after {lines} header lines"


@pytest.mark.parametrize("tls", [False, True], ids=["loopback", "lan"])
def test_slow_clients_time_out_and_cannot_take_every_thread(tmp_path: Path, tls: bool) -> None:
    """40 connections from one address (another device) trickle their headers: four are
    admitted and cut off with 408 once their head's time is up (a per-read timeout alone
    would never end them), the rest are closed at once, and others are served meanwhile."""
    with running(tmp_path, SLOW, tls=tls, PAIRING_CODE="123456" if tls else None) as server:
        slow = [server.connect("127.0.0.2", handshake=False) for _ in range(40)]
        results: queue.Queue[str] = queue.Queue()
        for sock in slow:
            threading.Thread(target=lambda s=sock: results.put(trickle(s, tls, 400)),
                             daemon=True).start()  # fmt: skip
        assert server.get()[0] == 200  # served while the slow ones hold their threads
        outcomes = sorted(results.get(timeout=WAIT * 4) for _ in slow)
        admitted = [o for o in outcomes if o == "408"]
        assert len(admitted) == SLOW.connections_per_address, outcomes
        assert set(outcomes) - {"408"} <= {"503", "closed"}, outcomes
        assert server.server.clients.wait_gone("127.0.0.2", WAIT)  # all let go: none leaks
        assert server.get(source="127.0.0.2")[0] == 200


def test_a_connection_that_never_finishes_its_tls_handshake_stops_nobody(
    tmp_path: Path,
) -> None:
    with running(tmp_path, SLOW, tls=True) as server:
        silent = [server.connect(f"127.0.0.{3 + n}", handshake=False) for n in range(3)]
        assert server.get()[0] == 200  # accepted while three handshakes hang
        for sock in silent:
            assert sock.recv(100) == b""  # closed when its head's time is up
            sock.close()


def test_connections_per_address_are_capped(tmp_path: Path) -> None:
    with running(tmp_path, SLOW) as server:
        held = [server.connect("127.0.0.5") for _ in range(SLOW.connections_per_address)]
        for sock in held:
            sock.sendall(b"GET /healthz HTTP/1.1\r\n")  # each holds its connection open
        with server.connect("127.0.0.5") as extra:
            status, error = parse(read_all(extra))
        assert status == 503 and "too many connections from 127.0.0.5" in error["error"]
        assert server.get(source="127.0.0.6")[0] == 200  # another device is served
        for sock in held:
            sock.close()
        assert server.server.clients.wait_gone("127.0.0.5", WAIT)  # forgotten once closed
        assert server.get(source="127.0.0.5")[0] == 200
        assert server.server.clients.wait_gone("127.0.0.5", WAIT)


def open_stream(url: str, heard: queue.Queue[Any]) -> None:
    """Open a live stream and report its first state (or its refusal), then keep reading."""
    try:
        with urllib.request.urlopen(url, timeout=WAIT) as stream:
            for raw in stream:
                if raw.startswith(b"data: "):
                    heard.put("open")
    except urllib.error.HTTPError as error:
        heard.put(error.code)
    except OSError:
        pass  # the server stopped


def test_open_live_streams_do_not_starve_other_requests(tmp_path: Path) -> None:
    limits = dataclasses.replace(LIMITS, request_threads=2, live_streams=6)
    with running(tmp_path, limits, SSE_MAX_SECONDS=WAIT) as server:
        game = json.loads(urllib.request.urlopen(urllib.request.Request(
            server.url + "/api/games", data=b'{"players": 2}', method="POST",
            headers={"Content-Type": "application/json"}), timeout=WAIT).read())["id"]  # fmt: skip
        heard: queue.Queue[Any] = queue.Queue()
        url = f"{server.url}/api/games/{game}/events"
        for _ in range(limits.live_streams + 1):
            threading.Thread(target=open_stream, args=(url, heard), daemon=True).start()
        got = sorted((heard.get(timeout=WAIT) for _ in range(limits.live_streams + 1)), key=str)
        assert got == [503] + ["open"] * limits.live_streams
        for _ in range(10):  # every request thread is still free for the rest
            assert server.get()[0] == 200


# -- the listen backlog -------------------------------------------------------------------------
def test_the_backlog_holds_a_burst_of_connections(tmp_path: Path) -> None:
    """Before the server accepts any of them, 128 connections all complete: the kernel queues
    them (cheroot's default backlog of 5 drops the 7th's handshake)."""
    app = create_app({"DATABASE": tmp_path / "games.sqlite3"})
    server = make_server(app, "127.0.0.1", 0)
    server.prepare()  # listening, not accepting
    try:
        burst = [socket.create_connection(server.bind_addr[:2], timeout=5) for _ in range(128)]
        for sock in burst:
            sock.close()
    finally:
        server.stop()
    assert server.request_queue_size == LIMITS.backlog >= 128
