"""The player's first hour, checked against an install made as the README says: a real photo read
right by `cribcam detect` and by the running server's `POST /api/detect`, and a whole deal of a
held-out deck design played through table mode's API to its scored steps.

    python .ci/player_smoke.py http://127.0.0.1:8121 CHECKOUT

Only the standard library and the installed package: no test extra. Exits 1 naming the first
check that failed; every request goes to the loopback server given.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import cv2

from cribtrain.data.deal_clips import DealScript, deal_clip
from cribtrain.data.synth import load_decks
from cribtrain.measure.table_mode import by_hand
from vision.detection.detections import CLASS_NAMES, Detections
from vision.detection.models import MODELS_DIR
from vision.table.sources import read_image

PHOTO = Path("datasets/samples/images/dev_0594.jpg")
LABELS = Path("datasets/samples/labels/dev_0594.txt")
HELD_OUT = Path("tests/fixtures/deck-dondorf")
#: A deal with a go at 29 and 31 for 2 (tests/cribtrain/data/test_clips.py's TWO_DEAL).
DEAL = DealScript.of(("bottom", "top"), 0,
                     {"top": ["10C", "9H", "2D", "5S"], "bottom": ["KD", "8C", "4H", "3S"]},
                     ["QC", "JH", "6D", "7S"], "AC")  # fmt: skip
#: Seconds the server has to load its models and read its self-check photo.
READY_SECONDS = 180


class SmokeError(Exception):
    """A check of the player's install that failed."""


def call(base: str, method: str, path: str, body: bytes | dict[str, Any] | None = None) -> Any:
    data, headers = None, {}
    if isinstance(body, dict):
        data, headers = json.dumps(body).encode(), {"Content-Type": "application/json"}
    elif body is not None:
        data, headers = body, {"Content-Type": "image/jpeg"}
    request = urllib.request.Request(base + path, data, headers, method=method)
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            return json.load(response)
    except urllib.error.HTTPError as error:
        raise SmokeError(f"{method} {path}: {error.code} {error.read()[:300]!r}") from None


def labelled_cards() -> list[str]:
    height, width = read_image(PHOTO).shape[:2]
    truth = Detections.from_yolo_labels(LABELS.read_text(), width, height)
    return sorted({CLASS_NAMES[c] for c in truth.class_ids})  # a card shows two corners


def check_detect_command(want: list[str]) -> None:
    command = Path(sys.executable).parent / "cribcam"  # this install's, whatever PATH says
    out = subprocess.run([command, "detect", "--json", str(PHOTO)], capture_output=True,
                         text=True, check=False)  # fmt: skip
    if out.returncode != 0:
        raise SmokeError(f"cribcam detect failed ({out.returncode}): {out.stderr[-800:]}")
    read = sorted(card["card"] for card in json.loads(out.stdout)["cards"])
    if read != want:
        raise SmokeError(f"cribcam detect read {read}, the photo holds {want}")
    print(f"smoke: cribcam detect read the {len(read)} cards of {PHOTO.name} right")


def wait_until_it_reads(base: str) -> None:
    deadline = time.monotonic() + READY_SECONDS
    while True:
        reader = call(base, "GET", "/healthz")["reader"]
        if reader["state"] == "reads":
            print(f"smoke: /healthz: the reader {reader['detail']}")
            return
        if reader["state"] != "checking" or time.monotonic() > deadline:
            raise SmokeError(f"/healthz: the reader is {reader}")
        time.sleep(0.5)  # a server's start-up, polled from outside


def check_detect_endpoint(base: str, want: list[str]) -> None:
    answer = call(base, "POST", "/api/detect", PHOTO.read_bytes())
    read = sorted(card["card"] for card in answer["cards"])
    if read != want:
        raise SmokeError(f"POST /api/detect read {read}, the photo holds {want}")
    print(f"smoke: POST /api/detect read the {len(read)} cards right")


def check_table_mode(base: str) -> None:
    """Every frame of a whole deal posted as the table page posts them; table mode alone (no
    tap but who deals) must reach the scores the deal gives when entered by hand."""
    clip = deal_clip(load_decks([HELD_OUT])[0], DEAL, seed=3, hold=6)
    game = call(base, "POST", "/api/games", {"players": 2, "names": ["Ann", "Bob"]})["id"]
    call(base, "POST", f"/api/games/{game}/actions", {"kind": "dealer", "seat": DEAL.dealer})
    for frame in clip.frames:
        _, jpeg = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 85])
        call(base, "POST", f"/api/games/{game}/frame?table=1", jpeg.tobytes())
    state = call(base, "GET", f"/api/games/{game}")
    want = list(by_hand(DEAL).scores)
    print(
        f"smoke: table mode followed {len(clip.frames)} frames: phase {state['phase']}, "
        f"scores {state['scores']} (by hand {want})"
    )
    if state["scores"] != want or state.get("starter") != str(DEAL.starter):
        raise SmokeError(
            f"table mode reached {state['scores']}, starter "
            f"{state.get('starter')}; by hand {want}, starter {DEAL.starter}"
        )


def main(base: str, checkout: Path) -> int:
    os.chdir(checkout)
    engine = "absent" if importlib.util.find_spec("onnxruntime") is None else "installed"
    print(f"smoke: {sys.prefix}: onnxruntime {engine}; models from {MODELS_DIR}")
    try:
        want = labelled_cards()
        check_detect_command(want)
        wait_until_it_reads(base)
        check_detect_endpoint(base, want)
        check_table_mode(base)
    except (SmokeError, OSError) as error:
        print(f"smoke: FAILED: {error}", file=sys.stderr)
        return 1
    print("smoke: the player's install reads cards and follows a deal")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], Path(sys.argv[2])))
