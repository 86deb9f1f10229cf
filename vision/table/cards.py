"""Turn corner-index detections into physical cards.

The detector sees printed corner indices, and a card carries two of them in opposite corners.
Counting boxes would count most cards twice, so this module pairs them: two indices of the same
identity at a plausible distance (a card is about 5–7 index heights tall, so its two index
centres lie about 5.7 index heights apart) are one card. A card seen by one corner only
(fanned hand, overlapping row) is still one card. A deck holds each card once, so the same
identity seen at places that cannot be one card is a `Conflict` to report, never two cards.

>>> from vision.detection.detections import Detections
>>> boxes = [[100, 100, 112, 120], [147, 182, 159, 202], [400, 100, 412, 120]]
>>> seen = cards_from_detections(Detections(boxes, [0.9, 0.8, 0.7], [4, 4, 30]))
>>> [(str(c.card), len(c.detections), c.centre) for c in seen.cards]
[('5H', 1, (406.0, 110.0)), ('5C', 2, (129.5, 151.0))]
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from scorer.cards import Card
from vision.detection.detections import (
    CLASS_NAMES,
    FACING_UNKNOWN,
    Detections,
    card_of_class,
    class_of_card,
    iou_matrix,
)

Box = tuple[float, float, float, float]
Point = tuple[float, float]


@dataclass(frozen=True)
class PairingConfig:
    """Thresholds, in glyph sizes (the longer side of an index box) unless said otherwise."""

    #: Detections below this score are ignored.
    min_score: float = 0.4
    #: Boxes overlapping more than this (IoU) are one glyph read twice: the best score wins.
    nms_iou: float = 0.5
    #: Same-identity boxes closer than this are one glyph too.
    same_glyph: float = 0.75
    #: Two pairs of one identity whose midpoints lie closer than this are one four-index card's
    #: two diagonals (measured: 0.01-0.13 apart in held-out scenes).
    same_centre: float = 0.5
    #: Two indices of one card are this far apart, centre to centre (nominal, min, max).
    pair_nominal: float = 5.7
    #: (1.2: the side-by-side indices of a four-index card lie ~2.4 apart seen from overhead,
    #: ~2.1 on a tilted camera's frame, and Dondorf's tall, narrow ones 1.4-1.5 apart; closer
    #: than this they are two glyphs. At 1.5 such a card was seen as two pairs, a conflict.)
    pair_min: float = 1.2
    pair_max: float = 9.0
    #: Two indices facing the same way are one card's only this near: a four-index card's
    #: side-by-side pair (~2.4 apart); its diagonal or end-to-end pairs face opposite ways.
    side_by_side_max: float = 3.6
    #: The two indices of one card differ in size by at most this factor (perspective).
    size_ratio: float = 2.0
    #: Offset from an upright index's centre to its card's centre (used when only one corner
    #: is seen and the detector reports its orientation).
    centre_offset: Point = (1.65, 2.35)
    #: An identity seen at places that cannot be one card is still read at the surest of
    #: them when that one is at least this likely to be the card (`_likeliest`).
    conflict_keep: float = 0.5
    #: A card carries the reader's this many likeliest cards (`SeenCard.choices`)...
    choices: int = 5
    #: ...each at least this likely: the rest of a softmax is noise, not a choice.
    choice_floor: float = 0.001


@dataclass(frozen=True, eq=False)
class SeenCard:
    """One physical card in one frame: its identity and where it lies."""

    card: Card
    #: 0..1; two agreeing corners give ``1 - (1 - s1)(1 - s2)``.
    confidence: float
    #: Box covering the corner indices it was seen by (not the whole card when one corner).
    box: Box
    #: The card's centre: exact from two corners, estimated (or the index centre) from one.
    centre: Point
    #: Mean index size in pixels: the yardstick for every distance downstream.
    glyph_size: float
    detections: Detections = field(repr=False)
    #: False for a card a smoothed table keeps through a short gap: its boxes are where it was
    #: last seen (moved by the camera's shake), not pixels of this frame.
    in_frame: bool = True
    #: The reader's likeliest cards for this one, likeliest first, with their chances (summing
    #: to at most 1): where `card` is impossible (already placed this deal), the next choices
    #: say what it may be. Usually led by `card`; a conflict's re-read sighting is its second.
    choices: tuple[tuple[Card, float], ...] = ()

    @property
    def indices_seen(self) -> int:
        return len(self.detections)

    @property
    def distribution(self) -> npt.NDArray[np.float64]:
        """The chance of each of the 52 card classes (`class_distribution`)."""
        return class_distribution(self.detections, self.card, self.confidence)


def class_distribution(
    detections: Detections, card: Card, confidence: float
) -> npt.NDArray[np.float64]:
    """The 52 class chances of one card seen by `detections` (its indices): the mean of their
    class probabilities, each index an equal witness; without probabilities (readings not made
    by the two-stage reader) all of `confidence` on `card`."""
    if detections.probabilities is not None and len(detections):
        mean: npt.NDArray[np.float64] = detections.probabilities.astype(np.float64).mean(axis=0)
        return mean
    out = np.zeros(len(CLASS_NAMES), np.float64)
    out[class_of_card(card)] = confidence
    return out


def top_choices(
    distribution: npt.NDArray[np.float64], n: int, floor: float
) -> tuple[tuple[Card, float], ...]:
    """The `n` likeliest cards of a 52-class `distribution` at `floor` or more, likeliest first.

    >>> chances = np.zeros(52); chances[[4, 17]] = 0.3, 0.6
    >>> [(str(c), round(p, 2)) for c, p in top_choices(chances, 5, 0.001)]
    [('5D', 0.6), ('5C', 0.3)]
    """
    order = np.argsort(-distribution, kind="stable")[:n]
    return tuple(
        (card_of_class(int(i)), float(distribution[i])) for i in order if distribution[i] >= floor
    )


@dataclass(frozen=True, eq=False)
class Conflict:
    """One card identity seen at places that cannot all be the same card."""

    card: Card
    #: Centre of each sighting (a paired card or a lone index).
    places: tuple[Point, ...]
    detections: Detections = field(repr=False)
    reason: str = ""


@dataclass(frozen=True)
class FrameCards:
    """The cards of one frame, the identity conflicts, and the boxes whose class is unknown."""

    cards: tuple[SeenCard, ...] = ()
    conflicts: tuple[Conflict, ...] = ()
    unread: Detections = field(default_factory=Detections.empty, repr=False, compare=False)
    #: A card was read only at an index the frame's edge cuts, over the card threshold but under
    #: the edge threshold (`ScoreCalibration.edge_threshold`), and so set aside: it may be there.
    cut_at_edge: bool = False

    def by_card(self) -> dict[Card, SeenCard]:
        return {seen.card: seen for seen in self.cards}

    @property
    def index_px(self) -> float | None:
        """The median index size (px) of the cards seen in this frame, None with none: how
        many pixels the camera gives an index, which decides how surely it reads."""
        sizes = [seen.glyph_size for seen in self.cards if seen.in_frame]
        return float(np.median(sizes)) if sizes else None


def cards_from_detections(
    detections: Detections, config: PairingConfig = PairingConfig()
) -> FrameCards:
    """Group the corner indices of one frame into cards; report impossible duplicates."""
    kept = _suppress_duplicates(detections[detections.scores >= config.min_score], config)
    known = kept[kept.class_ids >= 0]
    cards, conflicts = _cards(known, config)
    misread = _misread_corners(cards, known, config)
    if misread.any():
        cards, conflicts = _cards(known[~misread], config)
    cards.sort(key=lambda s: (s.centre[1], s.centre[0]))
    return FrameCards(tuple(cards), tuple(conflicts), kept[kept.class_ids < 0])


Keep = Callable[[Detections], npt.NDArray[np.bool_]]


def cards_with_second_choice(
    every: Detections, second: Detections, keep: Keep, config: PairingConfig
) -> tuple[FrameCards, Detections, npt.NDArray[np.bool_]]:
    """The cards of `every`'s readings that `keep` keeps, with each conflict's set-aside
    sightings read as their `second` choice (`reread_conflicts`); and the readings and kept
    mask they were made from."""
    kept = keep(every)
    seen = cards_from_detections(every[kept], config)
    return with_second_choices(seen, every, second, keep, config)


def with_second_choices(
    seen: FrameCards, every: Detections, second: Detections, keep: Keep, config: PairingConfig
) -> tuple[FrameCards, Detections, npt.NDArray[np.bool_]]:
    """`seen`, the cards of `every`'s readings that `keep` keeps, made again with each
    conflict's set-aside sightings read as their `second` choice (`reread_conflicts`) where it
    has conflicts; and the readings and kept mask they were made from."""
    if not seen.conflicts:
        return seen, every, keep(every)
    every = reread_conflicts(every, second, seen, config)
    kept = keep(every)
    return cards_from_detections(every[kept], config), every, kept


def reread_conflicts(
    every: Detections, second: Detections, seen: FrameCards, config: PairingConfig = PairingConfig()
) -> Detections:
    """`every` with the sightings set aside by each of `seen`'s conflicts that kept one read
    as their second choice (`second`: the same boxes' runner-up cards and scores), where no
    sighting names that card already and the sighting cannot be an index of the card kept.

    A conflict's weaker sighting is most often another card misread as this one: in the real
    webcam rows a club read as the spade below it, whose runner-up is that club. But a
    four-index card seen as two sightings (at `pair_min` 1.5, Dondorf's narrow side-by-side
    indices were) is the same card twice, and the weaker one's runner-up a card that is not
    there (its 8D read again as 8H in held-out 1280 × 720 frames).
    """
    named = {c.card for c in seen.cards} | {c.card for c in seen.conflicts}
    kept = {tuple(box) for c in seen.cards for box in c.detections.boxes.tolist()}
    classes, scores = every.class_ids.copy(), every.scores.copy()
    by_card = seen.by_card()
    for conflict in seen.conflicts:
        if conflict.card not in by_card:
            continue
        own = by_card[conflict.card].detections
        for box in conflict.detections.boxes.tolist():
            if tuple(box) in kept:
                continue
            i = int(np.flatnonzero((every.boxes == np.float32(box)).all(axis=1))[0])
            if _may_be_index_of(own, every[i : i + 1], config):
                continue
            if card_of_class(int(second.class_ids[i])) not in named:
                classes[i], scores[i] = second.class_ids[i], second.scores[i]
    return every.with_rows(scores=scores, class_ids=classes)


def _may_be_index_of(card: Detections, index: Detections, config: PairingConfig) -> bool:
    """Whether `index` (one reading) could be another index of the card seen by `card`'s:
    within `pair_max` of each as `_glyphs_apart` measures (closer than `pair_min` too)."""
    return all(
        (dist := _glyphs_apart(index, 0, card, j, config)) is not None and dist <= config.pair_max
        for j in range(len(card))
    )


def _cards(known: Detections, config: PairingConfig) -> tuple[list[SeenCard], list[Conflict]]:
    cards: list[SeenCard] = []
    conflicts: list[Conflict] = []
    for class_id in np.unique(known.class_ids).tolist():
        same = known[known.class_ids == class_id]
        card = card_of_class(class_id)
        groups = _join_diagonals(same, _pair(same, config), config)
        sightings = [_seen(card, same[g], config) for g in groups]
        if len(sightings) == 1:
            cards.append(sightings[0])
            continue
        pairs = [s for s in sightings if s.indices_seen >= 2]
        places = f"{card} seen at {len(sightings)} places that cannot be one card"
        if len(pairs) == 1:
            cards.append(pairs[0])
            reason = f"{card} seen as a whole card and again {len(sightings) - 1} time(s) elsewhere"
        elif (likeliest := _likeliest(sightings, config.conflict_keep)) is not None:
            cards.append(likeliest)
            reason = f"{places}; kept the surest ({likeliest.confidence:.3f})"
        else:
            reason = places
        conflicts.append(Conflict(card, tuple(s.centre for s in sightings), same, reason))
    return cards, conflicts


def _likeliest(sightings: list[SeenCard], least: float) -> SeenCard | None:
    """The sighting at least `least` likely to be the card, given that a deck holds it once.

    Taking each sighting's confidence as its chance of being read right, independently of the
    others, and at most one of them right: sighting i is the card with chance
    ``odds_i / (1 + sum of odds)``. Two alike sightings never pass 0.5; a sure one beside a
    doubtful misreading does. (Measured on the held-out designs at 1280 px: recall 93.4 ->
    94.1 %, every card so kept right.) Confidences are capped at 0.9999: beyond that, their
    differences are noise, and two saturated sightings stay a conflict.
    """
    p = np.clip(np.array([s.confidence for s in sightings], np.float64), 1e-4, 1 - 1e-4)
    odds = p / (1 - p)
    chance = odds / (1 + odds.sum())
    best = int(chance.argmax())
    return sightings[best] if chance[best] >= least else None


def _misread_corners(
    cards: list[SeenCard], known: Detections, config: PairingConfig
) -> npt.NDArray[np.bool_]:
    """The indices that sit exactly on the fourth corner of a card seen by three.

    On a four-index deck three corners of a card fix its fourth: an index of another
    identity there is that card's own index misread (nothing else can lie on that corner
    without covering it), not a second card.
    """
    misread = np.zeros(len(known), bool)
    centres, sizes = known.centres.astype(np.float64), known.sizes.astype(np.float64)
    for seen in cards:
        if seen.indices_seen != 3:
            continue
        corners = seen.detections.centres.astype(np.float64)
        far = np.hypot(*(corners[:, None, :] - corners[None, :, :]).transpose(2, 0, 1))
        i, j = np.unravel_index(int(far.argmax()), far.shape)  # the diagonal
        spot = corners[i] + corners[j] - corners[3 - int(i) - int(j)]
        size = seen.glyph_size
        near = np.hypot(*(centres - spot).T) < config.same_glyph * size
        alike = np.maximum(sizes, size) <= config.size_ratio * np.minimum(sizes, size)
        other = known.class_ids != class_of_card(seen.card)
        misread |= near & alike & other
    return misread


def _suppress_duplicates(d: Detections, config: PairingConfig) -> Detections:
    """Keep one reading per glyph: overlapping boxes of any class, or near boxes of one class."""
    order = np.argsort(-d.scores, kind="stable")
    centres, sizes = d.centres, d.sizes
    overlaps = iou_matrix(d.boxes, d.boxes)
    keep: list[int] = []
    for i in order.tolist():
        duplicate = False
        for j in keep:
            if overlaps[i, j] > config.nms_iou:
                duplicate = True
            elif d.class_ids[i] == d.class_ids[j]:
                dist = float(np.hypot(*(centres[i] - centres[j])))
                duplicate = dist < config.same_glyph * float(sizes[i] + sizes[j]) / 2
            if duplicate:
                break
        if not duplicate:
            keep.append(i)
    return d[np.asarray(sorted(keep), np.int64)]


def _pair(same: Detections, config: PairingConfig) -> list[list[int]]:
    """Split one identity's glyphs into plausible cards, closest-to-nominal pairs first.

    A card carries two indices, or four on some decks (continental and bridge designs print
    one in every corner): glyphs join one card only while every two of them could be
    indices of one card (complete linkage), at most four.
    """
    n = len(same)
    fits = np.zeros((n, n), bool)
    candidates: list[tuple[float, int, int]] = []
    for i in range(n):
        for j in range(i + 1, n):
            dist = _glyphs_apart(same, i, same, j, config)
            if dist is not None and config.pair_min <= dist <= config.pair_max:
                fits[i, j] = fits[j, i] = True
                candidates.append((abs(math.log(dist / config.pair_nominal)), i, j))
    group_of = list(range(n))
    members: dict[int, list[int]] = {i: [i] for i in range(n)}
    for _, i, j in sorted(candidates):
        a, b = group_of[i], group_of[j]
        if a == b or len(members[a]) + len(members[b]) > 4:
            continue
        if all(fits[x, y] for x in members[a] for y in members[b]):
            for x in members[b]:
                group_of[x] = a
            members[a] += members.pop(b)
    return [sorted(group) for group in members.values()]


def _glyphs_apart(
    a: Detections, i: int, b: Detections, j: int, config: PairingConfig
) -> float | None:
    """How far apart (mean glyph sizes, centre to centre) index `i` of `a` and index `j` of `b`
    lie, or None where they cannot be one card's: sizes too unlike (`size_ratio`), or facing
    the same way too far apart (`_may_share_card`)."""
    si, sj = float(a.sizes[i]), float(b.sizes[j])
    if max(si, sj) > config.size_ratio * min(si, sj):
        return None
    dist = float(np.hypot(*(a.centres[i] - b.centres[j]))) / ((si + sj) / 2)
    ci = FACING_UNKNOWN if a.facing is None else int(a.facing[i])
    cj = FACING_UNKNOWN if b.facing is None else int(b.facing[j])
    return dist if _may_share_card(ci, cj, dist, config) else None


def _may_share_card(ci: int, cj: int, dist: float, config: PairingConfig) -> bool:
    """Whether indices facing `ci` and `cj` (`FACING_UNKNOWN`: either) `dist` glyphs apart may
    be one card's: a card's indices far apart face opposite ways; only a four-index card's
    side-by-side pair faces the same way. (A quarter turn between them is left to distance:
    it is what a reading of a card turned near 45° gets wrong.)"""
    return FACING_UNKNOWN in (ci, cj) or ci != cj or dist <= config.side_by_side_max


def _join_diagonals(
    same: Detections, groups: list[list[int]], config: PairingConfig
) -> list[list[int]]:
    """`groups` with any two of two or more indices whose diagonals meet (`same_centre`)
    joined, up to four indices: a four-index card seen as its two diagonal pairs, its
    side-by-side indices outside what pairing allows (Dondorf's narrow ones, or seen sideways
    in a tilted frame). Two cards never share a centre."""
    joined: list[list[int]] = []
    for group in groups:
        here = _midpoint(same[group].centres)
        for other in joined:
            if len(group) < 2 or len(other) < 2 or len(group) + len(other) > 4:
                continue
            gap = float(np.hypot(*(here - _midpoint(same[other].centres))))
            if gap < config.same_centre * float(same[group + other].sizes.mean()):
                other += group
                break
        else:
            joined.append(list(group))
    return joined


def _midpoint(centres: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """The middle of the farthest two of `centres`: a card's centre where they are indices of
    its opposite corners."""
    far = np.hypot(*(centres[:, None, :] - centres[None, :, :]).transpose(2, 0, 1))
    i, j = np.unravel_index(int(far.argmax()), far.shape)
    middle: npt.NDArray[np.float32] = (centres[i] + centres[j]) / 2
    return middle


def _seen(card: Card, d: Detections, config: PairingConfig) -> SeenCard:
    x1, y1 = (float(v) for v in d.boxes[:, :2].min(axis=0))
    x2, y2 = (float(v) for v in d.boxes[:, 2:].max(axis=0))
    size = float(d.sizes.mean())
    cx, cy = (float(v) for v in _midpoint(d.centres))  # a diagonal: the card's centre
    if len(d) == 1:
        confidence = float(d.scores[0])
        if d.facing is not None and d.facing[0] != FACING_UNKNOWN:
            dx, dy = config.centre_offset
            for _ in range(int(d.facing[0])):
                dx, dy = -dy, dx  # rotate the offset 90° clockwise (image y points down)
            cx, cy = cx + dx * size, cy + dy * size
    else:
        confidence = 1.0 - float(np.prod(1.0 - d.scores.astype(np.float64)))
    choices = top_choices(class_distribution(d, card, confidence), config.choices,
                          config.choice_floor)  # fmt: skip
    return SeenCard(card, confidence, (x1, y1, x2, y2), (cx, cy), size, d, choices=choices)
