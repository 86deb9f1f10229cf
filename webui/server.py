"""Serving the app on cheroot: a pure-Python, threaded WSGI server that also speaks HTTPS.

Each open page holds one worker thread for its live-update stream, so the pool is sized for a
table's worth of phones and tablets beyond the ordinary requests.
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from types import FrameType
from typing import TextIO

from cheroot import wsgi
from cheroot.ssl.builtin import BuiltinSSLAdapter
from flask import Flask

THREADS = 32


def make_server(
    app: Flask, host: str, port: int, tls: tuple[Path, Path] | None = None
) -> wsgi.Server:
    server = wsgi.Server((host, port), app, numthreads=THREADS, server_name="cribcam")
    if tls is not None:
        server.ssl_adapter = BuiltinSSLAdapter(str(tls[0]), str(tls[1]))
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
