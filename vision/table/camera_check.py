"""The camera check before the first deal: can this camera read this table, and if not, what to
change.

Players find out in the middle of a deal that a card was never read; a check of the picture
before the first deal says it while moving the phone is still cheap. It looks at one frame and
the cards the reader made of it (`FrameCards`: each card's corner indices as boxed in the frame)
and measures what decides how surely the reader reads:

- **Index size**: the corner indices' height in pixels, at the farthest card (the smallest
  index). Under `CameraCheckConfig.least_index_px` the reader misses cards often (57-88 % found
  under 16 px, models/MODEL_CARD.md); under `CameraCheckConfig.good_index_px` (24 px) it reads
  markedly worse. How much closer the camera should be follows from the pinhole: an index's size
  is inversely proportional to its distance, and the lens's field of view (`fov`) with a card's
  printed index height (`index_mm`) give that distance.
- **The table in view**: a card at the picture's edge is cut off, or will be once the rows grow.
- **Sharpness**: how far an edge in the index crops is spread, as the sigma of a Gaussian blur
  in pixels: a step of contrast ``C`` blurred by ``sigma`` has a steepest slope of
  ``C / (sigma * sqrt(2 pi))``, whatever the lighting.
- **Light**: how bright the cards' paper is in the index crops, and the frame as a whole.

`check_camera` returns a `CameraVerdict`: `ready` when nothing blocks reading, and the findings,
each with a code, its measured values and whether it blocks. The page words the advice.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal

import cv2
import numpy as np
import numpy.typing as npt

from vision.errors import VisionError
from vision.table.cards import FrameCards
from vision.table.plane import DEFAULT_PLANE

Image = npt.NDArray[np.uint8]

#: What a finding says (the page words each one in the players' language).
Code = Literal[
    "no_cards",  # no card read: nothing to measure the table by
    "few_cards",  # fewer cards than players: a seat's card is not in view (or not laid yet)
    "too_far",  # the farthest indices are too small to read (blocks)
    "far",  # the farthest indices read, but less surely than closer up (advice)
    "cut_off_left", "cut_off_right", "cut_off_top", "cut_off_bottom",  # a card at that edge
    "blurred",  # the index edges are spread: the camera moved, or is out of focus
    "too_dark",
    "too_bright",
]  # fmt: skip
EDGES = ("left", "right", "top", "bottom")


class CameraCheckError(VisionError, ValueError):
    """A frame or setting the camera check cannot use."""


@dataclass(frozen=True)
class CameraCheckConfig:
    """Every threshold of the camera check. Sizes are index heights in frame pixels (the longer
    side of an index's box, `Detections.sizes`)."""

    #: The farthest card's index must be at least this tall to be read (under 16 px the reader
    #: finds 57-88 % of cards: models/MODEL_CARD.md, "Small indices").
    least_index_px: float = 16.0
    #: ...and at least this tall to be read surely (`vision.frame_json.SMALL_INDEX_PX`); the
    #: distance advice aims here.
    good_index_px: float = 24.0
    #: The lens's horizontal field of view (degrees), as the table plane assumes one.
    fov: float = DEFAULT_PLANE.fov
    #: A corner index's printed height (mm): a 63 x 88 mm card's index is about a sixth of it.
    index_mm: float = 15.0
    #: "Move closer" is said in steps of this many centimetres, and never less than one step.
    step_cm: float = 5.0
    #: A card whose index lies within this many index heights of the picture's edge is at
    #: that edge: the rows laid beside it will not fit (advice)...
    edge_margin: float = 1.0
    #: ...and within this many, cut off (its card runs past the edge: blocks).
    edge_cut: float = 0.25
    #: Index edges spread wider than this share of the index's height are blurred (the sigma of
    #: a Gaussian blur: rendered tables lost cards from 0.1, a 20 px index at a spread of 2 px).
    max_blur_share: float = 0.08
    #: Where no index is found, a frame whose sharpest edges spread wider than this (px) is
    #: blurred: a picture out of focus shows no card to measure by.
    max_frame_blur_px: float = 3.0
    #: Index crops with less contrast than this (grey levels) say nothing about sharpness.
    least_contrast: float = 40.0
    #: The cards' paper (the 90th percentile of grey in the index crops) under this is too dark.
    least_paper: float = 90.0
    #: The frame's mean grey under this is too dark even where no card is read.
    least_frame: float = 40.0
    #: A share of the index crops' pixels at this grey or more is washed out...
    clipped_grey: int = 250
    #: ...too bright when more than this share is (glare, or exposure set by a dark table).
    most_clipped: float = 0.6

    def __post_init__(self) -> None:
        if not 0 < self.least_index_px <= self.good_index_px:
            raise CameraCheckError(
                f"least_index_px must be above 0 and at most good_index_px "
                f"({self.good_index_px}), got {self.least_index_px}"
            )
        if not 10 <= self.fov <= 170:
            raise CameraCheckError(f"fov must be 10 to 170 degrees, got {self.fov}")
        if not 0 <= self.edge_cut <= self.edge_margin:
            raise CameraCheckError(
                f"edge_cut must be 0 to edge_margin ({self.edge_margin}), got {self.edge_cut}"
            )
        for name in ("index_mm", "step_cm", "max_blur_share", "max_frame_blur_px"):
            if getattr(self, name) <= 0:
                raise CameraCheckError(f"{name} must be above 0, got {getattr(self, name)}")
        if not 0 < self.most_clipped <= 1:
            raise CameraCheckError(f"most_clipped must be within 0..1, got {self.most_clipped}")


DEFAULT_CHECK = CameraCheckConfig()


@dataclass(frozen=True)
class Finding:
    """One thing the check found: its `code`, whether it keeps the table from being read
    (`blocking`), and what was measured (`values`: numbers the advice is worded from)."""

    code: Code
    blocking: bool
    values: dict[str, float | int | str] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"code": self.code, "blocking": self.blocking, **self.values}


@dataclass(frozen=True)
class Measures:
    """What the check measured on one frame (None where nothing could be measured)."""

    width: int
    height: int
    cards: int
    #: The farthest (smallest) card's index height, and the median card's (px).
    index_px: float | None
    median_index_px: float | None
    #: The median index crop's edge spread (px, a Gaussian's sigma).
    blur_px: float | None
    #: The cards' paper (90th percentile grey of the index crops) and the frame's mean grey.
    paper: float | None
    brightness: float

    def to_json(self) -> dict[str, Any]:
        def rounded(value: float | None) -> float | None:
            return None if value is None else round(value, 1)

        return {"size": [self.width, self.height], "cards": self.cards,
                "index_px": rounded(self.index_px),
                "median_index_px": rounded(self.median_index_px),
                "blur_px": rounded(self.blur_px), "paper": rounded(self.paper),
                "brightness": rounded(self.brightness)}  # fmt: skip


@dataclass(frozen=True)
class CameraVerdict:
    """The check of one frame: `ready` when no finding blocks reading the table."""

    findings: tuple[Finding, ...]
    measures: Measures
    #: The index size the reader needs and reads surely at (px), for the page's wording.
    least_index_px: float
    good_index_px: float

    @property
    def ready(self) -> bool:
        return not any(finding.blocking for finding in self.findings)

    @property
    def codes(self) -> list[str]:
        return [finding.code for finding in self.findings]

    def to_json(self) -> dict[str, Any]:
        return {"ready": self.ready, "findings": [f.to_json() for f in self.findings],
                "measures": self.measures.to_json(), "least_index_px": self.least_index_px,
                "good_index_px": self.good_index_px}  # fmt: skip


def check_camera(
    frame: Image, seen: FrameCards, players: int = 1, config: CameraCheckConfig = DEFAULT_CHECK
) -> CameraVerdict:
    """The camera check of `frame` (BGR or grey) and `seen`, the cards the reader read in it,
    at a table of `players` (each is asked to lay a card in front of them, as in the cut)."""
    if players < 1:
        raise CameraCheckError(f"players must be at least 1, got {players}")
    grey = _grey(frame)
    height, width = grey.shape
    cards = [card for card in seen.cards if card.in_frame]
    boxes = [card.detections.boxes for card in cards] + [seen.unread.boxes]
    all_boxes = np.concatenate(boxes).astype(np.float64).reshape(-1, 4)
    sizes = [card.glyph_size for card in cards]
    crops = [_crop(grey, box) for box in all_boxes]
    crops = [crop for crop in crops if crop.size]
    brightness = float(cv2.resize(grey, (64, 36), interpolation=cv2.INTER_AREA).mean())
    paper = float(np.median([np.percentile(c, 90) for c in crops])) if crops else None
    blur = _blur_px(crops, config)
    measures = Measures(
        width, height, len(cards), min(sizes) if sizes else None,
        float(np.median(sizes)) if sizes else None, blur, paper, brightness,
    )  # fmt: skip
    findings: list[Finding] = []
    if not cards:
        findings.append(Finding("no_cards", True, {"players": players}))
    elif len(cards) < players:
        findings.append(Finding("few_cards", True, {"cards": len(cards), "players": players}))
    findings += _size_findings(measures, config)
    findings += _edge_findings(all_boxes, width, height, config)
    findings += _light_findings(measures, crops, config)
    if blur is not None and measures.median_index_px is not None:
        limit = config.max_blur_share * measures.median_index_px
    else:  # nothing read: the frame's own sharpest edges say whether it is out of focus
        blur, limit = _frame_blur_px(grey, config), config.max_frame_blur_px
    if blur is not None and blur > limit:
        findings.append(Finding("blurred", True, {"blur_px": round(blur, 1),
                                                  "most_px": round(limit, 1)}))  # fmt: skip
    return CameraVerdict(tuple(findings), measures, config.least_index_px, config.good_index_px)


def closer_cm(index_px: float, width: int, config: CameraCheckConfig = DEFAULT_CHECK) -> int:
    """How many centimetres closer a camera whose smallest index is `index_px` tall in a
    picture `width` wide should stand for it to be `good_index_px` (0 when it is): the index's
    distance is ``focal * index_mm / index_px`` through a pinhole, `fov` across the picture."""
    if index_px <= 0 or width <= 0:
        raise CameraCheckError(f"an index of {index_px} px in a picture {width} px wide")
    if index_px >= config.good_index_px:
        return 0
    focal = width / 2 / math.tan(math.radians(config.fov) / 2)
    now_mm = focal * config.index_mm / index_px
    closer = now_mm * (1 - index_px / config.good_index_px) / 10
    return int(max(1, round(closer / config.step_cm)) * config.step_cm)


def _size_findings(measures: Measures, config: CameraCheckConfig) -> list[Finding]:
    index_px = measures.index_px
    if index_px is None or index_px >= config.good_index_px:
        return []
    values: dict[str, float | int | str] = {
        "index_px": round(index_px, 1),
        "needed_px": config.least_index_px,
        "good_px": config.good_index_px,
        "ratio": round(index_px / config.good_index_px, 2),
        "closer_cm": closer_cm(index_px, measures.width, config),
    }
    if index_px < config.least_index_px:
        return [Finding("too_far", True, values)]
    return [Finding("far", False, values)]


def _edge_findings(
    boxes: npt.NDArray[np.float64], width: int, height: int, config: CameraCheckConfig
) -> list[Finding]:
    """A finding for each picture edge an index lies within `edge_margin` index heights of:
    blocking where one lies within `edge_cut` (its card runs past the edge)."""
    if not len(boxes):
        return []
    sizes = np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])
    gaps = {"left": boxes[:, 0], "right": width - boxes[:, 2], "top": boxes[:, 1],
            "bottom": height - boxes[:, 3]}  # fmt: skip
    findings = []
    for edge in EDGES:
        near = gaps[edge] < config.edge_margin * sizes
        if near.any():
            gap = float((gaps[edge] / sizes)[near].min())
            findings.append(Finding(f"cut_off_{edge}", gap < config.edge_cut,  # type: ignore[arg-type]
                                    {"edge": edge, "indices": int(near.sum()),
                                     "gap": round(max(0.0, gap), 2)}))  # fmt: skip
    return findings


def _light_findings(
    measures: Measures, crops: list[Image], config: CameraCheckConfig
) -> list[Finding]:
    paper, brightness = measures.paper, round(measures.brightness, 1)
    if (paper is not None and paper < config.least_paper) or brightness < config.least_frame:
        values: dict[str, float | int | str] = {"brightness": brightness,
                                                "least": config.least_frame}  # fmt: skip
        if paper is not None:
            values |= {"paper": round(paper, 1), "least_paper": config.least_paper}
        return [Finding("too_dark", True, values)]
    if crops:
        clipped = float(np.median([(c >= config.clipped_grey).mean() for c in crops]))
        if clipped > config.most_clipped:
            return [Finding("too_bright", True, {"clipped": round(clipped, 2)})]
    return []


def _blur_px(crops: list[Image], config: CameraCheckConfig) -> float | None:
    """The median edge spread of the index crops with contrast enough to tell (px)."""
    spreads = [s for crop in crops if (s := _spread(crop, config.least_contrast)) is not None]
    return float(np.median(spreads)) if spreads else None


def _frame_blur_px(grey: Image, config: CameraCheckConfig, tiles: int = 12) -> float | None:
    """The edge spread of the sharpest quarter of `tiles` x `tiles` patches of the frame (px):
    blur spreads every edge, while a plain patch of table has none to measure."""
    height, width = grey.shape
    side = max(8, min(width, height) // (2 * tiles))
    spreads = []
    for y in np.linspace(0, height - side, tiles).astype(int):
        for x in np.linspace(0, width - side, tiles).astype(int):
            spread = _spread(grey[y : y + side, x : x + side], config.least_contrast)
            if spread is not None:
                spreads.append(spread)
    return float(np.percentile(spreads, 25)) if spreads else None


def _spread(crop: Image, least_contrast: float) -> float | None:
    """The sigma (px) of the Gaussian blur whose steepest slope across this crop's contrast
    matches the crop's steepest edges (None without contrast to measure by)."""
    values = crop.astype(np.float32)
    low, high = np.percentile(values, (2, 98))
    contrast = float(high - low)
    if contrast < least_contrast or min(crop.shape) < 4:
        return None
    dx = cv2.Sobel(values, cv2.CV_32F, 1, 0, ksize=3) / 8  # a 3x3 Sobel is 8 times the slope
    dy = cv2.Sobel(values, cv2.CV_32F, 0, 1, ksize=3) / 8
    slope = float(np.percentile(np.hypot(dx, dy)[1:-1, 1:-1], 98))
    if slope <= 0:
        return None
    return contrast / (slope * math.sqrt(2 * math.pi))


def _crop(grey: Image, box: npt.NDArray[np.float64]) -> Image:
    """The index's box and a fifth of it around (the paper beside the ink), in the frame."""
    x1, y1, x2, y2 = box
    pad_x, pad_y = (x2 - x1) * 0.2, (y2 - y1) * 0.2
    height, width = grey.shape
    left, top = max(0, int(x1 - pad_x)), max(0, int(y1 - pad_y))
    right, bottom = min(width, math.ceil(x2 + pad_x)), min(height, math.ceil(y2 + pad_y))
    return grey[top:bottom, left:right]


def _grey(frame: Image) -> Image:
    if frame.ndim == 3 and frame.shape[2] == 3:
        return np.asarray(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), np.uint8)
    if frame.ndim == 2:
        return frame
    raise CameraCheckError(f"a frame must be grey or BGR (h x w x 3), got shape {frame.shape}")
