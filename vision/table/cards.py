"""Turn corner-index detections into physical cards.

The detector sees printed corner indices, and a card carries two of them in opposite corners.
Counting boxes would count most cards twice, so this module groups them into physical cards by
geometry: two indices of the same identity at a plausible distance (a card is about 5–7 index
heights tall, so its two index centres lie about 5.7 index heights apart) are one card, and so
are indices read as different cards that face each other from a card's two ends, or lie at the
corners of one four-index card, where their readings are likelier one card's than two. Each
card is then named from all its indices' readings together, so a card whose far corner is
misread is still one card; two cards of one rank side by side, each read surely, stay two. A
card seen by one corner only (fanned hand, overlapping row) is still one card. A deck holds
each card once, so the same identity seen at places that cannot be one card is a `Conflict` to
report, never two cards.

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
    #: Indices read as different cards that face each other are one card's only where, seen
    #: upright, the other lies right of this one or straight below it, at most this far left
    #: (half an index's width and a little tilt); a row's neighbour lies a card's width left.
    across_min: float = -0.5
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
    #: A reading under `min_score` still joins a card as one of its indices where stage 1
    #: boxed it at least this surely: its reading is combined with the card's others (a corner
    #: read with moderate confidence adds to its card), though alone it makes no card.
    join_box_score: float = 0.5
    #: A card's indices' class probabilities are combined as their product, each first raised
    #: by this much: no one reading, however sure, rules out what the card's others read.
    reading_floor: float = 0.001


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
    #: False for a card kept from an earlier frame's reading where nothing changed
    #: (`vision.table.changes`): seen in this frame, but no new evidence of what it is.
    fresh: bool = True
    #: The 52 class chances the card's face gives (its pips counted: `vision.detection.pips`),
    #: None where it gave none: a weaker witness beside its corners.
    face: npt.NDArray[np.float64] | None = field(default=None, repr=False)

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
    """Group the corner indices of one frame into cards; report impossible duplicates.

    Indices group by geometry, then each card is named from all its indices' readings together
    (`_named`), so a card whose corners read as different cards is still one card."""
    usable = (detections.scores >= config.min_score) | _may_join(detections, config)
    kept = _suppress_duplicates(detections[usable], config)
    known = kept[kept.class_ids >= 0]
    cards, conflicts = _cards(known, config)
    misread = _misread_corners(cards, known, config)
    if misread.any():
        cards, conflicts = _cards(known[~misread], config)
    cards.sort(key=lambda s: (s.centre[1], s.centre[0]))
    unread = kept[(kept.class_ids < 0) & (kept.scores >= config.min_score)]
    return FrameCards(tuple(cards), tuple(conflicts), unread)


def _may_join(detections: Detections, config: PairingConfig) -> npt.NDArray[np.bool_]:
    """Which readings may join a card under the card threshold (`join_box_score`): only
    the two-stage reader's, whose class probabilities can be combined with the card's."""
    if detections.box_scores is None or detections.probabilities is None:
        return np.zeros(len(detections), np.bool_)
    return np.asarray(detections.box_scores >= config.join_box_score)


def combined_reading(
    probabilities: npt.NDArray[np.float32], floor: float = PairingConfig.reading_floor
) -> npt.NDArray[np.float64]:
    """The 52 class chances of one card from its indices' class probabilities (N × 52): their
    normalised product, each raised by `floor` first. Independent readings of one card
    multiply: two corners that agree make it surer than either, two that disagree less sure.

    >>> top, bottom = np.zeros(52), np.zeros(52)  # one jack's corners: JC (10) or JS (49)?
    >>> top[[10, 49]], bottom[[10, 49]] = (0.3, 0.7), (0.9, 0.1)
    >>> [round(float(p), 2) for p in combined_reading(np.stack([top, bottom]))[[10, 49]]]
    [0.79, 0.21]
    """
    logs = np.log(probabilities.astype(np.float64) + floor).sum(axis=0)
    chances: npt.NDArray[np.float64] = np.exp(logs - logs.max())
    chances /= chances.sum()
    return chances


Keep = Callable[[Detections], npt.NDArray[np.bool_]]


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
    """The cards `known`'s readings make, and each name seen at places that cannot be one card.

    Indices read alike pair first (`_pair`); then sightings read differently join where
    geometry says they are one card's (`_join_diagonals`, `_join_lone_corners`). Each sighting
    is named from its readings together (`_named`), and one under the card threshold (a
    reading that only joins cards, or a card whose corners contradict each other) is no card."""
    groups: list[list[int]] = []
    for class_id in np.unique(known.class_ids).tolist():
        same = np.flatnonzero(known.class_ids == class_id)
        weak = known.scores[same] < config.min_score
        groups += [same[group].tolist() for group in _pair(known[same], config, weak)]
    groups = _join_diagonals(known, groups, config)
    groups = _join_lone_corners(known, groups, config)
    groups = _join_diagonals(known, groups, config)  # lone corners joined may be a card's side
    seen = [(group, _seen(known[group], config)) for group in groups]
    by_card: dict[Card, list[tuple[list[int], SeenCard]]] = {}
    for group, sighting in seen:
        if sighting.confidence >= config.min_score:
            by_card.setdefault(sighting.card, []).append((group, sighting))
    cards: list[SeenCard] = []
    conflicts: list[Conflict] = []
    for card, found in by_card.items():
        sightings = [sighting for _, sighting in found]
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
        every = known[sorted(i for group, _ in found for i in group)]
        conflicts.append(Conflict(card, tuple(s.centre for s in sightings), every, reason))
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
        if seen.indices_seen != 3 or (seen.detections.scores < config.min_score).any():
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


def _pair(
    same: Detections, config: PairingConfig, weak: npt.NDArray[np.bool_] | None = None
) -> list[list[int]]:
    """Split one identity's glyphs into plausible cards, closest-to-nominal pairs first.

    A card carries two indices, or four on some decks (continental and bridge designs print
    one in every corner): glyphs join one card only while every two of them could be
    indices of one card (complete linkage), at most four. Two `weak` readings (under the card
    threshold, only joining cards) never pair: misread alike, they would make a card.
    """
    n = len(same)
    fits = np.zeros((n, n), bool)
    candidates: list[tuple[float, int, int]] = []
    for i in range(n):
        for j in range(i + 1, n):
            if weak is not None and weak[i] and weak[j]:
                continue
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
    known: Detections, groups: list[list[int]], config: PairingConfig
) -> list[list[int]]:
    """`groups` (rows of `known`) with any two of two or more indices that are one card's
    joined, up to four indices: a four-index card seen as its two diagonal pairs (its
    side-by-side indices outside what pairing allows: Dondorf's narrow ones, or seen sideways in
    a tilted frame), or as its two sides (a far card's columns read two ways), one pair misread
    as another card.

    Diagonals whose middles meet (`same_centre`) at the corners of a card's rectangle
    (`_card_corners`) are one card whatever they read: no second card's indices can lie on
    a card's corners without covering them. Middles that meet otherwise (a pile can stack two
    cards nearly so), or two sides of a rectangle (a row's neighbours show theirs side by side),
    join only where their readings are likelier one card's than two (`_likelier_one_card`)."""
    joined: list[list[int]] = []
    for group in groups:
        here = _midpoint(known[group].centres)
        for other in joined:
            if len(group) < 2 or len(other) < 2 or len(group) + len(other) > 4:
                continue
            size = float(known[group + other].sizes.mean())
            meet = float(np.hypot(*(here - _midpoint(known[other].centres)))) < (
                config.same_centre * size
            )
            corners = _card_corners(known, group + other, size, config)
            if not meet and corners is None:
                continue
            diagonals = meet and corners is not None and _across(group, corners)
            alike = known.class_ids[group[0]] == known.class_ids[other[0]]
            if diagonals or alike or _likelier_one_card(_agreement(known, group, other, config)):
                other += group
                break
        else:
            joined.append(list(group))
    return joined


Ends = tuple[tuple[int, int], tuple[int, int]]


def _card_corners(
    known: Detections, indices: list[int], size: float, config: PairingConfig
) -> Ends | None:
    """The card's two ends, ``((e0, e1), (f0, f1))`` with ``e0``-``f0`` and ``e1``-``f1`` its
    long sides, where the four `indices` of `known` lie at one four-index card's corners; else
    None. Each end's two indices face alike and lie side by side (`pair_min`..
    `side_by_side_max`), the ends face opposite ways at most `pair_max` apart, and the four make
    a rectangle: its diagonals meet and are equally long, within `same_centre`."""
    if len(indices) != 4 or known.facing is None:
        return None
    facing = [int(known.facing[i]) for i in indices]
    e = [i for i, way in zip(indices, facing, strict=True) if way == facing[0]]
    f = [i for i, way in zip(indices, facing, strict=True) if way == (facing[0] + 2) % 4]
    if FACING_UNKNOWN in facing or len(e) != 2 or len(f) != 2:
        return None
    centres = known.centres.astype(np.float64)
    tolerance = config.same_centre * size

    def apart(i: int, j: int) -> float:
        return float(np.hypot(*(centres[i] - centres[j])))

    for f0, f1 in ((f[0], f[1]), (f[1], f[0])):
        e0, e1 = e
        meet = float(np.hypot(*(centres[e0] + centres[f1] - centres[e1] - centres[f0]))) / 2
        if meet >= tolerance or abs(apart(e0, f1) - apart(e1, f0)) >= tolerance:
            continue
        widths = (apart(e0, e1) / size, apart(f0, f1) / size)
        if all(config.pair_min <= w <= config.side_by_side_max for w in widths) and (
            config.pair_min <= apart(e0, f0) / size <= config.pair_max
        ):
            return (e0, e1), (f0, f1)
    return None


def _across(group: list[int], ends: Ends) -> bool:
    """Whether `group`'s two indices are opposite corners of the card whose `ends` are given."""
    (e0, e1), (f0, f1) = ends
    return set(group) in ({e0, f1}, {e1, f0})


def _agreement(known: Detections, a: list[int], b: list[int], config: PairingConfig) -> float:
    """The chance that the indices `a` and `b` of `known` read one card, each set's readings
    combined (`combined_reading`): ``Σ P_a(c) P_b(c)`` over the 52 cards; 0 without class
    probabilities."""
    if known.probabilities is None:
        return 0.0
    first = combined_reading(known.probabilities[a], config.reading_floor)
    second = combined_reading(known.probabilities[b], config.reading_floor)
    return float(first @ second)


def _likelier_one_card(agreement: float) -> bool:
    """Whether two readings agreeing on one card with chance `agreement` (`_agreement`) are
    likelier one card's than two different cards': any card equally likely beforehand, one
    card gives them ``52·agreement`` against two cards' ``1 − agreement``."""
    return len(CLASS_NAMES) * agreement >= 1 - agreement


def _join_lone_corners(
    known: Detections, groups: list[list[int]], config: PairingConfig
) -> list[list[int]]:
    """`groups` with two lone indices read as different cards joined where they face each other
    from a card's two ends (`_face_each_other`) and their readings are likelier one card's
    than two cards' (`_likelier_one_card`). The readings that agree most join first; each
    index joins once, and one only joining cards (under the card threshold) joins a reading
    that makes one.

    A card whose far corner is misread (a spade read as a club, a K as an A) most often keeps
    some chance of the right card at that corner; two cards of one rank side by side, each
    read surely, do not, and stay two."""
    if known.facing is None or known.probabilities is None:
        return groups
    lone = [group[0] for group in groups if len(group) == 1]
    options: list[tuple[float, int, int]] = []
    for a, i in enumerate(lone):
        for j in lone[a + 1 :]:
            if (
                max(known.scores[i], known.scores[j]) < config.min_score  # two only joining
                or known.class_ids[i] == known.class_ids[j]  # read alike: pairing had its say
                or not _face_each_other(known, i, j, config)
            ):
                continue
            agreement = _agreement(known, [i], [j], config)
            if _likelier_one_card(agreement):
                options.append((-agreement, i, j))
    joined: dict[int, list[int]] = {}
    for _, i, j in sorted(options):
        if i not in joined and j not in joined:
            joined[i] = joined[j] = [i, j]
    pairs = {id(pair): pair for pair in joined.values()}
    return [group for group in groups if group[0] not in joined] + list(pairs.values())


def _face_each_other(d: Detections, i: int, j: int, config: PairingConfig) -> bool:
    """Whether indices `i` and `j` of `d` could be one card's two ends: both facings known and
    opposite, sizes alike, at a card's distance (`pair_min`..`pair_max`), and each where the
    other's card lies as it reads upright: ahead (towards its card's far end) and not to its
    left beyond `across_min` (an upright index sits at its card's top left corner).

    Two cards side by side in a row are what this tells apart: the right one's upright index
    and the left one's upside-down one face each other too, but a card's width to the side."""
    assert d.facing is not None
    fi, fj = int(d.facing[i]), int(d.facing[j])
    if FACING_UNKNOWN in (fi, fj) or fj != (fi + 2) % 4:
        return False
    dist = _glyphs_apart(d, i, d, j, config)
    if dist is None or not config.pair_min <= dist <= config.pair_max:
        return False
    size = float(d.sizes[[i, j]].mean())
    across, along = _upright(d.centres[j].astype(np.float64) - d.centres[i], fi)
    return along > 0 and across >= config.across_min * size


def _upright(offset: npt.NDArray[np.float64], facing: int) -> tuple[float, float]:
    """`offset` (image x, y) as seen by an index facing `facing`, turned upright: (across,
    along) its card, along > 0 towards its card's far end."""
    x, y = float(offset[0]), float(offset[1])
    for _ in range(facing):
        x, y = y, -x  # undo a quarter turn clockwise
    return x, y


def _turned(offset: tuple[float, float], facing: int) -> npt.NDArray[np.float64]:
    """An upright (across, along) `offset` as image x, y for an index facing `facing`."""
    x, y = offset
    for _ in range(facing):
        x, y = -y, x  # a quarter turn clockwise (image y points down)
    return np.array([x, y])


def _midpoint(centres: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """The middle of the farthest two of `centres`: a card's centre where they are indices of
    its opposite corners."""
    far = np.hypot(*(centres[:, None, :] - centres[None, :, :]).transpose(2, 0, 1))
    i, j = np.unravel_index(int(far.argmax()), far.shape)
    middle: npt.NDArray[np.float32] = (centres[i] + centres[j]) / 2
    return middle


def _seen(d: Detections, config: PairingConfig) -> SeenCard:
    """The card that `d`'s indices make: named and scored by `_named`, placed at its centre
    (a diagonal's middle, or from a lone index's facing)."""
    card, confidence = _named(d, config)
    x1, y1 = (float(v) for v in d.boxes[:, :2].min(axis=0))
    x2, y2 = (float(v) for v in d.boxes[:, 2:].max(axis=0))
    size = float(d.sizes.mean())
    cx, cy = (float(v) for v in _midpoint(d.centres))  # a diagonal: the card's centre
    facing = set() if d.facing is None else {int(f) for f in d.facing}
    if len(facing) == 1 and FACING_UNKNOWN not in facing:
        # One corner, or one end's two corners (facing alike): the centre lies along the card.
        across, along = config.centre_offset
        dx, dy = _turned((across if len(d) == 1 else 0.0, along), facing.pop())
        cx, cy = cx + dx * size, cy + dy * size
    choices = top_choices(class_distribution(d, card, confidence), config.choices,
                          config.choice_floor)  # fmt: skip
    return SeenCard(card, confidence, (x1, y1, x2, y2), (cx, cy), size, d, choices=choices)


def _named(d: Detections, config: PairingConfig) -> tuple[Card, float]:
    """The card `d`'s indices read together, and how surely.

    Indices read alike: that card, as sure as they are together, ``1 - (1 - s1)(1 - s2)``.
    Indices read as different cards: the likeliest card of their `combined_reading`, as sure
    as its chance there times the surest index's score (how clearly the card was seen at all):
    corners that each surely read another card leave it under the card threshold.
    """
    first = card_of_class(int(d.class_ids[0]))
    if (d.class_ids == d.class_ids[0]).all() or d.probabilities is None:
        return first, 1.0 - float(np.prod(1.0 - d.scores.astype(np.float64)))
    chances = combined_reading(d.probabilities, config.reading_floor)
    best = int(chances.argmax())
    return card_of_class(best), float(chances[best]) * float(d.scores.max())
