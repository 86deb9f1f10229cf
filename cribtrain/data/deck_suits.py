"""Suit symbols drawn as shapes (polygons and circles), for decks whose pips come from no font.

Why: only some decks take their pips from a font's Unicode suit glyphs; the rest draw them as
shapes whose knobs (`DeckStyle.shape`) vary the way real decks' pips do: hearts from a curve
or from two round lobes, straight or curved diamonds, spades and clubs on short or long,
narrow or flared feet. A shape is rendered big as a mask that the painter
(`cribtrain.data.fontdecks`)
scales and colours.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import numpy.typing as npt
from PIL import Image, ImageDraw

from cribtrain.data.deck_fonts import Mask

Prim = tuple[str, npt.NDArray[np.float64]]  # ("poly", Nx2 points) or ("circle", [cx, cy, r])


def _bezier(p0: npt.ArrayLike, c: npt.ArrayLike, p1: npt.ArrayLike, n: int = 24) -> Any:
    """Points of a quadratic Bezier curve (without its last point)."""
    t = np.linspace(0.0, 1.0, n, endpoint=False)[:, None]
    a, b, d = np.array(p0), np.array(c), np.array(p1)
    return (1 - t) ** 2 * a + 2 * (1 - t) * t * b + t**2 * d


def _heart(p: dict[str, float]) -> list[Prim]:
    """A heart, tip down: the classic parametric curve, or two round lobes over a point."""
    if p["heart_kind"] < 0.5:
        t = np.linspace(0, 2 * math.pi, 240, endpoint=False)
        x = 16 * np.sin(t) ** 3
        y = -(13 * np.cos(t) - p["heart_cleft"] * np.cos(2 * t) - 2 * np.cos(3 * t) - np.cos(4 * t))
        return [("poly", np.stack([x, y], 1))]
    # two unit circles at x = +-c, joined to the tip by lines tangent to them
    c, tip = 0.92, p["heart_tip"]
    v = np.array([-c, tip])
    d2 = float(v @ v)
    qx, qy = np.array([c, 0.0]) + v / d2 + math.sqrt(d2 - 1) / d2 * np.array([tip, c])
    body = np.array([[-c, 0.0], [c, 0.0], [qx, qy], [0.0, tip], [-qx, qy]])
    lobes = [("circle", np.array([s * c, 0.0, 1.0])) for s in (-1, 1)]
    return [*lobes, ("poly", body)]


def _stem(top: float, bottom: float, half: float) -> Prim:
    """A flared foot from (0, top) to width 2*half at `bottom`, its sides curved inwards."""
    left = _bezier((-half, bottom), (-half * 0.12, top + 0.6 * (bottom - top)), (0, top))
    right = _bezier((0, top), (half * 0.12, top + 0.6 * (bottom - top)), (half, bottom))
    return ("poly", np.concatenate([left, right, [[half, bottom]]]))


def _normalised(prims: list[Prim]) -> list[Prim]:
    """Primitives shifted and scaled to y in [0, 1], x centred on 0."""
    x0, y0, x1, y1 = _prims_bbox(prims)
    s, cx = 1.0 / (y1 - y0), (x0 + x1) / 2
    out: list[Prim] = []
    for kind, v in prims:
        if kind == "poly":
            out.append((kind, (v - [cx, y0]) * s))
        else:
            out.append((kind, np.array([(v[0] - cx) * s, (v[1] - y0) * s, v[2] * s])))
    return out


def _prims_bbox(prims: list[Prim]) -> tuple[float, float, float, float]:
    xs: list[float] = []
    ys: list[float] = []
    for kind, v in prims:
        if kind == "poly":
            xs += [float(v[:, 0].min()), float(v[:, 0].max())]
            ys += [float(v[:, 1].min()), float(v[:, 1].max())]
        else:
            xs += [float(v[0] - v[2]), float(v[0] + v[2])]
            ys += [float(v[1] - v[2]), float(v[1] + v[2])]
    return min(xs), min(ys), max(xs), max(ys)


def suit_shape(suit: str, p: dict[str, float]) -> list[Prim]:
    """The outline of one suit symbol (upright) as polygons and circles, from shape knobs `p`."""
    if suit == "H":
        return _heart(p)
    if suit == "D":
        a, k = p["diamond_aspect"], p["diamond_curve"]
        pts = [(0.0, -1.0), (a, 0.0), (0.0, 1.0), (-a, 0.0)]
        ring = [
            _bezier(
                pts[i],
                np.multiply(np.add(pts[i], pts[(i + 1) % 4]) / 2, 1 - 2 * k),
                pts[(i + 1) % 4],
            )
            for i in range(4)
        ]
        return [("poly", np.concatenate(ring))]
    if suit == "S":
        body = [
            (kind, v * [1, -1] if kind == "poly" else v * [1, -1, 1])
            for kind, v in _heart({**p, "heart_kind": p["spade_kind"]})
        ]
        body = _normalised(body)
        length = p["spade_stem"]
        return [*body, _stem(0.6, 1 + length, p["spade_foot"])]
    # clubs: three overlapping balls, the gap filled, on a foot
    r, spread = p["club_r"], p["club_spread"]
    side_x, side_y = r * spread, r * (1 + 0.5 * spread + 0.35)
    balls = [("circle", np.array([0.0, r, r]))] + [
        ("circle", np.array([s * side_x, side_y, r])) for s in (-1, 1)
    ]
    fill = ("poly", np.array([[0.0, r], [-side_x, side_y], [side_x, side_y]]))
    bottom = side_y + r
    return [*balls, fill, _stem(side_y - 0.3 * r, bottom + p["club_stem"], p["club_foot"])]


#: Width scale of each suit's drawn shape (the other shapes carry their width in their knobs).
ASPECT_KNOB = {"H": "heart_aspect", "S": "spade_aspect"}


def draw_prims(prims: list[Prim], height: int = 360) -> Mask:
    """Render primitives as a white-on-black mask `height` px tall, cropped to its ink."""
    x0, y0, x1, y1 = _prims_bbox(prims)
    s = (height - 1) / (y1 - y0)
    pad = 2
    img = Image.new("L", (math.ceil((x1 - x0) * s) + 2 * pad, height + 2 * pad), 0)
    draw = ImageDraw.Draw(img)
    for kind, v in prims:
        if kind == "poly":
            pts = [(float((x - x0) * s + pad), float((y - y0) * s + pad)) for x, y in v]
            draw.polygon(pts, fill=255)
        else:
            cx, cy, rr = (v[0] - x0) * s + pad, (v[1] - y0) * s + pad, v[2] * s
            draw.ellipse((cx - rr, cy - rr, cx + rr, cy + rr), fill=255)
    box = img.getbbox()
    return img.crop(box) if box else img
