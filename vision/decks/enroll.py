"""Enrolment: from a few shots of the deck laid out to confirmed, labelled index patches.

The player lays the deck out in a few shots (one suit per shot, A to K in reading order, or any
arrangement); `propose` finds every corner index, groups them into cards and proposes each
card's identity from the layout order and the current model's reading. Where the two agree the
proposal is confident; where they disagree, or only a weak reading exists, the card is flagged
for the player, who confirms or corrects it (`Enrollment.correct`). `problems` points out
missing and duplicated cards; `labelled` hands the confirmed patches to the tune.

A patch is a wider square around one index (`PATCH_SPAN` index sizes, `PATCH_PX` pixels,
centred on it) so the tune can cut training crops from it at any rotation and margin exactly
as inference cuts them (`crop_from_patch`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from vision.decks.layout import Group, align_suit, group_indices, reading_order
from vision.detection.crops import READ_MARGIN, crop_index
from vision.detection.detections import CLASS_NAMES, box_sizes
from vision.errors import VisionError

Image = npt.NDArray[np.uint8]
Boxes = npt.NDArray[np.float32]
Finder = Callable[[Image], Boxes]
Classifier = Callable[[Image], npt.NDArray[np.float32]]

PATCH_PX = 160
PATCH_SPAN = 2.5
READ_PX = 64
#: A model reading at least this sure needs no confirmation when no layout order is known...
SURE = 0.9
#: ...and one that agrees with the layout order must be at least this sure to count.
AGREES = 0.5
SUITS = ("C", "D", "H", "S")


class EnrollmentError(VisionError, ValueError):
    """An enrolment that cannot be tuned from as it stands (duplicates, nothing confirmed)."""


def cut_patch(frame: Image, box: npt.NDArray[np.float32]) -> Image:
    """The wide square around one index that the profile keeps (see module doc)."""
    margin = (PATCH_SPAN - 1) / 2
    return crop_index(frame, box.astype(np.float64), PATCH_PX, margin=margin)


def crop_from_patch(patch: Image, out: int = READ_PX, *, margin: float = READ_MARGIN,
                    angle: float = 0.0) -> Image:  # fmt: skip
    """A reader crop cut from a patch the way inference cuts it from a frame."""
    side = patch.shape[0] / PATCH_SPAN
    centre = patch.shape[0] / 2
    box = np.array([centre - side / 2, centre - side / 2, centre + side / 2, centre + side / 2])
    return crop_index(patch, box, out, margin=margin, angle=angle)


@dataclass(frozen=True)
class Shot:
    """One enrolment photo (BGR); `suit` when the player laid that suit out A to K."""

    image: Image
    suit: str | None = None

    def __post_init__(self) -> None:
        if self.suit is not None and self.suit not in SUITS:
            raise EnrollmentError(f"suit {self.suit!r} is not one of C, D, H, S")


@dataclass
class Candidate:
    """One physical card found in a shot, with what it is proposed and confirmed to be."""

    number: int
    shot: int
    boxes: Boxes
    patches: list[Image] = field(repr=False)
    model_card: str
    model_confidence: float
    layout_card: str | None
    confirmed: str | None = None
    skipped: bool = False

    @property
    def proposed(self) -> str:
        return self.layout_card or self.model_card

    @property
    def card(self) -> str | None:
        """The identity the tune will use (None: the player said it is not a card)."""
        return None if self.skipped else self.confirmed or self.proposed

    @property
    def flagged(self) -> bool:
        """True when the player should look: layout and model disagree, or the model is unsure."""
        if self.confirmed or self.skipped:
            return False
        if self.layout_card is not None:
            return self.layout_card != self.model_card or self.model_confidence < AGREES
        return self.model_confidence < SURE


@dataclass(frozen=True)
class Problems:
    """What keeps the enrolment from covering the deck exactly once."""

    missing: tuple[str, ...]
    duplicates: dict[str, tuple[int, ...]]

    @property
    def ok(self) -> bool:
        return not self.missing and not self.duplicates

    def lines(self) -> list[str]:
        out = [f"missing: {' '.join(self.missing)}"] if self.missing else []
        out += [f"{card} appears {len(numbers)} times: cards {', '.join(map(str, numbers))}"
                for card, numbers in self.duplicates.items()]  # fmt: skip
        return out


@dataclass
class Enrollment:
    """The candidates of all shots and the cards the shots were meant to hold."""

    candidates: list[Candidate]
    expected: tuple[str, ...]

    def get(self, number: int) -> Candidate:
        for candidate in self.candidates:
            if candidate.number == number:
                return candidate
        raise EnrollmentError(f"no card numbered {number}")

    def correct(self, number: int, card: str | None) -> None:
        """The player's word on one card: its identity, or None for "not a card"."""
        candidate = self.get(number)
        if card is None:
            candidate.skipped, candidate.confirmed = True, None
            return
        card = card.upper()
        if card not in CLASS_NAMES:
            raise EnrollmentError(f"{card!r} is not a card (AC..KS)")
        candidate.skipped, candidate.confirmed = False, card

    def problems(self) -> Problems:
        seen: dict[str, list[int]] = {}
        for candidate in self.candidates:
            if candidate.card is not None:
                seen.setdefault(candidate.card, []).append(candidate.number)
        missing = tuple(card for card in self.expected if card not in seen)
        duplicates = {card: tuple(numbers) for card, numbers in seen.items() if len(numbers) > 1}
        return Problems(missing, duplicates)

    def labelled(self) -> list[tuple[str, list[Image]]]:
        """Each confirmed card with its index patches; duplicates must be resolved first."""
        problems = self.problems()
        if problems.duplicates:
            raise EnrollmentError("resolve duplicated cards first: " + "; ".join(problems.lines()))
        out = [(c.card, c.patches) for c in self.candidates if c.card is not None]
        if not out:
            raise EnrollmentError("no confirmed cards to tune on")
        return out


def propose(shots: Sequence[Shot], find: Finder, classify: Classifier) -> Enrollment:
    """Find the cards of every shot and propose an identity for each (see module doc)."""
    candidates: list[Candidate] = []
    for number, shot in enumerate(shots):
        boxes = np.asarray(find(shot.image), np.float32).reshape(-1, 4)
        patches = [cut_patch(shot.image, box) for box in boxes]
        probabilities = (
            classify(np.stack([crop_from_patch(p) for p in patches]))
            if patches
            else np.zeros((0, len(CLASS_NAMES)), np.float32)
        )
        sure = probabilities.max(axis=1, initial=0.0) >= AGREES  # an unsure reading is no clue
        readings = np.where(sure, probabilities.argmax(axis=1), -1 - np.arange(len(boxes)))
        groups = group_indices(shot.image, boxes, readings.tolist())
        sizes = box_sizes(boxes)
        row_gap = 2.0 * float(np.median(sizes)) if len(sizes) else 1.0
        groups = [groups[k] for k in reading_order([g.centre for g in groups], row_gap)]
        found = _candidates(shot, boxes, patches, probabilities, groups)
        for candidate in found:
            candidate.number, candidate.shot = len(candidates) + 1, number
            candidates.append(candidate)
    suits = [shot.suit for shot in shots]
    if suits and all(suits):
        expected = tuple(card for card in CLASS_NAMES if card[-1] in set(suits))
    else:
        expected = CLASS_NAMES
    return Enrollment(candidates, expected)


def _candidates(
    shot: Shot, boxes: Boxes, patches: list[Image], probabilities: npt.NDArray[np.float32],
    groups: list[Group],
) -> list[Candidate]:  # fmt: skip
    """One candidate per group: its indices' mean reading and its place in the layout order."""
    if not groups:
        return []
    per_card = np.stack([probabilities[list(g.indices)].mean(axis=0) for g in groups])
    layout: list[str | None] = (
        align_suit(per_card, shot.suit) if shot.suit else [None] * len(groups)
    )
    return [
        Candidate(0, 0, boxes[list(g.indices)], [patches[i] for i in g.indices],
                  CLASS_NAMES[int(per_card[k].argmax())], float(per_card[k].max()), layout[k])
        for k, g in enumerate(groups)
    ]  # fmt: skip
