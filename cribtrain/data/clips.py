"""Synthetic video clips of a cribbage table, for end-to-end checks of the whole pipeline.

The dataset generator renders each state of the table once (a top-down webcam over a two-player
game); every frame of the clip is then that render seen through a shaking camera, with a hand
sometimes passing over the cards, sensor noise and JPEG. The truth (which card was laid by whom,
in which order; each card's role in a show layout) comes with the frames, so a test or a
benchmark can run the real models over the clip and compare.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from cribtrain.data.synth import Deck, Placement, SynthConfig, _affine, make_scene, scene_rng
from scorer.cards import Card, parse_card
from vision.table.roles import Role, Seat

Image = npt.NDArray[np.uint8]
#: Frame side in pixels; the render is top-down, so table plane pixels are image pixels.
FRAME = 640


@dataclass(frozen=True)
class Clip:
    """Frames (BGR) and what a correct pipeline reports for them."""

    frames: tuple[Image, ...]
    #: Every card laid in the play, in order: (seat, card).
    plays: tuple[tuple[Seat, Card], ...] = ()
    #: Each card's role on the last frame.
    roles: dict[Card, Role] | None = None


@dataclass(frozen=True)
class CameraConfig:
    """The webcam: glyph size, how far it shakes, and its noise, JPEG and blur."""

    glyph: float = 16.0  # corner-index height in pixels
    shake_px: float = 6.0
    shake_deg: float = 1.0
    noise: float = 3.0
    jpeg_quality: int = 80
    blur: float = 0.6
    #: How far the room's light drifts over a whole-deal clip (0.15: ±15 % brightness).
    light_drift: float = 0.15
    #: The room's light, 1 as the clips are lit (0.5: half the light, the same sensor noise).
    light: float = 1.0


#: The default camera (a module-level value so that other modules can use it as a default).
DEFAULT_CAMERA = CameraConfig()

#: Each seat's card angle: a card upright as that player sees it.
FACING: dict[Seat, float] = {"bottom": 0.0, "left": math.pi / 2, "top": math.pi,
                             "right": -math.pi / 2}  # fmt: skip


def towards(seat: Seat) -> tuple[float, float]:
    """The unit step from the table's centre towards the seat's edge."""
    angle = FACING[seat]
    return round(-math.sin(angle), 9), round(math.cos(angle), 9)


def rightwards(seat: Seat) -> tuple[float, float]:
    """The unit step to the seat's player's right."""
    angle = FACING[seat]
    return round(math.cos(angle), 9), round(math.sin(angle), 9)


class _Table:
    """Cards placed on the table plane of one deck, in the order they were put down."""

    def __init__(self, deck: Deck, glyph: float) -> None:
        self.size = deck.size
        self.height = glyph / 0.16  # a corner index is ~16% of the card's height
        self.width = self.height * self.size[0] / self.size[1]
        self.placements: list[Placement] = []

    def put(
        self, code: str, centre: tuple[float, float], angle: float, face_up: bool = True
    ) -> None:
        matrix = _affine(self.size, centre, self.height, angle)
        self.placements.append(Placement(0, code, face_up, matrix))

    def row(self, codes: Sequence[str], seat: Seat, centre: float, spacing: float) -> None:
        """Cards left to right as `seat` sees them, each on top of the last; `centre` is the
        row's distance from the table's centre towards the seat."""
        for code, (x, y, angle) in zip(codes, self.row_spots(seat, len(codes), centre, spacing),
                                       strict=True):  # fmt: skip
            self.put(code, (x, y), angle)

    def row_spots(
        self, seat: Seat, n: int, centre: float, spacing: float, lateral: float = 0.0
    ) -> list[tuple[float, float, float]]:
        """`n` spots (x, y, angle) left to right as `seat` sees them, `spacing` card widths
        apart, `centre` from the table's centre towards the seat and `lateral` to its right."""
        (tx, ty), (rx, ry) = towards(seat), rightwards(seat)
        mid = (FRAME / 2 + tx * centre + rx * lateral, FRAME / 2 + ty * centre + ry * lateral)
        step = spacing * self.width
        first = -step * (n - 1) / 2
        return [(mid[0] + rx * (first + i * step), mid[1] + ry * (first + i * step),
                 FACING[seat]) for i in range(n)]  # fmt: skip

    def pack(self) -> None:
        """The face-down pack in the middle."""
        for i in range(4):
            self.put("AS", (FRAME / 2 - i * 0.5, FRAME / 2 - i * 0.7), 0.05, face_up=False)

    def pack_with_starter(self, starter: str, beside: tuple[float, float] = (0.0, 0.0)) -> None:
        """A face-down pack in the middle with the starter turned on top of it, or `beside` it
        by that many pixels."""
        self.pack()
        self.put(starter, (FRAME / 2 - 3 + beside[0], FRAME / 2 - 5 + beside[1]), 0.12)


def _render(
    deck: Deck,
    placements: list[Placement],
    seed: int,
    glyph: float,
    detail: int = 1,
    margin: int = 0,
) -> npt.NDArray[np.float32]:
    """The table with these cards, lit and textured the same way for every state of a clip;
    `detail` render pixels a table pixel (a camera close to some cards sees them finer), and
    `margin` table pixels of bare table around the square (a camera at an angle sees more)."""
    config = SynthConfig(size=(FRAME + 2 * margin) * detail, effects=False, perspective=False,
                         glyph_px=(glyph * detail, glyph * detail), board=0.0)  # fmt: skip
    shift = np.array([[0, 0, margin], [0, 0, margin]], np.float64)
    scaled = [replace(p, M=(p.M + shift) * detail) for p in placements]
    scene = make_scene([deck], scene_rng(seed, 0), config, placements=scaled)
    return np.asarray(scene.image[..., ::-1], np.float32)


def _lighting(seed: int) -> npt.NDArray[np.float32]:
    """A gentle light gradient across the table, fixed for the clip."""
    rng = np.random.default_rng([seed, 1])
    yy, xx = np.mgrid[0:FRAME, 0:FRAME].astype(np.float32) / FRAME - 0.5
    angle = rng.uniform(0, 2 * math.pi)
    light = 1 + 0.25 * (xx * math.cos(angle) + yy * math.sin(angle))
    return np.asarray(light[..., None] * rng.uniform(0.92, 1.05, 3), np.float32)


def _hand(frame: npt.NDArray[np.float32], rng: np.random.Generator, reach: tuple[float, float],
          seat: Seat) -> None:  # fmt: skip
    """A hand reaching in from a seat's edge with its fingertips at `reach`: palm, fingers, arm."""
    mask, colour = hand_layer(rng, reach, seat)
    frame *= 1 - mask
    frame += colour


def hand_layer(
    rng: np.random.Generator, reach: tuple[float, float], seat: Seat
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    """A hand over the table plane: its coverage (FRAME, FRAME, 1) and its colour, already
    multiplied by the coverage."""
    mask: npt.NDArray[Any] = np.zeros((FRAME, FRAME), np.float32)
    (tx, ty), (ax, ay) = towards(seat), (abs(v) for v in rightwards(seat))

    def at(along: float, across: float) -> tuple[int, int]:
        """The point `along` towards the seat and `across` its axis from the fingertips."""
        return int(reach[0] + tx * along + ax * across), int(reach[1] + ty * along + ay * across)

    palm = at(70, 0)
    turn = 0 if seat in ("bottom", "top") else 90
    cv2.ellipse(mask, palm, (48, 58), turn + rng.uniform(-20, 20), 0, 360, 1.0, -1)
    for k in range(4):
        across = -30 + 20 * k + rng.normal(0, 3)
        cv2.line(mask, at(10, across), at(70, across), 1.0, 16)
    x, y = reach
    to_edge = {"bottom": FRAME - y, "top": y, "left": x, "right": FRAME - x}[seat]
    cv2.line(mask, palm, at(to_edge + 80, rng.normal(0, 20)), 1.0, 90)  # the arm, off the edge
    mask = cv2.GaussianBlur(mask, (0, 0), 2.0)[..., None]
    skin = np.array([140, 172, 224], np.float32) * rng.uniform(0.7, 1.1)  # BGR
    shade = 0.85 + 0.15 * np.clip(cv2.GaussianBlur(mask[..., 0], (0, 0), 12), 0, 1)[..., None]
    return np.asarray(mask, np.float32), np.asarray(mask * skin * shade, np.float32)


def _through_camera(
    table: npt.NDArray[np.float32], light: npt.NDArray[np.float32], rng: np.random.Generator,
    camera: CameraConfig, hand: tuple[tuple[float, float], Seat] | None = None, gain: float = 1.0,
) -> Image:  # fmt: skip
    """One frame: the table as this frame's shaken, noisy camera sees it, the room's light at
    `gain`."""
    frame: npt.NDArray[Any] = table * (light * gain * camera.light)
    if hand is not None:
        _hand(frame, rng, *hand)
    angle = rng.uniform(-camera.shake_deg, camera.shake_deg)
    matrix: npt.NDArray[Any] = cv2.getRotationMatrix2D((FRAME / 2, FRAME / 2), angle, 1.0)
    matrix[:, 2] += rng.uniform(-camera.shake_px, camera.shake_px, 2)
    frame = cv2.warpAffine(frame, matrix, (FRAME, FRAME), borderMode=cv2.BORDER_REFLECT)
    frame = cv2.GaussianBlur(frame, (0, 0), camera.blur)
    frame += rng.normal(0, camera.noise, frame.shape).astype(np.float32)
    pixels = np.clip(frame, 0, 255).astype(np.uint8)
    ok, encoded = cv2.imencode(".jpg", pixels, [cv2.IMWRITE_JPEG_QUALITY, camera.jpeg_quality])
    assert ok, "OpenCV could not encode a JPEG"
    return np.asarray(cv2.imdecode(encoded, cv2.IMREAD_COLOR), np.uint8)


def withdrawing(
    spot: tuple[float, float, float], seat: Seat, k: int, rng: np.random.Generator
) -> tuple[float, float]:
    """Where the fingertips are `k` frames after laying a card at `spot`: on their way back to
    the seat's edge."""
    (tx, ty), (ax, ay) = towards(seat), (abs(v) for v in rightwards(seat))
    jitter = rng.normal(0, 10)
    return (spot[0] + ax * jitter + tx * 50 * (k + 1), spot[1] + ay * jitter + ty * 50 * (k + 1))


#: Row distances from the centre, in pixels (the play rows sit between the pack and the hands).
PLAY_ROW = 160.0
HAND_ROW = 262.0
#: The crib's distance to the side of the dealer's hand.
CRIB_SIDE = 240.0


def play_clip(
    deck: Deck,
    plays: Sequence[tuple[Seat, str]],
    *,
    seed: int = 0,
    starter: str = "JD",
    frames_per_card: int = 6,
    camera: CameraConfig = CameraConfig(),
) -> Clip:
    """Two players (bottom, top) lay `plays` one card at a time, each into an overlapping row in
    front of them. After each card the player's hand lingers over the rows for two frames."""
    rng = np.random.default_rng([seed, 2])
    light = _lighting(seed)
    laid: dict[Seat, list[str]] = {"bottom": [], "top": []}
    frames: list[Image] = []
    for step in range(len(plays) + 1):
        table = _Table(deck, camera.glyph)
        table.pack_with_starter(starter)
        for seat, codes in laid.items():
            if codes:
                spots = table.row_spots(seat, 4, PLAY_ROW, 0.5)[: len(codes)]
                for code, (x, y, angle) in zip(codes, spots, strict=True):
                    table.put(code, (x, y), angle)
        rendered = _render(deck, table.placements, seed, camera.glyph)
        for k in range(frames_per_card):
            hand = None
            if step and k < 2:  # the hand that just laid a card is still withdrawing
                seat = plays[step - 1][0]
                spot = table.row_spots(seat, 4, PLAY_ROW, 0.5)[len(laid[seat]) - 1]
                hand = (withdrawing(spot, seat, k, rng), seat)
            frames.append(_through_camera(rendered, light, rng, camera, hand))
        if step < len(plays):
            seat, code = plays[step]
            laid[seat].append(code)
    return Clip(tuple(frames), tuple((s, parse_card(c)) for s, c in plays))


def show_clip(
    deck: Deck,
    hands: Mapping[Seat, Sequence[str]],
    crib: Sequence[str],
    starter: str,
    *,
    dealer: Seat = "bottom",
    seed: int = 0,
    frames: int = 8,
    camera: CameraConfig = CameraConfig(),
) -> Clip:
    """The show: each hand spread in front of its player, the dealer's crib beside the dealer's
    hand, the starter on the pack in the middle."""
    rng = np.random.default_rng([seed, 3])
    table = _Table(deck, camera.glyph)
    table.pack_with_starter(starter)
    for seat, codes in hands.items():
        table.row(codes, seat, HAND_ROW, 0.6)
    side = 1 if dealer == "bottom" else -1  # the crib lies to the dealer's right
    angle = 0.0 if dealer == "bottom" else math.pi
    for i, code in enumerate(crib):
        x = FRAME / 2 + side * (CRIB_SIDE + (i - 1.5) * 0.32 * table.width)
        table.put(code, (x, FRAME / 2 + side * PLAY_ROW * 0.93), angle)
    rendered = _render(deck, table.placements, seed, camera.glyph)
    light = _lighting(seed)
    roles = {parse_card(c): Role("hand", seat) for seat, codes in hands.items() for c in codes}
    roles |= {parse_card(c): Role("crib", dealer) for c in crib}
    roles[parse_card(starter)] = Role("starter")
    shots = tuple(_through_camera(rendered, light, rng, camera) for _ in range(frames))
    return Clip(shots, roles=roles)


def still_clip(
    deck: Deck,
    rows: Mapping[Seat, Sequence[str]],
    starter: str,
    *,
    beside: tuple[float, float] = (0.0, 0.0),
    seed: int = 0,
    frames: int = 45,
    camera: CameraConfig = CameraConfig(shake_px=3.0, shake_deg=0.5),
) -> Clip:
    """One table that does not change, filmed by a hand-held camera: each seat's play row
    (`rows`) and the starter on the pack, or `beside` it by that many pixels (x, y). Nothing
    is laid, and no card changes its role."""
    rng = np.random.default_rng([seed, 4])
    table = _Table(deck, camera.glyph)
    table.pack_with_starter(starter, beside)
    for seat, codes in rows.items():
        for code, (x, y, angle) in zip(codes, table.row_spots(seat, 4, PLAY_ROW, 0.5),
                                       strict=False):  # fmt: skip
            table.put(code, (x, y), angle)
    rendered = _render(deck, table.placements, seed, camera.glyph)
    light = _lighting(seed)
    roles = {parse_card(c): Role("play", seat) for seat, codes in rows.items() for c in codes}
    roles[parse_card(starter)] = Role("starter")
    shots = tuple(_through_camera(rendered, light, rng, camera) for _ in range(frames))
    return Clip(shots, roles=roles)


def write_y4m(frames: Sequence[Image] | Clip, path: Path, fps: int = 2) -> None:
    """The frames (BGR; or a clip's) as a YUV4MPEG2 file, the format Chromium's fake camera
    plays (looping)."""
    shots = frames.frames if isinstance(frames, Clip) else frames
    height, width = shots[0].shape[:2]
    with path.open("wb") as out:
        out.write(f"YUV4MPEG2 W{width} H{height} F{fps}:1 Ip A1:1 C420jpeg\n".encode())
        for frame in shots:
            out.write(b"FRAME\n")
            out.write(np.ascontiguousarray(cv2.cvtColor(frame, cv2.COLOR_BGR2YUV_I420)).tobytes())
