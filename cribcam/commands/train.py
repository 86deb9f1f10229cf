"""`cribcam train`: build the training sets, train either stage, export the app's ONNX files.

    cribcam train conditions SRC OUT [--split FILE]         # SRC again under camera conditions
    cribcam train sets OUT --synth DIR... --synth-val DIR   # windows + crops, + dev-real train
    cribcam train detector OUT --hours 1 [--resume]         # stage 1, OUT/runs/detector
    cribcam train reader OUT --hours 1 [--resume]           # stage 2, OUT/runs/reader
    cribcam train export OUT [--models models]              # best weights -> ONNX for the app
    cribcam train sets OUT --none --synth DIR... --synth-val DIR   # + "none" crops, OUT/reader
    cribcam train widen models/reader.pt W53.pt             # the reader + a 53rd class, "none"
    cribcam train reader OUT --init W53.pt --hours 1        # ... fine-tuned to read "none" too
    cribcam train export OUT --only reader                  # that reader alone -> ONNX
    cribcam train sets OUT --cards --synth DIR... --synth-val DIR   # the same windows, 52 classes
    cribcam train cards OUT --hours 1                       # the single-stage 52-class detector
    cribcam train export OUT --cards FILE.onnx              # its best weights -> ONNX
    cribcam train sets OUT --small --synth DIR... --synth-val DIR  # small-index crops only
    cribcam train reader OUT --init models/reader.pt        # ... the small-index reader
    cribcam train export OUT --only small-reader            # -> models/corner-reader-small.onnx
    cribcam train recover models/corner-reader-small.onnx SMALL.pt --images OUT/reader/train
                                                            # its weights again, to train on
    cribcam train prune models/detector.pt THIN.pt --share 0.25  # a faster stage 1 ...
    cribcam train detector OUT --init THIN.pt --lr 0.01     # ... trained back to its accuracy
    cribcam train orientation OUT --synth DIR... --synth-val DIR --minutes 10
                                                            # which way an index faces -> ONNX

A "none" crop is a box the shipped stage 1 (`--models`) draws on no labelled index: pips, card
art, keys. A reader that learns them as a class sets them aside instead of reading a card.

Training needs the `train` extra (ultralytics, torch); everything stays offline.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from vision.config import DEFAULT_DETECTOR_SIDE
from vision.detection.models import DETECTOR_FILE, MODELS_DIR, READER_FILE, SMALL_READER_FILE
from vision.errors import TrainingError

DEV_REAL = Path(__file__).resolve().parents[3] / "shared" / "datasets" / "dev-real"
SPLIT = Path(__file__).resolve().parents[2] / "datasets" / "dev-real-split.json"
RELABEL = Path(__file__).resolve().parents[2] / "datasets" / "dev-real-relabel" / "labels"


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    train = commands.add_parser("train", help="train the card models (needs the train extra)")
    steps = train.add_subparsers(dest="step", metavar="STEP", required=True)

    sets = steps.add_parser("sets", help="cut detector windows and reader crops")
    sets.add_argument("out", type=Path, help="training folder")
    sets.add_argument("--synth", type=Path, nargs="+", required=True,
                      help="`cribcam synth` outputs (one or more)")  # fmt: skip
    sets.add_argument("--synth-val", type=Path, required=True, help="a second synth set (val)")
    sets.add_argument("--real", type=Path, default=DEV_REAL, help="dev-real photos")
    sets.add_argument("--split", type=Path, default=SPLIT, help="its train/holdout split")
    sets.add_argument(
        "--relabel", type=Path, default=RELABEL, help="corrected labels of the real photos"
    )
    kind = sets.add_mutually_exclusive_group()
    kind.add_argument(
        "--cards", action="store_true", help="only detector windows, labelled by card (OUT/cards)"
    )
    kind.add_argument("--none", action="store_true",
                      help="also crop stage 1's boxes on no index, for a reader with a 'none' "
                           "class (`train widen`)")  # fmt: skip
    kind.add_argument("--small", action="store_true",
                      help="only crops of small indices from shrunk scenes, with 'none' crops, "
                           "for the small-index reader (cribtrain.fit.small_index)")  # fmt: skip
    sets.add_argument("--models", type=Path, default=MODELS_DIR,
                      help="the models whose stage 1 boxes the 'none' crops")  # fmt: skip
    sets.set_defaults(run=run_sets)

    widen = steps.add_parser("widen", help="add a 'none' class to a 52-class reader's weights")
    widen.add_argument("weights", type=Path, help="a 52-class reader (.pt)")
    widen.add_argument("target", type=Path, help="where the 53-class weights go (.pt)")
    widen.set_defaults(run=run_widen)

    recover = steps.add_parser("recover", help="trainable weights (.pt) from a shipped ONNX file")
    recover.add_argument("exported", type=Path, help="e.g. models/corner-reader-small.onnx")
    recover.add_argument("target", type=Path, help="where the weights go (.pt)")
    recover.add_argument("--like", type=Path, default=MODELS_DIR / "reader.pt",
                         help="weights of the same network (models/reader.pt)")  # fmt: skip
    recover.add_argument("--images", type=Path, required=True,
                         help="training images, e.g. OUT/reader/train (512 at most)")  # fmt: skip
    recover.set_defaults(run=run_recover)

    prune = steps.add_parser("prune", help="a thinner, faster detector to train on")
    prune.add_argument("weights", type=Path, help="a detector (.pt), e.g. models/detector.pt")
    prune.add_argument("target", type=Path, help="where the pruned weights go (.pt)")
    prune.add_argument("--share", type=float, default=0.25,
                       help="share of each layer's channels removed (0.25)")  # fmt: skip
    prune.set_defaults(run=run_prune)

    for stage in ("detector", "reader", "cards"):
        step = steps.add_parser(stage, help=f"train the {stage} for a wall-clock budget")
        step.add_argument("out", type=Path, help="training folder (from `train sets`)")
        step.add_argument("--hours", type=float, default=1.0, help="time budget (1.0)")
        step.add_argument("--resume", action="store_true", help="continue from last.pt")
        step.add_argument("--init", type=Path, help="start from these weights (.pt)")
        step.add_argument("--device", default="cpu", help="cpu, or a GPU index such as 0")
        step.add_argument("--lr", type=float, help="starting learning rate (the stage's own)")
        step.set_defaults(run=run_stage, stage=stage)

    turn = steps.add_parser("orientation", help="train the network telling which way an index "
                            "faces, and export it (OUT/corner-orientation.onnx)")  # fmt: skip
    turn.add_argument("out", type=Path, help="where its weights, results and ONNX file go")
    turn.add_argument("--synth", type=Path, nargs="+", required=True,
                      help="`cribcam synth` outputs (meta/ gives each index's turn)")  # fmt: skip
    turn.add_argument("--synth-val", type=Path, nargs="+", required=True,
                      help="synth sets that choose the epoch kept")  # fmt: skip
    turn.add_argument("--real", type=Path, default=DEV_REAL, help="dev-real photos")
    turn.add_argument("--split", type=Path, default=SPLIT, help="its train/holdout split")
    turn.add_argument("--relabel", type=Path, default=RELABEL, help="corrected real labels")
    turn.add_argument("--minutes", type=float, default=10.0, help="time budget (10)")
    turn.add_argument("--seed", type=int, default=0)
    turn.set_defaults(run=run_orientation)

    conditions = steps.add_parser(
        "conditions",
        help="a labelled folder's photos as they are and again under drawn camera conditions "
        "(blur, dim light, glare, JPEG), with their labels and a split (OUT/split.json)",
    )
    conditions.add_argument("source", type=Path, help="a YOLO folder (images/, labels/)")
    conditions.add_argument("out", type=Path, help="where the photos, labels and split go")
    conditions.add_argument("--split", type=Path, help="take only this split's part (--part)")
    conditions.add_argument("--part", default="train", help="which part of --split (train)")
    conditions.add_argument("--relabel", type=Path, help="corrected label files (dev-real's)")
    conditions.add_argument("--copies", type=int, default=2, help="copies a photo (2)")
    conditions.add_argument("--seed", type=int, default=0)
    conditions.set_defaults(run=run_conditions)

    export = steps.add_parser("export", help="export the best weights to ONNX for the app")
    export.add_argument("out", type=Path, help="training folder")
    export.add_argument("--models", type=Path, default=MODELS_DIR, help="where the app looks")
    export.add_argument("--cards", type=Path, help="export the 52-class detector here instead")
    export.add_argument("--only", choices=("detector", "reader", "small-reader"),
                        help="export one stage (the other was not trained in OUT); "
                             "small-reader: OUT's reader as the small-index reader")  # fmt: skip
    export.set_defaults(run=run_export)


def run_sets(args: argparse.Namespace) -> int:
    from cribtrain.data.realsplit import split_part
    from cribtrain.data.trainsets import build_sets, build_windows, stage_one_boxes
    from cribtrain.fit.small_index import build_small_sets
    from vision.reading import CardReader

    for folder in (*args.synth, args.synth_val, args.real):
        if not (folder / "images").is_dir():
            raise TrainingError(f"no images/ in {folder}: not a cribcam synth or YOLO folder")
    real_train = split_part(args.split, "train")
    # Loaded first: missing models are named before any set is cut.
    finder = stage_one_boxes(CardReader(args.models)) if args.none or args.small else None
    if args.small and finder:
        counts = build_small_sets(args.synth, args.synth_val, args.real, real_train, args.out,
                                  finder, relabel=args.relabel)  # fmt: skip
    elif args.cards:
        counts = build_windows(args.synth, args.synth_val, args.real, real_train,
                               args.out / "cards", card_classes=True,
                               relabel=args.relabel)  # fmt: skip
    else:
        counts = build_sets(args.synth, args.synth_val, args.real, real_train, args.out,
                            relabel=args.relabel, none_finder=finder)  # fmt: skip
    for name, count in counts.items():
        print(f"{name}: {count}")
    return 0


def run_conditions(args: argparse.Namespace) -> int:
    from cribtrain.data.conditions import write_conditioned
    from cribtrain.data.realsplit import split_part
    from cribtrain.measure.evaluate import photo_files

    if not (args.source / "images").is_dir():
        raise TrainingError(f"no images/ in {args.source}: not a YOLO folder")
    if args.copies < 1:
        raise TrainingError(f"--copies must be 1 or more, got {args.copies}")
    names = (split_part(args.split, args.part) if args.split
             else [path.name for path in photo_files(args.source)])  # fmt: skip
    split = write_conditioned(args.source, names, args.out, copies=args.copies, seed=args.seed,
                              relabel=args.relabel)  # fmt: skip
    print(f"{len(split['train'])} photos in {args.out}; split {args.out / 'split.json'}")
    return 0


def run_widen(args: argparse.Namespace) -> int:
    from cribtrain.fit.train import add_none_class

    print(f"53-class reader: {add_none_class(args.weights, args.target)}")
    return 0


def run_recover(args: argparse.Namespace) -> int:
    from cribtrain.fit.train import weights_from_onnx

    weights = weights_from_onnx(args.exported, args.like, args.target, args.images)
    print(f"trainable weights: {weights}")
    return 0


def run_prune(args: argparse.Namespace) -> int:
    from cribtrain.fit.prune import prune_detector

    result = prune_detector(args.weights, args.target, args.share)
    print(f"pruned detector: {args.target}; multiply-accumulates {result.macs_kept:.0%} of "
          f"before, parameters {result.params_after:,} of {result.params_before:,}")  # fmt: skip
    return 0


def run_stage(args: argparse.Namespace) -> int:
    from cribtrain.fit.train import train_stage

    data = {
        "detector": args.out / "detector" / "data.yaml",
        "reader": args.out / "reader",
        "cards": args.out / "cards" / "data.yaml",
    }[args.stage]
    best = train_stage(args.stage, data, args.out / "runs", hours=args.hours,
                       resume=args.resume, init=args.init, device=args.device,
                       lr=args.lr)  # fmt: skip
    print(f"best weights: {best}")
    return 0


def run_orientation(args: argparse.Namespace) -> int:
    from cribtrain.fit.orientation_train import train_orientation

    print(f"orientation network: {train_orientation(args)}")
    return 0


def run_export(args: argparse.Namespace) -> int:
    from cribtrain.fit.small_index import CONTEXT_MARGIN
    from cribtrain.fit.train import export_onnx, set_metadata
    from vision.detection.reader_classes import MARGIN_KEY

    runs = args.out / "runs"
    if args.cards:
        export_onnx(runs / "cards" / "weights" / "best.pt", args.cards, imgsz=640)
        print(f"exported to {args.cards}")
        return 0
    if args.only == "small-reader":
        small = export_onnx(runs / "reader" / "weights" / "best.pt",
                            args.models / SMALL_READER_FILE, imgsz=64, dynamic=True,
                            half_weights=True)  # fmt: skip
        set_metadata(small, {MARGIN_KEY: str(CONTEXT_MARGIN)})
    if args.only in (None, "detector"):
        export_onnx(
            runs / "detector" / "weights" / "best.pt",
            args.models / DETECTOR_FILE,
            imgsz=DEFAULT_DETECTOR_SIDE,
            dynamic=True,
            half_weights=True,
        )
    if args.only in (None, "reader"):
        export_onnx(runs / "reader" / "weights" / "best.pt", args.models / READER_FILE, imgsz=64,
                    dynamic=True)  # fmt: skip
    print(f"exported to {args.models}")
    return 0
