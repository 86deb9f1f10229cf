"""The real server: a subprocess on a free port, killed with SIGKILL mid-game and restarted,
still has every action; and two watchers of one game both see a change on their open streams
(how soon is a benchmark's business: a test asserts no wall-clock time)."""

from __future__ import annotations

import json
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import urllib.request
from pathlib import Path
from typing import IO, Any

import pytest

#: How long the server may print nothing while starting: a bound against a hang, not a speed
#: target (imports on a busy 2-core machine take seconds).
START_SECONDS = 60.0


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
        self.url = ""
        self.lines = []
        printed: queue.Queue[str | None] = queue.Queue()
        self._output = threading.Thread(
            target=_keep_output, args=(self.process.stdout, self.lines, printed), daemon=True
        )
        self._output.start()
        while True:  # until it says it listens ("press Ctrl-C to stop") or its output ends
            try:
                line = printed.get(timeout=START_SECONDS)
            except queue.Empty:
                raise AssertionError(f"the server went silent starting: {self.lines}") from None
            if line is None:
                break
            if "serving on " in line:
                self.url = line.split("serving on ", 1)[1].split()[0].rstrip("/")
            if "Ctrl-C" in line:
                break
        assert "://127.0.0.1:" in self.url, f"the server printed no address: {self.lines}"

    def restart(self) -> None:
        """SIGKILL the server (no clean shutdown: as a crash or a pulled plug) and start it
        again on the same database, data directory and port, so open pages' addresses hold.

        A server started on a port it was given listens with SO_REUSEADDR, and its port is
        free once the killed process is reaped (`kill` waits for that): nothing to wait for.
        With `--port 0` cheroot does not set it, and the connections the kill cut hold the
        port for a minute: such a server cannot be restarted on its port."""
        url = self.url
        port = int(url.rsplit(":", 1)[1])
        if self.process.poll() is None:
            self.kill()
        assert self.process.returncode == -signal.SIGKILL, self.process.returncode
        self._output.join(START_SECONDS)  # the output ends with the process
        if self.process.stdout is not None:
            self.process.stdout.close()
        assert _port_free(port), f"port {port} is still taken after the server was killed"
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


def _keep_output(stdout: IO[str], lines: list[str], printed: queue.Queue[str | None]) -> None:
    """Keep the server's output (so its pipe never fills) and hand each line on; None at the
    end of it."""
    for line in stdout:
        lines.append(line)
        printed.put(line)
    printed.put(None)


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


@pytest.mark.slow  # kills and restarts a server process
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


def test_two_watchers_both_see_a_change(tmp_path: Path, home: Path) -> None:
    """Both streams are open (each has sent the game's first state) before the change, and
    both send it. How soon is not asserted here: these machines are shared and noisy."""
    server = Server(tmp_path / "games.sqlite3", home)
    try:
        game_id = server.call("POST", "/api/games", {"players": 2})[1]["id"]
        heard: queue.Queue[tuple[int, str]] = queue.Queue()

        def watch(number: int) -> None:
            url = f"{server.url}/api/games/{game_id}/events"
            try:
                with urllib.request.urlopen(url, timeout=30) as stream:
                    for raw in stream:
                        line = raw.decode().strip()
                        if line.startswith("data: "):
                            changed = json.loads(line[6:])["dealer"] == 1
                            heard.put((number, "changed" if changed else "open"))
                            if changed:
                                return
                heard.put((number, "ended"))
            except Exception as error:
                heard.put((number, f"failed: {error!r}"))

        def next_two() -> list[tuple[int, str]]:
            try:
                return sorted(heard.get(timeout=30) for _ in range(2))
            except queue.Empty:
                raise AssertionError("a watcher heard nothing for 30 s") from None

        for number in range(2):
            threading.Thread(target=watch, args=(number,), daemon=True).start()
        assert next_two() == [(0, "open"), (1, "open")]  # both streams sent the first state
        assert (
            server.call("POST", f"/api/games/{game_id}/actions", {"kind": "dealer", "seat": 1})[0]
            == 200
        )
        assert next_two() == [(0, "changed"), (1, "changed")]
    finally:
        server.stop()
