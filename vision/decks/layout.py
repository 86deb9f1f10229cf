"""Where the cards of an enrolment shot lie, in what order, and which card each should be.

Enrolment cannot group corner indices by their reading (`cards_from_detections` does): the
model may not read this deck yet. So indices are grouped by geometry alone: first by the card
outline they sit in (cards laid apart on a cloth), then by pairing leftovers at the distance
two indices of one card lie apart (two pairs read alike within one card's span: a card printing
all four corners). Cards are then put in reading order (rows top to bottom, left to right),
and a shot announced as "one suit, A to K" is aligned to those 13 cards, letting the model's
readings decide where a missing or extra card breaks the sequence.

Groups that the model then reads as the same card and whose indices together could be one
card's by the reader's own grouping (`vision.table.cards.cards_from_detections`) are one card
(`join_same_card`): a four-index card split in two, or a corner left over beside its card's
pair, would otherwise be proposed twice and shown to the player as a card one photo holds twice.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from vision.detection.detections import CLASS_NAMES, FACING_UNKNOWN, Detections, box_sizes
from vision.table.cards import PairingConfig, cards_from_detections

Image = npt.NDArray[np.uint8]
Boxes = npt.NDArray[np.float32]
F64 = npt.NDArray[np.float64]
#: Cost (nats) of leaving an expected card out, or a found card unassigned, in the alignment.
GAP_COST = 6.0
#: Indices one card may show (some decks print all four corners).
MAX_INDICES = 4
#: A card's outline: its long side over its short side (poker 1.4, bridge 1.56, with slack)...
CARD_ASPECT = (1.15, 2.0)
#: ...and the share of its bounding rectangle it fills (a rectangle with rounded corners).
CARD_FILL = 0.88
#: How far (glyph sizes) a pair's offset may be from a known card's to be one card.
OFFSET_SLACK = 0.6
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")


@dataclass(frozen=True)
class Group:
    """The indices (rows of the shot's boxes) of one physical card and its centre; `bounds`
    (x1, y1, x2, y2) where the card's outline was seen."""

    indices: tuple[int, ...]
    centre: tuple[float, float]
    bounds: tuple[float, float, float, float] | None = None


PAIRING = PairingConfig()


def group_indices(
    frame: Image, boxes: Boxes, readings: Sequence[int] = (), config: PairingConfig = PAIRING,
    facing: Sequence[int] = (), distinct: Sequence[int] = (),
) -> list[Group]:  # fmt: skip
    """Group a shot's index boxes into cards: by card outline (up to four indices, for decks
    that print all four corners), then by pairing distance.

    How two indices of one card lie apart (offset, in glyph sizes) is learnt from the outlined
    cards, else from indices the model reads alike (`readings`: each box's class, or a number
    of its own, below 0, where the reading is unsure); without either, the leftovers pair only
    near the usual distance. `facing`: which way each index faces (`FACING_UNKNOWN` where
    unsure; none given: all unknown). Two indices facing the same way pair only side by side
    (`_may_pair`): a fanned row's corners lie a card's corner-to-corner offset apart too.
    `distinct`: each box's class where the model reads it surely, else below 0; two boxes
    read surely as two different cards (`_two_cards`) and not surely facing each other are not
    paired by offset: in a tight row or a fan a neighbour's corner often lies where the card's
    own would, its facing unsure. A card's two ends facing each other still pair, however
    read: a reader surely wrong at one corner of a deck it does not know would split the card
    and let its corners join others. (On the real photos, facing took the proposals mixing
    two cards from 45 to 22, sure readings to 16, and split no card more in two.)
    """
    if not len(boxes):
        return []
    b = np.asarray(boxes, np.float64)
    centres: F64 = np.stack([(b[:, 0] + b[:, 2]) / 2, (b[:, 1] + b[:, 3]) / 2], 1)
    sizes: F64 = box_sizes(b)
    groups: list[Group] = []
    used: set[int] = set()
    for outline, inside in _cards_outlined(frame, centres, float(np.median(sizes))):
        moments = cv2.moments(outline)
        centre = (moments["m10"] / moments["m00"], moments["m01"] / moments["m00"])
        x, y, w, h = (float(v) for v in cv2.boundingRect(outline))
        groups.append(Group(tuple(inside), centre, (x, y, x + w, y + h)))
        used.update(inside)
    paired: list[tuple[int, ...]] = [g.indices for g in groups if len(g.indices) == 2]
    rest = [i for i in range(len(boxes)) if i not in used]
    same = list(readings) if len(readings) == len(boxes) else [-1 - i for i in range(len(boxes))]
    faces = list(facing) if len(facing) == len(boxes) else [FACING_UNKNOWN] * len(boxes)
    sure = list(distinct) if len(distinct) == len(boxes) else [-1] * len(boxes)
    if not paired:
        paired = _alike(rest, centres, sizes, same, config, faces)
    offsets = [_offset(centres, sizes, i, j) for i, j in paired]
    pairs = [_group(indices, centres)
             for indices in _pair_by_offset(rest, centres, sizes, offsets, config,
                                            faces, sure)]  # fmt: skip
    return groups + _join_read_alike(pairs, centres, sizes, same, config)


def join_same_card(
    groups: list[Group], boxes: Boxes, names: Sequence[int], sure: Sequence[bool],
    config: PairingConfig = PAIRING,
) -> list[Group]:  # fmt: skip
    """`groups` with any two that are read as the same card (`names`: each group's likeliest
    class; at least one of the two `sure` of it) and together could be one physical card
    (`one_card`) made one, nearest first, up to `MAX_INDICES` indices: the card a player would
    otherwise see proposed twice.

    Groups read as different cards, or both unsure, stay apart: only the player can say which
    of two cards read alike but lying apart is misread."""
    if len(groups) < 2:
        return groups
    b = np.asarray(boxes, np.float64)
    centres: F64 = np.stack([(b[:, 0] + b[:, 2]) / 2, (b[:, 1] + b[:, 3]) / 2], 1)
    merged = list(groups)
    named, surely = list(names), list(sure)
    while True:
        options = []
        for a, first in enumerate(merged):
            for k in range(a + 1, len(merged)):
                indices = first.indices + merged[k].indices
                outlined = first.bounds or merged[k].bounds  # a whole card already
                if (named[a] != named[k] or not (surely[a] or surely[k])
                        or len(indices) > MAX_INDICES or outlined):  # fmt: skip
                    continue
                if one_card(np.asarray(boxes)[list(indices)], config):
                    points = centres[list(indices)]
                    span = float(np.linalg.norm(points[:, None] - points[None], axis=-1).max())
                    options.append((span, a, k))
        if not options:
            return merged
        _, a, k = min(options)
        merged[a] = _group(merged[a].indices + merged[k].indices, centres)
        surely[a] = True
        del merged[k], named[k], surely[k]


def one_card(boxes: Boxes, config: PairingConfig = PAIRING) -> bool:
    """Whether index `boxes` (2-4, read alike) could all be corners of one card: the reader's
    grouping of indices of one identity (`cards_from_detections`: every two at a card's
    corner-to-corner distance, sizes alike) makes them one card, and three or four of them lie
    at the corners of a card-shaped rectangle (`_rectangle_corners`). Two cards of a two-index
    deck next to each other make a parallelogram, not a rectangle with a short side."""
    n = len(boxes)
    if not 2 <= n <= MAX_INDICES:
        return False
    seen = cards_from_detections(Detections(boxes, np.ones(n), np.zeros(n, np.int64)), config)
    if len(seen.cards) != 1 or len(seen.cards[0].detections) != n or seen.conflicts:
        return False
    if n == 2:
        return True
    b = np.asarray(boxes, np.float64)
    centres: F64 = np.stack([(b[:, 0] + b[:, 2]) / 2, (b[:, 1] + b[:, 3]) / 2], 1)
    return _rectangle_corners(centres, float(np.median(box_sizes(b))), config)


#: How far from square a card's corner may look (|cos| of its angle: about 9° either way, for
#: perspective and a tilted card; a row's neighbour's corner lies further off).
SQUARE_COS = 0.15


def _rectangle_corners(centres: F64, glyph: float, config: PairingConfig) -> bool:
    """Whether 3-4 index `centres` are corners of one card: one of them sees two others at a
    right angle, the nearer side by side (`side_by_side_max`), and a fourth lies where the
    rectangle's last corner does (within an index size)."""
    n = len(centres)
    for p in range(n):
        for q in range(n):
            for r in range(q + 1, n):
                if p in (q, r):
                    continue
                u, v = centres[q] - centres[p], centres[r] - centres[p]
                lu, lv = float(np.hypot(*u)), float(np.hypot(*v))
                if min(lu, lv) < 1e-6 or abs(float(u @ v)) / (lu * lv) > SQUARE_COS:
                    continue
                if min(lu, lv) > config.side_by_side_max * glyph:
                    continue
                if n == 3:
                    return True
                (rest,) = set(range(n)) - {p, q, r}
                fourth = centres[p] + u + v
                if float(np.hypot(*(centres[rest] - fourth))) <= glyph:
                    return True
    return False


def _group(indices: tuple[int, ...], centres: F64) -> Group:
    centre = centres[list(indices)].mean(axis=0)
    return Group(indices, (float(centre[0]), float(centre[1])))


def _join_read_alike(groups: list[Group], centres: F64, sizes: F64, same: list[int],
                     config: PairingConfig) -> list[Group]:  # fmt: skip
    """Two paired groups whose indices all read as the same card and that together span no
    more than one card are one card printing four indices: on a table too pale to show
    outlines, pairing makes two "cards" of its top and bottom (or left and right) corners.
    (Outlined cards are whole already and never joined.)"""
    glyph = float(np.median(sizes))
    readings = [same[g.indices[0]] if len({same[i] for i in g.indices}) == 1 else None
                for g in groups]  # fmt: skip
    options = []
    for a, first in enumerate(groups):
        for b in range(a + 1, len(groups)):
            indices = first.indices + groups[b].indices
            if readings[a] is None or readings[a] != readings[b] or len(indices) > MAX_INDICES:
                continue
            points = centres[list(indices)]
            span = float(np.linalg.norm(points[:, None] - points[None], axis=-1).max())
            if span <= config.pair_max * glyph:
                options.append((span, a, b))
    joined: set[int] = set()
    out = []
    for _, a, b in sorted(options):
        if a not in joined and b not in joined:
            joined.update((a, b))
            out.append(_group(groups[a].indices + groups[b].indices, centres))
    return [g for k, g in enumerate(groups) if k not in joined] + out


def _cards_outlined(frame: Image, centres: F64,
                    glyph: float) -> list[tuple[npt.NDArray[np.int32], list[int]]]:  # fmt: skip
    """Outlines holding 1-4 indices and no bigger than one card (touching cards make one
    blob half again as big as the typical card: its indices are left to pairing).

    The typical card is measured on outlines holding at most two indices where there are
    any: two cards side by side make a card-shaped blob too, and when few outlines are found
    (a pale table) such blobs would otherwise set the typical size themselves."""
    found = []
    for outline in _outlines(frame, glyph):
        inside = [i for i, (x, y) in enumerate(centres.tolist())
                  if cv2.pointPolygonTest(outline, (x, y), False) >= 0]  # fmt: skip
        if inside:
            found.append((outline, inside))
    if not found:
        return []
    areas = [cv2.contourArea(outline) for outline, _ in found]
    single = [area for area, (_, inside) in zip(areas, found, strict=True) if len(inside) <= 2]
    typical = float(np.median(single or areas))
    return [
        (outline, inside)
        for (outline, inside), area in zip(found, areas, strict=True)
        if len(inside) <= MAX_INDICES and area <= 1.5 * typical
    ]


def _outlines(frame: Image, glyph: float) -> list[npt.NDArray[np.int32]]:
    """Bright card-sized blobs (cards on a darker cloth): the convex hulls of their outlines.

    Closing with half a glyph fills the notches an index printed near the edge cuts into the
    card's outline (and the dark art of court cards); cards must lie further apart than that.
    """
    grey = cv2.GaussianBlur(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), (3, 3), 0)
    _, mask = cv2.threshold(grey, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    side = max(3, int(glyph / 2) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (side, side))
    mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, kernel)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    hulls = [np.asarray(cv2.convexHull(c), np.int32) for c in contours]
    least, most = (2.0 * glyph) ** 2, (12.0 * glyph) ** 2
    return [h for h in hulls if least <= (area := cv2.contourArea(h)) <= most
            and _card_shaped(h, area)]  # fmt: skip


def _card_shaped(hull: npt.NDArray[np.int32], area: float) -> bool:
    """A rectangle of a card's proportions: a pool of lamp light on a pale cloth is bright too,
    and holding two cards' indices it would make them one card."""
    (_, _), (w, h), _ = cv2.minAreaRect(hull)
    if min(w, h) < 1:
        return False
    aspect = max(w, h) / min(w, h)
    fill = area / (w * h)
    return CARD_ASPECT[0] <= aspect <= CARD_ASPECT[1] and fill >= CARD_FILL


def _offset(centres: F64, sizes: F64, i: int, j: int) -> F64:
    """From index i to index j, in glyph sizes."""
    offset: F64 = (centres[j] - centres[i]) / float((sizes[i] + sizes[j]) / 2)
    return offset


def _distance(centres: F64, sizes: F64,
              i: int, j: int) -> float:  # fmt: skip
    return float(np.hypot(*(centres[i] - centres[j]))) / float((sizes[i] + sizes[j]) / 2)


def _may_pair(faces: list[int], i: int, j: int, distance: float,
              config: PairingConfig) -> bool:  # fmt: skip
    """Whether indices `i` and `j`, `distance` glyphs apart, may be one card's as they face
    (`faces`): a card's indices far apart face opposite ways, only a four-index card's side by
    side pair faces one way (the reader's rule, `vision.table.cards`). In a fanned row every
    card shows the same corner, facing the same way, a card's corner-to-corner offset from its
    neighbour's: without this, two cards' corners make one card. (A quarter turn between them
    is left to distance: it is what a reading of a card turned near 45° gets wrong.)"""
    fi, fj = faces[i], faces[j]
    return FACING_UNKNOWN in (fi, fj) or fi != fj or distance <= config.side_by_side_max


#: The red suits' places in the class order (C, D, H, S).
RED_SUITS = (1, 2)


def _ends(fi: int, fj: int) -> bool:
    """Whether indices facing `fi` and `fj` surely face each other, as a card's two ends do."""
    return FACING_UNKNOWN not in (fi, fj) and fj == (fi + 2) % 4


def _two_cards(a: int, b: int) -> bool:
    """Whether classes `a` and `b` (below 0: no sure reading) are surely two cards' indices:
    read as cards of different ranks or of different colours. One card's corner misread as its
    other suit of the same colour (a spade as a club, a heart as a diamond) is the reader's
    commonest slip on a deck it does not know yet, so such readings may still be one card."""
    if a < 0 or b < 0 or a == b:
        return False
    red_a, red_b = a // len(RANKS) in RED_SUITS, b // len(RANKS) in RED_SUITS
    return a % len(RANKS) != b % len(RANKS) or red_a != red_b


def _alike(rest: list[int], centres: F64, sizes: F64, same: list[int], config: PairingConfig,
           faces: list[int]) -> list[tuple[int, ...]]:  # fmt: skip
    """Mutually nearest pairs of indices read as the same card at a plausible distance, facing
    as one card's may (`_may_pair`)."""
    nearest: dict[int, int] = {}
    for i in rest:
        options = [(_distance(centres, sizes, i, j), j) for j in rest
                   if j != i and same[j] == same[i]]  # fmt: skip
        options = [(d, j) for d, j in options if config.pair_min <= d <= config.pair_max
                   and _may_pair(faces, i, j, d, config)]  # fmt: skip
        if options:
            nearest[i] = min(options)[1]
    return [(i, j) for i, j in nearest.items() if i < j and nearest.get(j) == i]


def _pair_by_offset(
    rest: list[int], centres: F64, sizes: F64, offsets: list[F64], config: PairingConfig,
    faces: list[int], distinct: list[int],
) -> list[tuple[int, ...]]:  # fmt: skip
    """Pairs whose offset is most like a known card's corner-to-corner offset (either way
    round: cards laid out alike), or without any, near the usual distance, facing as one
    card's may (`_may_pair`) and not read surely as two cards (`distinct`, as
    `group_indices` takes it); the rest single."""
    candidates = []
    for a, i in enumerate(rest):
        for j in rest[a + 1 :]:
            si, sj = float(sizes[i]), float(sizes[j])
            if max(si, sj) > config.size_ratio * min(si, sj):
                continue
            if not _may_pair(faces, i, j, _distance(centres, sizes, i, j), config):
                continue
            if _two_cards(distinct[i], distinct[j]) and not _ends(faces[i], faces[j]):
                continue
            offset = _offset(centres, sizes, i, j)
            if offsets:
                cost = min(min(float(np.hypot(*(offset - o))), float(np.hypot(*(offset + o))))
                           for o in offsets)  # fmt: skip
                limit = OFFSET_SLACK
            else:
                cost = abs(math.log(float(np.hypot(*offset)) / config.pair_nominal))
                limit = 0.25
            if cost < limit:
                candidates.append((cost, i, j))
    taken: set[int] = set()
    groups: list[tuple[int, ...]] = []
    for _, i, j in sorted(candidates):
        if i not in taken and j not in taken:
            taken.update((i, j))
            groups.append((i, j))
    groups.extend((i,) for i in rest if i not in taken)
    return groups


def reading_order(centres: list[tuple[float, float]], row_gap: float) -> list[int]:
    """Indices of `centres` in reading order: rows (split where y jumps by `row_gap`), then x."""
    by_y = sorted(range(len(centres)), key=lambda k: centres[k][1])
    rows: list[list[int]] = []
    for k in by_y:
        if rows and centres[k][1] - centres[rows[-1][-1]][1] <= row_gap:
            rows[-1].append(k)
        else:
            rows.append([k])
    return [k for row in rows for k in sorted(row, key=lambda k: centres[k][0])]


def align_suit(probabilities: npt.NDArray[np.floating[Any]], suit: str) -> list[str | None]:
    """Cards A..K of `suit` for found cards in reading order (n × 52 class probabilities).

    A monotone alignment: with exactly 13 cards it is A..K unless the model is very sure of a
    shift; with fewer or more, the model's readings decide which card is missing or extra.
    """
    expected = [rank + suit for rank in RANKS]
    columns = [CLASS_NAMES.index(card) for card in expected]
    match = np.log(np.asarray(probabilities, np.float64)[:, columns] + 1e-3)
    n, m = match.shape
    best = np.full((n + 1, m + 1), -np.inf)
    best[0, :] = -GAP_COST * np.arange(m + 1)
    best[:, 0] = -GAP_COST * np.arange(n + 1)
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            best[i, j] = max(best[i - 1, j - 1] + match[i - 1, j - 1],
                             best[i - 1, j] - GAP_COST, best[i, j - 1] - GAP_COST)  # fmt: skip
    assigned: list[str | None] = [None] * n
    i, j = n, m
    while i > 0 and j > 0:  # on a tie the missing cards are the last ones (laid from A)
        if math.isclose(best[i, j], best[i, j - 1] - GAP_COST):
            j -= 1
        elif math.isclose(best[i, j], best[i - 1, j - 1] + match[i - 1, j - 1]):
            assigned[i - 1] = expected[j - 1]
            i, j = i - 1, j - 1
        else:
            i -= 1
    return assigned
