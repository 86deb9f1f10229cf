"""The server under a table's worth of devices and more: requests/s, p50 and p99 latency with
40 clients and 40 open live streams, and every error counted.

Run from the repository root: ``python benchmarks/bench_server.py [--clients 40] [--streams 40]
[--seconds 20] [--think 0.1]``. It starts ``cribcam serve`` on a free loopback port with a
fresh database, opens the live streams (each game's page, held open all along), then runs the
clients: each is a device with a keep-alive connection that reads its table's game (as the page
does after a change), asks /healthz, and corrects a score by one point and back (a write that
wakes that game's streams), waiting `--think` seconds between requests. Every device, stream or
client, connects from its own loopback address (127.0.0.x), as devices at a table do: the
server caps connections per address. Nothing leaves this machine.

The target (issue #51): no errors, p99 under 300 ms, on a 2-core machine.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import queue
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
P99_TARGET_MS = 300.0
GAMES = 8  # tables: the clients and streams are spread over them


@dataclass
class Tally:
    latencies: list[float] = field(default_factory=list)
    by_kind: dict[str, list[float]] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, kind: str, seconds: float) -> None:
        with self.lock:
            self.latencies.append(seconds)
            self.by_kind.setdefault(kind, []).append(seconds)

    def error(self, what: str) -> None:
        with self.lock:
            self.errors.append(what)


def start_server(work: Path) -> tuple[subprocess.Popen[str], int]:
    env = {**os.environ, "XDG_DATA_HOME": str(work / "data"), "PYTHONUNBUFFERED": "1",
           "PYTHONPATH": str(ROOT)}  # fmt: skip
    command = [sys.executable, "-m", "cribcam", "serve", "--port", "0", "--db",
               str(work / "games.sqlite3"), "--decks", str(work / "decks")]  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, env=env, cwd=ROOT)  # fmt: skip
    assert process.stdout is not None
    port = 0
    for line in process.stdout:
        if "serving on " in line:
            port = int(line.split("serving on ", 1)[1].split()[0].rstrip("/").rsplit(":", 1)[1])
        if "Ctrl-C" in line:
            break
    if not port:
        process.kill()
        raise SystemExit("the server did not start")
    threading.Thread(target=lambda: [None for _ in process.stdout or []], daemon=True).start()
    return process, port


def connection(port: int, device: int) -> http.client.HTTPConnection:
    """A keep-alive connection from device number `device`'s own loopback address."""
    source = f"127.0.{device // 250}.{device % 250 + 2}"
    return http.client.HTTPConnection("127.0.0.1", port, timeout=30, source_address=(source, 0))


def call(conn: http.client.HTTPConnection, method: str, path: str, body: Any = None) -> Any:
    data = None if body is None else json.dumps(body)
    headers = {"Content-Type": "application/json"} if body is not None else {}
    conn.request(method, path, body=data, headers=headers)
    response = conn.getresponse()
    payload = response.read()
    if response.status >= 300:
        raise RuntimeError(f"{method} {path}: {response.status} {payload[:200]!r}")
    if response.getheader("Connection", "").lower() == "close":
        conn.close()  # http.client reconnects on the next request
    return json.loads(payload)


def stream(port: int, device: int, game: str, opened: queue.Queue[str], stop: threading.Event,
           tally: Tally, events: list[int]) -> None:  # fmt: skip
    """A page's live stream: open, report its first state, read until told to stop."""
    conn = connection(port, device)
    try:
        conn.request("GET", f"/api/games/{game}/events")
        response = conn.getresponse()
        if response.status != 200:
            tally.error(f"stream {device}: {response.status}")
            opened.put("failed")
            return
        first = True
        while not stop.is_set():
            line = response.readline()
            if not line:
                if not stop.is_set():
                    tally.error(f"stream {device} ended early")
                break
            if line.startswith(b"data: "):
                events[device] += 1
                if first:
                    opened.put("open")
                    first = False
    except OSError as error:
        if not stop.is_set():
            tally.error(f"stream {device}: {error!r}")
            opened.put("failed")
    finally:
        conn.close()


def client(port: int, device: int, game: str, until: float, think: float, tally: Tally) -> None:
    conn = connection(port, device)
    step = 0
    while time.monotonic() < until:
        kind = step % 5
        path, method, body, what = f"/api/games/{game}", "GET", None, "read a game"
        if kind == 1:
            path, what = "/healthz", "healthz"
        elif kind == 4:  # a write: one point on, then off, so the game never ends
            what = "correct a score"
            sign = 1 if (step // 5) % 2 == 0 else -1
            path, method, body = (
                f"/api/games/{game}/actions",
                "POST",
                {"kind": "correct", "seat": 0, "points": sign},
            )
        start = time.perf_counter()
        try:
            call(conn, method, path, body)
            tally.add(what, time.perf_counter() - start)
        except (OSError, RuntimeError, http.client.HTTPException) as error:
            tally.error(f"client {device}: {error!r}")
            conn.close()
        step += 1
        if think:
            time.sleep(think)  # a person between taps; a benchmark, not a test
    conn.close()


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=40)
    parser.add_argument("--streams", type=int, default=40)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--think", type=float, default=0.1,
                        help="seconds each client waits between requests")  # fmt: skip
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        process, port = start_server(Path(folder))
        try:
            setup = connection(port, 0)
            games = [call(setup, "POST", "/api/games", {"players": 2, "first_dealer": 0,
                                                        "names": [f"A{n}", f"B{n}"]})["id"]
                     for n in range(GAMES)]  # fmt: skip
            setup.close()
            tally, stop = Tally(), threading.Event()
            opened: queue.Queue[str] = queue.Queue()
            events = [0] * (args.streams + args.clients + 1)
            readers = [threading.Thread(target=stream, daemon=True, args=(
                port, 1 + n, games[n % GAMES], opened, stop, tally, events))
                for n in range(args.streams)]  # fmt: skip
            for reader in readers:
                reader.start()
            states = [opened.get(timeout=60) for _ in readers]
            if states.count("open") != args.streams:
                print(f"only {states.count('open')} of {args.streams} streams opened")
            until = time.monotonic() + args.seconds
            clients = [threading.Thread(target=client, args=(
                port, 1 + args.streams + n, games[n % GAMES], until, args.think, tally))
                for n in range(args.clients)]  # fmt: skip
            began = time.monotonic()
            for worker in clients:
                worker.start()
            for worker in clients:
                worker.join()
            elapsed = time.monotonic() - began
            health = connection(port, 0)
            call(health, "GET", "/healthz")  # still answering with every stream open
            health.close()
            stop.set()
        finally:
            process.terminate()
            process.wait(timeout=30)
    done = tally.latencies
    streamed = sum(events[1 : args.streams + 1])
    print(f"{args.clients} clients, {args.streams} open live streams, {args.seconds:g} s, "
          f"think {args.think:g} s, {os.cpu_count()} CPUs")  # fmt: skip
    print(f"requests: {len(done)}  requests/s: {len(done) / elapsed:.1f}  "
          f"p50: {statistics.median(done) * 1000:.1f} ms  "
          f"p99: {percentile(done, 0.99) * 1000:.1f} ms  "
          f"max: {max(done) * 1000:.1f} ms  errors: {len(tally.errors)}")  # fmt: skip
    for what, times in sorted(tally.by_kind.items()):
        print(f"  {what}: {len(times)}, p50 {statistics.median(times) * 1000:.1f} ms, "
              f"p99 {percentile(times, 0.99) * 1000:.1f} ms")  # fmt: skip
    print(f"live-stream state events received: {streamed}")
    for error in tally.errors[:10]:
        print("  error:", error)
    met = not tally.errors and percentile(done, 0.99) * 1000 < P99_TARGET_MS
    print(f"target (no errors, p99 < {P99_TARGET_MS:g} ms): {'met' if met else 'MISSED'}")
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main())
