"""Enrolment: from a few photos of the deck to confirmed, labelled index patches.

The player takes a few photos of the deck: any photos of its cards (as they lie on the table,
cards repeated across photos as a player takes them), or one suit per photo laid out A to K in
reading order. `propose` finds every corner index, groups them into cards and proposes each
card's identity from the model's reading and, for a suit laid out, the layout order. Where the
two agree the proposal is confident; where they disagree, or only a weak reading exists, the
card is flagged for the player, who confirms or corrects it (`Enrollment.correct`).

A card seen in several photos is more examples of it, not an error: `labelled` pools all its
patches for the tune. Corners of one physical card on one photo are one card: groups the model
reads as the same card whose corners could be one card's (the reader's grouping) are joined
before anything is proposed (`vision.decks.layout.join_same_card`), so a four-index card is
never proposed twice. One photo still showing a card twice, at places that cannot be one card,
is a problem (one deck holds each card once) that the player resolves; cards no photo shows are
only noted (`Problems`), since a tune learns from whatever cards it is given.

Each candidate knows where its whole card lies on its photo (`Candidate.card_box`: the card's
outline where one was seen, else its corners' box widened by a margin) so the player is shown
the card boxed on its photo, not a lone corner.

A patch is a wider square around one index (`PATCH_SPAN` index sizes, `PATCH_PX` pixels,
centred on it) so the tune can cut training crops from it at any rotation and margin exactly
as inference cuts them (`crop_from_patch`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from vision.decks.layout import Group, align_suit, group_indices, join_same_card, reading_order
from vision.detection.crops import READ_MARGIN, crop_index
from vision.detection.detections import CLASS_NAMES, box_sizes
from vision.errors import VisionError

Image = npt.NDArray[np.uint8]
Boxes = npt.NDArray[np.float32]
Finder = Callable[[Image], Boxes]
Classifier = Callable[[Image], npt.NDArray[np.float32]]
#: Which way each index box of a shot faces (`vision.detection.detections.FACING_UP`..., or
#: `FACING_UNKNOWN`).
Facer = Callable[[Image, Boxes], npt.NDArray[np.int8]]

PATCH_PX = 160
PATCH_SPAN = 2.5
READ_PX = 64
#: A model reading at least this sure needs no confirmation when no layout order is known...
SURE = 0.9
#: ...and one that agrees with the layout order must be at least this sure to count.
AGREES = 0.5
SUITS = ("C", "D", "H", "S")
#: A card box drawn from its corners alone: their box widened by this many index sizes (an
#: index sits about half an index in from its card's edges)...
CARD_MARGIN = 0.6
#: ...or, for a card seen by one corner only, by this many (its card lies somewhere around it).
LONE_MARGIN = 1.5

#: How many of the model's likeliest cards a candidate keeps.
LIKELIEST = 4
#: A card seen by one corner only whose likeliest reading is under this is proposed as "not a
#: card" (`Candidate.doubtful`): in real photos such a lone corner is nearly always the face's
#: art or a pip boxed as a corner, or a misread card (docs/decks.md has the count).
NOT_A_CARD = 0.45

Box = tuple[float, float, float, float]


class EnrollmentError(VisionError, ValueError):
    """An enrolment that cannot be tuned from as it stands (a card twice in one photo, no card
    confirmed)."""


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
    #: Where the whole card lies on its shot (x1, y1, x2, y2 in the shot's pixels).
    card_box: Box | None = None
    #: The model's likeliest cards for it with their chances, likeliest first (what a player
    #: picks from).
    likeliest: tuple[tuple[str, float], ...] = ()
    #: Proposed as not a card: one corner only, read too unsurely (`NOT_A_CARD`). The player
    #: may still say what card it is (`Enrollment.correct`).
    doubtful: bool = False

    @property
    def where(self) -> Box:
        """The whole card's box on its shot (`card_box`, else from its corners)."""
        return self.card_box or card_box(self.boxes)

    @property
    def proposed(self) -> str:
        return self.layout_card or self.model_card

    @property
    def card(self) -> str | None:
        """The identity the tune will use (None: not a card, as the player said or, for a
        `doubtful` one, as proposed)."""
        if self.skipped:
            return None
        return self.confirmed or (None if self.doubtful else self.proposed)

    @property
    def flagged(self) -> bool:
        """True when the player should look: layout and model disagree, or the model is unsure
        (a `doubtful` one is proposed as not a card, with nothing for the player to do)."""
        if self.confirmed or self.skipped or self.doubtful:
            return False
        if self.layout_card is not None:
            return self.layout_card != self.model_card or self.model_confidence < AGREES
        return self.model_confidence < SURE


@dataclass(frozen=True)
class Twice:
    """One card that one photo shows more than once: `numbers` are the candidates claiming it."""

    card: str
    shot: int
    numbers: tuple[int, ...]

    def line(self) -> str:
        numbers = ", ".join(map(str, self.numbers))
        return (f"{self.card} is in one photo {len(self.numbers)} times (cards {numbers}): "
                "one deck holds it once, so correct the wrong one")  # fmt: skip


def card_box(boxes: Boxes, image_size: tuple[int, int] | None = None) -> Box:
    """The whole card around its corner `boxes`: their box widened by `CARD_MARGIN` index
    sizes (`LONE_MARGIN` for one corner), inside the image (`image_size`: width, height)."""
    b = np.asarray(boxes, np.float64).reshape(-1, 4)
    if not len(b):
        raise EnrollmentError("a card box needs at least one corner box, got none")
    glyph = float(np.median(box_sizes(b)))
    pad = (CARD_MARGIN if len(b) > 1 else LONE_MARGIN) * glyph
    x1, y1 = b[:, 0].min() - pad, b[:, 1].min() - pad
    x2, y2 = b[:, 2].max() + pad, b[:, 3].max() + pad
    if image_size is not None:
        width, height = image_size
        x1, y1, x2, y2 = max(x1, 0.0), max(y1, 0.0), min(x2, float(width)), min(y2, float(height))
    return (float(x1), float(y1), float(x2), float(y2))


@dataclass(frozen=True)
class Problems:
    """What the photos show of the deck: cards one photo shows twice (a problem the player
    resolves), cards no photo shows (information only) and cards seen in several photos (more
    examples of them)."""

    missing: tuple[str, ...]
    twice: tuple[Twice, ...] = ()
    repeated: dict[str, tuple[int, ...]] = field(default_factory=dict)

    @property
    def duplicates(self) -> dict[str, tuple[int, ...]]:
        """Each card a photo shows twice, with every number claiming it in such a photo."""
        out: dict[str, tuple[int, ...]] = {}
        for twice in self.twice:
            out[twice.card] = out.get(twice.card, ()) + twice.numbers
        return out

    @property
    def ok(self) -> bool:
        """True when the photos show the expected cards, each once in any one photo."""
        return not self.missing and not self.twice

    def errors(self) -> list[str]:
        """What must be resolved before a tune."""
        return [twice.line() for twice in self.twice]

    def notes(self) -> list[str]:
        """What the player may like to know; nothing here stops a tune."""
        return [f"not seen: {' '.join(self.missing)}"] if self.missing else []

    def lines(self) -> list[str]:
        return self.errors() + self.notes()


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

    def add(self, found: Enrollment, shot: int, first: int | None = None) -> list[Candidate]:
        """One photo's proposals (`propose` of that photo alone) as photo `shot` of this
        enrolment, numbered from `first` (default: on from its last card; the page never reuses
        a removed photo's numbers). The page and `cribcam enroll` both propose a photo at a time
        this way, so the same photos give the same proposals."""
        if first is None:
            first = max((c.number for c in self.candidates), default=0) + 1
        for k, candidate in enumerate(found.candidates):
            candidate.number, candidate.shot = first + k, shot
        self.candidates.extend(found.candidates)
        return found.candidates

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

    def sightings(self) -> dict[str, list[Candidate]]:
        """Each card the candidates are, with every candidate that is it, in number order."""
        seen: dict[str, list[Candidate]] = {}
        for candidate in self.candidates:
            if candidate.card is not None:
                seen.setdefault(candidate.card, []).append(candidate)
        return seen

    def problems(self) -> Problems:
        seen = self.sightings()
        twice: list[Twice] = []
        repeated: dict[str, tuple[int, ...]] = {}
        for card, found in seen.items():
            shots: dict[int, list[int]] = {}
            for candidate in found:
                shots.setdefault(candidate.shot, []).append(candidate.number)
            twice += [Twice(card, shot, tuple(n)) for shot, n in shots.items() if len(n) > 1]
            if len(shots) > 1:
                repeated[card] = tuple(c.number for c in found)
        missing = tuple(card for card in self.expected if card not in seen)
        return Problems(missing, tuple(twice), repeated)

    def labelled(self) -> list[tuple[str, list[Image]]]:
        """Each confirmed card once, with the index patches of every photo it is seen in (a card
        twice in one photo must be resolved first), pooled by `pooled_patches`."""
        problems = self.problems()
        if problems.twice:
            raise EnrollmentError("; ".join(problems.errors()))
        out = [(card, pooled_patches(c.patches for c in found))
               for card, found in self.sightings().items()]  # fmt: skip
        if not out:
            raise EnrollmentError("no confirmed cards to tune on: take photos of the cards face "
                                  "up, or correct the cards marked not a card")  # fmt: skip
        return out


def pooled_patches(sightings: Iterable[Sequence[Image]]) -> list[Image]:
    """One card's patches from all its sightings, a sighting of both its indices first (else in
    their order): the tune holds each card's second patch back to measure itself, and that is
    then the card's other index, as when each card was seen once."""
    ordered = sorted(sightings, key=lambda patches: len(patches) < 2)  # stable
    return [patch for patches in ordered for patch in patches]


def propose(shots: Sequence[Shot], find: Finder, classify: Classifier,
            face: Facer | None = None) -> Enrollment:  # fmt: skip
    """Find the cards of every shot and propose an identity for each (see module doc);
    `face`: which way each index faces, so that a fanned row's corners, all facing one way,
    are not paired into cards (`group_indices`)."""
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
        certain = np.where(probabilities.max(axis=1, initial=0.0) >= SURE,
                           probabilities.argmax(axis=1), -1)  # fmt: skip
        facing = face(shot.image, boxes).tolist() if face is not None and len(boxes) else []
        groups = group_indices(shot.image, boxes, readings.tolist(), facing=facing,
                               distinct=certain.tolist())  # fmt: skip
        groups = join_same_card(groups, boxes, *_names(probabilities, groups))
        sizes = box_sizes(boxes)
        row_gap = 2.0 * float(np.median(sizes)) if len(sizes) else 1.0
        groups = [groups[k] for k in reading_order([g.centre for g in groups], row_gap)]
        found = _candidates(shot, boxes, patches, probabilities, groups)
        _second_choices(found)
        for candidate in found:
            candidate.doubtful = (candidate.layout_card is None and len(candidate.boxes) == 1
                                  and candidate.model_confidence < NOT_A_CARD)  # fmt: skip
        for candidate in found:
            candidate.number, candidate.shot = len(candidates) + 1, number
            candidates.append(candidate)
    suits = [shot.suit for shot in shots]
    if suits and all(suits):
        expected = tuple(card for card in CLASS_NAMES if card[-1] in set(suits))
    else:
        expected = CLASS_NAMES
    return Enrollment(candidates, expected)


def _names(probabilities: npt.NDArray[np.float32],
           groups: list[Group]) -> tuple[list[int], list[bool]]:  # fmt: skip
    """Each group's card as its indices' mean reading has it, and whether that is sure enough
    to count (`AGREES`)."""
    means = [probabilities[list(group.indices)].mean(axis=0) for group in groups]
    return [int(m.argmax()) for m in means], [float(m.max()) >= AGREES for m in means]


def _second_choices(found: list[Candidate]) -> None:
    """Where one photo proposes a card twice, one of them surely (`AGREES`) and the other not,
    at places that cannot be one card (`join_same_card` left them apart): the unsure one is
    another card misread as this one, or no card (a face's art boxed as a corner), and is
    proposed as its next likeliest card that the photo does not propose yet. It stays flagged
    for the player, but is no longer a card the photo holds twice. (The reader resolves its
    conflicts the same way: `vision.table.cards.reread_conflicts`.)"""
    for weak in found:
        if weak.layout_card is not None or weak.model_confidence >= AGREES:
            continue
        rivals = [c for c in found if c is not weak and c.model_card == weak.model_card]
        if not any(c.model_confidence >= AGREES for c in rivals):
            continue
        taken = {c.model_card for c in found}
        for card, chance in weak.likeliest[1:]:
            if card not in taken:
                weak.model_card, weak.model_confidence = card, chance
                break


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
    height, width = shot.image.shape[:2]
    return [
        Candidate(0, 0, boxes[list(g.indices)], [patches[i] for i in g.indices],
                  CLASS_NAMES[int(per_card[k].argmax())], float(per_card[k].max()), layout[k],
                  card_box=g.bounds or card_box(boxes[list(g.indices)], (width, height)),
                  likeliest=tuple((CLASS_NAMES[i], float(per_card[k][i]))
                                  for i in np.argsort(-per_card[k])[:LIKELIEST]))
        for k, g in enumerate(groups)
    ]  # fmt: skip
