"""Serving the app on cheroot: a pure-Python, threaded WSGI server that also speaks HTTPS
(waitress, which bounds slow clients by itself, has no TLS, and `--lan` needs it).

Each open page holds one worker thread for its live-update stream, so the pool has a thread for
every live-stream slot (`ServerLimits.live_streams`) beyond the ordinary requests' threads:
open pages never starve other requests. `webui.guard.connections` bounds slow and greedy clients.
"""

from __future__ import annotations

import errno
import signal
import socket
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import TextIO

from cheroot import wsgi
from flask import Flask

from webui.guard.connections import ClientCounter, GuardedConnection, WorkerTLS
from webui.guard.limits import ServerLimits


class PortInUseError(OSError):
    """Another program (often cribcam itself) already listens on `host`:`port`."""

    def __init__(self, host: str, port: int) -> None:
        super().__init__(errno.EADDRINUSE, f"{host}:{port} is already in use")
        self.host, self.port = host, port


class Server(wsgi.Server):
    """cheroot's WSGI server with the app's limits: threads, backlog, idle timeout,
    keep-alive connections, and per-client connections (`webui.guard.connections`)."""

    ConnectionClass = GuardedConnection

    def __init__(self, bind: tuple[str, int], app: Flask, limits: ServerLimits) -> None:
        super().__init__(bind, app, numthreads=limits.threads, server_name="cribcam",
                         request_queue_size=limits.backlog,
                         timeout=limits.idle_seconds)  # type: ignore[arg-type]  # fmt: skip
        self.limits = limits
        self.clients = ClientCounter(limits.connections_per_address)
        self.keep_alive_conn_limit = limits.keep_alive_connections
        self.max_request_header_size = limits.header_bytes
        self.bind_errors: list[OSError] = []

    def bind(self, family: int, type: int, proto: int = 0) -> None:
        """Bind as cheroot does, keeping the error: cheroot raises a new one without its errno."""
        try:
            super().bind(family, type, proto)
        except OSError as error:
            self.bind_errors.append(error)
            raise

    def prepare(self) -> None:
        """Bind and listen; a port in use is `PortInUseError`."""
        self.bind_errors = []
        try:
            super().prepare()
        except OSError as error:
            if any(e.errno == errno.EADDRINUSE for e in self.bind_errors):
                host, port = self.bind_addr[:2]
                raise PortInUseError(str(host), int(port)) from error
            raise


def check_port(host: str, port: int) -> None:
    """`PortInUseError` when `host`:`port` is taken now, found as the server will bind it
    (SO_REUSEADDR, the first address that binds): before the app loads its models. Any other
    failure is left for the server's own bind to report."""
    if port == 0:
        return
    try:
        found = socket.getaddrinfo(host or None, port, socket.AF_UNSPEC, socket.SOCK_STREAM, 0,
                                   socket.AI_PASSIVE)  # fmt: skip
    except socket.gaierror:
        return
    in_use = False
    for family, kind, proto, _, address in found:
        with socket.socket(family, kind, proto) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                probe.bind(address)
            except OSError as error:
                in_use = in_use or error.errno == errno.EADDRINUSE
                continue
            return
    if in_use:
        raise PortInUseError(host, port)


def make_server(
    app: Flask,
    host: str,
    port: int,
    tls: tuple[Path, Path] | None = None,
    limits: ServerLimits | None = None,
) -> Server:
    """The server for `app` on `host`:`port`, HTTPS with `tls` (cert, key); `limits`: the
    app's own unless given."""
    server = Server((host, port), app, limits or app.config["LIMITS"])
    if tls is not None:
        server.ssl_adapter = WorkerTLS(str(tls[0]), str(tls[1]))
    return server


def _interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def address_of(server: wsgi.Server, tls: bool) -> str:
    host, port = server.bind_addr[:2]
    shown = f"[{host}]" if ":" in host else host
    return f"{'https' if tls else 'http'}://{shown}:{port}/"


def serve(
    server: wsgi.Server,
    announce: Callable[[str], list[str]],
    tls: bool,
    out: TextIO = sys.stdout,
    before_stop: Callable[[], None] | None = None,
) -> None:
    """Bind, print where to connect (the real port when 0 was asked), serve until Ctrl-C or
    SIGTERM (both stop cleanly, so the caller can stop the camera thread after).
    `before_stop` runs first on the way out (to end the live streams the workers hold)."""
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _interrupt)
    server.prepare()
    for line in announce(address_of(server, tls)):
        print(line, file=out, flush=True)
    try:
        server.serve()
    except KeyboardInterrupt:
        pass
    finally:
        if before_stop is not None:
            before_stop()
        server.stop()
