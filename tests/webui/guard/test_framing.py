"""Issue #65: HTTP framing a client gets wrong is its error, not the server's: malformed chunked
framing is 400, a body that stalls 408 (as API.md says), a body cut short 400; each answer
closes the connection, and what follows is never read as a request. Raw sockets to 127.0.0.1;
every wait is a socket read bounded by the server's own (shortened) deadlines."""

from __future__ import annotations

import dataclasses
import socket
from pathlib import Path

import pytest

from tests.webui.guard.test_server_limits import WAIT, closing_answer, parse, read_all, running
from webui.guard.limits import LIMITS

HEAD = (b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        b"Content-Type: application/json\r\n")  # fmt: skip
CHUNKED = HEAD + b"Transfer-Encoding: chunked\r\n\r\n"
#: Follows each malformed body: had the server read it as a request, a game would be created.
SMUGGLED = b"POST /api/games HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" \
           b"Content-Length: 14\r\n\r\n{\"players\": 2}"  # fmt: skip
#: Short deadlines, so that a stalled body is answered in about a second.
QUICK = dataclasses.replace(LIMITS, head_seconds=1.0, idle_seconds=2.0,
                            body_bytes_per_second=1024)  # fmt: skip


@pytest.mark.parametrize(
    "body",
    [b"zz\r\nabc\r\n0\r\n\r\n",  # a chunk size that is no hex number
     b"3\r\nabcXY0\r\n\r\n",  # a chunk not ended by CRLF
     b"-5\r\nabcde\r\n0\r\n\r\n"],  # a negative size
)  # fmt: skip
def test_malformed_chunked_framing_is_400_and_closes(tmp_path: Path, body: bytes) -> None:
    with running(tmp_path, QUICK) as server:
        with server.connect() as sock:
            sock.sendall(CHUNKED + body + SMUGGLED)
            answer = read_all(sock)  # ends: the server closed the connection
        status, error = closing_answer(answer)
        assert status == 400 and "chunked" in error["error"]
        assert server.get("/api/games")[1] == {"games": []}


@pytest.mark.parametrize(
    "head", [HEAD + b'Content-Length: 100\r\n\r\n{"pla', CHUNKED + b'5\r\n{"pla']
)
def test_a_stalled_body_is_408_and_closes(tmp_path: Path, head: bytes) -> None:
    with running(tmp_path, QUICK) as server:
        with server.connect() as sock:
            sock.settimeout(WAIT)  # the answer comes at the server's deadline, well before
            sock.sendall(head)  # ... and the rest of the body never comes
            answer = read_all(sock)
        status, error = closing_answer(answer)
        assert status == 408 and "too slowly" in error["error"]
        assert server.get("/api/games")[1] == {"games": []}


def test_a_body_cut_short_is_400(tmp_path: Path) -> None:
    with running(tmp_path, QUICK) as server:
        with server.connect() as sock:
            sock.sendall(HEAD + b'Content-Length: 100\r\n\r\n{"players": 2}')
            sock.shutdown(socket.SHUT_WR)  # the client says it sent everything
            status, error = parse(read_all(sock))
        assert status == 400 and "ended after 14 of its 100 bytes" in error["error"]
        assert server.get("/api/games")[1] == {"games": []}


def test_a_whole_body_is_served_as_before(tmp_path: Path) -> None:
    with running(tmp_path, QUICK) as server, server.connect() as sock:
        sock.sendall(SMUGGLED.replace(b"\r\n\r\n", b"\r\nConnection: close\r\n\r\n"))
        assert parse(read_all(sock))[0] == 201
