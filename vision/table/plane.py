"""The table's own geometry: the plane the cards lie on, estimated from the cards themselves, and
every card placed on it as seen from straight above, measured in index sizes.

Where the picture is given, the cards' outlines say the plane (`vision.table.outlines`: each
card must come out a rectangle of a card's aspect seen from above), from the first card laid.
Where it shows no clean outline, the indices' sizes say it, from cards spread wide enough:
every corner index printed on a deck has one size, so how large an index looks says how far the
camera is from that spot of the table. Through a pinhole camera a plane's area shrinks as the
cube of ``l . (x, y, 1)``, where ``l`` is the plane's vanishing line (its horizon) in the
picture: the cube root of each index's area is an affine function of where it lies, and fitting
that function over every index in view gives the horizon. The horizon and the lens (its field
of view: a phone's or a webcam's, `PlaneConfig.fov`) give the plane's normal; turning the camera
virtually to look along it gives the table from straight above, which `TablePlane.rectify` scales
to a canonical frame (`PlaneConfig.side` pixels, an index `PlaneConfig.glyph` pixels tall, the
point the camera aims at in the middle), turned in the plane so the cards lie level in it
(`TablePlane.level`: from a corner of the table its sides run diagonally across the picture).
The roles and the smoother then work in that frame as they do for a camera over the table.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import cv2
import numpy as np
import numpy.typing as npt

from vision.detection.detections import Detections
from vision.table.cards import FrameCards, SeenCard
from vision.table.mapping import apply, mapped_boxes
from vision.table.outlines import (
    DEFAULT_OUTLINES,
    OutlineConfig,
    card_quads,
    rotation_onto_axis,
    tilt_from_quads,
)

F64 = npt.NDArray[np.float64]


@dataclass(frozen=True)
class PlaneConfig:
    """`fov`: the lens's horizontal field of view in degrees (phones and webcams: 60-80);
    `settle`: frames that said where the horizon is before the picture is read turned;
    `least_indices`: indices a frame needs to say where the horizon is, `least_spread` their
    spread (a share of the picture's width or height); `blend`: how far one frame moves the
    kept estimate; `flat`: a size gradient under this (a share of the mean size across the picture)
    is a camera looking straight down; `side`, `glyph`: the canonical frame's side and index
    size in pixels (the clips' overhead webcam's: its indices read 21 px boxes in 640);
    `turns`: the picture's turns (degrees) read while it alone shows too few indices to say where
    the horizon is (from a corner the cards lie ~35 degrees turned in the picture, where the
    detector finds few indices: it was trained on indices within 30 degrees of upright);
    `level_least`: the cards' angle in the canonical frame under which it is left unturned (a
    card laid a little askew is read as well), `level_sure`: how consistently their edges
    must agree on one angle (0..1) to turn it, `level_reach`: how far around each card (in
    index sizes) its edges are looked for; `outlines`: the tilt from the cards' outlines."""

    fov: float = 66.0
    settle: int = 3
    least_indices: int = 6
    least_spread: float = 0.3
    blend: float = 0.25
    flat: float = 0.2
    side: int = 640
    glyph: float = 21.0
    turns: tuple[float, ...] = (45.0, -45.0)
    level_least: float = 8.0
    level_sure: float = 0.2
    level_reach: float = 3.0
    outlines: OutlineConfig = DEFAULT_OUTLINES


DEFAULT_PLANE = PlaneConfig()


def horizon(detections: Detections, least: int = DEFAULT_PLANE.least_indices) -> F64 | None:
    """The vanishing line ``(a, b, c)`` fitted to the index sizes (``a x + b y + c`` is the cube
    root of an index's area there, so it vanishes on the horizon), robust to a few misfits;
    None from fewer than `least` indices."""
    if len(detections) < least:
        return None
    centres = detections.centres.astype(np.float64)
    sides = (detections.boxes[:, 2:] - detections.boxes[:, :2]).astype(np.float64)
    target = np.cbrt(sides.prod(axis=1))  # the area: foreshortening shrinks it either way
    design = np.column_stack([centres, np.ones(len(target))])
    keep = np.ones(len(target), bool)
    for _ in range(3):  # refit without the worst fifth: an index half covered, a misread box
        line, *_ = np.linalg.lstsq(design[keep], target[keep], rcond=None)
        residual = np.abs(design @ line - target)
        keep = residual <= np.quantile(residual, 0.8) + 1e-9
    return np.asarray(line, np.float64)


class TablePlane:
    """The table plane of one camera, kept over frames (`update`), and the canonical frame the
    cards are placed in: their readings moved there (`rectify`), or the picture itself turned
    and scaled there to be read (`warp`), its readings back in the picture for the next
    `update` (`to_picture`)."""

    def __init__(self, picture: tuple[int, int], config: PlaneConfig = DEFAULT_PLANE) -> None:
        self.picture = picture
        self.config = config
        #: The kept horizon, scaled to ``c = 1``; (0, 0, 1) until seen: straight down.
        self.line: F64 = np.array([0.0, 0.0, 1.0])
        #: Canonical pixels per picture pixel at the picture's centre (where the camera aims:
        #: it stays the same as the horizon is refined); None until a card was seen.
        self.scale: float | None = None
        #: Frames whose indices said where the horizon is.
        self.updates = 0
        #: Degrees the canonical frame is turned in the plane about its middle so the cards lie
        #: level in it (`level`); 0 until then.
        self.spin = 0.0
        #: Whether the cards' outlines have said where the horizon is (then they alone do).
        self.outlined = False
        #: The outlines (picture pixels) of the last frame that showed any.
        self.quads: list[F64] = []

    @property
    def size(self) -> tuple[int, int]:
        return self.config.side, self.config.side

    @property
    def settled(self) -> bool:
        """Whether enough frames have said where the table is to read the picture turned."""
        return self.updates >= self.config.settle and self.scale is not None

    @property
    def tilt(self) -> float:
        """Degrees between the camera's axis and the table's normal, as now estimated."""
        normal = self._normal()
        return math.degrees(math.acos(min(1.0, normal[2])))

    def update(self, frame: FrameCards, picture: npt.NDArray[np.uint8] | None = None) -> None:
        """Move the kept horizon towards this frame's (its cards in picture pixels, read in
        `picture`): from the cards' outlines where the picture shows any, else where its
        indices are enough and spread wide enough to say."""
        if picture is not None and self._from_outlines(frame, picture):
            self.outlined = True
            return
        if self.outlined:
            return  # the index sizes would only add their noise to what the outlines said
        indices = Detections.concatenate([seen.detections for seen in frame.cards if seen.in_frame])
        if len(indices) < self.config.least_indices:
            return
        spread = float((np.ptp(indices.centres, axis=0) / np.array(self.picture)).max())
        line = horizon(indices, self.config.least_indices)
        if line is None or spread < self.config.least_spread or line[2] <= 0:
            return
        line = line / line[2]
        width, height = self.picture
        corners = np.array([[0, 0, 1], [width, 0, 1], [0, height, 1], [width, height, 1]])
        if np.any(corners @ line <= 0):
            return  # a horizon inside the picture: these sizes are no plane's
        if np.ptp(corners @ line) < self.config.flat:
            line = np.array([0.0, 0.0, 1.0])
        blend = self.config.blend
        self.line = (1 - blend) * self.line + blend * line
        self.updates += 1

    def _from_outlines(self, frame: FrameCards, picture: npt.NDArray[np.uint8]) -> bool:
        """Move the kept horizon towards the one the cards' outlines say, near the kept one
        once there is one; whether any outline said it. The first is taken as it is: one
        card's outline says the tilt within a degree or two, where a flat start would take
        frames to leave."""
        cards = [seen for seen in frame.cards if seen.in_frame]
        if not cards:
            return False
        quads = card_quads(picture, cards, self.config.outlines)
        prior = self._normal() if self.updates else None
        normal = tilt_from_quads(quads, self.picture, self.config.fov, prior, self.config.outlines)
        if normal is None:
            return False
        if prior is not None and self.settled:
            apart = math.degrees(math.acos(min(1.0, float(normal @ prior))))
            if apart > self.config.outlines.gate:
                return True  # a hand over a card, two cards as one: the outlines say no plane
        self.quads = quads
        line = np.linalg.inv(self._camera()).T @ normal
        line = line / line[2]
        blend = self.config.blend if self.updates else 1.0
        self.line = (1 - blend) * self.line + blend * line
        self.updates += 1
        return True

    def homography(self) -> F64:
        """Picture pixels to the canonical frame: the camera turned to look straight down,
        scaled to `PlaneConfig.glyph` pixels an index, the picture's centre in the middle."""
        turn = self._turn()
        width, height = self.picture
        centre = apply(turn, np.array([[width / 2, height / 2]]))[0]
        middle, scale = self.config.side / 2, (self.scale or 1.0) / _local_scale(turn, centre)
        place = np.array([[scale, 0, middle - scale * centre[0]],
                          [0, scale, middle - scale * centre[1]], [0, 0, 1]])  # fmt: skip
        return np.asarray(_spin(self.spin, middle) @ place @ turn, np.float64)

    def level(self, picture: npt.NDArray[np.uint8], frame: FrameCards) -> float:
        """Turn the canonical frame so the cards of `frame` (read in `picture`, in picture
        pixels) lie level in it: the angle (mod 90) their edges agree on in the picture turned
        to the plane. Left as it is when they agree on none, or lie level enough already
        (`PlaneConfig.level_least`). Returns the spin."""
        centres = [seen.centre for seen in frame.cards if seen.in_frame]
        if self.scale is None or not centres:
            return self.spin
        if self.quads:  # the cards' outlines say it exactly, whatever lies on the cards' faces
            angle, sureness = quad_angle(self.homography(), self.quads)
        else:
            placed = apply(self.homography(), np.array(centres, np.float64))
            angle, sureness = edge_angle(
                self.warp(picture),
                [(float(x), float(y)) for x, y in placed],
                self.config.level_reach * self.config.glyph,
            )
        if sureness >= self.config.level_sure and abs(angle) >= self.config.level_least:
            self.spin -= angle
        return self.spin

    def rectify(self, frame: FrameCards) -> FrameCards:
        """`frame`'s cards (in picture pixels) placed in the canonical frame."""
        turn = self._turn()
        turned = [_mapped_size(turn, seen) for seen in frame.cards if seen.in_frame]
        width, height = self.picture
        at_centre = _local_scale(turn, apply(turn, np.array([[width / 2, height / 2]]))[0])
        self._measure([size / at_centre for size in turned])
        if self.scale is None:
            return frame
        homography = self.homography()
        return replace(frame, cards=tuple(_placed(homography, seen) for seen in frame.cards))

    def warp(self, picture: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
        """The picture itself in the canonical frame: the far cards as large as the near."""
        warped = cv2.warpPerspective(picture, self.homography(), self.size, flags=cv2.INTER_LINEAR)
        return np.asarray(warped, np.uint8)

    def to_picture(self, frame: FrameCards) -> FrameCards:
        """Cards read in the canonical frame (`warp`), placed back in the picture; their sizes
        there keep the kept scale honest."""
        if self.scale is not None:
            canonical = [seen.glyph_size for seen in frame.cards if seen.in_frame]
            self._measure([size / self.scale for size in canonical])
        back = np.asarray(np.linalg.inv(self.homography()), np.float64)
        return replace(frame, cards=tuple(_placed(back, seen) for seen in frame.cards))

    def _measure(self, sizes: list[float]) -> None:
        """Move the kept scale towards the one that makes these indices `PlaneConfig.glyph`
        (`sizes`: the indices in the canonical frame at scale 1)."""
        if not sizes:
            return
        scale = self.config.glyph / float(np.median(sizes))
        kept, blend = self.scale, self.config.blend
        self.scale = scale if kept is None else (1 - blend) * kept + blend * scale

    def _camera(self) -> F64:
        """The lens: `PlaneConfig.fov` across the picture, its centre on the axis."""
        width, height = self.picture
        focal = width / 2 / math.tan(math.radians(self.config.fov) / 2)
        return np.array([[focal, 0, width / 2], [0, focal, height / 2], [0, 0, 1]])

    def _normal(self) -> F64:
        """The table's unit normal in the camera's frame (towards the table): the horizon
        through the lens, ``K^T l``."""
        normal = self._camera().T @ self.line
        return np.asarray(normal / np.linalg.norm(normal), np.float64)

    def _turn(self) -> F64:
        """The homography of the camera turned to look along the table's normal (the least
        turn, so the picture's up stays up)."""
        camera = self._camera()
        rotation = rotation_onto_axis(self._normal())
        return np.asarray(camera @ rotation @ np.linalg.inv(camera), np.float64)


def edge_angle(
    image: npt.NDArray[np.uint8], centres: list[tuple[float, float]], reach: float
) -> tuple[float, float]:
    """The angle (degrees, -45..45, mod 90) the edges within `reach` pixels of `centres` agree
    on, and how well they agree (0..1): each edge pixel's gradient direction, its angle four
    times over (so directions 90 degrees apart count as one), weighted by its strength."""
    mask = np.zeros(image.shape[:2], np.uint8)
    for x, y in centres:
        cv2.circle(mask, (round(x), round(y)), max(1, round(reach)), 1, -1)
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    gray = gray.astype(np.float32)
    gx, gy = cv2.Sobel(gray, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(gray, cv2.CV_32F, 0, 1, ksize=3)
    weight = (gx.astype(np.float64) ** 2 + gy.astype(np.float64) ** 2) * mask
    total = float(weight.sum())
    if total <= 0:
        return 0.0, 0.0
    angle = 4 * np.arctan2(gy, gx).astype(np.float64)
    summed = complex(float((weight * np.cos(angle)).sum()), float((weight * np.sin(angle)).sum()))
    return math.degrees(np.angle(summed)) / 4, abs(summed) / total


def quad_angle(homography: F64, quads: list[F64]) -> tuple[float, float]:
    """The angle (degrees, -45..45, mod 90) the sides of `quads` (picture pixels) mapped by
    `homography` agree on, and how well (0..1): each side's direction four times over,
    weighted by its length, as `edge_angle` weighs edge pixels."""
    if not quads:
        return 0.0, 0.0
    points = apply(homography, np.concatenate(quads)).reshape(-1, 4, 2)
    sides = (np.roll(points, -1, axis=1) - points).reshape(-1, 2)
    lengths = np.linalg.norm(sides, axis=1)
    angle = 4 * np.arctan2(sides[:, 1], sides[:, 0])
    summed = complex(float((lengths * np.cos(angle)).sum()), float((lengths * np.sin(angle)).sum()))
    return math.degrees(np.angle(summed)) / 4, abs(summed) / max(float(lengths.sum()), 1e-9)


def _spin(degrees: float, middle: float) -> F64:
    """The canonical frame turned `degrees` about its middle (x right, y down)."""
    if degrees == 0:
        return np.eye(3)
    c, s = math.cos(math.radians(degrees)), math.sin(math.radians(degrees))
    return np.array([[c, -s, middle - c * middle + s * middle],
                     [s, c, middle - s * middle - c * middle], [0, 0, 1]])  # fmt: skip


def _local_scale(homography: F64, point: F64) -> float:
    """How many output pixels an input pixel at `point` (an output point) spans, on average
    over directions: the square root of the map's area change there."""
    inverse = np.linalg.inv(homography)
    x, y = point
    w = inverse[2, 0] * x + inverse[2, 1] * y + inverse[2, 2]
    u = inverse[:2, 0] * x + inverse[:2, 1] * y + inverse[:2, 2]
    jacobian = (inverse[:2, :2] * w - np.outer(u, inverse[2, :2])) / w**2
    return float(1 / math.sqrt(abs(np.linalg.det(jacobian))))


def _mapped_size(homography: F64, seen: SeenCard) -> float:
    boxes = mapped_boxes(homography, seen.detections.boxes)
    return float((boxes[:, 2:] - boxes[:, :2]).max(axis=1).mean())


def _placed(homography: F64, seen: SeenCard) -> SeenCard:
    """`seen` with its boxes, centre and index size in the canonical frame."""
    boxes = mapped_boxes(homography, seen.detections.boxes)
    detections = seen.detections.with_rows(boxes=boxes)
    x1, y1 = (float(v) for v in boxes[:, :2].min(axis=0))
    x2, y2 = (float(v) for v in boxes[:, 2:].max(axis=0))
    cx, cy = apply(homography, np.array([seen.centre], np.float64))[0]
    size = float((boxes[:, 2:] - boxes[:, :2]).max(axis=1).mean())
    return replace(seen, box=(x1, y1, x2, y2), centre=(float(cx), float(cy)), glyph_size=size,
                   detections=detections)  # fmt: skip
