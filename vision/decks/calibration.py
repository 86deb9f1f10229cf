"""A taught deck's own card threshold, fitted on its teaching photos.

The card threshold (`ScoreCalibration.card_threshold`) is chosen on the base reader's readings.
A deck's reader reads its own deck right more often but less surely, so cards it reads right
can fall under that threshold (16 of the base's 40 missed cards in the real held-out photos).
After a tune, the taught reader reads the teaching photos again; the photo's confirmed cards are
the truth, anything else it names is a false card. The threshold is only ever lowered, one grid
step at a time while no new false card appears in any teaching photo, never under a floor, and
only where the lower value names more confirmed cards: a handful of photos cannot show a rise
is needed, nor that a lower value is safe far from where they were seen.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from vision.decks.enroll import Enrollment
from vision.detection.calibration import CALIBRATION_FILE, ScoreCalibration
from vision.reading import CardReader

Image = npt.NDArray[np.uint8]


@dataclass(frozen=True)
class DeckCalibrationConfig:
    """How far a deck's card threshold may move from the base's, and on how much evidence."""

    #: Fit one at all (a tune then reads its teaching photos again). Off: measured on the real
    #: decks it never moved (models/MODEL_CARD.md, "Deck enrolment").
    enabled: bool = False
    #: Never below this score, whatever the teaching photos show (a few photos see few of the
    #: false readings new photos hold).
    floor: float = 0.2
    #: The thresholds tried, this far apart, from the base's down to `floor`.
    step: float = 0.02
    #: A deck taught from fewer confirmed cards keeps the base threshold.
    min_cards: int = 20


DEFAULT_DECK_CALIBRATION = DeckCalibrationConfig()


@dataclass(frozen=True)
class TeachingPhoto:
    """One teaching photo (`load` gives it: any number of photos need not fit in memory at
    once) and the cards the player confirmed in it (the truth)."""

    load: Callable[[], Image]
    cards: frozenset[str]


def holding(image: Image) -> Callable[[], Image]:
    """A `TeachingPhoto.load` for a photo already in memory."""
    return lambda: image


def teaching_photos(enrollment: Enrollment, loads: Sequence[Callable[[], Image]]
                    ) -> list[TeachingPhoto]:  # fmt: skip
    """Each shot of `enrollment` (`loads`, in shot order) with its confirmed cards: every
    candidate's `card` (proposals the player left or named; "not a card" ones are not)."""
    cards: dict[int, set[str]] = {}
    for candidate in enrollment.candidates:
        if candidate.card is not None:
            cards.setdefault(candidate.shot, set()).add(candidate.card)
    return [TeachingPhoto(load, frozenset(cards.get(k, ()))) for k, load in enumerate(loads)]


@dataclass(frozen=True)
class ThresholdFit:
    """The fitted threshold and what the teaching photos showed at the base's and at it."""

    card_threshold: float
    base_threshold: float
    #: Confirmed cards named / false cards named, at the base threshold and at the fitted one.
    named_at_base: int
    false_at_base: int
    named: int
    false: int
    cards: int
    photos: int

    def record(self) -> dict[str, Any]:
        return {
            "base_threshold": self.base_threshold, "named_at_base": self.named_at_base,
            "false_at_base": self.false_at_base, "named": self.named, "false": self.false,
            "cards": self.cards, "photos": self.photos,
        }  # fmt: skip


def named_cards(reader: CardReader, photo: Image, thresholds: Sequence[float]
                ) -> list[frozenset[str]]:  # fmt: skip
    """The cards `reader` names in `photo` at each of `thresholds` (its calibration's card
    threshold replaced), the indices found and read once."""
    base = reader.calibration
    if base is None:
        raise ValueError("a deck's card threshold is fitted on a calibrated reader")
    lowest = reader.with_calibration(replace(base, card_threshold=min(thresholds)))
    scored = lowest.orient(photo, lowest.score(lowest.index_readings(photo)))
    height, width = photo.shape[:2]
    out = []
    for threshold in thresholds:
        trial = reader.with_calibration(replace(base, card_threshold=threshold))
        _, cards = trial.cards_from_scored(scored, width, height)
        out.append(frozenset(str(seen.card) for seen in cards.cards))
    return out


def fit_threshold(named: Sequence[Sequence[frozenset[str]]], truth: Sequence[frozenset[str]],
                  thresholds: Sequence[float]) -> tuple[int, list[tuple[int, int]]]:  # fmt: skip
    """Which of `thresholds` (descending, the base's first) to use, from the cards named in
    each photo at each threshold (`named[photo][k]`) against each photo's confirmed cards: the
    lowest reached going down while no threshold names more false cards than the base's, and
    only if it names more confirmed cards than the base's (else the base's, index 0). Also
    (confirmed, false) cards named at each threshold."""
    counts = []
    for k in range(len(thresholds)):
        right = sum(len(cards[k] & there) for cards, there in zip(named, truth, strict=True))
        false = sum(len(cards[k] - there) for cards, there in zip(named, truth, strict=True))
        counts.append((right, false))
    chosen = 0
    for k in range(1, len(thresholds)):
        if counts[k][1] > counts[0][1]:
            break
        if counts[k][0] > counts[chosen][0]:
            chosen = k  # lower only for a gain: an idle step down is risk for nothing
    return chosen, counts


def fit_deck_threshold(
    reader: CardReader,
    photos: Sequence[TeachingPhoto],
    config: DeckCalibrationConfig = DEFAULT_DECK_CALIBRATION,
) -> ThresholdFit:
    """The card threshold for the deck `reader` reads with (its tuned reader), from its
    teaching `photos` (see the module doc)."""
    base = reader.calibration
    if base is None:
        raise ValueError("a deck's card threshold is fitted on a calibrated reader")
    top = base.card_threshold
    steps = int((top - config.floor) / config.step + 1e-9)
    grid = [top - k * config.step for k in range(steps + 1)]
    truth = [photo.cards for photo in photos]
    cards = sum(len(t) for t in truth)
    if cards < config.min_cards or len(grid) < 2:
        return ThresholdFit(top, top, 0, 0, 0, 0, cards, len(photos))
    named = [named_cards(reader, photo.load(), grid) for photo in photos]
    chosen, counts = fit_threshold(named, truth, grid)
    return ThresholdFit(round(grid[chosen], 4), top, *counts[0], *counts[chosen], cards,
                        len(photos))  # fmt: skip


def save_deck_calibration(folder: Path, base: ScoreCalibration, fit: ThresholdFit) -> Path:
    """The base calibration at the deck's threshold, in the deck's folder (`CALIBRATION_FILE`)."""
    path = folder / CALIBRATION_FILE
    replace(base, card_threshold=fit.card_threshold).save(path, deck_fit=fit.record())
    return path


def deck_threshold(folder: Path) -> float | None:
    """The card threshold a deck folder's calibration holds; None where it has none."""
    path = folder / CALIBRATION_FILE
    if not path.exists():
        return None
    return float(json.loads(path.read_text())["card_threshold"])
