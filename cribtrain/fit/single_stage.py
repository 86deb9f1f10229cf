"""The single 52-class detector that the two-stage design is measured against (not the app's).

One YOLO26n finds each corner index and names its card at once; its box score is the only
confidence. It is trained on the very windows stage 1 trains on, each index labelled with its
card (`cribcam train sets --cards`, `cribcam train cards`), and read here the way the app reads:
the same letterbox and decoding as stage 1, the same pairing of corners into cards.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from cribtrain.measure.evaluate import CardSetCounts, labelled_photos
from vision.detection.calibration import choose_threshold
from vision.detection.detections import CLASS_NAMES, Detections
from vision.detection.finder import IndexFinder
from vision.detection.models import Image
from vision.errors import VisionError
from vision.reading import Reading, StageTimes
from vision.table.cards import PairingConfig, cards_from_detections

#: Boxes scoring under this are never considered (the lowest card threshold tried).
MIN_SCORE = 0.05
#: Card thresholds tried when one is chosen for a target precision, lowest first.
THRESHOLDS = tuple(round(0.05 + 0.05 * i, 2) for i in range(19))


@dataclass
class SingleStageReader:
    """Reads cards with one 52-class detector; `read(frame)` gives a `Reading` as the app's
    `CardReader` does, its one stage timed as `find_indices`."""

    model: Path
    backend: str = "auto"
    #: Detections under this score form no card (`pairing`).
    card_threshold: float = 0.5

    def __post_init__(self) -> None:
        if not self.model.exists():
            raise VisionError(f"single-stage model not found: {self.model}")
        self._finder = IndexFinder(self.model, self.backend, names_cards=True)
        self.runtime = self._finder.runtime

    @property
    def size(self) -> int:
        """The detector's side: the model's own where it was exported for one size (frames'
        longer side scaled to it), else `DEFAULT_DETECTOR_SIDE` (a square's pixels at most)."""
        return self._finder.side

    def detections(self, frame: Image) -> Detections:
        """Every box down to `MIN_SCORE`, each with its card."""
        return self._finder.find(frame, MIN_SCORE)

    def read(self, frame: Image) -> Reading:
        start = time.perf_counter()
        found = self.detections(frame)
        found_ms = (time.perf_counter() - start) * 1000
        start = time.perf_counter()
        cards = cards_from_detections(found, self.pairing)
        times = StageTimes(find_indices=found_ms,
                           group_into_cards=(time.perf_counter() - start) * 1000)  # fmt: skip
        return Reading(found, cards, times, looks=1)

    @property
    def pairing(self) -> PairingConfig:
        return PairingConfig(min_score=self.card_threshold)


@dataclass(frozen=True)
class ReadPhoto:
    """One photo's detections (every score down to `MIN_SCORE`) and its labelled cards."""

    found: Detections
    truth_cards: frozenset[str]

    def cards(self, threshold: float) -> frozenset[str]:
        seen = cards_from_detections(self.found, PairingConfig(min_score=threshold))
        return frozenset(str(card.card) for card in seen.cards)


def read_photos(
    reader: SingleStageReader, dataset: Path, names: Iterable[str] | None = None
) -> list[ReadPhoto]:
    photos = []
    for _, frame, truth in labelled_photos(dataset, names):
        there = frozenset(CLASS_NAMES[c] for c in truth.class_ids.tolist())
        photos.append(ReadPhoto(reader.detections(frame), there))
    return photos


def card_counts(photos: Sequence[ReadPhoto], threshold: float) -> CardSetCounts:
    return CardSetCounts.of((photo.truth_cards, photo.cards(threshold)) for photo in photos)


def threshold_for(photos: Sequence[ReadPhoto], precision: float) -> float:
    """The lowest threshold whose card-set precision on `photos` reaches `precision`: the rule
    `cribcam calibrate` uses for the two stages."""

    def precision_at(threshold: float) -> float:
        return card_counts(photos, threshold).precision

    return choose_threshold(precision_at, precision, THRESHOLDS)
