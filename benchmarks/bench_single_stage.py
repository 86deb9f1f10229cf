"""The two-stage card reader against a single 52-class detector, on the same photos.

Run from the repository root: ``python benchmarks/bench_single_stage.py CARDS.onnx [--designs
DIR]``. The single-stage detector's card threshold is chosen as the two stages' is (the lowest
reaching 98 % card-set precision on the real training part); both are then read on the real
held-out part and, when given, a folder of held-out-design scenes. Figures are printed, never
asserted.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cribtrain.fit.single_stage import (
    ReadPhoto,
    SingleStageReader,
    card_counts,
    read_photos,
    threshold_for,
)
from cribtrain.measure.evaluate import Report, evaluate
from vision.detection.models import MODELS_DIR
from vision.reading import CardReader

DEV_REAL = Path(__file__).resolve().parents[2] / "shared" / "datasets" / "dev-real"
SPLIT = Path(__file__).resolve().parents[1] / "datasets" / "dev-real-split.json"
TARGET_PRECISION = 0.98
#: Thresholds the single stage's card-set precision and recall are also printed at.
CURVE = (0.05, 0.1, 0.2, 0.3, 0.5)


def figures(report: Report) -> dict[str, float]:
    summary = report.summary()
    return {key: round(float(summary[key]), 4) for key in
            ("card_set_precision", "card_set_recall", "corner_map50", "perfect_images",
             "median_ms_per_image")}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("cards", type=Path, help="the single-stage detector (ONNX)")
    parser.add_argument("--designs", type=Path, help="synthetic scenes of held-out designs")
    parser.add_argument("--models", type=Path, default=MODELS_DIR,
                        help="the two stages' models folder (the shipped ones)")  # fmt: skip
    args = parser.parse_args()
    split = json.loads(SPLIT.read_text())
    single = SingleStageReader(args.cards)
    train = read_photos(single, DEV_REAL, split["train"])
    single.card_threshold = threshold_for(train, TARGET_PRECISION)
    counts = card_counts(train, single.card_threshold)
    print(f"single stage: card threshold {single.card_threshold} (real training part: "
          f"precision {counts.precision:.3f}, recall {counts.recall:.3f})")  # fmt: skip
    sets: list[tuple[str, Path, list[str] | None]] = [("real held-out", DEV_REAL, split["holdout"])]
    if args.designs:
        sets.append(("held-out designs", args.designs, None))
    results: dict[str, dict[str, Any]] = {}
    for label, dataset, names in sets:
        reports = {name: evaluate(reader, dataset, names) for name, reader in
                   (("two stages", CardReader(args.models)), ("single stage", single))}  # fmt: skip
        for name, report in reports.items():
            results[f"{label}, {name}"] = found = figures(report)
            print(f"{label:17s} {name:12s} " + "  ".join(f"{k} {v}" for k, v in found.items()))
        # Where the precision rule leaves the single stage too few cards to judge it by. Its
        # report kept every detection down to MIN_SCORE, so no second reading is needed.
        photos = [ReadPhoto(r.found, r.truth_cards) for r in reports["single stage"].images]
        curve = {}
        for threshold in CURVE:
            counts = card_counts(photos, threshold)
            curve[str(threshold)] = [round(counts.precision, 4), round(counts.recall, 4)]
        results[f"{label}, single stage by threshold (precision, recall)"] = curve
        print(f"{label:17s} single stage by threshold (precision, recall): {curve}")
    print(json.dumps(results))


if __name__ == "__main__":
    main()
