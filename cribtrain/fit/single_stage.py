"""The single 52-class detector that the two-stage design is measured against (not the app's).

One YOLO26n finds each corner index and names its card at once; its box score is the only
confidence. It is trained on the very windows stage 1 trains on, each index labelled with its
card (`cribcam train sets --cards`, `cribcam train cards`), and read here the way the app reads:
the same letterbox and decoding as stage 1, the same pairing of corners into cards.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from cribtrain.measure.evaluate import CardSetCounts, labelled_photos
from vision.detection.calibration import choose_threshold
from vision.detection.detections import CLASS_NAMES, Detections
from vision.errors import VisionError
from vision.reading import (
    FrameDetector,
    Image,
    StageTimes,
)
from vision.table.cards import FrameCards, PairingConfig, cards_from_detections

#: Boxes scoring under this are never considered (the lowest card threshold tried).
MIN_SCORE = 0.05
#: Card thresholds tried when one is chosen for a target precision, lowest first.
THRESHOLDS = tuple(round(0.05 + 0.05 * i, 2) for i in range(19))


@dataclass
class SingleStageReader:
    """Reads cards with one 52-class detector; `read(frame)` returns one `Detections`."""

    model: Path
    backend: str = "auto"
    #: Detections under this score form no card (`pairing`).
    card_threshold: float = 0.5
    last_times: StageTimes = field(default_factory=StageTimes)

    def __post_init__(self) -> None:
        if not self.model.exists():
            raise VisionError(f"single-stage model not found: {self.model}")
        self._detector = FrameDetector(self.model, self.backend)
        self.runtime = self._detector.runtime

    @property
    def size(self) -> int:
        """The detector's side: the model's own where it was exported for one size (frames'
        longer side scaled to it), else `DEFAULT_DETECTOR_SIDE` (a square's pixels at most)."""
        return self._detector.side

    def read(self, frame: Image) -> Detections:
        times = StageTimes()
        boxes, scores, classes = self._detector.find(frame, MIN_SCORE, times)
        self.last_times = times
        return Detections(boxes, scores, classes)

    def read_cards(self, frame: Image) -> tuple[Detections, FrameCards]:
        found = self.read(frame)
        return found, cards_from_detections(found, self.pairing)

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
    return [
        ReadPhoto(reader.read(frame), frozenset(CLASS_NAMES[c] for c in truth.class_ids.tolist()))
        for _, frame, truth in labelled_photos(dataset, names)
    ]


def card_counts(photos: Sequence[ReadPhoto], threshold: float) -> CardSetCounts:
    return CardSetCounts.of((photo.truth_cards, photo.cards(threshold)) for photo in photos)


def threshold_for(photos: Sequence[ReadPhoto], precision: float) -> float:
    """The lowest threshold whose card-set precision on `photos` reaches `precision`: the rule
    `cribcam calibrate` uses for the two stages."""

    def precision_at(threshold: float) -> float:
        return card_counts(photos, threshold).precision

    return choose_threshold(precision_at, precision, THRESHOLDS)
