"""`cribcam detect` and `cribcam eval`: the card models on photos, from the command line."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2

from vision.cards_from_detections import cards_from_detections
from vision.detector import MODELS_DIR, CardReader, frame_json
from vision.sources import read_image


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    detect = commands.add_parser("detect", help="read the cards in photos")
    detect.add_argument("images", nargs="+", type=Path, help="image files")
    detect.add_argument("--json", action="store_true", help="one JSON line per image")
    detect.add_argument(
        "--annotate", type=Path, metavar="OUTDIR", help="also write each image with the cards drawn"
    )
    detect.add_argument("--models", type=Path, default=MODELS_DIR, help="model folder")
    detect.set_defaults(run=run_detect)

    evaluate = commands.add_parser("eval", help="measure card reading on labelled photos")
    evaluate.add_argument("dataset", type=Path, help="a YOLO folder with images/ and labels/")
    evaluate.add_argument(
        "--split", type=Path, help="JSON of {part: [file names]}; evaluate one part (--part)"
    )
    evaluate.add_argument("--part", default="holdout", help="which part of --split (holdout)")
    evaluate.add_argument(
        "--out",
        type=Path,
        default=Path("eval-out"),
        help="folder for the report, confusion matrix and worst images",
    )
    evaluate.add_argument("--models", type=Path, default=MODELS_DIR, help="model folder")
    evaluate.set_defaults(run=run_eval)


def run_detect(args: argparse.Namespace) -> int:
    reader = CardReader(args.models)
    if args.annotate:
        args.annotate.mkdir(parents=True, exist_ok=True)
    for path in args.images:
        frame = read_image(path)
        seen = cards_from_detections(reader.read(frame))
        result = frame_json(str(path), seen)
        if args.json:
            print(json.dumps(result))
        else:
            cards = " ".join(c["card"] for c in result["cards"]) or "no cards"
            print(f"{path}: {cards} ({reader.last_times.total():.0f} ms)")
        if args.annotate:
            for card in seen.cards:
                x1, y1, x2, y2 = (int(v) for v in card.box)
                cv2.rectangle(frame, (x1, y1), (x2, y2), (0, 200, 0), 2)
                cv2.putText(
                    frame,
                    str(card.card),
                    (x1, max(y1 - 4, 12)),
                    cv2.FONT_HERSHEY_SIMPLEX,
                    0.6,
                    (0, 200, 0),
                    2,
                )
            cv2.imwrite(str(args.annotate / (path.stem + ".jpg")), frame)
    return 0


def run_eval(args: argparse.Namespace) -> int:
    from vision.evaluate import evaluate, save_confusion_png, save_worst_grid

    names = None
    if args.split:
        names = json.loads(args.split.read_text())[args.part]
    report = evaluate(CardReader(args.models), args.dataset, names)
    args.out.mkdir(parents=True, exist_ok=True)
    summary = report.summary()
    (args.out / "report.json").write_text(json.dumps(summary, indent=1))
    save_confusion_png(report.images, args.out / "confusion.png")
    save_worst_grid(report.images, args.dataset, args.out / "worst.jpg")
    shown = {k: v for k, v in summary.items() if k != "per_class_recall"}
    print(json.dumps(shown, indent=1))
    return 0
