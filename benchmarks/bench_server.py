"""The server under a table's worth of devices and more: requests/s, p50 and p99 latency with
40 clients and 40 open live streams, and every error counted; with ``--baseline REV``, the same
load against an older revision and this checkout, round by round, to price a change.

Run from the repository root: ``python benchmarks/bench_server.py [--clients 40] [--streams 40]
[--seconds 20] [--think 0.1] [--writes-only]``. It starts ``cribcam serve`` on a free loopback
port with a fresh database, opens the live streams (each game's page, held open all along), then
runs the clients: each is a device with a keep-alive connection that reads its table's game (as
the page does after a change), asks /healthz, and corrects a score by one point and back (a
write that wakes that game's streams; its body goes through the validated body path), waiting
`--think` seconds between requests. With ``--writes-only`` the clients only correct scores (the
write path alone). Every device, stream or client, connects from its own loopback address
(127.0.0.x), as devices at a table do: the server caps connections per address. Nothing leaves
this machine.

The target (issue #51): no errors, p99 under 300 ms, on a 2-core machine.

``--baseline REV [--rounds 3]`` (issue #65: validating request bodies with pydantic costs no more
than 10 % of the request rate): checks REV out into a temporary, detached ``git worktree``
(removed at the end), then runs the same load on a server started from that worktree (this
venv's python, the worktree as working directory and PYTHONPATH; the module file the server
imports and its answer to GET /api/openapi.json, which only exists with the contract, are
printed to show which code ran) and on one started from this checkout, alternating which goes
first round by round (baseline, current; current, baseline; ...) to cut the noise of a shared
machine. Each run has a fresh server and database. It prints every run and the medians of
requests/s, p50/p99 latency and errors for both, the ratio current/baseline (the median of the
rounds' ratios) and "validation cost: X % of the request rate (target <= 10 %)". In this mode
the load saturates the server unless told otherwise: ``--think 0``, 16 clients, 8 live streams
(one per game). ``--current REV`` measures that revision (another temporary worktree) instead
of this checkout, leaving out uncommitted changes. For example::

    python benchmarks/bench_server.py --baseline a64a7f7^ --rounds 3 --seconds 10
    python benchmarks/bench_server.py --baseline a64a7f7^ --rounds 3 --seconds 10 --writes-only
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import os
import queue
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
P99_TARGET_MS = 300.0
COST_TARGET = 10.0  # per cent of the request rate (issue #65)
GAMES = 8  # tables: the clients and streams are spread over them
CONTRACT_ROUTE = "/api/openapi.json"  # answers only from a64a7f7 (the API as a contract) on
WRITE = "correct a score"


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


@dataclass
class Load:
    """What every run puts on the server."""

    clients: int
    streams: int
    seconds: float
    think: float
    writes_only: bool

    def describe(self) -> str:
        mix = "writes only (correct a score)" if self.writes_only else "reads, /healthz, writes"
        return (f"{self.clients} clients, {self.streams} open live streams, {self.seconds:g} s, "
                f"think {self.think:g} s, {mix}, {os.cpu_count()} CPUs")  # fmt: skip


@dataclass
class Run:
    """One server's run under a load: what it answered and how fast."""

    tally: Tally
    elapsed: float
    streamed: int
    streams_open: int
    module: str  # the file the server's webui.app was imported from
    contract: int  # the status GET /api/openapi.json answered
    stopped: str = ""  # how the server stopped, when not on SIGTERM

    @property
    def done(self) -> list[float]:
        return self.tally.latencies

    @property
    def rate(self) -> float:
        return len(self.done) / self.elapsed

    def kind_rate(self, kind: str) -> float:
        return len(self.tally.by_kind.get(kind, [])) / self.elapsed

    @property
    def p50_ms(self) -> float:
        return statistics.median(self.done) * 1000 if self.done else float("nan")

    @property
    def p99_ms(self) -> float:
        return percentile(self.done, 0.99) * 1000 if self.done else float("nan")

    def summary(self) -> str:
        writes = f"  writes/s: {self.kind_rate(WRITE):7.1f}" if WRITE in self.tally.by_kind else ""
        return (f"requests/s: {self.rate:7.1f}  p50: {self.p50_ms:6.1f} ms  "
                f"p99: {self.p99_ms:6.1f} ms  "
                f"errors: {len(self.tally.errors)}{writes}")  # fmt: skip


def server_env(work: Path, root: Path) -> dict[str, str]:
    return {**os.environ, "XDG_DATA_HOME": str(work / "data"), "PYTHONUNBUFFERED": "1",
            "PYTHONPATH": str(root)}  # fmt: skip


def imported_from(root: Path) -> str:
    """The file `webui.app` is imported from by a server started in `root` (the same python,
    environment and working directory as the server): the worktree's, not the editable
    install's."""
    with tempfile.TemporaryDirectory() as folder:
        found = subprocess.run(
            [sys.executable, "-c", "import webui.app, cribcam; print(webui.app.__file__)"],
            env=server_env(Path(folder), root), cwd=root, capture_output=True, text=True,
            check=True,
        )  # fmt: skip
    module = found.stdout.strip()
    if not Path(module).resolve().is_relative_to(root.resolve()):
        raise SystemExit(f"a server started in {root} would import {module}, not its own code")
    return module


def start_server(work: Path, root: Path = ROOT) -> tuple[subprocess.Popen[str], int]:
    command = [sys.executable, "-m", "cribcam", "serve", "--port", "0", "--db",
               str(work / "games.sqlite3"), "--decks", str(work / "decks")]  # fmt: skip
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, env=server_env(work, root), cwd=root)  # fmt: skip
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


def stop_server(process: subprocess.Popen[str], grace: float = 30.0) -> str:
    """SIGTERM, as Ctrl-C would; a server still up after `grace` seconds is killed (and
    said so: the figures measured before stand)."""
    process.terminate()
    try:
        process.wait(timeout=grace)
        return ""
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=30)
        return f"did not stop within {grace:g} s of SIGTERM: killed"


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


def status_of(port: int, path: str) -> int:
    conn = connection(port, 0)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        response.read()
        return response.status
    finally:
        conn.close()


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


def client(port: int, device: int, game: str, until: float, think: float, tally: Tally,
           writes_only: bool = False) -> None:  # fmt: skip
    conn = connection(port, device)
    step = 0
    while time.monotonic() < until:
        kind = 4 if writes_only else step % 5
        path, method, body, what = f"/api/games/{game}", "GET", None, "read a game"
        if kind == 1:
            path, what = "/healthz", "healthz"
        elif kind == 4:  # a write: one point on, then off, so the game never ends
            what = WRITE
            sign = 1 if (step if writes_only else step // 5) % 2 == 0 else -1
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


def run_load(load: Load, root: Path = ROOT) -> Run:
    """Start a server from `root` with a fresh database, put `load` on it, stop it."""
    module = imported_from(root)
    with tempfile.TemporaryDirectory() as folder:
        process, port = start_server(Path(folder), root)
        try:
            contract = status_of(port, CONTRACT_ROUTE)
            setup = connection(port, 0)
            games = [call(setup, "POST", "/api/games", {"players": 2, "first_dealer": 0,
                                                        "names": [f"A{n}", f"B{n}"]})["id"]
                     for n in range(GAMES)]  # fmt: skip
            setup.close()
            tally, stop = Tally(), threading.Event()
            opened: queue.Queue[str] = queue.Queue()
            events = [0] * (load.streams + load.clients + 1)
            readers = [threading.Thread(target=stream, daemon=True, args=(
                port, 1 + n, games[n % GAMES], opened, stop, tally, events))
                for n in range(load.streams)]  # fmt: skip
            for reader in readers:
                reader.start()
            states = [opened.get(timeout=60) for _ in readers]
            until = time.monotonic() + load.seconds
            clients = [threading.Thread(target=client, args=(
                port, 1 + load.streams + n, games[n % GAMES], until, load.think, tally,
                load.writes_only)) for n in range(load.clients)]  # fmt: skip
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
            stopped = stop_server(process)
    streamed = sum(events[1 : load.streams + 1])
    return Run(tally, elapsed, streamed, states.count("open"), module, contract, stopped)


def single(load: Load) -> int:
    """The #51 benchmark: one server from this checkout under `load`."""
    run = run_load(load)
    done = run.done
    if run.streams_open != load.streams:
        print(f"only {run.streams_open} of {load.streams} streams opened")
    print(load.describe())
    print(f"requests: {len(done)}  requests/s: {run.rate:.1f}  "
          f"p50: {run.p50_ms:.1f} ms  p99: {run.p99_ms:.1f} ms  "
          f"max: {max(done) * 1000:.1f} ms  errors: {len(run.tally.errors)}")  # fmt: skip
    for what, times in sorted(run.tally.by_kind.items()):
        print(f"  {what}: {len(times)}, p50 {statistics.median(times) * 1000:.1f} ms, "
              f"p99 {percentile(times, 0.99) * 1000:.1f} ms")  # fmt: skip
    print(f"live-stream state events received: {run.streamed}")
    if run.stopped:
        print(f"the server {run.stopped}")
    for error in run.tally.errors[:10]:
        print("  error:", error)
    met = not run.tally.errors and run.p99_ms < P99_TARGET_MS
    print(f"target (no errors, p99 < {P99_TARGET_MS:g} ms): {'met' if met else 'MISSED'}")
    return 0 if met else 1


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True,
                          check=True).stdout.strip()  # fmt: skip


@contextlib.contextmanager
def worktree(rev: str) -> Iterator[Path]:
    """A detached worktree of `rev` in a temporary folder, removed on the way out."""
    folder = Path(tempfile.mkdtemp(prefix="bench-baseline-"))
    place = folder / "tree"
    git("worktree", "add", "--detach", "--quiet", str(place), rev)
    try:
        yield place
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(place)], cwd=ROOT,
                       check=False)  # fmt: skip
        subprocess.run(["git", "worktree", "prune"], cwd=ROOT, check=False)
        shutil.rmtree(folder, ignore_errors=True)


def medians(runs: list[Run]) -> str:
    line = (f"requests/s: {statistics.median(r.rate for r in runs):7.1f}  "
            f"p50: {statistics.median(r.p50_ms for r in runs):6.1f} ms  "
            f"p99: {statistics.median(r.p99_ms for r in runs):6.1f} ms  "
            f"errors: {sum(len(r.tally.errors) for r in runs)} in all")  # fmt: skip
    if all(WRITE in r.tally.by_kind for r in runs):
        line += f"  writes/s: {statistics.median(r.kind_rate(WRITE) for r in runs):7.1f}"
    return line


def describe(rev: str, commit: str) -> str:
    return f"{rev} = {commit[:10]} ({git('log', '-1', '--format=%s', commit)[:60]}...)"


def compare(load: Load, rev: str, rounds: int, against: str | None = None) -> int:
    """`load` on REV's server and this checkout's (or revision `against`'s), alternating,
    `rounds` times each."""
    commit = git("rev-parse", "--verify", f"{rev}^{{commit}}")
    print(f"baseline: {describe(rev, commit)}")
    if against is None:
        head = git("rev-parse", "HEAD")
        changed = git("status", "--porcelain", "--untracked-files=no")
        dirty = "with uncommitted changes" if changed else "clean"
        print(f"current:  this checkout, HEAD {head[:10]} ({dirty})")
    else:
        current_commit = git("rev-parse", "--verify", f"{against}^{{commit}}")
        print(f"current:  {describe(against, current_commit)}")
    print(f"load: {load.describe()}; {rounds} rounds, the order alternating")
    sides: dict[str, list[Run]] = {"baseline": [], "current": []}
    ratios: list[float] = []
    write_ratios: list[float] = []
    with contextlib.ExitStack() as trees:
        roots = {
            "baseline": trees.enter_context(worktree(commit)),
            "current": ROOT if against is None else trees.enter_context(worktree(current_commit)),
        }
        for number in range(1, rounds + 1):
            order = ["baseline", "current"] if number % 2 else ["current", "baseline"]
            for side in order:
                run = run_load(load, roots[side])
                sides[side].append(run)
                if number == 1 or run.contract != sides[side][0].contract:
                    print(f"  {side} server imports {run.module}; "
                          f"GET {CONTRACT_ROUTE}: {run.contract}")  # fmt: skip
                print(f"round {number} {side:8}  {run.summary()}")
                if run.stopped:
                    print(f"    the {side} server {run.stopped}")
                for error in run.tally.errors[:3]:
                    print("    error:", error)
            base, current = sides["baseline"][-1], sides["current"][-1]
            ratios.append(current.rate / base.rate)
            line = f"round {number} ratio current/baseline: requests/s {ratios[-1]:.3f}"
            if base.kind_rate(WRITE) and current.kind_rate(WRITE):
                write_ratios.append(current.kind_rate(WRITE) / base.kind_rate(WRITE))
                line += f", writes/s {write_ratios[-1]:.3f}"
            print(line)
    print(f"median baseline  {medians(sides['baseline'])}")
    print(f"median current   {medians(sides['current'])}")
    ratio = statistics.median(ratios)
    of_medians = (statistics.median(r.rate for r in sides["current"])
                  / statistics.median(r.rate for r in sides["baseline"]))  # fmt: skip
    line = (f"ratio current/baseline: {ratio:.3f} "
            f"(median of the rounds; of the medians {of_medians:.3f})")  # fmt: skip
    if write_ratios and not load.writes_only:
        line += f"; writes/s {statistics.median(write_ratios):.3f}"
    print(line)
    cost = (1 - ratio) * 100
    print(f"validation cost: {cost:.1f} % of the request rate (target <= {COST_TARGET:g} %)")
    errors = sum(len(r.tally.errors) for runs in sides.values() for r in runs)
    met = cost <= COST_TARGET and not errors
    print(f"target (no errors, cost <= {COST_TARGET:g} %): {'met' if met else 'MISSED'}")
    return 0 if met else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, help="default 40; with --baseline 16")
    parser.add_argument("--streams", type=int, help="default 40; with --baseline 8")
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--think", type=float,
                        help="seconds each client waits between requests "
                             "(default 0.1; with --baseline 0: a saturating load)")  # fmt: skip
    parser.add_argument(
        "--writes-only",
        action="store_true",
        help="the clients only correct scores (the validated body path)",
    )
    parser.add_argument(
        "--baseline",
        metavar="REV",
        help="compare with a server from this git revision (e.g. a64a7f7^)",
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=3,
        help="with --baseline: runs of each, alternating (default 3)",
    )
    parser.add_argument(
        "--current",
        metavar="REV",
        help="with --baseline: measure this git revision instead of the checkout "
        "(its uncommitted changes left out)",
    )
    args = parser.parse_args()
    saturate = args.baseline is not None
    load = Load(
        clients=args.clients if args.clients is not None else (16 if saturate else 40),
        streams=args.streams if args.streams is not None else (8 if saturate else 40),
        seconds=args.seconds,
        think=args.think if args.think is not None else (0.0 if saturate else 0.1),
        writes_only=args.writes_only,
    )
    if args.baseline is None:
        return single(load)
    return compare(load, args.baseline, args.rounds, args.current)


if __name__ == "__main__":
    raise SystemExit(main())
