"""Synthetic cribbage-table scenes with YOLO labels for the corner indices.

Why synthetic: real labelled photos are few (dev-real) and of few decks; design variety
matters more than volume (see TRAINING-NOTES). A scene is built on a flat "table plane"
(cards placed by 2-D affine maps, so every label is an exact transform of the deck's
measured index ink), then seen through a random perspective view and degraded like a
phone/webcam photo. Every scene depends only on (seed, index), so any subset can be
regenerated exactly.

Output of `generate`: ``images/NAME.jpg``, ``labels/NAME.txt`` (YOLO, classes as
dev-real's classes.txt), ``meta/NAME.json`` (each card: code, deck, face-up, whole-card
polygon in image pixels, labelled corners, the share of each left visible and the share of its
ink contrast the photo effects kept), ``classes.txt`` and ``data.yaml``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from cribtrain.data.cardart import CLASS_ID, CLASSES, RGBA, _ink_mask, load_deck
from vision.errors import SynthConfigError

F32 = npt.NDArray[np.float32]
F64 = npt.NDArray[np.float64]
Box = tuple[float, float, float, float]
Rng = np.random.Generator


@dataclass
class Deck:
    """A rendered deck ready for compositing: faces, back and index-ink hulls."""

    name: str
    faces: dict[str, RGBA]
    back: RGBA
    #: per card, per corner ("tl"/"br"): convex hull of the index ink, face pixel coords
    hulls: dict[str, dict[str, F64]]

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) of a face."""
        h, w = next(iter(self.faces.values())).shape[:2]
        return w, h


def _procedural_back(size: tuple[int, int], rng: Rng) -> RGBA:
    """A plain patterned card back for decks without one."""
    w, h = size
    col = np.array(rng.choice([[160, 30, 40], [30, 50, 140], [20, 100, 60], [40, 40, 40]]))
    img = np.full((h, w, 4), 255, np.uint8)
    yy, xx = np.mgrid[0:h, 0:w]
    period = rng.uniform(5, 12)
    pat = (np.sin((xx + yy) / period) * np.sin((xx - yy) / period) > 0)[..., None]
    inner = np.where(pat, col, (col * 0.7).astype(int))
    m = max(3, w // 14)
    img[m:-m, m:-m, :3] = inner[m:-m, m:-m]
    return img


def load_decks(deck_dirs: Sequence[Path | str]) -> list[Deck]:
    """Load rendered decks and measure the ink hull of every corner index."""
    decks: list[Deck] = []
    for d in deck_dirs:
        art, faces = load_deck(d, only_ok=True)
        hulls: dict[str, dict[str, F64]] = {}
        for code, face in faces.items():
            ink = _ink_mask(face)
            hulls[code] = {}
            for key, (x0, y0, x1, y1) in art.boxes[code].items():
                ys, xs = np.nonzero(ink[y0:y1, x0:x1])
                if len(xs) < 3:
                    pts = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float64)
                else:
                    # pixel squares, not centres: the ink spans [x, x+1)
                    p = np.stack([xs + x0, ys + y0], 1)
                    p = np.concatenate([p + np.array(d) for d in ((0, 0), (1, 0), (0, 1), (1, 1))])
                    p = p.astype(np.int32)
                    pts = cv2.convexHull(p).reshape(-1, 2).astype(np.float64)
                hulls[code][key] = pts
        back_path = Path(d) / "back.png"
        if art.backs and back_path.exists():
            from PIL import Image

            back = np.asarray(Image.open(back_path).convert("RGBA"))
        else:
            back = _procedural_back(art.size, np.random.default_rng(len(art.name)))
        decks.append(Deck(art.name, faces, back, hulls))
    return decks


# ----------------------------------------------------------------------------- textures


def _noise(rng: Rng, h: int, w: int, scale: float) -> F32:
    """Smooth value noise in [0, 1]: upsampled random grid (cheap fBm octave)."""
    gh, gw = max(2, int(h / scale) + 2), max(2, int(w / scale) + 2)
    g = rng.random((gh, gw), dtype=np.float32)
    up = cv2.resize(g, (int(gw * scale), int(gh * scale)), interpolation=cv2.INTER_CUBIC)
    res: F32 = np.asarray(up[:h, :w], np.float32)
    return res


def _fbm(rng: Rng, h: int, w: int, base: float, octaves: int = 4) -> F32:
    out = np.zeros((h, w), np.float32)
    amp, tot, sc = 1.0, 0.0, base
    for _ in range(octaves):
        out += amp * _noise(rng, h, w, max(sc, 1.0))
        tot += amp
        amp *= 0.5
        sc /= 2
    res: F32 = out / tot
    return res


def background(rng: Rng, size: int) -> F32:
    """A table surface: felt, wood, woven cloth, plain table top, or check tablecloth."""
    h = w = size
    kind = rng.choice(["felt", "wood", "cloth", "plain", "check"], p=[0.3, 0.3, 0.15, 0.15, 0.1])
    if kind == "felt":
        col = rng.choice(
            [[30, 100, 50], [20, 70, 40], [30, 50, 110], [110, 30, 30], [60, 60, 60]]
        ) * rng.uniform(0.6, 1.3)
        t = 0.85 + 0.3 * _fbm(rng, h, w, 64) + 0.15 * (rng.random((h, w), np.float32) - 0.5)
        img = t[..., None] * col[None, None, :]
    elif kind == "wood":
        col = np.array(
            rng.choice(
                [[150, 100, 60], [110, 70, 40], [190, 150, 100], [80, 50, 30], [200, 170, 130]]
            ),
            np.float32,
        )
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        ang = rng.uniform(0, math.pi)
        # grain: noise stretched hard along the grain direction, then rotated
        n = int(h * 1.5)
        streak = cv2.resize(_fbm(rng, n, max(8, n // 40), 6), (n, n))
        streak = (
            cv2.resize(
                rng.random((n, max(8, n // 60)), np.float32), (n, n), interpolation=cv2.INTER_LINEAR
            )
            * 0.5
            + streak * 0.5
        )
        rot = cv2.getRotationMatrix2D((n / 2, n / 2), math.degrees(ang), 1.0)
        rot[:, 2] -= np.array([(n - w) / 2, (n - h) / 2])
        grain = cv2.warpAffine(streak.T.copy(), rot, (w, h), borderMode=cv2.BORDER_REFLECT)
        t = 0.7 + 0.35 * grain + 0.15 * (_fbm(rng, h, w, 200) - 0.5)
        img = t[..., None] * col[None, None, :]
        plank = rng.uniform(120, 400)
        if rng.random() < 0.5:
            v = -xx * math.sin(ang) + yy * math.cos(ang)
            seams = (np.abs(((v % plank) / plank) - 0.5) > 0.497)[..., None]
            img = np.where(seams, img * 0.5, img)
    elif kind == "cloth":
        col = rng.uniform(60, 230, 3)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        p = rng.uniform(2.0, 4.0)
        weave = 0.5 + 0.25 * (np.sin(xx * 2 * math.pi / p) + np.sin(yy * 2 * math.pi / p))
        t = 0.8 + 0.15 * weave + 0.2 * (_fbm(rng, h, w, 96) - 0.5)
        img = t[..., None] * col[None, None, :]
    elif kind == "plain":
        col = rng.uniform(170, 245) * np.array([1, rng.uniform(0.95, 1.02), rng.uniform(0.9, 1.05)])
        t = 0.92 + 0.12 * _fbm(rng, h, w, 160) + 0.03 * (rng.random((h, w), np.float32) - 0.5)
        img = t[..., None] * col[None, None, :]
    else:
        c1, c2 = rng.uniform(150, 250, 3), rng.uniform(40, 200, 3)
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        cell = rng.uniform(20, 60)
        a = ((xx // cell) % 2 + (yy // cell) % 2)[..., None] / 2.0
        img = c1 * (1 - a) + c2 * a
        img *= (0.9 + 0.15 * _fbm(rng, h, w, 128))[..., None]
    out: F32 = np.clip(img, 0, 255).astype(np.float32)
    return out


# ----------------------------------------------------------------------------- layout


@dataclass
class Placement:
    """One card on the table plane: face pixel -> plane pixel affine map."""

    deck: int
    code: str
    face_up: bool
    M: F64  # 2x3


def _faces_available(
    placements: list[Placement], decks: Sequence[Deck], rng: Rng
) -> list[Placement]:
    """A face-up card whose face failed its deck's checks is drawn from another deck, scaled to
    the same place; with no deck holding it, it lies face down (never face up unlabelled)."""
    resolved = []
    for p in placements:
        if p.face_up and p.code not in decks[p.deck].faces:
            holders = [i for i, deck in enumerate(decks) if p.code in deck.faces]
            if holders:
                other = int(rng.choice(holders))
                (w0, h0), (w1, h1) = decks[p.deck].size, decks[other].size
                matrix = p.M.copy()
                matrix[:, 0] *= w0 / w1
                matrix[:, 1] *= h0 / h1
                p = Placement(other, p.code, True, matrix)
            else:
                p = Placement(p.deck, p.code, False, p.M)
        resolved.append(p)
    return resolved


def _affine(size: tuple[int, int], centre: tuple[float, float], height: float, angle: float) -> F64:
    """Map a face (w, h) so its centre lands at `centre`, `height` px tall, rotated `angle`."""
    w, h = size
    s = height / h
    c, si = math.cos(angle) * s, math.sin(angle) * s
    cx, cy = centre
    return np.array(
        [[c, -si, cx - c * w / 2 + si * h / 2], [si, c, cy - si * w / 2 - c * h / 2]], np.float64
    )


@dataclass
class _Layout:
    rng: Rng
    deck_of: list[int]
    codes: list[str]
    size: tuple[int, int]
    u: float  # card height on the plane
    out: list[Placement] = field(default_factory=list)

    def take(self, face_up: bool = True) -> tuple[int, str] | None:
        if not self.codes:
            return None
        return self.deck_of[len(self.out) % len(self.deck_of)], self.codes.pop()

    def put(self, centre: tuple[float, float], angle: float, face_up: bool = True) -> None:
        got = self.take()
        if got is None:
            return
        d, code = got
        jitter = self.rng.normal(0, 0.04)
        self.out.append(
            Placement(d, code, face_up, _affine(self.size, centre, self.u, angle + jitter))
        )

    def row(
        self,
        centre: tuple[float, float],
        direction: float,
        n: int,
        spacing: float,
        fan: float = 0.0,
    ) -> None:
        """Cards left to right (as the seat sees them); later ones lie on top."""
        w = self.u * self.size[0] / self.size[1]
        tx, ty = math.cos(direction), math.sin(direction)
        for i in range(n):
            k = i - (n - 1) / 2
            if fan:
                a = direction + k * fan
                r = self.u * 1.3
                nx, ny = math.sin(direction), -math.cos(direction)  # seat's "up"
                px, py = centre[0] - nx * r * 0.9, centre[1] - ny * r * 0.9
                cx = px + r * (math.sin(a) * 1.0)
                cy = py - r * math.cos(a)
                self.put((cx, cy), a)
            else:
                off = k * spacing * w + self.rng.normal(0, 0.02 * w)
                self.put((centre[0] + tx * off, centre[1] + ty * off), direction)

    def stack(self, centre: tuple[float, float], angle: float, layers: int) -> None:
        """A face-down pack/crib: backs offset a little to show thickness."""
        for i in range(layers):
            got = self.take()
            if got is None:
                return
            d, code = got
            c = (centre[0] - i * 0.4, centre[1] - i * 0.6)
            a = angle + self.rng.normal(0, 0.03)
            self.out.append(Placement(d, code, False, _affine(self.size, c, self.u, a)))


def layout_scene(
    rng: Rng,
    n_decks: int,
    size: tuple[int, int],
    centre: tuple[float, float],
    radius: float,
    u: float,
    view_angle: float,
) -> list[Placement]:
    """Cards of a cribbage deal around `centre`: hands, pegging rows, pack + starter, crib.

    With large cards (close-up) only a few loose cards or one hand fit in view.
    """
    deck = int(rng.integers(n_decks))
    deck_of = [deck] if rng.random() < 0.9 else [int(rng.integers(n_decks)) for _ in range(52)]
    codes = list(CLASSES)
    rng.shuffle(codes)
    lay = _Layout(rng, deck_of, codes, size, u)
    w = u * size[0] / size[1]
    cx, cy = centre
    if radius < 2.2 * u or rng.random() < 0.15:  # close-up: a hand or a few loose cards
        if rng.random() < 0.5:
            n = int(rng.integers(1, 6))
            for _ in range(n):
                p = (
                    cx + rng.uniform(-radius, radius) * 0.7,
                    cy + rng.uniform(-radius, radius) * 0.7,
                )
                lay.put(p, rng.uniform(0, 2 * math.pi))
        else:
            n = int(rng.integers(2, 7))
            fan = rng.uniform(0.1, 0.25) if rng.random() < 0.4 else 0.0
            lay.row((cx, cy + 0.3 * u), view_angle, n, rng.uniform(0.3, 1.1), fan)
        return lay.out
    seats = int(rng.integers(2, 5))
    seat_dirs = {2: [90, 270], 3: [90, 180, 270], 4: [90, 180, 270, 0]}[seats]
    # pack + starter in the middle
    if rng.random() < 0.85:
        pack_c = (cx + rng.normal(0, 0.2 * u), cy + rng.normal(0, 0.2 * u))
        pack_a = view_angle + rng.uniform(-0.5, 0.5)
        lay.stack(pack_c, pack_a, int(rng.integers(3, 7)))
        if rng.random() < 0.85:
            lay.put((pack_c[0] - 2.5, pack_c[1] - 3.5), pack_a + rng.normal(0, 0.15))
    crib_seat = int(rng.integers(seats))
    for si, deg in enumerate(seat_dirs):
        phi = view_angle + math.radians(deg) + rng.normal(0, 0.08)
        dx, dy = math.cos(phi), math.sin(phi)
        card_angle = phi - math.pi / 2
        tangent = phi - math.pi / 2
        # hand near the seat edge
        dist = radius - 0.6 * u
        hand_c = (cx + dx * dist, cy + dy * dist)
        if rng.random() < 0.8:
            n = int(rng.integers(2, 7))
            fan = rng.uniform(0.08, 0.2) if rng.random() < 0.3 else 0.0
            lay.row(hand_c, tangent, n, rng.uniform(0.25, 1.1), fan)
        # pegging row between the seat and the middle
        if rng.random() < 0.7:
            pd = dist - 1.25 * u
            if pd > 0.8 * u:
                peg_c = (cx + dx * pd, cy + dy * pd)
                lay.row(peg_c, tangent, int(rng.integers(1, 5)), rng.uniform(0.3, 0.7))
        if si == crib_seat and rng.random() < 0.7:
            side = tangent + (0 if rng.random() < 0.5 else math.pi)
            off = rng.uniform(1.8, 3.0) * w
            crib_c = (hand_c[0] + math.cos(side) * off, hand_c[1] + math.sin(side) * off)
            if rng.random() < 0.6:
                lay.stack(crib_c, card_angle + rng.normal(0, 0.2), 4)
            else:
                lay.row(crib_c, tangent, 4, rng.uniform(0.3, 0.6))
    return lay.out


# ----------------------------------------------------------------------------- rendering


def _composite(
    plane: F32,
    ids: npt.NDArray[np.int16],
    img: RGBA,
    M: F64,
    idx: int,
    shadow: tuple[float, float, float] | None,
) -> None:
    """Warp an RGBA card into the plane (only its bounding region) and record its pixels."""
    h, w = img.shape[:2]
    corners = np.array([[0, 0, 1], [w, 0, 1], [w, h, 1], [0, h, 1]], np.float64) @ M.T
    ph, pw = plane.shape[:2]
    pad = 12
    x0 = max(0, int(corners[:, 0].min()) - pad)
    y0 = max(0, int(corners[:, 1].min()) - pad)
    x1 = min(pw, int(corners[:, 0].max()) + pad + 1)
    y1 = min(ph, int(corners[:, 1].max()) + pad + 1)
    if x1 <= x0 or y1 <= y0:
        return
    m = M.copy()
    m[:, 2] -= [x0, y0]
    warped = cv2.warpAffine(
        img,
        m,
        (x1 - x0, y1 - y0),
        flags=cv2.INTER_AREA if M[0, 0] ** 2 + M[1, 0] ** 2 < 0.5 else cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=(0, 0, 0, 0),
    )
    a = warped[:, :, 3:4].astype(np.float32) / 255.0
    roi = plane[y0:y1, x0:x1]
    if shadow is not None:
        dx, dy, strength = shadow
        sm = cv2.warpAffine(
            a[:, :, 0], np.array([[1, 0, dx], [0, 1, dy]], np.float32), (x1 - x0, y1 - y0)
        )
        sm = cv2.GaussianBlur(sm, (0, 0), 2 + abs(dx) / 2)
        roi *= (1 - strength * sm)[..., None]
    roi[:] = roi * (1 - a) + warped[:, :, :3].astype(np.float32) * a
    ids[y0:y1, x0:x1][a[:, :, 0] > 0.5] = idx


def _visible_fraction(ids: npt.NDArray[np.int16], poly: F64, idx: int) -> float:
    """Share of an index polygon (plane coords) on which card `idx` is the top-most card."""
    x0, y0 = np.floor(poly.min(0)).astype(int)
    x1, y1 = np.ceil(poly.max(0)).astype(int) + 1
    h, w = ids.shape
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillPoly(mask, [np.round(poly - [x0, y0]).astype(np.int32)], 1)
    total = int(mask.sum())
    if total == 0:
        return 0.0
    cx0, cy0, cx1, cy1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
    if cx1 <= cx0 or cy1 <= cy0:
        return 0.0
    sub = mask[cy0 - y0 : cy1 - y0, cx0 - x0 : cx1 - x0].astype(bool)
    return float((ids[cy0:cy1, cx0:cx1][sub] == idx).sum()) / total


def _board(
    plane: F32,
    ids: npt.NDArray[np.int16],
    rng: Rng,
    centre: tuple[float, float],
    u: float,
    angle: float,
) -> None:
    """A crude cribbage board (wood strip with hole rows and pegs) as a distractor."""
    L, W = u * rng.uniform(2.5, 4.0), u * rng.uniform(0.5, 0.8)
    box = cv2.boxPoints(((centre[0], centre[1]), (L, W), math.degrees(angle)))
    col = rng.uniform([90, 50, 20], [200, 150, 100])
    mask = np.zeros(plane.shape[:2], np.uint8)
    cv2.fillPoly(mask, [box.astype(np.int32)], 1)
    plane[mask > 0] = col
    ids[mask > 0] = -2
    ca, sa = math.cos(angle), math.sin(angle)
    rows = int(rng.integers(2, 5))
    for r in range(rows):
        off = (r - (rows - 1) / 2) * W / (rows + 0.5)
        for k in range(30):
            t = (k - 14.5) / 30 * L * 0.9
            x, y = centre[0] + ca * t - sa * off, centre[1] + sa * t + ca * off
            cv2.circle(plane, (int(x), int(y)), max(1, int(u * 0.012)), (30, 20, 10), -1)
    for _ in range(int(rng.integers(2, 5))):
        t, off = rng.uniform(-0.45, 0.45) * L, rng.uniform(-0.4, 0.4) * W
        x, y = centre[0] + ca * t - sa * off, centre[1] + sa * t + ca * off
        pc = tuple(float(v) for v in rng.uniform(0, 255, 3))
        cv2.circle(plane, (int(x), int(y)), max(2, int(u * 0.04)), pc, -1)


#: What a computer keyboard's keys print: real photos had keys behind the table read as cards.
KEY_LABELS = "1234567890QWERTYUIOPASDFGHJKLZXCVBNM"


def _keyboard(rng: Rng, u: float) -> RGBA:
    """A computer keyboard as a distractor: rows of keys, each printed with a digit or letter
    a little smaller than a card's index seen at the same distance."""
    key = u * rng.uniform(0.15, 0.3)
    rows, cols = int(rng.integers(3, 6)), int(rng.integers(8, 15))
    gap = key * rng.uniform(0.1, 0.25)
    width, height = round(cols * (key + gap) + gap), round(rows * (key + gap) + gap)
    body = rng.uniform(10, 230)
    light_keys = rng.random() < 0.5
    cap = rng.uniform(200, 250) if light_keys else rng.uniform(15, 70)
    ink = rng.uniform(0, 60) if light_keys else rng.uniform(190, 250)
    img = np.full((height, width, 3), round(body), np.uint8)
    font, scale = cv2.FONT_HERSHEY_SIMPLEX, rng.uniform(0.3, 0.55) * key / 22
    thick = max(1, round(scale * rng.uniform(1.5, 3)))
    for r in range(rows):
        for c in range(cols):
            x0, y0 = round(gap + c * (key + gap)), round(gap + r * (key + gap))
            x1, y1 = round(x0 + key), round(y0 + key)
            cv2.rectangle(img, (x0, y0), (x1, y1), (cap, cap, cap), -1)
            text = KEY_LABELS[int(rng.integers(len(KEY_LABELS)))]
            (tw, th), _ = cv2.getTextSize(text, font, scale, thick)
            at = (round(x0 + key * 0.15), round(y0 + key * 0.15 + th))
            if rng.random() < 0.5:
                at = (round((x0 + x1 - tw) / 2), round((y0 + y1 + th) / 2))
            cv2.putText(img, text, at, font, scale, (ink, ink, ink), thick, cv2.LINE_AA)
    return np.dstack([img, np.full((height, width), 255, np.uint8)])


@dataclass(frozen=True)
class SynthConfig:
    """Knobs for a scene; the defaults make training data, tests switch parts off. Frozen, so
    what `__post_init__` checked stays true: change a copy with `dataclasses.replace`."""

    size: int = 640
    effects: bool = True  # photometric degradation (light, blur, noise, JPEG, grey)
    perspective: bool = True  # tilted view; off = top-down view, image axes = plane axes
    min_visible: float = 0.6  # a corner index more than 40% covered is not labelled
    #: An index whose ink keeps less than this share of its clean contrast (glare washed it out)
    #: is not labelled: no camera pixel shows it. Looked at on bench scenes: at 0.08-0.11 the
    #: glyph is gone, from about 0.16 it is faint but readable.
    min_contrast: float = 0.13
    glyph_px: tuple[float, float] = (8.0, 40.0)  # index height range in the image
    board: float = 0.3  # probability of a cribbage board distractor
    #: Probability of a computer keyboard near the view's edge. 0 draws nothing from the
    #: random stream, so scenes made before keyboards existed are made again byte for byte.
    keyboard: float = 0.0
    #: Keep only the middle width × height of the `size` square, as a camera's 16:9 frame sees
    #: the same view; an index is labelled when `min_visible` of it lies in the frame. None:
    #: the whole square.
    frame: tuple[int, int] | None = None

    def __post_init__(self) -> None:
        """Refuse a config no scene can be drawn with, before any work."""
        for name in ("board", "keyboard"):
            share = getattr(self, name)
            if not 0.0 <= share <= 1.0:
                raise SynthConfigError(f"{name} {share} is not a probability (0 to 1)")
        if self.frame is not None:
            width, height = self.frame
            if not (0 < width <= self.size and 0 < height <= self.size):
                raise SynthConfigError(
                    f"frame {width}x{height} does not fit in a {self.size}-px scene"
                )

    def window(self) -> tuple[int, int, int, int]:
        """The kept part of the rendered square: x0, y0, x1, y1."""
        if self.frame is None:
            return 0, 0, self.size, self.size
        width, height = self.frame
        x0, y0 = (self.size - width) // 2, (self.size - height) // 2
        return x0, y0, x0 + width, y0 + height

    @classmethod
    def seen_at(cls, width: int, frame: tuple[int, int] | None = None) -> SynthConfig:
        """The training table seen by a camera `width` px wide: index heights scale with the
        frame (8-40 px at 640), as when a phone or the page's 1280-px camera films it."""
        return cls(size=width, glyph_px=(8.0 * width / 640, 40.0 * width / 640), frame=frame)


@dataclass
class Scene:
    """A generated picture and its labels."""

    image: npt.NDArray[np.uint8]  # RGB, size x size (or the config's frame)
    labels: list[tuple[int, float, float, float, float]]  # YOLO: class, cx, cy, w, h (0..1)
    cards: list[dict[str, Any]]


def _view(rng: Rng, cfg: SynthConfig, plane: int) -> tuple[F64, float]:
    """Homography plane -> image, and the view's rotation on the plane.

    The visible table region is a trapezoid (wider far edge = perspective tilt), rotated by
    any angle: its corners map to the image corners, so the image is always all table.
    """
    s = cfg.size
    ang = rng.uniform(0, 2 * math.pi)
    hh = s / 2 * rng.uniform(0.9, 1.1)
    if cfg.perspective:
        aspect = rng.uniform(0.8, 1.25)  # includes dev-real's stretched photos
        tilt = rng.uniform(0.0, 0.7) if rng.random() < 0.85 else 0.0
        skew = rng.normal(0, 0.05) * hh
    else:
        aspect, tilt, skew = 1.0, 0.0, 0.0
        ang, hh = 0.0, s / 2
    hb = hh * aspect
    ht = hb * (1 + tilt)
    src = np.array([[-ht + skew, -hh], [ht + skew, -hh], [hb, hh], [-hb, hh]], np.float64)
    c, si = math.cos(ang), math.sin(ang)
    rot = np.array([[c, -si], [si, c]])
    src = src @ rot.T + plane / 2
    dst = np.array([[0, 0], [s, 0], [s, s], [0, s]], np.float64)
    H = cv2.getPerspectiveTransform(src.astype(np.float32), dst.astype(np.float32))
    return H.astype(np.float64), ang


def _effects(clean: F32, rng: Rng) -> npt.NDArray[np.uint8]:
    """Make a clean render look photographed: light, white balance, blur, noise, JPEG."""
    img: npt.NDArray[Any] = clean
    h, w = img.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    # light gradient (vignette-ish or directional)
    a = rng.uniform(0, 2 * math.pi)
    g = ((xx - w / 2) * math.cos(a) + (yy - h / 2) * math.sin(a)) / w
    light = 1 + rng.uniform(0, 0.6) * g
    if rng.random() < 0.5:
        r2 = (xx - w * rng.uniform(0.2, 0.8)) ** 2 + (yy - h * rng.uniform(0.2, 0.8)) ** 2
        light *= 1 - rng.uniform(0, 0.35) * np.clip(r2 / (w * w * 0.5), 0, 1)
    img = img * light[..., None] * rng.uniform(0.6, 1.25)
    # soft shadow of an arm/phone
    if rng.random() < 0.35:
        m: npt.NDArray[Any] = np.zeros((h, w), np.float32)
        pts = rng.uniform([-0.3 * w, -0.3 * h], [1.3 * w, 1.3 * h], (4, 2))
        cv2.fillPoly(m, [cv2.convexHull(pts.astype(np.int32))], 1.0)
        m = cv2.GaussianBlur(m, (0, 0), rng.uniform(8, 40))
        img *= (1 - rng.uniform(0.2, 0.55) * m)[..., None]
    # glare
    if rng.random() < 0.3:
        m = np.zeros((h, w), np.float32)
        c = (int(rng.uniform(0, w)), int(rng.uniform(0, h)))
        axes = (int(rng.uniform(0.03, 0.2) * w), int(rng.uniform(0.02, 0.1) * h))
        cv2.ellipse(m, c, axes, rng.uniform(0, 180), 0, 360, 1.0, -1)
        m = cv2.GaussianBlur(m, (0, 0), rng.uniform(4, 20))
        img += rng.uniform(60, 200) * m[..., None]
    # white balance
    img *= rng.uniform(0.87, 1.13, 3).astype(np.float32)
    if rng.random() < 0.3:  # low-res camera
        f = rng.uniform(0.45, 0.8)
        small = cv2.resize(img, (int(w * f), int(h * f)), interpolation=cv2.INTER_AREA)
        img = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    blur = rng.choice(["none", "gauss", "motion"], p=[0.35, 0.5, 0.15])
    if blur == "gauss":
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 1.4))
    elif blur == "motion":
        k = int(rng.integers(3, 7))
        ker: npt.NDArray[Any] = np.zeros((k, k), np.float32)
        ker[k // 2, :] = 1 / k
        rot = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), rng.uniform(0, 180), 1)
        ker = cv2.warpAffine(ker, rot, (k, k))
        img = cv2.filter2D(img, -1, np.asarray(ker / max(float(ker.sum()), 1e-6), np.float32))
    img += rng.normal(0, rng.uniform(0, 7), img.shape).astype(np.float32)
    out = np.clip(img, 0, 255).astype(np.uint8)
    if rng.random() < 0.2:
        grey = cv2.cvtColor(out, cv2.COLOR_RGB2GRAY)
        out = np.repeat(grey[..., None], 3, axis=2)
    q = int(rng.integers(35, 96))
    ok, enc = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, q])
    if ok:
        dec = np.asarray(cv2.imdecode(enc, cv2.IMREAD_UNCHANGED), np.uint8)
        out = np.repeat(dec[..., None], 3, axis=2) if dec.ndim == 2 else dec
    return out


def make_scene(
    decks: Sequence[Deck],
    rng: Rng,
    cfg: SynthConfig | None = None,
    placements: list[Placement] | None = None,
) -> Scene:
    """Compose one scene. `placements` (plane coords) overrides the random layout (tests)."""
    cfg = cfg or SynthConfig()
    s = cfg.size
    wx0, wy0, wx1, wy1 = cfg.window()
    frame_w, frame_h = wx1 - wx0, wy1 - wy0
    P = int(s * 2.2) if cfg.perspective else s
    H, view_angle = _view(rng, cfg, P)
    centre = (P / 2, P / 2)
    fw, fh = decks[0].size
    # plane px per image px at the view centre ~ 1 (trapezoid sides ~ image size)
    glyph = math.exp(rng.uniform(math.log(cfg.glyph_px[0]), math.log(cfg.glyph_px[1])))
    u = glyph / 0.16  # a corner index is ~16% of the card height
    plane = background(rng, P)
    ids = np.full((P, P), -1, np.int16)
    if placements is None:
        if rng.random() < cfg.board:
            _board(
                plane,
                ids,
                rng,
                (centre[0] + rng.uniform(-0.4, 0.4) * s, centre[1] + rng.uniform(-0.4, 0.4) * s),
                u,
                view_angle + rng.uniform(-0.3, 0.3),
            )
        if cfg.keyboard and rng.random() < cfg.keyboard:
            keys = _keyboard(rng, u)
            angle = view_angle + rng.uniform(-0.3, 0.3)
            towards = rng.uniform(0, 2 * math.pi)
            reach = rng.uniform(0.3, 0.55) * s
            spot = (centre[0] + reach * math.cos(towards), centre[1] + reach * math.sin(towards))
            M = _affine((keys.shape[1], keys.shape[0]), spot, keys.shape[0], angle)
            _composite(plane, ids, keys, M, -2, None)
        placements = layout_scene(rng, len(decks), (fw, fh), centre, s * 0.5, u, view_angle)
    shadow_dir = rng.uniform(0, 2 * math.pi)
    shadow_len = rng.uniform(0, 4)
    shadow = (
        math.cos(shadow_dir) * shadow_len,
        math.sin(shadow_dir) * shadow_len,
        rng.uniform(0.15, 0.45),
    )
    placements = _faces_available(placements, decks, rng)
    tints: list[F32] = []
    for k, p in enumerate(placements):
        deck = decks[p.deck]
        img = deck.faces[p.code] if p.face_up else deck.back
        if cfg.effects:
            tint = rng.uniform(0.9, 1.03, 3).astype(np.float32)
            img = np.concatenate(
                [np.clip(img[:, :, :3] * tint, 0, 255).astype(np.uint8), img[:, :, 3:]], axis=2
            )
            tints.append(tint)
        _composite(plane, ids, img, p.M, k, shadow if cfg.effects else None)
    warped = cv2.warpPerspective(
        plane, H, (s, s), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT
    )
    labels: list[tuple[int, float, float, float, float]] = []
    cards: list[dict[str, Any]] = []
    owners: list[tuple[int, Box]] = []  # each label's card and pixel box
    for k, p in enumerate(placements):
        deck = decks[p.deck]
        fw, fh = deck.size
        corners = np.array([[0, 0], [fw, 0], [fw, fh], [0, fh]], np.float64)
        plane_c = corners @ p.M[:, :2].T + p.M[:, 2]
        img_c = cv2.perspectiveTransform(plane_c[None].astype(np.float64), H)[0]
        labelled: list[str] = []
        visible: list[float] = []
        if p.face_up:
            for key, hull in deck.hulls[p.code].items():
                plane_h = hull @ p.M[:, :2].T + p.M[:, 2]
                uncovered = _visible_fraction(ids, plane_h, k)
                if uncovered < cfg.min_visible:
                    continue
                ih = cv2.perspectiveTransform(plane_h[None], H)[0]
                x0, y0 = ih.min(0)
                x1, y1 = ih.max(0)
                area = (x1 - x0) * (y1 - y0)
                cx0, cy0, cx1, cy1 = max(x0, wx0), max(y0, wy0), min(x1, wx1), min(y1, wy1)
                if cx1 <= cx0 or cy1 <= cy0:
                    continue
                in_frame = (cx1 - cx0) * (cy1 - cy0) / area
                if in_frame < cfg.min_visible:
                    continue
                if cy1 - cy0 < 4 or cx1 - cx0 < 2:
                    continue
                labels.append(
                    (
                        CLASS_ID[p.code],
                        ((cx0 + cx1) / 2 - wx0) / frame_w,
                        ((cy0 + cy1) / 2 - wy0) / frame_h,
                        (cx1 - cx0) / frame_w,
                        (cy1 - cy0) / frame_h,
                    )
                )
                labelled.append(key)
                visible.append(round(min(uncovered, in_frame), 3))
                owners.append((k, (cx0, cy0, cx1, cy1)))
        cards.append(
            {
                "code": p.code,
                "deck": deck.name,
                "face_up": p.face_up,
                "corners": [[round(float(x - wx0), 2), round(float(y - wy0), 2)] for x, y in img_c],
                "labelled": labelled,
                "visible": visible,
            }
        )
    for card in cards:
        card["contrast"] = []
    if not cfg.effects:
        for k, _ in owners:
            cards[k]["contrast"].append(1.0)
        clean = np.clip(warped, 0, 255).astype(np.uint8)
        return Scene(clean[wy0:wy1, wx0:wx1], labels, cards)
    image = _effects(np.asarray(warped, np.float32), rng)
    kept = []
    for label, (k, box) in zip(labels, owners, strict=True):
        share = contrast_kept(warped, image, box)
        card = cards[k]
        if share < cfg.min_contrast:
            at = len(card["contrast"])
            del card["labelled"][at], card["visible"][at]
            continue
        card["contrast"].append(round(share, 3))
        kept.append(label)
    return Scene(image[wy0:wy1, wx0:wx1], kept, cards)


def contrast_kept(clean: npt.NDArray[Any], photo: npt.NDArray[np.uint8], box: Box) -> float:
    """The share of an index's ink contrast (paper minus ink luminance) left in `photo`.

    Ink and paper are told apart on the clean render (the darker half of the box's range, and
    its brightest part), so a photo's glare, darkness or blur is measured on the same pixels.
    """
    x0, y0, x1, y1 = (round(v) for v in box)
    weights = np.array([0.299, 0.587, 0.114], np.float32)
    before = clean[y0:y1, x0:x1, :3].astype(np.float32) @ weights
    after = photo[y0:y1, x0:x1, :3].astype(np.float32) @ weights
    if before.size < 4:
        return 1.0
    low, high = float(before.min()), float(np.percentile(before, 90))
    ink = before < high - 0.5 * (high - low)
    paper = before >= high - 0.15 * (high - low)
    if ink.sum() < 2 or paper.sum() < 2:
        return 1.0
    clean_contrast = float(before[paper].mean() - before[ink].mean())
    return float(after[paper].mean() - after[ink].mean()) / max(clean_contrast, 1e-3)


def scene_rng(seed: int, index: int) -> Rng:
    """The generator for scene `index` of run `seed`: scenes are independent of each other."""
    return np.random.default_rng([seed, index])


def write_dataset_files(out: Path) -> None:
    """classes.txt and an Ultralytics data.yaml beside the images."""
    (out / "classes.txt").write_text("\n".join(CLASSES) + "\n")
    names = "\n".join(f"  {i}: {c}" for i, c in enumerate(CLASSES))
    (out / "data.yaml").write_text(
        f"path: .\ntrain: images\nval: images\nnc: {len(CLASSES)}\nnames:\n{names}\n"
    )


def generate(
    out_dir: Path | str,
    count: int,
    seed: int,
    deck_dirs: Sequence[Path | str],
    cfg: SynthConfig | None = None,
    start: int = 0,
    progress: bool = True,
) -> int:
    """Write `count` scenes (indices start..start+count-1) to `out_dir`; returns boxes written."""
    from PIL import Image
    from tqdm import tqdm

    cfg = cfg or SynthConfig()
    decks = load_decks(deck_dirs)
    if not decks:
        raise SynthConfigError("no decks to draw from")
    out = Path(out_dir)
    for sub in ("images", "labels", "meta"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    write_dataset_files(out)
    boxes = 0
    for i in tqdm(range(start, start + count), desc="scenes", unit="img", disable=not progress):
        sc = make_scene(decks, scene_rng(seed, i), cfg)
        name = f"syn_{seed}_{i:06d}"
        Image.fromarray(sc.image).save(out / "images" / f"{name}.jpg", quality=95)
        (out / "labels" / f"{name}.txt").write_text(
            "".join(f"{c} {x:.6f} {y:.6f} {w:.6f} {h:.6f}\n" for c, x, y, w, h in sc.labels)
        )
        frame = {"frame": list(cfg.frame)} if cfg.frame else {}
        meta = {"seed": seed, "index": i, "size": cfg.size, **frame, "cards": sc.cards}
        (out / "meta" / f"{name}.json").write_text(json.dumps(meta))
        boxes += len(sc.labels)
    return boxes
