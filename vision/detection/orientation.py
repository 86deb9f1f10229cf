"""Which way a corner index faces in the frame.

A card's two indices face opposite ways (upright at its top-left, upside down at its
bottom-right), so two indices that face the same way a card's length apart are two cards,
however alike they read. Pairing cannot tell that from the boxes alone: in the real webcam
photos a row of clubs above a row of spades had clubs read as the spade below them and paired
with it, the club lost (`vision.table.cards._pair` uses what this module says).

A small network reads the orientation of a grey crop of each index (the glyph: the suit
printed below the rank); it is trained on crops whose orientation is known
(`cribtrain.fit.orientation_train`): synthetic ones from the scene's geometry, real ones from a
card's
two labelled indices (`pair_orientations`). Where it is unsure the orientation stays unknown
and pairing goes by distance alone, as before.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import cv2
import numpy as np
import numpy.typing as npt

from vision.config import DEFAULT_READING
from vision.detection.crops import READ_MARGIN, crop_index
from vision.detection.detections import FACING_UNKNOWN

Image = npt.NDArray[np.uint8]

ORIENTATION_FILE = "corner-orientation.onnx"
#: The network's crop side: enough for the glyph's layout, which is all it reads.
ORIENTATION_PX = 32
#: Direction (degrees, clockwise from the frame's x axis, y pointing down) from an upright
#: index's centre to its card's other index: the card's diagonal (63 × 88 mm cards, the
#: index centred about 5 × 11 mm in from the corner: 51°; `PairingConfig.centre_offset`: 55°).
DIAGONAL_DEGREES = 53.0
#: A labelled pair's diagonal further than this from a quarter turn of `DIAGONAL_DEGREES`
#: leaves its orientation unknown: a card at about 45° could be either of two turns.
DIAGONAL_TOLERANCE = 30.0
#: A card's two labelled indices lie this many index heights apart (centre to centre); nearer
#: ones are a four-index card's side-by-side pair, which face the same way.
DIAGONAL_GLYPHS = (4.0, 9.0)


def orientation_crops(frame: Image, boxes: npt.NDArray[np.floating]) -> Image:
    """Grey `ORIENTATION_PX` crops of `boxes` (N × 4), cut as the reader's are."""
    if not len(boxes):
        return np.zeros((0, ORIENTATION_PX, ORIENTATION_PX), np.uint8)
    crops = np.stack([crop_index(frame, box, ORIENTATION_PX, margin=READ_MARGIN) for box in boxes])
    if crops.ndim == 3:
        return crops
    # grey after cutting: a frame's worth of conversion costs more than its crops'
    grey = cv2.cvtColor(crops.reshape(-1, ORIENTATION_PX, 3), cv2.COLOR_BGR2GRAY)
    return np.asarray(grey.reshape(len(boxes), ORIENTATION_PX, ORIENTATION_PX), np.uint8)


def turned_label(orientation: int, quarter_turns: int) -> int:
    """The orientation of an index after its crop is turned `quarter_turns` × 90°
    counter-clockwise (`crop_index`'s `angle`, `np.rot90`'s direction)."""
    return (orientation - quarter_turns) % 4


def face_orientation(corners: npt.ArrayLike) -> float:
    """How far (degrees, clockwise) a face is turned in the frame, from its four corners in
    image pixels (top-left, top-right, bottom-right, bottom-left of the upright face)."""
    c = np.asarray(corners, np.float64).reshape(4, 2)
    up = (c[0] + c[1]) / 2 - (c[3] + c[2]) / 2
    return math.degrees(math.atan2(up[0], -up[1])) % 360


def quarter_turns(degrees: float) -> int:
    """The nearest quarter turn (0..3) to an angle in degrees."""
    return round(degrees / 90) % 4


def pair_orientations(
    boxes: npt.NDArray[np.floating], classes: npt.NDArray[np.integer]
) -> npt.NDArray[np.int8]:
    """Each labelled index's orientation where its card's other index is labelled too (a card
    class boxed exactly twice, a card's length apart): the diagonal between them says how the
    card lies; `FACING_UNKNOWN` elsewhere."""
    out = np.full(len(boxes), FACING_UNKNOWN, np.int8)
    centres = (boxes[:, :2] + boxes[:, 2:]) / 2
    sizes = np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])
    for cls in np.unique(classes):
        both = np.flatnonzero(classes == cls)
        if len(both) != 2:
            continue
        i, j = (int(k) for k in both)
        dx, dy = centres[j] - centres[i]
        glyphs = math.hypot(dx, dy) / ((sizes[i] + sizes[j]) / 2)
        if not DIAGONAL_GLYPHS[0] <= glyphs <= DIAGONAL_GLYPHS[1]:
            continue
        turn = (math.degrees(math.atan2(dy, dx)) - DIAGONAL_DEGREES) % 360
        k = quarter_turns(turn)
        if abs((turn - 90 * k + 180) % 360 - 180) > DIAGONAL_TOLERANCE:
            continue
        out[i], out[j] = k, (k + 2) % 4
    return out


class OrientationReader:
    """The orientation network: grey index crops in, (orientation codes, probabilities) out,
    codes `FACING_UNKNOWN` below `min_confidence` (`ReadingConfig.min_orientation_confidence`)."""

    def __init__(
        self, run: Callable[[npt.NDArray[np.float32]], npt.NDArray[np.float32]],
        min_confidence: float = DEFAULT_READING.min_orientation_confidence,
    ) -> None:  # fmt: skip
        self._run = run
        self.min_confidence = min_confidence

    def probabilities(self, crops: Image) -> npt.NDArray[np.float32]:
        """N × 4 probabilities of the four orientations of N grey crops."""
        if not len(crops):
            return np.zeros((0, 4), np.float32)
        logits = self._run(crops[:, None].astype(np.float32) / np.float32(255))
        e = np.exp(logits - logits.max(axis=1, keepdims=True))
        return np.asarray(e / e.sum(axis=1, keepdims=True), np.float32)

    def __call__(self, frame: Image, boxes: npt.NDArray[np.floating]) -> npt.NDArray[np.int8]:
        """The orientation of the index in each box of `frame`, unknown where unsure."""
        p = self.probabilities(orientation_crops(frame, boxes))
        codes = np.asarray(p.argmax(axis=1), np.int8)
        codes[p.max(axis=1) < self.min_confidence] = FACING_UNKNOWN
        return codes
