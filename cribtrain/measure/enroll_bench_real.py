"""Benchmark: enrol the real decks of dev-real, tune, and read their held-out photos.

    python benchmarks/bench_enroll_real.py DATASET --split FILE [--relabel DIR] [--groups
    webcam]

Each capture group of dev-real is one table's deck (`cribtrain.data.realsplit`). Its photos in the
split's training part stand in for the player's enrolment: up to two labelled corners of every
card they show become the confirmed patches (the player confirmed every card; the labelled
boxes stand in for the detector), and the reading stage is tuned on them as the app tunes. Both
readers then read every labelled corner of the group's held-out photos (never trained on, never
enrolled), at four quarter turns as the app reads: per corner, and per card (a card's corners in
one photo read together); and the whole app reads each photo (`app`: the cards it names against
the labelled ones; "after_no_small": the tuned reader without the small-index reader). Caveat:
the shipped reader was itself fine-tuned on the training part, so "before" already knows these
decks a little.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from cribtrain.data.realsplit import read_shots, split_part
from cribtrain.fit.tune import TuneSettings, tune_profile
from cribtrain.measure.enroll_bench import (
    ReaderSetup,
    app_summary,
    compared_readers,
    report,
    stage_probabilities,
)
from cribtrain.measure.evaluate import labelled_photos
from vision.decks.enroll import READ_PX, cut_patch
from vision.decks.profiles import ProfileStore
from vision.detection.crops import crop_index
from vision.detection.detections import CLASS_NAMES
from vision.detection.models import MODELS_DIR

Image = npt.NDArray[np.uint8]
#: Game photos' cards are grouped by the photo they lie in.
CARD_KEY = 1000


def enrolment_patches(
    dataset: Path, photos: Sequence[str], relabel: Path | None = None
) -> list[tuple[str, list[Image]]]:
    """Each card once, as an enrolment shot shows it: the corners of the first photo that shows
    the most of them (the tune holds a card's second corner back to check itself)."""
    best: dict[str, tuple[int, list[Image]]] = {}
    for _, frame, truth in labelled_photos(dataset, photos, relabel):
        for class_id in np.unique(truth.class_ids).tolist():
            card = CLASS_NAMES[class_id]
            boxes = truth.boxes[truth.class_ids == class_id][:2]
            if len(boxes) > best.get(card, (0, []))[0]:
                best[card] = (len(boxes), [cut_patch(frame, box) for box in boxes])
    return [(card, best[card][1]) for card in CLASS_NAMES if card in best]


def read_photos(dataset: Path, photos: Sequence[str], models: Path,
                readers: dict[str, ReaderSetup],
                relabel: Path | None = None) -> dict[str, dict[str, Any]]:  # fmt: skip
    """Each reader's share of labelled corners, and of cards, read right in `photos` (`readers`:
    name -> how it reads, `ReaderSetup`; per corner and per card the reading stage's alone), and
    the cards the whole app names in each photo against its labelled cards (`app`)."""
    apps = {name: reading.app(models) for name, reading in readers.items()}
    named: dict[str, list[tuple[set[str], set[str]]]] = {name: [] for name in readers}
    crops: list[Image] = []
    truth: list[int] = []
    card_of: list[int] = []
    for k, (_, frame, labels) in enumerate(labelled_photos(dataset, photos, relabel)):
        there = {CLASS_NAMES[class_id] for class_id in labels.class_ids.tolist()}
        for name, app in apps.items():
            named[name].append((there, {str(seen.card) for seen in app.cards(frame).cards}))
        for box, class_id in zip(labels.boxes, labels.class_ids.tolist(), strict=True):
            crops.append(crop_index(frame, box.astype(np.float64), READ_PX))
            truth.append(class_id)
            card_of.append(k * CARD_KEY + class_id)
    batch, expected, cards = np.stack(crops), np.array(truth), np.array(card_of)
    out: dict[str, dict[str, Any]] = {}
    for name, probabilities in stage_probabilities(apps, readers, batch).items():
        per_card = [
            int(probabilities[cards == c].mean(axis=0).argmax()) == c % CARD_KEY
            for c in np.unique(cards)
        ]
        out[name] = {
            "per_corner": round(float(np.mean(probabilities.argmax(1) == expected)), 4),
            "per_card": round(float(np.mean(per_card)), 4),
            "corners": len(expected),
            "cards": len(per_card),
            "app": app_summary(named[name]),
        }
    return out


def bench_group(group: str, dataset: Path, split: dict[str, list[str]], models: Path,
                settings: TuneSettings, relabel: Path | None = None,
                base_weights: Sequence[float] = ()) -> dict[str, Any]:  # fmt: skip
    groups = {shot.file: shot.group for shot in read_shots(dataset)}
    enrol = [name for name in split["train"] if groups[name] == group]
    test = [name for name in split["holdout"] if groups[name] == group]
    cards = enrolment_patches(dataset, enrol, relabel)
    with tempfile.TemporaryDirectory() as root:
        start = time.monotonic()
        result = tune_profile(ProfileStore(Path(root)), group, cards, base_models=models,
                              settings=settings, progress=None)  # fmt: skip
        seconds = time.monotonic() - start
        readers = compared_readers(models, result.profile.reader, base_weights)
        read = read_photos(dataset, test, models, readers, relabel)
    return {
        "group": group, "enrolment_photos": len(enrol), "cards_enrolled": len(cards),
        "patches": sum(len(p) for _, p in cards), "test_photos": len(test),
        "held_out_crops_before": result.accuracy_before,
        "held_out_crops_after": result.accuracy_after, "tune_seconds": round(seconds, 1),
        **{f"test_{name}": reading for name, reading in read.items()},
    }  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", type=Path, help="dev-real (images/, labels/, provenance.csv)")
    parser.add_argument("--split", type=Path, required=True, help="train/holdout JSON")
    parser.add_argument(
        "--relabel", type=Path, metavar="DIR", help="corrected labels (dev-real-relabel/labels)"
    )
    parser.add_argument("--groups", nargs="+", default=["phoneA", "phoneB", "webcam"])
    parser.add_argument("--models", type=Path, default=MODELS_DIR)
    parser.add_argument("--budget", type=float, default=180.0, help="tune seconds per deck")
    parser.add_argument("--out", type=Path, help="also write the results here (JSON)")
    parser.add_argument("--base-weight", type=float, nargs="+", default=[], metavar="W",
                        help="also read with the base reader beside the tuned at W")  # fmt: skip
    args = parser.parse_args(argv)
    split = {part: split_part(args.split, part) for part in ("train", "holdout")}
    settings = TuneSettings(budget_s=args.budget)
    return report(
        (
            bench_group(
                group, args.dataset, split, args.models, settings, args.relabel, args.base_weight
            )
            for group in args.groups
        ),
        args.out,
    )


if __name__ == "__main__":
    raise SystemExit(main())
