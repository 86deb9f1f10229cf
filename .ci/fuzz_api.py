"""Fuzz every route of the API from its own description, over loopback only.

Starts ``cribcam serve`` as a player runs it (a fresh database, 127.0.0.1, a free port), runs
schemathesis on ``/api/openapi.json`` for `--seconds` (examples, coverage, fuzzing and a
stateful run that creates games and plays actions in random order), then checks that every
stored game still loads and the home page answers. Prints the requests made per route and the
server errors (5xx) among them; exits non-zero on any server error, any failed check, or a
game that no longer loads.

    python .ci/fuzz_api.py [--seconds 180] [--python .venv/bin/python]
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

CONFIG = Path(__file__).with_name("schemathesis.toml")
CHECKS = ("not_a_server_error,status_code_conformance,content_type_conformance,"
          "response_schema_conformance,negative_data_rejection")  # fmt: skip


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_up(base: str, server: subprocess.Popen[bytes]) -> None:
    for _ in range(600):  # bounded: the server starts in a few seconds
        if server.poll() is not None:
            sys.exit(f"the server stopped at start-up (rc {server.returncode})")
        try:
            with urllib.request.urlopen(f"{base}/healthz", timeout=2) as answer:
                if answer.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    sys.exit("the server did not answer /healthz")


def get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=30) as answer:
            return answer.status, answer.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def route_of(url: str, templates: list[tuple[re.Pattern[str], str]]) -> str:
    path = str(urllib.parse.urlsplit(url).path)
    for pattern, template in templates:
        if pattern.fullmatch(path):
            return template
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=int, default=180)
    parser.add_argument("--python", default=sys.executable)
    args = parser.parse_args()
    bin_dir = Path(args.python).parent
    work = Path(tempfile.mkdtemp(prefix="cribcam-fuzz-"))
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(
        [str(bin_dir / "cribcam"), "serve", "--host", "127.0.0.1", "--port", str(port),
         "--db", str(work / "games.db"), "--decks", str(work / "decks")],
        stdout=(work / "server.log").open("wb"), stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        wait_up(base, server)
        status, spec_bytes = get(f"{base}/api/openapi.json")
        spec = json.loads(spec_bytes)
        # a path's own words before a parameter's: /api/decks/use is not /api/decks/{name}
        templates = [
            (re.compile(re.sub(r"\\{\w+\\}", "[^/]+", re.escape(path))), path)
            for path in sorted(spec["paths"], key=lambda path: path.count("{"))
        ]
        failed = False
        # two runs: requests one at a time from the description, then games created and
        # played through its links in random order (a share of the time each)
        for phases, seconds in (("examples,coverage,fuzzing", args.seconds * 2 // 3),
                                ("stateful", args.seconds // 3)):  # fmt: skip
            run = subprocess.run(
                [str(bin_dir / "schemathesis"), "--config-file", str(CONFIG), "run",
                 f"{base}/api/openapi.json", "--checks", CHECKS, "--phases", phases,
                 "--max-time", str(seconds), "--workers", "1", "--continue-on-failure",
                 "--report", "har", "--report-dir", str(work / phases), "--no-color",
                 "--suppress-health-check", "all", "--request-timeout", "60"],
                text=True, capture_output=True,
            )  # fmt: skip
            print(f"-- schemathesis {phases}: rc {run.returncode}")
            print("\n".join(line[:300] for line in (run.stdout + run.stderr).splitlines()[-60:]))
            failed = failed or run.returncode != 0
        counts: collections.Counter[str] = collections.Counter()
        errors: collections.Counter[str] = collections.Counter()
        entries = [entry for har in work.glob("*/har-*.json")
                   for entry in json.loads(har.read_text())["log"]["entries"]]  # fmt: skip
        for entry in entries:
            route = f"{entry['request']['method']} {route_of(entry['request']['url'], templates)}"
            counts[route] += 1
            if entry["response"]["status"] >= 500:
                errors[route] += 1
        described = sorted(
            f"{method.upper()} {path}"
            for path, methods in spec["paths"].items()
            for method in methods
        )
        print(f"{'requests':>8}  {'5xx':>4}  route")
        for route in described:
            print(f"{counts[route]:>8}  {errors[route]:>4}  {route}")
        others = [route for route in counts if route not in described]
        print(f"{sum(counts[r] for r in others):>8}  {sum(errors[r] for r in others):>4}  "
              f"methods a route does not take ({len(others)} kinds, each a 405)")  # fmt: skip
        print(f"{sum(counts.values()):>8}  {sum(errors.values()):>4}  in all")
        status, listed = get(f"{base}/api/games")
        games = json.loads(listed)["games"] if status == 200 else []
        unreadable = [g["id"] for g in games if get(f"{base}/api/games/{g['id']}")[0] != 200]
        home = get(f"{base}/")[0]
        print(
            f"after: {len(games)} stored games, {len(unreadable)} that do not load; "
            f"the home page answers {home}"
        )
        failed = failed or sum(errors.values()) > 0 or bool(unreadable) or home != 200
        return 1 if failed else 0
    finally:
        server.terminate()
        server.wait(timeout=30)


if __name__ == "__main__":
    sys.exit(main())
