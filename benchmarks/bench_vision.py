"""Per-frame latency of card reading, stage by stage, against ultralytics and the bare models.

Run from the repository root: ``python benchmarks/bench_vision.py [--pt RUNS_DIR]``. It reads
the held-out dev-real photos (640 × 640) through the app's pipeline (decode, the reading
path's stages, roles) with OpenVINO and with ONNX Runtime, then, side by
side on the same photos, the bare forward passes of the two ONNX models and, when the training
weights (best.pt) are given and ultralytics is installed, ultralytics' own `predict` on the same
weights. `--images DIR` reads another folder's images instead (e.g. 1280-px `cribcam synth`
scenes, where the detector takes a closer look at frames with small indices; the bare passes
are one look each, and `looks` is the mean number of looks). `--deck-reader ONNX` also times
the pipeline (OpenVINO) with a deck's tuned reader (a profile's corner-reader.onnx) as the app
reads with it, the base pipeline again beside it photo by photo (a deck reader from a tune
that did not fold the base reader into its weights reads with the base reader beside it, and
says so: `vision.detection.reader.reads_alone`); `--models DIR` times another models
folder (a candidate detector against the shipped one). Then table mode's frames, read as it
reads them (what changed: `vision.table.changes`) on deal clips: a frame read whole, a still
table, a card laid. It first names the CPU and the
precision OpenVINO computes in there (bfloat16 units make it three to five times faster), and
gives each pipeline's ratio to issue #6's 100 ms; `--float32` holds OpenVINO to float32, the
arithmetic of a CPU without bfloat16 units (on this CPU, not that CPU's speed). Figures are
printed, never asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import cv2
import numpy as np

from benchmarks.bench_clips import FIXTURE, random_deal
from cribcam.commands.reading import reading_config, reading_options
from cribtrain.data.deal_clips import deal_clip
from cribtrain.data.poses import FRAME_SIZES, POSES, view
from cribtrain.data.synth import load_decks
from vision.config import DEFAULT_DETECTOR_SIDE
from vision.detection.crops import crop_index
from vision.detection.finder import IndexFinder, letterbox
from vision.detection.models import DETECTOR_FILE, MODELS_DIR, READER_FILE, load_model, model_input
from vision.reading import STAGES, CardReader
from vision.table.changes import ChangeReader
from vision.table.roles import TableLayout, assign_roles
from vision.table.sources import decode_image

DEV_REAL = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "dev-real"
SPLIT = Path(__file__).resolve().parents[1] / "datasets" / "dev-real-split.json"
#: Issue #6's latency target for both stages, per 640 × 640 photo.
TARGET_MS = 100.0


def machine() -> str:
    """The CPU, its cores and what OpenVINO computes in there: the figures depend on all three
    (the same pipeline measured 30 ms with bfloat16 units and 160 ms without, both on 2 cores)."""
    name = platform.processor() or platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        names = [line.split(":", 1)[1].strip() for line in cpuinfo.read_text().splitlines()
                 if line.startswith("model name")]  # fmt: skip
        name = names[0] if names else name
    try:
        import openvino as ov

        capabilities = ov.Core().get_property("CPU", "OPTIMIZATION_CAPABILITIES")
        precision = "bfloat16" if "BF16" in capabilities else "float32"
        openvino = f"OpenVINO computes in {precision} ({', '.join(capabilities)})"
    except ImportError:
        openvino = "no OpenVINO"
    return f"{name}, {os.cpu_count()} cores; {openvino}"


def median_ms(values: list[float]) -> float:
    return statistics.median(values) * 1000


def pipeline(reader: CardReader, photos: list[bytes]) -> tuple[dict[str, float], float]:
    """Median milliseconds per stage, and the mean number of looks a frame took."""
    stages: dict[str, list[float]] = {k: [] for k in
                                      ("decode", *STAGES, "roles", "total")}  # fmt: skip
    layout = TableLayout(["bottom", "top"])
    looks: list[int] = []
    for data in photos:
        start = time.perf_counter()
        frame = decode_image(data)
        decoded = time.perf_counter()
        reading = reader.read(frame)
        assign_roles(reading.cards, layout, (frame.shape[1], frame.shape[0]))
        done = time.perf_counter()
        times = reading.times
        stages["decode"].append(decoded - start)
        for name in STAGES:
            stages[name].append(getattr(times, name) / 1000)
        stages["roles"].append(done - decoded - times.total() / 1000)
        stages["total"].append(done - start)
        looks.append(reading.looks)
    return {name: median_ms(values) for name, values in stages.items()}, statistics.mean(looks)


def interleaved(readers: dict[str, CardReader], photos: list[bytes]) -> dict[str, dict[str, float]]:
    """`pipeline`'s median milliseconds per stage for each reader, the readers reading each
    photo in turn (so a busy moment of the machine weighs on each alike)."""
    timed: dict[str, list[dict[str, float]]] = {name: [] for name in readers}
    for data in photos:
        for name, reader in readers.items():
            timed[name].append(pipeline(reader, [data])[0])
    return {name: {stage: statistics.median(one[stage] for one in runs) for stage in runs[0]}
            for name, runs in timed.items()}  # fmt: skip


def bare_forward(backend: str, photos: list[bytes], reader: CardReader) -> float:
    """The two models' forward passes alone, on the same inputs the pipeline gives them."""
    detector = IndexFinder(reader.models_dir / DETECTOR_FILE, backend, reader.config,
                           exact=reader.float32)  # fmt: skip
    read = load_model(reader.models_dir / READER_FILE, backend, exact=reader.float32).run
    totals = []
    for data in photos:
        frame = decode_image(data)
        batch, _, _ = letterbox(frame, detector.side, detector.stride)
        boxes = reader.read(frame).indices.boxes
        crops = (
            model_input(np.stack([crop_index(frame, box, 64) for box in boxes]))
            if len(boxes)
            else None
        )
        start = time.perf_counter()
        detector.forward(batch)
        if crops is not None:
            read(crops)
        totals.append(time.perf_counter() - start)
    return median_ms(totals)


def ultralytics_predict(runs: Path, photos: list[bytes]) -> float:
    """Ultralytics' own predict on the same weights: detector, then the reader on each crop."""
    from cribtrain.fit.train import offline_ultralytics

    yolo = offline_ultralytics()
    detector = yolo(str(runs / "detector" / "weights" / "best.pt"))
    reader = yolo(str(runs / "reader" / "weights" / "best.pt"))
    totals = []
    for data in photos:
        start = time.perf_counter()
        frame = decode_image(data)
        result = detector.predict(
            frame, imgsz=DEFAULT_DETECTOR_SIDE, conf=0.25, verbose=False, device="cpu"
        )[0]
        boxes = result.boxes.xyxy.numpy()
        crops = [crop_index(frame, box, 64) for box in boxes]
        if crops:
            reader.predict(crops, imgsz=64, verbose=False, device="cpu")
        totals.append(time.perf_counter() - start)
    return median_ms(totals)


def table_frames(reader: CardReader, pose: str | None) -> dict[str, float]:
    """Table mode's frames read as it reads them (`vision.table.changes`), on a 2-player deal
    clip (the committed held-out deck, the clips' webcam, `pose` at 720p or overhead): the
    median milliseconds of a frame read whole, of a still frame (the next of the same table),
    and of the frame where a card was laid (its hand withdrawing), by each card of the play;
    and how many of those were read whole all the same."""
    sight = None if pose is None else view(POSES[pose], FRAME_SIZES["720p"])
    script = random_deal(2, np.random.default_rng([0, 2, 11]))
    clip = deal_clip(load_decks([FIXTURE])[0], script, seed=0, sight=sight)
    times: dict[str, list[float]] = {"whole": [], "still": [], "laid": []}
    laid_whole = 0
    for mark in (m for m in clip.marks if m.kind == "play"):
        earlier, before, at = (clip.frames[mark.frame - k] for k in (2, 1, 0))
        start = time.perf_counter()
        reader.read(before)
        times["whole"].append(time.perf_counter() - start)
        changes = ChangeReader(reader)
        changes.cards(earlier)
        for name, frame in (("still", before), ("laid", at)):
            start = time.perf_counter()
            changes.cards(frame)
            times[name].append(time.perf_counter() - start)
        laid_whole += changes.last.kind == "whole"
    figures = {name: median_ms(values) for name, values in times.items()}
    return {**figures, "laid read whole": laid_whole, "plays": len(times["laid"])}


def widened(data: bytes) -> bytes:
    """A photo laid in the middle of a 16:9 frame of green felt, encoded as JPEG."""
    photo = decode_image(data)
    height, width = photo.shape[:2]
    frame = np.full((height, round(height * 16 / 9), 3), (60, 110, 40), np.uint8)
    left = (frame.shape[1] - width) // 2
    frame[:, left : left + width] = photo
    return bytes(cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 95])[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pt", type=Path, help="training runs folder with best.pt weights")
    parser.add_argument("--photos", type=int, default=40, help="how many held-out photos")
    parser.add_argument("--images", type=Path, help="read this folder's images instead")
    parser.add_argument("--deck-reader", type=Path, metavar="ONNX", help="a deck's tuned reader")
    parser.add_argument("--models", type=Path, default=MODELS_DIR,
                        help="the models folder to time (models/)")  # fmt: skip
    reading_options(parser)
    parser.add_argument(
        "--wide", action="store_true", help="each photo laid on felt in a 16:9 frame (a webcam's)"
    )
    parser.add_argument(
        "--float32", action="store_true",
        help="OpenVINO computes in float32 even with bfloat16 units, as a CPU without them does",
    )  # fmt: skip
    args = parser.parse_args()
    if args.images:
        paths = sorted(p for p in args.images.iterdir() if p.suffix.lower() in (".jpg", ".png"))
    else:
        names = json.loads(SPLIT.read_text())["holdout"]
        paths = [DEV_REAL / "images" / name for name in names]
    photos = [path.read_bytes() for path in paths[: args.photos]]
    if not photos:
        sys.exit(f"bench_vision: no .jpg or .png images in {args.images}")
    if args.wide:
        photos = [widened(data) for data in photos]
    first = decode_image(photos[0])
    results: dict[str, float] = {}
    print(machine() + ("; held to float32 (--float32)" if args.float32 else ""))
    for backend in ("openvino", "onnxruntime"):
        reader = CardReader(args.models, backend=backend, float32=args.float32,
                            config=reading_config(args))  # fmt: skip
        if backend == "openvino":
            width, height = reader.detector_input(first.shape[1], first.shape[0])
            print(f"{len(photos)} photos; the detector reads each at {width} × {height}")
        pipeline(reader, photos[:3])  # warm up
        stages, looks = pipeline(reader, photos)
        print(f"{backend:12s} " + "  ".join(f"{k} {v:6.1f}" for k, v in stages.items())
              + f" ms; {looks:.2f} looks a frame; ×{stages['total'] / TARGET_MS:.2f} the "
              f"{TARGET_MS:.0f} ms target")  # fmt: skip
        results[backend] = stages["total"]
        results[f"{backend} bare"] = bare_forward(backend, photos, reader)
        print(f"{backend:12s} bare forward passes {results[f'{backend} bare']:.1f} ms: pipeline "
              f"overhead ×{results[backend] / results[f'{backend} bare']:.2f}")  # fmt: skip
    if args.deck_reader:
        readers = {
            name: CardReader(args.models, reader_path=path, config=reading_config(args),
                             float32=args.float32)
            for name, path in (("base", None), ("deck", args.deck_reader))
        }  # fmt: skip
        beside = readers["deck"].index_reader.base is not None
        for reader in readers.values():
            pipeline(reader, photos[:3])
        for name, stages in interleaved(readers, photos).items():
            note = " (with the base reader beside it)" if name == "deck" and beside else ""
            print(f"{name} reader{note}: read {stages['read_indices']:.1f} ms, "
                  f"total {stages['total']:.1f} ms")  # fmt: skip
            results[f"{name} reader"] = stages["total"]
    if not args.images:
        reader = CardReader(args.models, float32=args.float32, config=reading_config(args))
        for pose in (None, "edge"):
            table = table_frames(reader, pose)
            print(f"table mode, {pose or 'overhead'} webcam clip: a frame read whole "
                  f"{table['whole']:.1f} ms, a still table {table['still']:.1f} ms, a card laid "
                  f"{table['laid']:.1f} ms ({table['laid read whole']:.0f} of "
                  f"{table['plays']:.0f} read whole all the same)")  # fmt: skip
            results.update({f"table {pose or 'overhead'} {k}": v for k, v in table.items()})
    if args.pt:
        ultralytics_predict(args.pt, photos[:3])
        results["ultralytics"] = ultralytics_predict(args.pt, photos)
        print(
            f"ultralytics predict (PyTorch, same weights) {results['ultralytics']:.1f} ms: "
            f"ours (OpenVINO) is ×{results['ultralytics'] / results['openvino']:.2f} faster"
        )
    print(json.dumps({k: round(v, 2) for k, v in results.items()}))


if __name__ == "__main__":
    main()
