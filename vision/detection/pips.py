"""The whole card as evidence: a number card's pips counted in the middle of its face.

A far or blurred camera gives a corner index a dozen pixels, where a 5 and a 7 (or a club and a
spade) look alike; the pips in the middle of the card are two to three times the index's size
and survive blur much better. `read_pips` cuts the card's face between its index columns from
the frame the indices were found in (its full resolution), marks its ink (the darkest channel
well under the card's white: black and red ink alike), and counts the blobs of a pip's size:

- one to ten blobs of alike size: that many pips, the rank's chance highest at that count;
- a blob much larger than a pip, or a face in a strong colour other than red (a court figure):
  a J, Q or K (or a pictured ace), no more said;
- anything else (nothing inked, blobs of all sizes, a card half covered): no reading.

The ink's colour (red against black) says the suit's colour. The result is a chance for each
of the 52 cards (`CLASS_NAMES` order), a weaker witness to fuse with the corner readings
(`vision.table.smoothing`), never a reading on its own.

The face is read only from a card whose indices were seen in both of its index columns (its
width known, and no card lying over its middle: a row's covered card shows one column only).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np
import numpy.typing as npt

from vision.detection.detections import FACING_UNKNOWN, Detections
from vision.table.cards import FrameCards

Image = npt.NDArray[np.uint8]
Chances = npt.NDArray[np.float64]

#: Ranks in a class row: A, 2..10, J, Q, K (`CLASS_NAMES`: 13 ranks of each suit in turn,
#: suits clubs, diamonds, hearts, spades).
RANKS = 13
#: Which of the four suits (`CLASS_NAMES` order) are red.
RED_SUITS = np.array([False, True, True, False])


@dataclass(frozen=True)
class PipConfig:
    """Where the face is cut and what counts as a pip; lengths in index sizes (an index box's
    longer side) unless said otherwise."""

    #: Read a card's face at all (a weaker reading fused with the corner readings).
    enabled: bool = False
    #: The face's pixels per index size, once cut upright (enough for a 1080p close card).
    px_per_index: float = 16.0
    #: The index columns' centres are at least this far apart for the face to be read.
    least_width: float = 1.8
    #: The face is cut this far inside each index column's centre (0.45 cut through the
    #: penguins deck's outer pips: its 8s read as 6)...
    inset: float = 0.3
    #: ...and this far beyond the top and bottom indices' centres.
    beyond: float = 0.5
    #: A card is turned back by its index rows' slope within this (degrees) of level.
    most_tilt: float = 20.0
    #: A card seen by one end's indices only is this many times its width tall between them.
    aspect: float = 1.42
    #: A card's index columns lie at most this many times as far apart as its index rows (and
    #: at least half that): 0.71 on the Dondorf deck.
    widest: float = 1.0
    #: Ink is the darkest channel under the card's white by at least this share of the
    #: white's contrast to the darkest ink...
    ink_share: float = 0.55
    #: ...where that contrast is at least this (grey levels): else the face shows no ink.
    least_contrast: float = 40.0
    #: A blob smaller than this (in index sizes squared) is noise, not a pip.
    least_pip: float = 0.06
    #: A blob larger than this (index sizes squared) is a court figure, not a pip.
    most_pip: float = 1.6
    #: The blobs of a number card are alike: the largest at most this times the smallest.
    pip_spread: float = 4.0
    #: Each pip has another (or itself, in the middle) where a half turn of the face puts it,
    #: within this many index sizes (the 7's odd pip excepted).
    symmetry: float = 0.5
    #: The chance a card's pips are counted one off (two merged by blur, one cut at the edge),
    #: and more than one off, against the count being right.
    one_off: float = 0.15
    far_off: float = 0.01
    #: A figure's chance of being an ace against a court card's: many decks draw a picture
    #: on an ace (the ace of spades, the penguins deck's every ace).
    figure_ace: float = 0.5
    #: A red or black reading is wrong this often.
    wrong_colour: float = 0.1
    #: A face with more than this share in a strong colour other than red (saturation and
    #: brightness at least `strong_saturation` of 255, hue beyond `red_hue` of red's, on
    #: OpenCV's 0-180 scale) is a figure (a penguin's yellow feet), not pips.
    most_colour: float = 0.03
    strong_saturation: int = 100
    red_hue: int = 12
    #: A face's ink is red where its red channel exceeds the others by this (grey levels)
    #: on average over the ink.
    red_margin: float = 30.0


DEFAULT_PIPS = PipConfig()


@dataclass(frozen=True)
class FaceCut:
    """A card's face, upright, between its index columns; `index` the index size in its pixels."""

    face: Image
    index: float


def cut_face(frame: Image, detections: Detections, config: PipConfig = DEFAULT_PIPS
             ) -> FaceCut | None:  # fmt: skip
    """The middle of the card whose indices are `detections`, turned upright, from `frame`; None
    where the indices do not fix it (facing unknown, or one index column seen)."""
    if detections.facing is None or not len(detections):
        return None
    facings = [int(f) for f in detections.facing if int(f) != FACING_UNKNOWN]
    if not facings:
        return None
    # Upright (across, along) coordinates: an index facing up or down lies on a standing card;
    # a lying card's axes swapped (a mirror image: counting pips does not care), and a card
    # turned a little on the table (a starter on the pack) turned back by its indices' rows.
    turn = max(set(f % 2 for f in facings), key=[f % 2 for f in facings].count)
    centres = detections.centres.astype(np.float64)
    if turn == 1:
        centres = centres[:, ::-1]
    angle = _tilt(centres, config)
    rotation = np.array([[np.cos(angle), np.sin(angle)], [-np.sin(angle), np.cos(angle)]])
    upright = centres @ rotation.T
    size = float(detections.sizes.mean())
    across, along = upright[:, 0], upright[:, 1]
    left, right = float(across.min()), float(across.max())
    if right - left < config.least_width * size:
        return None
    top, bottom = float(along.min()), float(along.max())
    if bottom - top < config.least_width * size:  # one end's indices: the card's height nominal
        middle = (top + bottom) / 2
        half = config.aspect * (right - left) / 2
        top, bottom = middle - half, middle + half
    elif not config.widest / 2 <= (right - left) / (bottom - top) <= config.widest:
        return None  # not one card's corners (an index of the card beside it among them)
    x1, x2 = left + config.inset * size, right - config.inset * size
    y1, y2 = top - config.beyond * size, bottom + config.beyond * size
    scale = config.px_per_index / size
    width, height = round((x2 - x1) * scale), round((y2 - y1) * scale)
    if width < 4 or height < 4:
        return None
    # Face pixel (u, v) <- upright point (x1 + u / scale, y1 + v / scale) <- picture point.
    back = rotation.T
    if turn == 1:
        back = back[::-1]
    matrix = np.hstack([back / scale, (back @ [x1, y1])[:, None]])
    flags = cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
    face = cv2.warpAffine(frame, matrix, (width, height), flags=flags,
                          borderMode=cv2.BORDER_REPLICATE)  # fmt: skip
    return FaceCut(np.asarray(face, np.uint8), config.px_per_index)


def _tilt(centres: npt.NDArray[np.float64], config: PipConfig) -> float:
    """How far (radians, clockwise as seen) a card whose index centres are `centres` (upright
    coordinates, give or take a tilt) is turned: the median slope of its indices' rows and
    columns, pairs whose slope is within `most_tilt` of level or plumb; 0 with none (a card
    seen by a diagonal's two indices only, its tilt untold)."""
    slopes = []
    for i in range(len(centres)):
        for j in range(i + 1, len(centres)):
            dx, dy = centres[j] - centres[i]
            slope = float(np.arctan2(dy, dx))
            level = (slope + np.pi / 4) % (np.pi / 2) - np.pi / 4  # a quarter turn's remainder
            if abs(level) <= np.radians(config.most_tilt):
                slopes.append(level)
    return float(np.median(slopes)) if slopes else 0.0


@dataclass(frozen=True)
class PipCount:
    """What a face shows: `pips` blobs of a pip's size (0: a court figure), and whether its ink
    is red (None: not told)."""

    pips: int
    red: bool | None


def count_pips(cut: FaceCut, config: PipConfig = DEFAULT_PIPS) -> PipCount | None:
    """The pips on a face `cut_face` cut, or None where it shows no clear count."""
    face = cut.face.astype(np.float64)
    darkest = face.min(axis=2)
    white, ink_level = np.percentile(darkest, [90, 2])
    contrast = white - ink_level
    if contrast < config.least_contrast:
        return None
    if _colourful(cut.face, config) > config.most_colour:
        return PipCount(0, None)  # a figure drawn in more than red and black: its colour untold
    ink = (darkest < white - config.ink_share * contrast).astype(np.uint8)
    found, labels, stats, middles = cv2.connectedComponentsWithStats(ink, connectivity=8)
    areas = stats[1:found, cv2.CC_STAT_AREA].astype(np.float64) / cut.index**2
    blob = areas >= config.least_pip
    pips = areas[blob]
    if not len(pips):
        return None
    red = _red(face, ink.astype(bool), config)
    if pips.max() > config.most_pip:
        return PipCount(0, red)
    if pips.max() > config.pip_spread * pips.min() or len(pips) > 10:
        return None
    height, width = ink.shape
    centred = (middles[1:found][blob] - [(width - 1) / 2, (height - 1) / 2]) / cut.index
    if _unmatched(centred, config.symmetry) > (1 if len(pips) == 7 else 0):
        return None
    colours = {_red(face, labels == i, config) for i in np.flatnonzero(blob) + 1}
    if {True, False} <= colours:  # a number card's pips are all one colour: a court figure's not
        return None
    return PipCount(len(pips), red)


def _colourful(face: Image, config: PipConfig) -> float:
    """The share of `face` in a strong colour other than red (pips are red or black)."""
    hsv = cv2.cvtColor(face, cv2.COLOR_BGR2HSV).astype(np.int16)
    hue, saturation, value = hsv[..., 0], hsv[..., 1], hsv[..., 2]
    reddish = (hue <= config.red_hue) | (hue >= 180 - config.red_hue)
    strong = (saturation >= config.strong_saturation) & (value >= config.strong_saturation)
    return float((strong & ~reddish).mean())


def _unmatched(points: npt.NDArray[np.float64], tolerance: float) -> int:
    """How many of `points` (about the face's middle) have no point where a half turn puts them:
    every pip layout but the 7's is the same upside down, so a count that is not read the pips
    merged or split unevenly, or something other than pips (a neighbour's edge) among them."""
    apart = np.hypot(*(points[:, None, :] + points[None, :, :]).transpose(2, 0, 1))
    return int((apart.min(axis=1) > tolerance).sum())


def _red(face: npt.NDArray[np.float64], ink: npt.NDArray[np.bool_], config: PipConfig
         ) -> bool | None:  # fmt: skip
    """Whether the ink is red (its red channel well over the others), black, or None if unsure."""
    if not ink.any():
        return None
    b, g, r = (face[..., c][ink] for c in range(3))
    redness = float(np.mean(r - np.maximum(g, b)))
    if redness >= config.red_margin:
        return True
    if redness <= config.red_margin / 3:
        return False
    return None


def pip_chances(count: PipCount, config: PipConfig = DEFAULT_PIPS) -> Chances:
    """The 52 class chances a pip count gives (`CLASS_NAMES` order): the rank by the count (a
    court figure: J, Q or K alike), the suit by the ink's colour."""
    ranks = np.full(RANKS, config.far_off)
    if count.pips == 0:
        ranks[10:] = 1.0
        ranks[0] = config.figure_ace
    else:
        ranks[count.pips - 1] = 1.0
        for near in (count.pips - 2, count.pips):
            if 0 <= near < 10:
                ranks[near] = config.one_off
    suits = np.ones(4)
    if count.red is not None:
        suits = np.where(count.red == RED_SUITS, 1.0 - config.wrong_colour, config.wrong_colour)
    chances = np.outer(suits, ranks).reshape(-1)
    normed: Chances = chances / chances.sum()
    return normed


def read_pips(frame: Image, detections: Detections, config: PipConfig = DEFAULT_PIPS
              ) -> Chances | None:  # fmt: skip
    """The 52 class chances the face of the card whose indices are `detections` gives, or None
    where it gives none (`cut_face`, `count_pips`)."""
    cut = cut_face(frame, detections, config)
    if cut is None:
        return None
    count = count_pips(cut, config)
    return None if count is None else pip_chances(count, config)


def with_faces(frame: Image, cards: FrameCards, config: PipConfig = DEFAULT_PIPS) -> FrameCards:
    """`cards` with each card's face reading (`SeenCard.face`) from `frame`, where it gives one."""
    faced = tuple(replace(seen, face=read_pips(frame, seen.detections, config))
                  for seen in cards.cards)  # fmt: skip
    return replace(cards, cards=faced)
