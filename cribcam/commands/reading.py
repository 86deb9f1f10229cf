"""`cribcam detect`, `eval` and `calibrate`: the card models on photos, from the command line."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

import cv2

from cribcam.commands.art import at_least, output_folder
from cribtrain.data.realsplit import split_part
from scorer.cards import parse_card
from vision.config import ReadingConfig
from vision.decks.profiles import ProfileStore, default_root
from vision.detection.models import MODELS_DIR, Image, ModelSizeError, checked_side
from vision.errors import BadImageError
from vision.frame_json import frame_json
from vision.reading import CardReader
from vision.table.cards import FrameCards
from vision.table.roles import Seat, TableLayout, assign_roles
from vision.table.smoothing import TableSmoother
from vision.table.sources import open_source, read_image

SEATS = ("bottom", "left", "top", "right")
#: `cribcam eval --conditions` (`cribtrain.measure.evaluate.CONDITIONS`, whose torch-free
#: module the command imports only when it runs).
CONDITION_NAMES = ("as-is", "blurred", "half-light")


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    detect = commands.add_parser("detect", help="read the cards in photos")
    detect.add_argument("images", nargs="+", type=Path, help="image files")
    detect.add_argument("--json", action="store_true", help="one JSON line per image")
    detect.add_argument(
        "--annotate",
        type=output_folder,
        metavar="OUTDIR",
        help="also write each image with the cards drawn",
    )
    detect.add_argument("--models", type=Path, default=MODELS_DIR, help="model folder")
    detect.add_argument(
        "--seats",
        nargs="+",
        choices=SEATS,
        metavar="SEAT",
        help="table layout (2-4 of bottom left top right): add each card's role",
    )
    detect.add_argument("--dealer", choices=SEATS, help="the dealer's seat (to find the crib)")
    _deck_options(detect)
    detect.set_defaults(run=run_detect)

    watch = commands.add_parser("watch", help="print table changes and play events live")
    watch.add_argument("source", help="camera index, video or image file/folder, or MJPEG URL")
    watch.add_argument(
        "--seats",
        nargs="+",
        choices=SEATS,
        default=["bottom", "top"],
        metavar="SEAT",
        help="table layout (bottom top)",
    )
    watch.add_argument("--dealer", choices=SEATS, help="the dealer's seat (to find the crib)")
    watch.add_argument("--models", type=Path, default=MODELS_DIR, help="model folder")
    watch.add_argument("--frames", type=at_least(1), help="stop after this many frames")
    _deck_options(watch)
    watch.set_defaults(run=run_watch)

    evaluate = commands.add_parser("eval", help="measure card reading on labelled photos")
    evaluate.add_argument("dataset", type=Path, help="a YOLO folder with images/ and labels/")
    _split_options(evaluate, default_part="holdout")
    evaluate.add_argument(
        "--out",
        type=output_folder,
        default=Path("eval-out"),
        help="folder for the report, each photo's cards, confusion matrix and worst images",
    )
    evaluate.add_argument("--models", type=Path, default=MODELS_DIR, help="model folder")
    evaluate.add_argument(
        "--against", type=Path, metavar="EARLIER_OUT",
        help="an earlier eval's --out folder: also write what changed, photo by photo",
    )  # fmt: skip
    evaluate.add_argument(
        "--conditions", nargs="+", choices=CONDITION_NAMES, default=list(CONDITION_NAMES),
        metavar="CONDITION",
        help="read the photos as they are (as-is), under a Gaussian blur of sigma 1.5 px "
        "(blurred) and with every pixel value halved (half-light), each measured on its own "
        "(all three); report.json's full figures, photos.json and --against are the first's",
    )  # fmt: skip
    reading_options(evaluate)
    evaluate.set_defaults(run=run_eval)

    pool = commands.add_parser(
        "pool", help="pool several evaluations' photos into one figure (draws of a set)"
    )
    pool.add_argument("runs", type=Path, nargs="+", metavar="EVAL_OUT", help="eval --out folders")
    pool.set_defaults(run=run_pool)

    calibrate = commands.add_parser(
        "calibrate", help="fit how the two stages' scores combine, on labelled photos"
    )
    calibrate.add_argument("dataset", type=Path, help="a YOLO folder with images/ and labels/")
    _split_options(calibrate, default_part="train")
    calibrate.add_argument(
        "--precision", type=float, default=0.98,
        help="card precision the threshold must reach on these photos (0.98)",
    )  # fmt: skip
    calibrate.add_argument(
        "--models", type=Path, default=MODELS_DIR,
        help="model folder; its calibration.json is (re)written",
    )  # fmt: skip
    calibrate.add_argument(
        "--also", type=Path, nargs="+", default=[], metavar="DIR",
        help="more labelled folders, read whole, whose readings join the dataset's in choosing "
        "the thresholds (e.g. `cribcam synth` scenes of the training designs)",
    )  # fmt: skip
    reading_options(calibrate)
    calibrate.set_defaults(run=run_calibrate)


def _split_options(parser: argparse.ArgumentParser, default_part: str) -> None:
    parser.add_argument(
        "--split", type=Path, help="JSON of {part: [file names]}; use one part (--part)"
    )
    parser.add_argument(
        "--part", default=default_part, help=f"which part of --split ({default_part})"
    )
    parser.add_argument(
        "--relabel", type=Path, metavar="DIR",
        help="corrected label files that replace the dataset's own for the photos they cover "
        "(dev-real: datasets/dev-real-relabel/labels)",
    )  # fmt: skip


def _split_names(args: argparse.Namespace) -> list[str] | None:
    return split_part(args.split, args.part) if args.split else None


def detector_side(text: str) -> int:
    """`--detector-size`: checked as the command line is read, not at the first frame."""
    try:
        return checked_side(int(text))
    except (ValueError, ModelSizeError) as error:
        raise argparse.ArgumentTypeError(str(error)) from error


def reading_options(parser: argparse.ArgumentParser) -> None:
    """`--detector-size` and `--one-look` (speed for reading), for every command that reads
    cards."""
    parser.add_argument(
        "--detector-size", type=detector_side, metavar="PX",
        help="the corner detector reads frames at up to PX × PX pixels (800; 640: faster)",
    )  # fmt: skip
    parser.add_argument(
        "--one-look", action="store_true",
        help="stage 1 looks once: no closer look at a large frame whose indices are small, "
        "no far look for large indices (faster)",
    )  # fmt: skip


def reading_config(args: argparse.Namespace) -> ReadingConfig:
    """The reading `reading_options` asked for."""
    return ReadingConfig(
        detector_side=args.detector_size, closer_look=not args.one_look, far_look=not args.one_look
    )


def _deck_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--deck", help="deck profile to read with (default: the deck in use; "
                        "'base': the base model)")  # fmt: skip
    parser.add_argument("--decks", type=Path, help="deck profile folder (<models>/decks)")
    reading_options(parser)


def deck_reader(args: argparse.Namespace) -> CardReader:
    """The card reader with the chosen deck profile's reading stage, if any."""
    store = ProfileStore(args.decks or default_root(args.models))
    name = None if args.deck == "base" else args.deck or store.active()
    return CardReader(args.models, reader_path=store.reader_for(name), config=reading_config(args))


def run_detect(args: argparse.Namespace) -> int:
    """Read each photo; one that cannot be read is named (a JSON line with its `error`) and
    the rest are still read, the exit status then 2."""
    reader = deck_reader(args)
    if args.annotate:
        args.annotate.mkdir(parents=True, exist_ok=True)
    layout = TableLayout(args.seats) if args.seats else None
    failed = 0
    for path in args.images:
        try:
            frame = read_image(path)
        except BadImageError as error:
            failed += 1
            if args.json:
                print(json.dumps({"image": str(path), "error": str(error)}))
            print(f"cribcam detect: error: {error}", file=sys.stderr)
            continue
        reading = reader.read(frame)
        seen = reading.cards
        result = frame_json(str(path), seen)
        if layout is not None:
            _add_roles(result, seen, layout, frame, args.dealer)
        if args.json:
            print(json.dumps(result))
        else:
            cards = " ".join(c["card"] for c in result["cards"]) or "no cards"
            print(f"{path}: {cards} ({reading.times.total():.0f} ms){_hints(result)}")
        if args.annotate:
            cv2.imwrite(str(args.annotate / (path.stem + ".jpg")), _annotated(frame, seen))
    return 2 if failed else 0


def _add_roles(
    result: dict[str, Any], seen: FrameCards, layout: TableLayout, frame: Image, dealer: Seat | None
) -> None:
    """Each card's role on the table (or `undecided`), and why the undecided ones are."""
    height, width = frame.shape[:2]
    state = assign_roles(seen, layout, (width, height), dealer=dealer)
    roles = state.roles()
    for card in result["cards"]:
        card["role"] = str(roles.get(parse_card(card["card"]), "undecided"))
    result["undecided"] = [
        {"cards": [str(c.card) for c in u.cards], "reason": u.reason} for u in state.undecided
    ]


def _hints(result: dict[str, Any]) -> str:
    """What the page would say of the frame: indices too small, a card cut by the edge."""
    hints = ""
    if result["small_indices"]:
        hints += f"; indices only {result['index_px']:.0f} px tall: some cards may be misread"
    if result["cut_at_edge"]:
        hints += "; a card cut by the picture's edge was not read"
    return hints


def _annotated(frame: Image, seen: FrameCards) -> Image:
    """The frame with each card read boxed and named."""
    for card in seen.cards:
        x1, y1, x2, y2 = (int(v) for v in card.box)
        cv2.rectangle(frame, (x1, y1), (x2, y2), (0, 200, 0), 2)
        cv2.putText(
            frame, str(card.card), (x1, max(y1 - 4, 12)), cv2.FONT_HERSHEY_SIMPLEX, 0.6,
            (0, 200, 0), 2,
        )  # fmt: skip
    return frame


def run_watch(args: argparse.Namespace) -> int:
    """Read frames, smooth the table over time, print what changes and who laid what."""
    reader = deck_reader(args)
    smoother = TableSmoother(TableLayout(args.seats))
    last: dict[str, str] = {}
    with open_source(args.source) as source:
        for frame in source:
            seen = reader.cards(frame.image)
            update = smoother.update(
                seen, frame.size, dealer=args.dealer, timestamp=frame.timestamp
            )
            for event in update.events:
                print(f"frame {frame.index}: {event}", flush=True)
            roles = {str(card): str(role) for card, role in update.state.roles().items()}
            if roles != last:
                table = ", ".join(f"{card} {role}" for card, role in sorted(roles.items()))
                print(f"frame {frame.index}: table: {table or 'no cards'}", flush=True)
                last = roles
            if args.frames is not None and frame.index + 1 >= args.frames:
                break
    return 0


def run_eval(args: argparse.Namespace) -> int:
    from cribtrain.measure.evaluate import (
        CONDITIONS,
        PHOTOS_FILE,
        compare_runs,
        evaluate,
        read_photos,
        save_confusion_png,
        save_worst_grid,
    )

    earlier = read_photos(args.against) if args.against else None  # a bad folder fails first
    reader = CardReader(args.models, config=reading_config(args))
    conditions = {condition.name: condition for condition in CONDITIONS}
    reports = {
        name: evaluate(reader, args.dataset, _split_names(args), args.relabel,
                       conditions[name].change)
        for name in dict.fromkeys(args.conditions)
    }  # fmt: skip
    first, report = next(iter(reports.items()))
    args.out.mkdir(parents=True, exist_ok=True)
    summary = {
        "condition": first,
        **report.summary(),
        "conditions": {name: each.headline() for name, each in reports.items()},
    }
    (args.out / "report.json").write_text(json.dumps(summary, indent=1))
    (args.out / PHOTOS_FILE).write_text(json.dumps(report.photos(), indent=1))
    try:
        save_confusion_png(report.images, args.out / "confusion.png")
    except ImportError:  # matplotlib is the `plots` extra; the figures need none of it
        print(
            'cribcam eval: no confusion.png without matplotlib: pip install -e ".[plots]"',
            file=sys.stderr,
        )
    save_worst_grid(report.images, args.dataset, args.out / "worst.png")
    shown = {k: v for k, v in summary.items() if k != "per_class_recall"}
    if earlier is not None:
        now = {r.name: (r.truth_cards, r.read_cards) for r in report.images}
        before = {photo.image: (photo.there, photo.read) for photo in earlier}
        comparison = {"against": str(args.against), **compare_runs(before, now)}
        (args.out / "against.json").write_text(json.dumps(comparison, indent=1))
        shown["against"] = {k: v for k, v in comparison.items() if k != "changed"}
    print(json.dumps(shown, indent=1))
    return 0


def run_pool(args: argparse.Namespace) -> int:
    from cribtrain.measure.evaluate import pooled_figures

    print(json.dumps(pooled_figures(args.runs), indent=1))
    return 0


def run_calibrate(args: argparse.Namespace) -> int:
    from cribtrain.measure.calibrate import calibrate
    from vision.detection.calibration import CALIBRATION_FILE

    names = _split_names(args)
    calibration, record = calibrate(
        CardReader(args.models, config=reading_config(args)),
        args.dataset,
        names,
        args.precision,
        args.relabel,
        args.also,
    )
    calibration.save(args.models / CALIBRATION_FILE, **record)
    print(json.dumps({**asdict(calibration), **record}, indent=1))
    return 0
