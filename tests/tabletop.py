"""Synthetic corner-index detections of cards laid on a table, for the vision tests.

A card of index size ``g`` is 6g tall and 4.2g wide; its two indices (0.6g × g boxes) sit
1.65g across and 2.35g along from its centre, in opposite corners, printed upside down to each
other. ``rotation`` turns the card clockwise in quarter turns (1 and 3 for side seats).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from scorer.cards import Card, parse_card
from vision.detection.detections import Detections, class_of_card

OFFSET = (1.65, 2.35)
CARD_WIDTH, CARD_HEIGHT = 4.2, 6.0


def _turn(x: float, y: float, rotation: int) -> tuple[float, float]:
    for _ in range(rotation % 4):
        x, y = -y, x
    return x, y


def card_detections(
    card: str | Card,
    centre: tuple[float, float],
    g: float = 20.0,
    *,
    rotation: int = 0,
    corners: str = "tl br",
    score: float = 0.9,
    class_id: int | None = None,
) -> Detections:
    """The visible indices of one card: ``"tl"`` and ``"br"`` on most decks; four-index decks
    add ``"tr"`` and ``"bl"`` (the top ones upright, the bottom ones upside down)."""
    c = parse_card(card) if isinstance(card, str) else card
    boxes, orientations = [], []
    for corner in corners.split():
        sx = -1 if corner[1] == "l" else 1
        sy = -1 if corner[0] == "t" else 1
        dx, dy = _turn(sx * OFFSET[0] * g, sy * OFFSET[1] * g, rotation)
        w, h = (0.6 * g, g) if rotation % 2 == 0 else (g, 0.6 * g)
        x, y = centre[0] + dx, centre[1] + dy
        boxes.append([x - w / 2, y - h / 2, x + w / 2, y + h / 2])
        orientations.append(rotation % 4 if corner[0] == "t" else (rotation + 2) % 4)
    n = len(boxes)
    cid = class_of_card(c) if class_id is None else class_id
    return Detections(
        np.asarray(boxes, np.float32).reshape(n, 4), [score] * n, [cid] * n, orientations
    )


def row_detections(
    cards: Sequence[str],
    start: tuple[float, float],
    g: float = 20.0,
    *,
    rotation: int = 0,
    spacing: float = 2.2,
    overlap: bool = True,
) -> Detections:
    """A row of cards along the player's left-to-right, ``spacing`` index sizes apart.

    Overlapping cards hide the previous card's far ("br") index, as in a fanned hand.
    """
    step = _turn(spacing * g, 0.0, rotation)
    parts = []
    for i, card in enumerate(cards):
        centre = (start[0] + i * step[0], start[1] + i * step[1])
        last = i == len(cards) - 1
        corners = "tl" if overlap and not last else "tl br"
        parts.append(card_detections(card, centre, g, rotation=rotation, corners=corners))
    return Detections.concatenate(parts)


def without_corners(d: Detections) -> Detections:
    """The same boxes as a detector without orientation output reports them."""
    return Detections(d.boxes, d.scores, d.class_ids)


def table(parts: Iterable[Detections]) -> Detections:
    return without_corners(Detections.concatenate(list(parts)))
