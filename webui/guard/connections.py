"""cheroot's connections, hardened against slow and greedy clients (`ServerLimits`).

cheroot hands a connection to a worker thread as soon as it is accepted (and again whenever a
kept-alive one has data), and the worker reads the request with only a per-read socket timeout:
a client that sends a header line every few seconds holds a thread for ever, and one that never
finishes its TLS handshake holds the accepting thread itself. Here:

- every read of a request is bound by a deadline: its TLS handshake, request line and headers
  must arrive within `head_seconds`, its body at `body_bytes_per_second` at least; a client
  too slow gets 408 and its connection is closed;
- the TLS handshake happens on the worker, under that deadline, not on the accepting thread;
- one client address may hold `connections_per_address` connections; more are closed at once;
- headers are bounded in bytes and in number (431), and the server's own refusals are JSON.
"""

from __future__ import annotations

import io
import json
import math
import re
import socket
import ssl
import threading
import time
from typing import Any

from cheroot import errors
from cheroot.makefile import MakeFile, StreamReader
from cheroot.server import ChunkedRFile, HTTPConnection, HTTPRequest, SizeCheckWrapper
from cheroot.ssl.builtin import BuiltinSSLAdapter

from webui.guard.limits import ServerLimits


class Deadline:
    """When the request being read must have arrived (one per connection, used by the one
    worker that holds it)."""

    def __init__(self) -> None:
        self.at = math.inf

    def start(self, seconds: float) -> None:
        self.at = time.monotonic() + seconds

    def left(self) -> float:
        return self.at - time.monotonic()


class _DeadlineSocketIO(socket.SocketIO):
    """A socket's raw reads, each given only the time left before the deadline."""

    def __init__(self, sock: socket.socket, deadline: Deadline, idle: float) -> None:
        super().__init__(sock, "rb")
        self._socket = sock
        self._deadline = deadline
        self._idle = idle

    def readinto(self, b: Any) -> int | None:
        left = self._deadline.left()
        if left <= 0:
            raise TimeoutError("timed out")  # cheroot answers 408 to this message
        self._socket.settimeout(min(left, self._idle))
        try:
            return super().readinto(b)
        finally:  # writes (a live stream's, for minutes) keep the idle timeout, not what is left
            self._socket.settimeout(self._idle)


class _DeadlineReader(StreamReader):
    """cheroot's buffered socket reader over `_DeadlineSocketIO`."""

    def __init__(self, sock: socket.socket, deadline: Deadline, idle: float, size: int) -> None:
        super(StreamReader, self).__init__(_DeadlineSocketIO(sock, deadline, idle), size)
        self.bytes_read = 0


class TooManyHeaders(Exception):
    pass


class _CountedLines:
    """A header reader's `readline` that refuses more than `most` lines."""

    def __init__(self, rfile: Any, most: int) -> None:
        self.rfile = rfile
        self.left = most

    def readline(self, size: int | None = None) -> bytes:
        self.left -= 1
        if self.left < 0:
            raise TooManyHeaders
        line: bytes = self.rfile.readline(size)
        return line


_CHUNK_SIZE = re.compile(rb"[0-9A-Fa-f]{1,15}")


class StrictChunkedRFile(ChunkedRFile):
    """cheroot's chunked body reader, its chunk sizes read strictly: hex digits only (cheroot
    reads `-5` as the last chunk, and what follows as the next request). A bad size or a chunk
    not ended by CRLF is a ValueError, which `webui.guard.limits.BodyLimit` answers 400."""

    def _fetch(self) -> None:
        if self.closed:
            return
        line = self.rfile.readline()
        self.bytes_read += len(line)
        size = line.strip().split(b";", 1)[0].strip()
        if not _CHUNK_SIZE.fullmatch(size):
            raise ValueError(f"bad chunk size {size[:20]!r}")
        chunk_size = int(size, 16)
        if chunk_size == 0:
            self.closed = True
            return
        if self.maxlen and self.bytes_read + chunk_size > self.maxlen:
            raise OSError("Request Entity Too Large")
        chunk = self.rfile.read(chunk_size)
        self.bytes_read += len(chunk)
        self.buffer += chunk
        if self.rfile.read(2) != b"\r\n":
            raise ValueError("a chunk does not end with CRLF where its size says")


class GuardedRequest(HTTPRequest):
    """A request whose head is bounded in bytes, lines and time; refusals are JSON."""

    server: Any
    conn: GuardedConnection

    def parse_request(self) -> None:
        limits: ServerLimits = self.server.limits
        self.rfile = SizeCheckWrapper(self.conn.rfile, limits.header_bytes)
        try:
            if not self.read_request_line():  # type: ignore[no-untyped-call]
                return
        except errors.MaxSizeExceeded:
            too_long = f"the request line is over {limits.header_bytes} bytes"
            self.simple_response("414 Request-URI Too Long", too_long)
            return
        sized = self.rfile
        self.rfile = _CountedLines(sized, limits.header_count + 1)  # + the blank line
        try:
            if not self.read_request_headers():  # type: ignore[no-untyped-call]
                return
        except errors.MaxSizeExceeded:
            self.simple_response("431 Request Header Fields Too Large",
                                 f"the headers are over {limits.header_bytes} bytes")  # fmt: skip
            return
        except TooManyHeaders:
            self.simple_response("431 Request Header Fields Too Large",
                                 f"more than {limits.header_count} header lines")  # fmt: skip
            return
        finally:
            self.rfile = sized
        length = self.inheaders.get(b"Content-Length", b"0")
        body = limits.body_bytes if self.chunked_read else int(length) if length.isdigit() else 0
        self.conn.deadline.start(limits.body_seconds(min(body, limits.body_bytes)))
        self.ready = True

    def respond(self) -> None:
        """cheroot's, a chunked body read by `StrictChunkedRFile`."""
        if not self.chunked_read:
            super().respond()
            return
        self.rfile = StrictChunkedRFile(self.conn.rfile, self.server.max_request_body_size)
        self.server.gateway(self).respond()
        if self.ready:
            self.ensure_headers_sent()
        if self.chunked_write:
            self.conn.wfile.write(b"0\r\n\r\n")

    def send_headers(self) -> None:
        """An answer that says `Connection: close` closes the connection (the app's refusal of a
        body it did not read whole: what is left of it is never read as a request)."""
        if any(key.lower() == b"connection" and value.lower() == b"close"
               for key, value in self.outheaders):  # fmt: skip
            self.close_connection = True
        super().send_headers()

    def simple_response(self, status: Any, msg: Any = "") -> None:
        """cheroot's own answers (400, 408, 413, 414, 431, 503) as the API's: JSON naming the
        problem; the connection closes after any of them."""
        status = str(status)
        text = msg.decode("latin-1") if isinstance(msg, bytes) else str(msg)
        body = json.dumps({"error": text or status[4:].lower()}).encode()
        self.close_connection = True
        head = (f"{self.server.protocol} {status}\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n")  # fmt: skip
        try:
            self.conn.wfile.write(head.encode("latin-1") + body)
        except OSError as error:
            if error.args[0] not in errors.socket_errors_to_ignore:
                raise


class ClientCounter:
    """Open connections per client address, at most `most` each (thread-safe; an address
    leaves the table with its last connection)."""

    def __init__(self, most: int) -> None:
        self.most = most
        self._changed = threading.Condition()
        self._open: dict[str, int] = {}

    def admit(self, address: str) -> bool:
        with self._changed:
            count = self._open.get(address, 0)
            if count >= self.most:
                return False
            self._open[address] = count + 1
            return True

    def release(self, address: str) -> None:
        with self._changed:
            count = self._open.get(address, 0) - 1
            if count > 0:
                self._open[address] = count
            else:
                self._open.pop(address, None)
            self._changed.notify_all()

    def __len__(self) -> int:
        return len(self._open)

    def wait_gone(self, address: str, timeout: float) -> bool:
        """Wait until `address` holds no connection; whether it came to that in time."""
        with self._changed:
            return self._changed.wait_for(lambda: address not in self._open, timeout)


class GuardedConnection(HTTPConnection):
    """A connection admitted per client address, read under a deadline, its TLS handshake
    made by the worker."""

    RequestHandlerClass = GuardedRequest
    server: Any

    def __init__(self, server: Any, sock: Any, makefile: Any = MakeFile) -> None:
        limits: ServerLimits = server.limits
        self.deadline = Deadline()

        def files(sock: Any, mode: str = "r", size: int = io.DEFAULT_BUFFER_SIZE) -> Any:
            if "r" in mode:
                return _DeadlineReader(sock, self.deadline, limits.idle_seconds, size)
            return makefile(sock, mode, size)

        super().__init__(server, sock, files)
        self._handshaken = not isinstance(sock, ssl.SSLSocket)
        try:
            self._address = str(sock.getpeername()[0])
        except (OSError, IndexError):
            self._address = ""
        self._admitted = server.clients.admit(self._address)
        self._released = False

    def communicate(self) -> bool:
        if not self._admitted:  # over this address's connections: refused and closed at once
            if self._handshaken:  # plain HTTP: say why (over TLS that would take a handshake)
                self.RequestHandlerClass(self.server, self).simple_response(
                    "503 Service Unavailable",
                    f"too many connections from {self._address}: at most "
                    f"{self.server.clients.most}",
                )
            return False
        limits: ServerLimits = self.server.limits
        self.deadline.start(limits.head_seconds)
        if not self._handshaken and not self._handshake():
            return False
        return bool(super().communicate())  # type: ignore[no-untyped-call]

    def _handshake(self) -> bool:
        sock: ssl.SSLSocket = self.socket
        try:
            sock.settimeout(max(self.deadline.left(), 0.001))  # a deadline for the whole of it
            sock.do_handshake()
            sock.settimeout(self.server.limits.idle_seconds)
            self.ssl_env = self.server.ssl_adapter.get_environ(sock)
        except (OSError, ValueError):  # ssl.SSLError and timeouts are OSErrors
            return False
        self._handshaken = True
        return True

    def close(self) -> None:
        try:
            super().close()
        finally:
            if self._admitted and not self._released:
                self._released = True
                self.server.clients.release(self._address)


class WorkerTLS(BuiltinSSLAdapter):
    """cheroot's TLS, the handshake left to the worker (`GuardedConnection`): the accepting
    thread only wraps the socket, so a client that never finishes its handshake cannot stop
    the server accepting others."""

    def wrap(self, sock: Any) -> tuple[ssl.SSLSocket, dict[str, Any]]:
        wrapped = self.context.wrap_socket(sock, do_handshake_on_connect=False, server_side=True)
        return wrapped, {"wsgi.url_scheme": "https", "HTTPS": "on"}
