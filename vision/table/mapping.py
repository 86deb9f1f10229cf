"""Points, boxes and cards moved from one frame's pixels to another's by a homography: the
picture to the table plane's canonical frame and back, or that frame corrected for a knocked
camera."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import numpy.typing as npt

from vision.table.cards import FrameCards, SeenCard

F64 = npt.NDArray[np.float64]


def apply(homography: F64, points: F64) -> F64:
    """`points` (N × 2) mapped by `homography`."""
    flat = np.column_stack([points, np.ones(len(points))]) @ homography.T
    return np.asarray(flat[:, :2] / flat[:, 2:], np.float64)


def mapped_boxes(homography: F64, boxes: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    """Each box's four corners mapped, and the box around them."""
    return _mapped(homography, boxes.astype(np.float64)).astype(np.float32)


def map_box(homography: F64, box: tuple[float, ...] | list[float]) -> tuple[float, ...]:
    """The box around `box`'s four corners mapped by `homography`."""
    return tuple(float(v) for v in _mapped(homography, np.array([box[:4]], np.float64))[0])


def map_point(homography: F64, point: tuple[float, float]) -> tuple[float, float]:
    x, y = apply(homography, np.array([point], np.float64))[0]
    return float(x), float(y)


def placed(homography: F64, seen: SeenCard) -> SeenCard:
    """`seen` with its boxes and centre mapped by `homography` (read turned, placed back)."""
    boxes = seen.detections.boxes
    mapped = mapped_boxes(homography, boxes)
    detections = seen.detections.with_rows(boxes=mapped) if len(boxes) else seen.detections
    sides = mapped[:, 2:] - mapped[:, :2] if len(mapped) else None
    size = seen.glyph_size if sides is None else float(sides.max(axis=1).mean())
    x1, y1, x2, y2 = map_box(homography, seen.box)
    centre = map_point(homography, seen.centre)
    return replace(seen, box=(x1, y1, x2, y2), centre=centre, glyph_size=size,
                   detections=detections)  # fmt: skip


def placed_all(homography: F64, frame: FrameCards) -> FrameCards:
    """Every card of `frame` mapped by `homography`."""
    return replace(frame, cards=tuple(placed(homography, seen) for seen in frame.cards))


def _mapped(homography: F64, boxes: F64) -> F64:
    x1, y1, x2, y2 = (boxes[:, i] for i in range(4))
    corners = np.stack([np.stack([x1, y1], 1), np.stack([x2, y1], 1), np.stack([x2, y2], 1),
                        np.stack([x1, y2], 1)], 1).reshape(-1, 2)  # fmt: skip
    mapped = apply(homography, corners).reshape(-1, 4, 2)
    return np.concatenate([mapped.min(axis=1), mapped.max(axis=1)], axis=1)
