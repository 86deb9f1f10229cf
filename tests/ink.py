"""Checks that synthetic labels sit on the printed ink, shared by the scene and deck tests."""

from __future__ import annotations

import cv2
import numpy as np

from cribtrain.data.synth import Scene

Label = tuple[int, float, float, float, float]


def ink(img: np.ndarray) -> np.ndarray:
    """Card ink on light paper: clearly darker or clearly coloured pixels."""
    f = img.astype(int)
    return (f.min(axis=2) < 150) | (f.max(axis=2) - f.min(axis=2) > 80)


def box_px(label: Label, s: int) -> tuple[int, int, int, int]:
    _, x, y, w, h = label
    return (round((x - w / 2) * s), round((y - h / 2) * s),
            round((x + w / 2) * s), round((y + h / 2) * s))  # fmt: skip


def assert_labels_on_ink(sc: Scene, min_ink: float = 0.15) -> None:
    """Every label of a lone clean card is tight around ink, with paper just outside."""
    size = sc.image.shape[0]
    card = np.zeros(sc.image.shape[:2], np.uint8)
    cv2.fillPoly(card, [np.round(sc.cards[0]["corners"]).astype(np.int32)], 1)
    on_card = cv2.erode(card, np.ones((9, 9), np.uint8)).astype(bool)  # drop the outline
    raw = ink(sc.image)
    for label in sc.labels:
        x0, y0, x1, y1 = box_px(label, size)
        inside = raw[y0:y1, x0:x1]
        assert inside.mean() > min_ink, "label box should be mostly on the glyph's ink"
        # ink reaches within 4 px of all four sides (tight box; rotation adds anti-aliasing)
        assert inside[:4].any() and inside[-4:].any()
        assert inside[:, :4].any() and inside[:, -4:].any()
        # a ring 2-4 px outside the box, on the card, is almost all paper
        ring = np.zeros_like(raw)
        ring[y0 - 4 : y1 + 4, x0 - 4 : x1 + 4] = True
        ring[y0 - 2 : y1 + 2, x0 - 2 : x1 + 2] = False
        ring &= on_card
        assert ring.sum() > 20 and raw[ring].mean() < 0.1
