"""Frame-to-overlay latency of the web app: the demo photo posted to a game's frame endpoint,
timed from the request to the detections JSON back, with the installed card models.

Run from the repository root: ``python benchmarks/bench_webui.py [--frames N] [--http]``.
Without ``--http`` the Flask test client calls the app in-process (no sockets: the figure is the
server's own time); with it the app runs on cheroot on a free local port and each frame is a real
HTTP request. Without models the benchmark says so and exits 0. The first frame also loads the
models and is reported apart; the detector's own stage times are the medians over the frames.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vision.detection.models import ModelMissingError
from vision.frame_json import frame_json
from vision.photo_reader import PhotoReader, load_photo_reader
from vision.reading import StageTimes
from vision.table.sources import decode_image
from webui import create_app
from webui.guard.server import make_server

DEMO = Path(__file__).resolve().parent.parent / "webui" / "static" / "demo" / "table.jpg"


class TimedDetector:
    """The real detector, keeping its reader's stage times after every frame."""

    def __init__(self, inner: PhotoReader) -> None:
        self.inner = inner
        self.stages: list[StageTimes] = []

    def detect(self, image: bytes, name: str) -> dict[str, Any]:
        reading = self.inner.card_reader().read(decode_image(image))
        self.stages.append(reading.times)
        return frame_json(name, reading.cards)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def poster(app: Any, http: bool) -> tuple[Callable[[str, bytes], int], Callable[[], None]]:
    """A function posting bytes to a path (returns the status), and one to stop the server."""
    if not http:
        client = app.test_client()

        def post_local(path: str, data: bytes) -> int:
            response = client.post(path, data=data, content_type="image/jpeg")
            response.get_json()
            return int(response.status_code)

        return post_local, lambda: None
    server = make_server(app, "127.0.0.1", 0)
    server.prepare()
    thread = threading.Thread(target=server.serve, daemon=True)
    thread.start()
    host, port = server.bind_addr[:2]

    def post_http(path: str, data: bytes) -> int:
        request = urllib.request.Request(f"http://{host}:{port}{path}", data=data, method="POST")
        request.add_header("Content-Type", "image/jpeg")
        with urllib.request.urlopen(request, timeout=60) as response:
            response.read()
            return int(response.status)

    return post_http, server.stop


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=30, help="frames to time (default 30)")
    parser.add_argument("--http", action="store_true", help="real HTTP through cheroot")
    args = parser.parse_args()
    try:
        detector = TimedDetector(load_photo_reader())
    except ModelMissingError as error:
        print(f"no card model installed ({error}): nothing to time")
        return 0
    photo = DEMO.read_bytes()
    with tempfile.TemporaryDirectory() as tmp:
        app = create_app({"DATABASE": Path(tmp) / "bench.sqlite3", "PHOTO_READER": detector})
        post, stop = poster(app, args.http)
        try:
            game = app.test_client().post("/api/games", json={"players": 2}).get_json()["id"]
            path = f"/api/games/{game}/frame"
            start = time.perf_counter()
            assert post(path, photo) == 200
            first = (time.perf_counter() - start) * 1000
            times = []
            for _ in range(args.frames):
                start = time.perf_counter()
                assert post(path, photo) == 200
                times.append((time.perf_counter() - start) * 1000)
        finally:
            stop()
    how = "HTTP (cheroot)" if args.http else "in-process (test client)"
    print(f"demo photo {len(photo) / 1024:.0f} KiB, {args.frames} frames, {how}")
    print(
        f"round trip: median {statistics.median(times):.1f} ms, "
        f"p90 {percentile(times, 0.9):.1f} ms (first frame, with model load: {first:.0f} ms)"
    )
    stages = detector.stages[1:] or detector.stages
    if stages:
        names = [f.name for f in dataclasses.fields(StageTimes)]
        parts = [f"{n} {statistics.median(getattr(s, n) for s in stages):.1f}" for n in names]
        total = statistics.median(s.total() for s in stages)
        print(f"detector stages (median ms): {', '.join(parts)}; total {total:.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
