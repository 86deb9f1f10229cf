"""The real server: a subprocess on a free port, killed with SIGKILL mid-game and restarted,
still has every action; and two watchers of one game both see a change within a second."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest


class Server:
    """`cribcam serve` as a subprocess, with its output kept: on `port`, by default any free
    one (`--port 0`); give it `free_port()` to `restart` it at once on the same port."""

    def __init__(self, db: Path, home: Path, extra: list[str] | None = None, port: int = 0) -> None:
        self.db, self.home, self.extra = db, home, list(extra or [])
        self.url = ""
        self.lines: list[str] = []
        self._start(port)

    def _start(self, port: int) -> None:
        env = {**os.environ, "XDG_DATA_HOME": str(self.home), "PYTHONUNBUFFERED": "1"}
        command = [sys.executable, "-m", "cribcam", "serve", "--port", str(port)]
        self.process = subprocess.Popen(
            [*command, "--db", str(self.db), *self.extra],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
        )
        assert self.process.stdout is not None
        deadline = time.monotonic() + 30
        self.url = ""
        self.lines = []
        while time.monotonic() < deadline:
            line = self.process.stdout.readline()
            if not line:
                break
            self.lines.append(line)
            if "serving on " in line:
                self.url = line.split("serving on ", 1)[1].split()[0].rstrip("/")
            if "Ctrl-C" in line:
                break
        assert "://127.0.0.1:" in self.url, f"the server printed no address: {self.lines}"

    def restart(self, free_within: float = 10.0) -> None:
        """SIGKILL the server (no clean shutdown: as a crash or a pulled plug) and start it
        again on the same database, data directory and port, so open pages' addresses hold.

        Waits up to `free_within` seconds for the port. A server started on a port it was
        given listens with SO_REUSEADDR and the port is free at once; with `--port 0` cheroot
        does not set it, and the connections the kill cut hold the port for a minute."""
        url = self.url
        port = int(url.rsplit(":", 1)[1])
        if self.process.poll() is None:
            self.kill()
        assert self.process.returncode == -signal.SIGKILL, self.process.returncode
        if self.process.stdout is not None:
            self.process.stdout.close()
        deadline = time.monotonic() + free_within
        while not _port_free(port):
            assert time.monotonic() < deadline, f"port {port} still taken {free_within} s on"
            time.sleep(0.1)
        self._start(port)
        assert self.url == url, f"restarted on {self.url}, not {url}"

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method=method)
        request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.kill()


def free_port() -> int:
    """A port nothing listens on now, on 127.0.0.1."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _port_free(port: int) -> bool:
    """Whether a server could listen on 127.0.0.1:`port` now (as cheroot binds: SO_REUSEADDR)."""
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "data"


def test_sigkill_mid_game_loses_nothing(tmp_path: Path, home: Path) -> None:
    db = tmp_path / "games.sqlite3"
    server = Server(db, home)
    try:
        assert server.call("GET", "/healthz")[0] == 200
        status, created = server.call("POST", "/api/games", {"players": 2, "first_dealer": 0})
        assert status == 201
        game = "/api/games/" + created["id"]
        for action in [
            {"kind": "deal"},
            {"kind": "discard", "seat": 0},
            {"kind": "discard", "seat": 1},
            {"kind": "starter", "card": "JH"},
            {"kind": "play", "card": "5S"},
        ]:
            assert server.call("POST", game + "/actions", action)[0] == 200
        status, before = server.call("GET", game)
        assert status == 200 and before["scores"] == [2, 0] and before["count"] == 5
        server.kill()
    finally:
        server.stop()
    server = Server(db, home)
    try:
        status, after = server.call("GET", game)
        assert status == 200
        assert after == before
        assert server.call("POST", game + "/actions", {"kind": "play", "card": "KS"})[0] == 200
        assert server.call("GET", game)[1]["count"] == 15
    finally:
        server.stop()


def test_two_watchers_see_a_change_within_a_second(tmp_path: Path, home: Path) -> None:
    server = Server(tmp_path / "games.sqlite3", home)
    try:
        game_id = server.call("POST", "/api/games", {"players": 2})[1]["id"]
        seen: dict[int, float] = {}

        def watch(number: int) -> None:
            url = f"{server.url}/api/games/{game_id}/events"
            with urllib.request.urlopen(url, timeout=10) as stream:
                for raw in stream:
                    line = raw.decode().strip()
                    if line.startswith("data: ") and json.loads(line[6:])["dealer"] == 1:
                        seen[number] = time.monotonic()
                        return

        watchers = [threading.Thread(target=watch, args=(n,), daemon=True) for n in range(2)]
        for watcher in watchers:
            watcher.start()
        time.sleep(0.5)  # both streams open and have sent the first state
        acted = time.monotonic()
        assert (
            server.call("POST", f"/api/games/{game_id}/actions", {"kind": "dealer", "seat": 1})[0]
            == 200
        )
        for watcher in watchers:
            watcher.join(timeout=5)
        assert sorted(seen) == [0, 1]
        assert max(seen.values()) - acted < 1.0
    finally:
        server.stop()
