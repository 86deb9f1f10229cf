"""Fit a models folder's score calibration on labelled photos (`cribcam calibrate`).

Each photo is read once with the raw stage outputs kept; every reading is labelled right when
its box overlaps a labelled index of the same card (IoU ≥ 0.5). The weights come from those
readings, the card threshold from the cards they form.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from vision.calibration import CalibrationError, ScoreCalibration, choose_threshold, fit_weights
from vision.cards_from_detections import PairingConfig, cards_from_detections
from vision.detections import CLASS_NAMES, Detections, iou_matrix
from vision.detector import CardReader
from vision.evaluate import CardSetCounts, labelled_photos

#: Card thresholds tried, lowest first.
THRESHOLDS = tuple(round(0.30 + 0.02 * i, 2) for i in range(34))


@dataclass(frozen=True)
class PhotoReadings:
    """One photo's raw readings and its labelled cards."""

    boxes: npt.NDArray[np.float32]
    box_scores: npt.NDArray[np.float32]
    read_probabilities: npt.NDArray[np.float32]
    classes: npt.NDArray[np.int64]
    right: npt.NDArray[np.bool_]
    truth_cards: frozenset[str]

    def cards(self, calibration: ScoreCalibration, threshold: float) -> frozenset[str]:
        scores = calibration.score(self.box_scores, self.read_probabilities)
        seen = cards_from_detections(
            Detections(self.boxes, scores, self.classes), PairingConfig(min_score=threshold)
        )
        return frozenset(str(card.card) for card in seen.cards)


def read_photos(
    reader: CardReader,
    dataset: Path,
    names: Iterable[str] | None = None,
    relabel: Path | None = None,
) -> list[PhotoReadings]:
    photos = []
    for _, frame, truth in labelled_photos(dataset, names, relabel):
        boxes, box_scores, probabilities = reader.corners(frame)
        classes = probabilities.argmax(axis=1)
        overlap = iou_matrix(boxes, truth.boxes) >= 0.5
        right = (overlap & (classes[:, None] == truth.class_ids[None, :])).any(axis=1)
        truth_cards = frozenset(CLASS_NAMES[c] for c in truth.class_ids.tolist())
        photos.append(
            PhotoReadings(boxes, box_scores, probabilities.max(axis=1), classes, right, truth_cards)
        )
    return photos


def card_precision_recall(
    photos: list[PhotoReadings], calibration: ScoreCalibration, threshold: float
) -> tuple[float, float]:
    counts = CardSetCounts.of((p.truth_cards, p.cards(calibration, threshold)) for p in photos)
    return counts.precision, counts.recall


def calibrate(
    reader: CardReader,
    dataset: Path,
    names: Iterable[str] | None,
    precision: float,
    relabel: Path | None = None,
) -> tuple[ScoreCalibration, dict[str, Any]]:
    """The calibration for `reader`'s models, and what it was measured on."""
    if not 0 < precision < 1:
        raise CalibrationError(f"target precision must lie between 0 and 1, got {precision}")
    photos = read_photos(reader, dataset, names, relabel)
    if not photos:
        raise CalibrationError(f"no labelled photos to calibrate on in {dataset}")
    bias, box_weight, read_weight = fit_weights(
        np.concatenate([p.box_scores for p in photos]),
        np.concatenate([p.read_probabilities for p in photos]),
        np.concatenate([p.right for p in photos]),
    )
    fitted = ScoreCalibration(
        bias, box_weight, read_weight, card_threshold=THRESHOLDS[-1]
    )  # chosen next
    threshold = choose_threshold(
        lambda t: card_precision_recall(photos, fitted, t)[0], precision, THRESHOLDS
    )
    card_precision, card_recall = card_precision_recall(photos, fitted, threshold)
    record = {
        "fitted_on": str(dataset),
        **({"relabel": str(relabel)} if relabel else {}),
        "photos": len(photos),
        "readings": int(sum(len(p.right) for p in photos)),
        "target_precision": precision,
        "card_precision": round(card_precision, 4),
        "card_recall": round(card_recall, 4),
    }
    return replace(fitted, card_threshold=threshold), record
