"""Fit a models folder's score calibration on labelled photos (`cribcam calibrate`).

Each photo is read once with the raw stage outputs kept; every reading is labelled right when
its box overlaps a labelled index of the same card (IoU ≥ 0.5). The weights come from those
readings, the card threshold from the cards they form, and the threshold for an index at the
frame's edge from those readings alone.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from cribtrain.measure.evaluate import CardSetCounts, labelled_photos
from vision.detection.calibration import (
    CalibrationError,
    ScoreCalibration,
    choose_threshold,
    fit_weights,
)
from vision.detection.detections import CLASS_NAMES, Detections, at_frame_edge, iou_matrix
from vision.detection.reader import ranked_choices
from vision.reading import CardReader, read_rows

#: Card thresholds tried, lowest first.
THRESHOLDS = tuple(round(0.30 + 0.02 * i, 2) for i in range(34))
#: Thresholds tried for the readings of indices at the frame's edge (from the card threshold).
EDGE_THRESHOLDS = tuple(round(0.50 + 0.01 * i, 2) for i in range(50))


@dataclass(frozen=True)
class PhotoReadings:
    """One photo's raw readings (both stages' rows, and which way each index faces), whether
    each is right (its first choice names a labelled index it overlaps), which lie at the
    frame's edge, the photo's size and its labelled cards."""

    readings: Detections
    right: npt.NDArray[np.bool_]
    at_edge: npt.NDArray[np.bool_]
    size: tuple[int, int]
    truth_cards: frozenset[str]

    @property
    def box_scores(self) -> npt.NDArray[np.float32]:
        return read_rows(self.readings)[0]

    @property
    def read_probabilities(self) -> npt.NDArray[np.float32]:
        """The first choice's chance: what the calibration weighs."""
        return ranked_choices(read_rows(self.readings)[1])[1][:, 0]

    def cards(self, reader: CardReader, calibration: ScoreCalibration) -> frozenset[str]:
        """The cards `reader` reads from these readings under `calibration` (`CardReader.read`'s
        scoring and grouping, conflicts resolved)."""
        trial = reader.with_calibration(calibration)
        _, seen = trial.cards_from_scored(trial.score(self.readings), *self.size)
        return frozenset(str(card.card) for card in seen.cards)


def read_photos(
    reader: CardReader,
    dataset: Path,
    names: Iterable[str] | None = None,
    relabel: Path | None = None,
) -> list[PhotoReadings]:
    photos = []
    for _, frame, truth in labelled_photos(dataset, names, relabel):
        readings = reader.index_readings(frame)
        classes = ranked_choices(read_rows(readings)[1])[0][:, 0]
        overlap = iou_matrix(readings.boxes, truth.boxes) >= 0.5
        right = (overlap & (classes[:, None] == truth.class_ids[None, :])).any(axis=1)
        truth_cards = frozenset(CLASS_NAMES[c] for c in truth.class_ids.tolist())
        height, width = frame.shape[:2]
        at_edge = at_frame_edge(readings.boxes, width, height)
        everywhere = np.ones(len(readings), np.bool_)
        facing = reader.orientations(frame, readings.boxes, everywhere)
        photos.append(PhotoReadings(
            readings.with_rows(facing=facing), right, at_edge, (width, height), truth_cards
        ))  # fmt: skip
    return photos


def card_precision_recall(
    photos: list[PhotoReadings], reader: CardReader, calibration: ScoreCalibration,
    threshold: float,
) -> tuple[float, float]:  # fmt: skip
    at = replace(calibration, card_threshold=threshold)
    counts = CardSetCounts.of((p.truth_cards, p.cards(reader, at)) for p in photos)
    return counts.precision, counts.recall


def edge_threshold(
    photos: list[PhotoReadings], calibration: ScoreCalibration, precision: float
) -> tuple[float | None, int]:
    """The lowest threshold from the card threshold at which the readings of indices at the
    frame's edge are not shown to be right less than `precision` of the time: the upper end of
    the 95 % interval of their share right reaches it (None when no photo has one); and how
    many such readings the photos have.

    A photo set holds few such readings (77 above preview 8's card threshold), so their share
    right moves by points with each wrong one: two wrong among the 60 from 0.98 set aside 35
    readings, 33 of them right, and 1.2 points of real recall (MODEL_CARD.md, "Preview 8.1")."""
    scores = np.concatenate([
        calibration.score(p.box_scores, p.read_probabilities)[p.at_edge] for p in photos
    ])  # fmt: skip
    right = np.concatenate([p.right[p.at_edge] for p in photos])
    if not len(right):
        return None, 0

    def share_right_at_most(threshold: float) -> float:
        above = right[scores >= threshold]
        return wilson_upper(int(above.sum()), len(above))

    card = calibration.card_threshold
    grid = [t for t in EDGE_THRESHOLDS if t >= card] or [card]
    return choose_threshold(share_right_at_most, precision, grid), len(right)


def wilson_upper(right: int, total: int, z: float = 1.96) -> float:
    """The upper end of the Wilson score interval of a share `right` of `total` (1 for none)."""
    if total == 0:
        return 1.0
    share, spread = right / total, z * z / total
    centre = share + spread / 2
    half = z * math.sqrt(share * (1 - share) / total + spread / (4 * total))
    return min(1.0, (centre + half) / (1 + spread))


def calibrate(
    reader: CardReader,
    dataset: Path,
    names: Iterable[str] | None,
    precision: float,
    relabel: Path | None = None,
    also: Sequence[Path] = (),
) -> tuple[ScoreCalibration, dict[str, Any]]:
    """The calibration for `reader`'s models, and what it was measured on.

    `also`: more labelled folders, read whole, whose readings join the choice of the
    thresholds (not the fit of the weights). A reader fine-tuned on the real training photos is
    surer of them than of any photo it never saw, and a threshold chosen on them alone is then
    too low (MODEL_CARD.md, "Preview 6"); scenes of the training designs drawn for calibration
    add views it did not learn."""
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
    for folder in also:
        more = read_photos(reader, folder)
        if not more:
            raise CalibrationError(f"no labelled photos to calibrate on in {folder}")
        photos += more
    fitted = ScoreCalibration(
        bias, box_weight, read_weight, card_threshold=THRESHOLDS[-1]
    )  # chosen next
    threshold = choose_threshold(
        lambda t: card_precision_recall(photos, reader, fitted, t)[0], precision, THRESHOLDS
    )
    fitted = replace(fitted, card_threshold=threshold)
    edge, edge_readings = edge_threshold(photos, fitted, precision)
    fitted = replace(fitted, edge_threshold=edge)
    card_precision, card_recall = card_precision_recall(photos, reader, fitted, threshold)
    record = {
        "fitted_on": str(dataset),
        **({"relabel": str(relabel)} if relabel else {}),
        **({"also": [str(folder) for folder in also]} if also else {}),
        "photos": len(photos),
        "readings": int(sum(len(p.right) for p in photos)),
        "edge_readings": edge_readings,
        "target_precision": precision,
        "card_precision": round(card_precision, 4),
        "card_recall": round(card_recall, 4),
    }
    return fitted, record
