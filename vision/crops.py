"""Cutting one corner index out of a frame: the same cut for training crops and at inference."""

from __future__ import annotations

import cv2
import numpy as np
import numpy.typing as npt

Image = npt.NDArray[np.uint8]


def crop_index(pixels: Image, box: npt.NDArray[np.float64], out: int, *, margin: float = 0.25,
               angle: float = 0.0) -> Image:  # fmt: skip
    """A square crop around one corner index, rotated by `angle` degrees, `out` px wide.

    The crop is a square on the box's longer side plus a margin, so the glyph keeps its aspect
    ratio whatever the box shape; the same function cuts training crops and inference crops.
    """
    x1, y1, x2, y2 = (float(v) for v in box)
    side = max(x2 - x1, y2 - y1) * (1 + 2 * margin)
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    scale = out / max(side, 1.0)
    matrix = cv2.getRotationMatrix2D((cx, cy), angle, scale)
    matrix[0, 2] += out / 2 - cx
    matrix[1, 2] += out / 2 - cy
    crop = cv2.warpAffine(pixels, matrix, (out, out), flags=cv2.INTER_AREA,
                          borderMode=cv2.BORDER_REPLICATE)  # fmt: skip
    return np.asarray(crop, dtype=np.uint8)
