"""Stage 1, the index finder: a one-class YOLO detector (NMS-free ONNX) run on whole frames,
boxing each corner index. A frame is letterboxed to up to a square's pixels; a large frame
whose indices are small is looked at again closer, one whose indices are large again farther
(`ReadingConfig.closer_look`, `far_look`)."""

from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from vision.config import DEFAULT_DETECTOR_SIDE, DEFAULT_READING, ReadingConfig
from vision.detection.detections import UNKNOWN_CLASS, Detections
from vision.detection.models import STRIDE, Image, ModelSizeError, load_model, model_input


class IndexFinder:
    """Stage 1 at `config.detector_side`: the side the detector was exported for (the frame's
    longer side scaled to it), else the one asked (`DEFAULT_DETECTOR_SIDE` when none; the frame
    scaled to up to that square's pixels, `letterbox`). `names_cards`: the detector names each
    box's card (the single-stage detector measured against the two stages), where stage 1's
    boxes are of no card yet."""

    def __init__(
        self, path: Path, backend: str = "auto", config: ReadingConfig = DEFAULT_READING, *,
        exact: bool = False, threads: int | None = None, names_cards: bool = False,
    ) -> None:  # fmt: skip
        wanted = config.detector_side
        self.forward, self.runtime, fixed = load_model(path, backend, batch=1, exact=exact,
                                                       threads=threads)  # fmt: skip
        if wanted is not None and fixed is not None and fixed != wanted:
            raise ModelSizeError(f"{path} reads {fixed}-px frames only, not {wanted}")
        self.config = config
        self.side = fixed or wanted or DEFAULT_DETECTOR_SIDE
        #: A detector exported for one size gets square frames; one that takes any, frames
        #: padded only to the stride (see `letterbox`).
        self.stride: int | None = None if fixed else STRIDE
        self.names_cards = names_cards

    @property
    def closer_side(self) -> int | None:
        """The side of a closer look (`closer_look_scale`); None for a detector exported for
        one size."""
        if self.stride is None:
            return None
        return round(self.side * self.config.closer_look_scale / STRIDE) * STRIDE

    def closer_side_for(self, width: int, height: int) -> int | None:
        """The side of a closer look at a `width` × `height` frame: `closer_side`, or the
        frame's own pixels' where fewer; None where that is under `closer_look_min_scale` times
        the side (too little more to be worth a look)."""
        if self.closer_side is None:
            return None
        side = min(self.closer_side, math.isqrt(width * height) // STRIDE * STRIDE)
        return side if side >= round(self.config.closer_look_min_scale * self.side) else None

    @property
    def far_side(self) -> int | None:
        """The side of a far look (`far_look_scale`); None for a detector exported for one
        size."""
        if self.stride is None:
            return None
        return max(STRIDE * 2, round(self.side * self.config.far_look_scale / STRIDE) * STRIDE)

    def input_size(self, width: int, height: int) -> tuple[int, int]:
        """The network input's (width, height) for a `width` × `height` frame (`letterbox`)."""
        if self.stride is None:
            return self.side, self.side
        return input_shape(width, height, self.side, self.stride)[1]

    def scale(self, width: int, height: int) -> float:
        """How much a `width` × `height` frame is scaled for the network's input."""
        return self.scale_at(width, height, self.side)

    def scale_at(self, width: int, height: int, side: int) -> float:
        """How much a `width` × `height` frame is scaled when read at `side`."""
        if self.stride is None:
            return self.side / max(width, height)
        return input_shape(width, height, side, self.stride)[0]

    def side_for_scale(self, width: int, height: int, scale: float) -> int | None:
        """The side that reads a `width` × `height` frame at about `scale` input pixels a frame
        pixel, no less where the stride allows (a region of a larger frame read as that frame's
        look reads it); None for a detector exported for one size."""
        if self.stride is None:
            return None
        size = max(2 * self.stride, round(scale * math.sqrt(width * height)))
        for _ in range(64):  # the stride rounds the scale down: a few sides more
            if input_shape(width, height, size, self.stride)[0] >= scale * 0.97:
                break
            size += self.stride // 4
        return size

    def find(self, frame: Image, min_score: float, side: int | None = None) -> Detections:
        """The boxes (frame pixels) scoring at least `min_score`, the frame read at `side`
        (None: `self.side`); each box's score kept as its `box_scores` too, for the stages
        after reading to weigh."""
        batch, scale, pad = letterbox(frame, side or self.side, self.stride)
        raw = self.forward(batch)[0]  # 300 × 6: x1 y1 x2 y2 score class, NMS-free
        raw = raw[raw[:, 4] >= min_score]
        boxes = (raw[:, :4] - np.array([pad[0], pad[1], pad[0], pad[1]])) / scale
        height, width = frame.shape[:2]
        boxes = np.clip(boxes, 0, [width, height, width, height]).astype(np.float32)
        sizeable = (boxes[:, 2] - boxes[:, 0] >= 2) & (boxes[:, 3] - boxes[:, 1] >= 2)
        scores = raw[sizeable, 4].astype(np.float32)
        classes = (
            raw[sizeable, 5].astype(np.int64)
            if self.names_cards
            else np.full(len(scores), UNKNOWN_CLASS, np.int64)
        )
        return Detections(boxes[sizeable], scores, classes, box_scores=scores)


def letterbox(
    frame: Image, size: int, stride: int | None = None
) -> tuple[npt.NDArray[np.float32], float, tuple[int, int]]:
    """Scale the frame keeping its aspect and pad it grey (YOLO's input): its longer side to
    `size` in a `size` square, or, with `stride` (a detector that takes any size), to as many
    pixels as a `size` square holds at most, each side padded up to a multiple of `stride`
    (`input_shape`). A 1280 × 720 camera frame is read at 1024 × 576, not in an 800 square.
    """
    height, width = frame.shape[:2]
    if stride is None:
        scale = min(size / width, size / height)
        out_w = out_h = size
    else:
        scale, (out_w, out_h) = input_shape(width, height, size, stride)
    new_w, new_h = max(1, round(width * scale)), max(1, round(height * scale))  # a sliver too
    resized = cv2.resize(frame, (new_w, new_h), interpolation=cv2.INTER_AREA)
    canvas = np.full((out_h, out_w, 3), 114, dtype=np.uint8)
    left, top = (out_w - new_w) // 2, (out_h - new_h) // 2
    canvas[top : top + new_h, left : left + new_w] = resized
    return model_input(canvas[None]), scale, (left, top)


def input_shape(width: int, height: int, size: int, stride: int) -> tuple[float, tuple[int, int]]:
    """The scale, and the input's (width, height), that give a frame as many pixels as a `size`
    square at most, each side a multiple of `stride`; the longer side at most twice `size`.

    The detector's time goes with its input's pixels, so every frame costs about what a square
    photo does, and a wide frame's indices are not shrunk for the square's sake.
    """
    longer = max(width, height)

    def padded(side: int) -> tuple[int, int]:
        scale = side / longer
        out_w, out_h = (-(-max(1, round(v * scale)) // stride) * stride for v in (width, height))
        return out_w, out_h

    side = min(int(size * math.sqrt(longer / min(width, height))), 2 * size) // stride * stride
    while side > stride and math.prod(padded(side)) > size * size:
        side -= stride
    return side / longer, padded(side)
