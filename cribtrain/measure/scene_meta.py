"""What a `cribcam synth` scene's meta file says of its labelled cards: each one's deck design,
and how much of its face the cards laid over it leave showing.

The evaluation breaks recall down by both: by design, to tell a held-out design's losses from
everyone's; by the face shown, to tell a card that a reader of whole faces could still name
from one whose corner index is all that shows. Scenes are composed in the order of the meta's
``cards`` (later cards lie on earlier ones; nothing else covers a card), so the share of a
face left showing follows from the cards' polygons alone.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

#: Card faces are rasterised with at least this many pixels along a side, so the share shown
#: of a card 50 px tall is as exact as that of one 500 px tall.
FACE_RASTER_PX = 128


@dataclass(frozen=True)
class SceneCard:
    """One labelled card of a synthetic scene."""

    deck: str
    #: Share of the card's face inside the frame and under no other card (0..1).
    face_shown: float


def scene_cards(dataset: Path, image: Path, frame: tuple[int, int]) -> dict[str, SceneCard]:
    """Each labelled card of the scene `image` of `dataset`, whose frame is `frame` (width,
    height) pixels, from its meta file (none for a photo without one, or whose meta file is not
    a scene's)."""
    meta = dataset / "meta" / (image.stem + ".json")
    try:
        cards = json.loads(meta.read_text())["cards"]
        polygons = [np.asarray(card["corners"], np.float64).reshape(4, 2) for card in cards]
        return {
            card["code"]: SceneCard(card["deck"], face_shown(polygons, k, frame))
            for k, card in enumerate(cards)
            if card["labelled"]
        }
    except (OSError, ValueError, LookupError, TypeError):
        return {}


def face_shown(polygons: list[npt.NDArray[np.float64]], k: int, frame: tuple[int, int]) -> float:
    """Share of card `k`'s polygon (frame pixels) inside the frame (width, height) and under
    none of the polygons after it."""
    own = polygons[k]
    low = own.min(axis=0)
    scale = max(1.0, FACE_RASTER_PX / float(np.ptp(own, axis=0).max() or 1.0))
    side = np.ceil((own.max(axis=0) - low) * scale).astype(int) + 2
    shown = _raster(own, low, scale, side)
    total = int(shown.sum())
    if total == 0:
        return 0.0
    inside = _raster(np.array([[0, 0], [frame[0], 0], frame, [0, frame[1]]], np.float64),
                     low, scale, side)  # fmt: skip
    shown &= inside
    for later in polygons[k + 1 :]:
        shown &= ~_raster(later, low, scale, side)
    return round(float(shown.sum()) / total, 3)


def _raster(
    polygon: npt.NDArray[np.float64], low: npt.NDArray[np.float64], scale: float,
    side: npt.NDArray[np.int_],
) -> npt.NDArray[np.bool_]:  # fmt: skip
    """`polygon` filled on a canvas of `side` (width, height) pixels whose origin is `low`, at
    `scale` canvas pixels per frame pixel."""
    canvas = np.zeros((int(side[1]), int(side[0])), np.uint8)
    points = np.round((polygon - low) * scale * 4).astype(np.int32)  # 2 fractional bits
    cv2.fillPoly(canvas, [points], 1, shift=2)
    return canvas.astype(bool)
