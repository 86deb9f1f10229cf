"""Procedural card decks drawn from fonts: many extra corner-index designs for training.

Why: the reader is trained on scenes rendered from a few deck designs and reads unseen designs
poorly. What differs between real decks' corner indices is the rank's typeface, weight, size
and place, "10" set wide or narrow, the suit pip's shape and size, and the colours (maroon or
bright red, near-black, four-colour decks). Each deck here draws those choices from one seed
(deterministic), renders its 52 faces supersampled (anti-aliased like the SVG renders) and
measures every index box on the finished face with the ink test the scene generator uses
(`vision.cardart._ink_mask`), so the labels are exact by construction. The centre (pip grid,
big suit, framed court letter) only has to look card-like.

A deck folder has the layout `vision.cardart.load_deck` reads: ``<CODE>.png`` faces (RGBA,
rounded corners, transparent outside), ``back.png`` and ``boxes.json`` (`DeckArt`, with
per-card verdicts from `check_face`). Decks with indices in all four corners have ``tl``,
``tr``, ``bl`` and ``br`` boxes (the bottom ones printed turned 180 degrees).

    cribcam fontdecks datasets/fontdecks --count 200 --seed 0
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import json
import math
import shutil
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from PIL import Image, ImageDraw, ImageFont

from vision.cardart import (
    CLASSES,
    FACE_HEIGHT,
    RGBA,
    Box,
    DeckArt,
    _ink_mask,
    check_face,
    judge_cards,
    write_index,
)
from vision.errors import FontDeckError

#: Where system fonts are looked for; matplotlib's bundled DejaVu fonts are always added.
FONT_ROOTS: tuple[Path, ...] = (Path("/usr/share/fonts"),)
#: Characters every rank font must draw (distinctly, not as its "missing glyph" box).
INDEX_CHARS = "0123456789AJQK"
SUIT_CHARS = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
#: Faces are drawn this many times larger and reduced, for anti-aliased edges.
SS = 3
#: Font files never used: hairline weights vanish at index size; "Display" cuts lack digits.
_SKIP_WORDS = ("extralight", "thin", "hairline", "display", "lastresort")
_MISSING = "\U0010fffd"  # a private-use code point no font maps: renders its .notdef glyph
_BIG = 240  # font size (px) at which glyphs are rendered once, then scaled

Rgb = tuple[int, int, int]
Mask = Image.Image  # mode "L", cropped to its ink


# ----------------------------------------------------------------------------- fonts


def _render(font: ImageFont.FreeTypeFont, text: str, stroke: int = 0) -> Mask | None:
    """`text` drawn white on black, cropped to its ink (None when it draws nothing)."""
    left, top, right, bottom = font.getbbox(text, stroke_width=stroke)
    pad = 4 + stroke
    img = Image.new("L", (int(right - left) + 2 * pad, int(bottom - top) + 2 * pad), 0)
    ImageDraw.Draw(img).text(
        (pad - left, pad - top), text, font=font, fill=255, stroke_width=stroke, stroke_fill=255
    )
    box = img.point(lambda v: 255 if v >= 96 else 0).getbbox()
    return None if box is None else img.crop(box)


def _draws_all(path: str, chars: Sequence[str]) -> bool:
    """Whether the font draws every string in `chars`, each non-empty and distinct from the
    others and from its missing-glyph box (a font without a glyph draws that box, or nothing)."""
    try:
        font = ImageFont.truetype(path, 48)
    except OSError:
        return False
    missing = _render(font, _MISSING)
    seen: set[tuple[tuple[int, int], bytes]] = set()
    for text in chars:
        mask = _render(font, text)
        if mask is None:
            return False
        key = (mask.size, mask.tobytes())
        if missing is not None and key == (missing.size, missing.tobytes()):
            return False
        seen.add(key)
    return len(seen) == len(chars)


@functools.cache
def font_ok(path: str) -> bool:
    """Whether a font file can print every rank: the digits, "AJQK" and "10"."""
    return _draws_all(path, [*INDEX_CHARS, "10"])


@functools.cache
def suit_font_ok(path: str) -> bool:
    """Whether a font file has the four Unicode suit glyphs (for glyph-style pips)."""
    return _draws_all(path, list(SUIT_CHARS.values()))


def fallback_font_dir() -> Path | None:
    """matplotlib's bundled TrueType folder (found without importing matplotlib)."""
    spec = importlib.util.find_spec("matplotlib")
    if spec is None or spec.origin is None:
        return None
    folder = Path(spec.origin).parent / "mpl-data" / "fonts" / "ttf"
    return folder if folder.is_dir() else None


def usable_fonts(roots: Sequence[Path] = FONT_ROOTS, fallback: bool = True) -> list[Path]:
    """Font files (TrueType/OpenType) under `roots` that can print every rank, sorted.

    matplotlib's DejaVu fonts are added when `fallback` is on, so the list is never empty on
    a machine with the package installed; a file name found twice is used once (the first).
    """
    found: list[Path] = []
    for root in roots:
        if root.is_dir():
            found += sorted(p for p in root.rglob("*") if p.suffix.lower() in (".ttf", ".otf"))
    mpl = fallback_font_dir() if fallback else None
    if mpl is not None:
        found += sorted(mpl.glob("DejaVu*.ttf"))
    out: dict[str, Path] = {}
    for path in found:
        name = path.name.lower()
        if name in out or any(w in name for w in _SKIP_WORDS):
            continue
        if font_ok(str(path)):
            out[name] = path
    return sorted(out.values())


def _is_slanted(path: Path) -> bool:
    name = path.stem.lower()
    return "italic" in name or "oblique" in name


# ----------------------------------------------------------------------------- suit shapes

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
_ASPECT_KNOB = {"H": "heart_aspect", "S": "spade_aspect"}


def _draw_prims(prims: list[Prim], height: int = 360) -> Mask:
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


def _glyph_mask(path: str, text: str, stroke: int = 0) -> Mask:
    """One string in a font, big, cropped to its ink (fonts are checked by `font_ok`)."""
    mask = _render(_font(path), text, stroke)
    if mask is None:
        raise FontDeckError(f"font {path} draws nothing for {text!r}")
    return mask


def _stroke_for(path: str, stem: float) -> int:
    """Extra outline (px at the big size) that makes the font's stems at least `stem` of its
    cap height: real indices are seldom hairline, and a hairline "7" over a wide pip fails
    `check_face`'s rank-over-pip test."""
    one = np.asarray(_glyph_mask(path, "1")) >= 128
    row = one[int(one.shape[0] * 0.55)].astype(np.int8)
    edges = np.flatnonzero(np.diff(np.concatenate([[0], row, [0]])))
    widest = int((edges[1::2] - edges[::2]).max()) if len(edges) else 0
    cap = _glyph_mask(path, "K").height
    return max(0, math.ceil((stem * cap - widest) / 2))


@functools.lru_cache(maxsize=64)
def _font(path: str) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(path, _BIG)


# ----------------------------------------------------------------------------- style

_REDS: tuple[Rgb, ...] = (
    (204, 16, 30), (222, 32, 40), (180, 0, 20), (150, 18, 36), (122, 12, 32), (230, 50, 40),
    (190, 28, 60), (168, 30, 30),
)  # fmt: skip
_BLACKS: tuple[Rgb, ...] = ((0, 0, 0), (22, 22, 26), (38, 36, 40), (16, 22, 44), (46, 40, 38))
_BLUES: tuple[Rgb, ...] = ((20, 70, 190), (0, 92, 170), (40, 60, 150), (30, 100, 200))
_GREENS: tuple[Rgb, ...] = ((0, 122, 52), (22, 110, 40), (0, 100, 72), (40, 130, 30))
_PAPERS: tuple[Rgb, ...] = (
    (255, 255, 255), (255, 255, 255), (252, 250, 245), (250, 246, 234), (246, 244, 238),
    (248, 243, 226), (242, 242, 242), (255, 252, 240), (244, 246, 250),
)  # fmt: skip
_COURT_TINTS: tuple[Rgb, ...] = (
    (230, 180, 40), (60, 110, 200), (200, 60, 60), (60, 150, 90), (150, 90, 170), (90, 90, 90),
)  # fmt: skip


@dataclass(frozen=True)
class DeckStyle:
    """Every choice that makes one generated deck's look (fractions are of the card size)."""

    seed: int
    width: int  # face size in px
    height: int
    font: str  # rank typeface file
    stem: float  # least stroke width of the rank, fraction of its cap height (thin fonts: bolder)
    squeeze: float  # horizontal scale of the rank glyphs (1 = the font's own width)
    ten_gap: float  # space between "1" and "0", fraction of the cap height (<0: overlap)
    ten_squeeze: float  # extra horizontal scale of "10"
    rank_h: float  # cap height of the rank, fraction of the card height
    pip_ratio: float  # index pip height / rank cap height
    gap: float  # rank-to-pip gap, fraction of the card height
    left: float  # index column's left edge, fraction of the width
    top: float  # index top, fraction of the height
    centred: bool  # rank and pip centred on one column (else left-aligned)
    four_corners: bool
    suit_font: str | None  # suit pips from Unicode glyphs of this font (None: drawn shapes)
    shape: dict[str, float]  # knobs of the drawn suit shapes (`suit_shape`)
    colours: dict[str, Rgb]  # per suit
    paper: Rgb
    rim: Rgb | None  # thin outline at the card's edge
    radius: float  # corner radius, fraction of the width
    border: float | None  # inset of a frame rule round the whole face, fraction of the width
    pip_grid: bool  # number cards show the usual pip grid (else one big suit)
    centre_pip: float  # centre pip height, fraction of the centre area height
    court_tint: Rgb
    court_fill: float  # how much of the tint the court panel takes (0: paper)
    back: Rgb


def _pick(rng: np.random.Generator, options: Sequence[Rgb], jitter: int = 0) -> Rgb:
    base = np.array(options[int(rng.integers(len(options)))])
    if jitter:
        base = base + rng.integers(-jitter, jitter + 1, 3)
    r, g, b = (int(v) for v in np.clip(base, 0, 255))
    return (r, g, b)


def pick_style(
    rng: np.random.Generator,
    fonts: Sequence[Path],
    suit_fonts: Sequence[Path],
    seed: int,
    height: int = FACE_HEIGHT,
) -> DeckStyle:
    """Draw one deck's style: the random choices, in a fixed order (determinism by seed)."""
    weights = np.array([0.2 if _is_slanted(f) else 1.0 for f in fonts])
    font = fonts[int(rng.choice(len(fonts), p=weights / weights.sum()))]
    aspect = 2.5 / 3.5 if rng.random() < 0.65 else 2.25 / 3.5
    width = round(height * aspect)
    condensed = rng.random() < 0.3
    squeeze = float(rng.uniform(0.7, 0.9)) if condensed else float(rng.uniform(0.95, 1.08))
    red, black = _pick(rng, _REDS, 10), _pick(rng, _BLACKS, 6)
    colours = {"H": red, "D": red, "S": black, "C": black}
    if rng.random() < 0.15:  # four-colour deck
        colours["D"], colours["C"] = _pick(rng, _BLUES, 10), _pick(rng, _GREENS, 10)
    shape = {
        "heart_kind": float(rng.random() < 0.5),
        "heart_aspect": float(rng.uniform(0.92, 1.2)),
        "heart_cleft": float(rng.uniform(4.0, 6.5)),
        "heart_tip": float(rng.uniform(2.1, 2.9)),
        "diamond_aspect": float(rng.uniform(0.6, 0.82)),
        "diamond_curve": float(rng.choice([0.0, rng.uniform(0.04, 0.16)])),
        "spade_kind": float(rng.random() < 0.5),
        "spade_aspect": float(rng.uniform(0.9, 1.15)),
        "spade_stem": float(rng.uniform(0.12, 0.32)),
        "spade_foot": float(rng.uniform(0.1, 0.24)),
        "club_r": float(rng.uniform(0.24, 0.3)),
        "club_spread": float(rng.uniform(1.05, 1.3)),
        "club_stem": float(rng.uniform(0.1, 0.28)),
        "club_foot": float(rng.uniform(0.1, 0.22)),
    }
    glyph_suits = bool(suit_fonts) and rng.random() < 0.3
    suit_font = str(suit_fonts[int(rng.integers(len(suit_fonts)))]) if glyph_suits else None
    border = float(rng.uniform(0.025, 0.04)) if rng.random() < 0.2 else None
    left = float(rng.uniform(0.05, 0.09))
    top = float(rng.uniform(0.035, 0.07))
    rank_h, pip_ratio = float(rng.uniform(0.075, 0.14)), float(rng.uniform(0.5, 0.9))
    if rng.random() < 0.15:  # jumbo index: tall (squeezed to fit), set high, smaller pip
        rank_h, pip_ratio = float(rng.uniform(0.14, 0.18)), float(rng.uniform(0.45, 0.7))
        top = min(top, 0.05)
    if border is not None:  # keep the index clear of the frame rule
        left = max(left, border + 0.045)
        top = max(top, (border + 0.045) * aspect)
    return DeckStyle(
        seed=seed,
        width=width,
        height=height,
        font=str(font),
        stem=float(rng.uniform(0.15, 0.22)),
        squeeze=squeeze,
        ten_gap=float(rng.uniform(-0.04, 0.14)),
        ten_squeeze=float(rng.uniform(0.62, 0.85)) if rng.random() < 0.35 else 1.0,
        rank_h=rank_h,
        pip_ratio=pip_ratio,
        gap=float(rng.uniform(0.012, 0.03)),
        left=left,
        top=top,
        centred=bool(rng.random() < 0.7),
        four_corners=bool(rng.random() < 0.25),
        suit_font=suit_font,
        shape=shape,
        colours=colours,
        paper=_pick(rng, _PAPERS, 3),
        rim=_pick(rng, ((120, 120, 120), (60, 60, 60), (180, 180, 180)))
        if rng.random() < 0.5
        else None,
        radius=float(rng.uniform(0.035, 0.07)),
        border=border,
        pip_grid=bool(rng.random() < 0.8),
        centre_pip=float(rng.uniform(0.15, 0.19)),
        court_tint=_pick(rng, _COURT_TINTS, 25),
        court_fill=float(rng.choice([0.0, rng.uniform(0.12, 0.35)])),
        back=_pick(rng, (*_REDS, *_BLUES, *_GREENS, (40, 40, 40)), 15),
    )


# ----------------------------------------------------------------------------- drawing


def _scaled(mask: Mask, w: float, h: float) -> Mask:
    return mask.resize((max(1, round(w)), max(1, round(h))), Image.Resampling.LANCZOS)


def _hcat(a: Mask, b: Mask, gap: int) -> Mask:
    """Two masks side by side, tops aligned, `gap` px apart (negative: overlapping)."""
    w = max(a.width + gap + b.width, a.width, b.width)
    out = Image.new("L", (w, max(a.height, b.height)), 0)
    out.paste(a, (0, 0))
    right = Image.new("L", out.size, 0)
    right.paste(b, (max(0, a.width + gap), 0))
    return Image.fromarray(np.maximum(np.asarray(out), np.asarray(right)))


class _Painter:
    """Draws one deck's faces at `SS` times the final size (px below are supersampled)."""

    def __init__(self, style: DeckStyle) -> None:
        self.st = style
        self.W, self.H = style.width * SS, style.height * SS
        stroke = _stroke_for(style.font, style.stem)
        cap = _glyph_mask(style.font, "K", stroke).height
        scale = style.rank_h * self.H / cap
        narrow = 0.16 * self.W  # index widths well inside check_face's limits
        wide = 0.22 * self.W
        self.suits = {s: self._suit_mask(s) for s in SUIT_CHARS}
        self._symbols: dict[tuple[str, int, bool], Mask] = {}
        big: dict[str, tuple[Mask, float, float]] = {}  # rank glyphs, their size on the face
        for rank in RANKS:
            if rank == "10":
                one = _glyph_mask(style.font, "1", stroke)
                m = _hcat(one, _glyph_mask(style.font, "0", stroke), round(style.ten_gap * cap))
                sx = style.squeeze * style.ten_squeeze
            else:
                m = _glyph_mask(style.font, rank, stroke)
                sx = style.squeeze
            w = min(m.width * scale * sx, wide if rank == "10" else narrow)
            big[rank] = (m, w, m.height * scale)
        self.rank_px = style.rank_h * self.H
        pip_h = max(style.pip_ratio * self.rank_px, 0.04 * self.H)
        self.pips: dict[str, Mask] = {}
        # a pip much wider than the rank would make the index wide and its rank band thin
        widths = sorted(w for r, (_, w, _) in big.items() if r != "10")
        pip_w = min(narrow, 1.1 * widths[len(widths) // 2])
        for s, m in self.suits.items():
            h = pip_h
            if m.width / m.height * h > pip_w:
                h = max(pip_w * m.height / m.width, 0.03 * self.H)
            self.pips[s] = _scaled(m, m.width / m.height * h, h)
        # ...and a rank much wider than the narrowest pip leaves that pip too thin a band for
        # `check_face` to see two bands (real decks narrow their "10" too)
        thin = min(p.width for p in self.pips.values())
        self.ranks = {
            r: _scaled(m, min(w, (2.8 if r == "10" else 3.2) * thin), h)
            for r, (m, w, h) in big.items()
        }
        self.layout = {r: self._place(r) for r in RANKS}
        right = max(b[2] for _, _, b in self.layout.values())
        gap = 0.045 * self.W
        bottom = self.H - 0.06 * self.H
        self.area = (right + gap, 0.06 * self.H, self.W - right - gap, bottom)
        self.card = self._card_mask()

    def _suit_mask(self, suit: str) -> Mask:
        """The deck's symbol of one suit, big: a font's suit glyph or a drawn shape."""
        if self.st.suit_font is not None:
            return _glyph_mask(self.st.suit_font, SUIT_CHARS[suit])
        m = _draw_prims(suit_shape(suit, self.st.shape))
        stretch = self.st.shape.get(_ASPECT_KNOB.get(suit, ""), 1.0)
        return _scaled(m, m.width * stretch, m.height)

    def _place(self, rank: str) -> tuple[tuple[int, int], tuple[int, int], Box]:
        """Top-left index of a rank: rank and pip positions (any suit), and their union box."""
        st = self.st
        rm = self.ranks[rank]
        pw = max(p.width for p in self.pips.values())
        ph = max(p.height for p in self.pips.values())
        x0 = round(st.left * self.W)
        if st.centred:
            col = max(max(r.width for r in self.ranks.values()), pw)
            xc = x0 + col / 2
            rx = round(xc - rm.width / 2)
        else:
            xc = x0 + pw / 2
            rx = round(x0)
        ry = round(st.top * self.H)
        py = round(max(ry + self.rank_px + st.gap * self.H, ry + rm.height + 0.012 * self.H))
        left = min(rx, round(xc - pw / 2))
        box = (left, ry, max(rx + rm.width, round(xc + pw / 2)), py + ph)
        return (rx, ry), (round(xc), py), box

    def _card_mask(self) -> Mask:
        """The card's rounded outline as the final face's alpha (drawn big, reduced)."""
        mask = Image.new("L", (self.W, self.H), 0)
        r = self.st.radius * self.W
        ImageDraw.Draw(mask).rounded_rectangle((0, 0, self.W - 1, self.H - 1), r, fill=255)
        return mask.reduce(SS)

    def _paste(self, img: Image.Image, mask: Mask, colour: Rgb, x: float, y: float) -> None:
        img.paste(colour, (round(x), round(y), round(x) + mask.width, round(y) + mask.height), mask)

    def _symbol(
        self, img: Image.Image, suit: str, cx: float, cy: float, h: float, flip: bool
    ) -> None:
        """One suit symbol `h` px tall centred on (cx, cy), turned 180 degrees if `flip`."""
        key = (suit, round(h), flip)
        if key not in self._symbols:  # a deck draws the same few sizes over and over
            m = self.suits[suit]
            sm = _scaled(m, m.width / m.height * h, h)
            self._symbols[key] = sm.transpose(Image.Transpose.ROTATE_180) if flip else sm
        sm = self._symbols[key]
        self._paste(img, sm, self.st.colours[suit], cx - sm.width / 2, cy - sm.height / 2)

    def base(self, code: str) -> Image.Image:
        """The face without its corner indices: paper, rim, frame rule and centre."""
        st = self.st
        img = Image.new("RGB", (self.W, self.H), st.paper)
        draw = ImageDraw.Draw(img)
        if st.rim is not None:
            r = st.radius * self.W
            draw.rounded_rectangle((0, 0, self.W - 1, self.H - 1), r, outline=st.rim, width=SS)
        if st.border is not None:
            b = st.border * self.W
            draw.rectangle((b, b, self.W - b, self.H - b), outline=st.colours["S"], width=SS)
        rank, suit = code[:-1], code[-1]
        x0, y0, x1, y1 = self.area
        aw, ah = x1 - x0, y1 - y0
        if rank in "JQK":
            self._court(img, rank, suit)
        elif rank == "A" or not st.pip_grid:
            big = (0.42 if rank == "A" and suit == "S" else 0.32) * ah
            m = self.suits[suit]
            big = min(big, 0.9 * aw * m.height / m.width)
            self._symbol(img, suit, (x0 + x1) / 2, (y0 + y1) / 2, big, False)
        else:
            m = self.suits[suit]
            h = min(st.centre_pip * ah, 0.34 * aw * m.height / m.width)
            w = m.width / m.height * h
            cols = (x0 + w / 2 + 0.05 * aw, (x0 + x1) / 2, x1 - w / 2 - 0.05 * aw)
            top, bot = y0 + h / 2, y1 - h / 2
            for c, f in PIP_GRID[int(rank)]:
                self._symbol(img, suit, cols[c], top + f * (bot - top), h, f > 0.5)
        return img

    def _court(self, img: Image.Image, rank: str, suit: str) -> None:
        """A framed panel with the court letter twice (head to head) and two small pips."""
        st = self.st
        x0, y0, x1, y1 = self.area
        draw = ImageDraw.Draw(img)
        t = st.court_fill
        fill = tuple(
            round(p * (1 - t) + c * t) for p, c in zip(st.paper, st.court_tint, strict=True)
        )
        draw.rectangle((x0, y0, x1, y1), fill=fill, outline=st.colours[suit], width=2 * SS)
        my = (y0 + y1) / 2
        draw.line((x0, my, x1, my), fill=st.colours[suit], width=SS)
        letter = _glyph_mask(st.font, rank)
        h = 0.26 * (y1 - y0)
        w = min(letter.width / letter.height * h, 0.7 * (x1 - x0))
        lm = _scaled(letter, w, h)
        colour = st.colours[suit]
        self._paste(img, lm, colour, (x0 + x1) / 2 - lm.width / 2, (y0 + my) / 2 - lm.height / 2)
        flipped = lm.transpose(Image.Transpose.ROTATE_180)
        self._paste(
            img, flipped, colour, (x0 + x1) / 2 - lm.width / 2, (my + y1) / 2 - lm.height / 2
        )
        ph = 0.07 * (y1 - y0)
        pad = 0.06 * (x1 - x0) + ph / 2
        self._symbol(img, suit, x0 + pad, y0 + pad, ph, False)
        self._symbol(img, suit, x1 - pad, y1 - pad, ph, True)

    def index_boxes_ss(self, code: str) -> dict[str, Box]:
        """Where each corner index is drawn (supersampled px, before measuring its ink)."""
        _, _, (a, b, c, d) = self.layout[code[:-1]]
        W, H = self.W, self.H
        out = {"tl": (a, b, c, d), "br": (W - c, H - d, W - a, H - b)}
        if self.st.four_corners:
            out["tr"] = (W - c, b, W - a, d)
            out["bl"] = (a, H - d, c, H - b)
        return out

    def indices(self, img: Image.Image, ink: Image.Image, code: str) -> None:
        """Draw the corner indices on `img`, and their coverage into the mask `ink`."""
        rank, suit = code[:-1], code[-1]
        (rx, ry), (pxc, py), _ = self.layout[rank]
        rm, pm = self.ranks[rank], self.pips[suit]
        px = pxc - pm.width // 2 if self.st.centred else round(self.st.left * self.W)
        parts = [(rm, rx, ry), (pm, px, py)]
        corners = [(False, False), (True, True)]  # (mirror the place, turn 180)
        if self.st.four_corners:
            corners += [(True, False), (False, True)]
        colour = self.st.colours[suit]
        for mirror, turn in corners:
            for m, x, y in parts:
                xx = self.W - x - m.width if mirror else x
                yy = self.H - y - m.height if turn else y
                mm = m.transpose(Image.Transpose.ROTATE_180) if turn else m
                self._paste(img, mm, colour, xx, yy)
                ink.paste(
                    255, (round(xx), round(yy), round(xx) + mm.width, round(yy) + mm.height), mm
                )

    def face(self, img: Image.Image) -> RGBA:
        """The final face: RGBA at the deck's size, transparent outside the rounded card.

        Reduced by averaging SS x SS blocks: the anti-aliasing of the supersampled drawing.
        """
        small = img.reduce(SS)
        small.putalpha(self.card)
        return np.asarray(small).copy()

    def back(self) -> RGBA:
        """A plain lattice-patterned back in the deck's colour with a paper margin."""
        st = self.st
        img = Image.new("RGB", (self.W, self.H), st.paper)
        draw = ImageDraw.Draw(img)
        m = round(0.06 * self.W)
        draw.rectangle((m, m, self.W - m, self.H - m), fill=st.back)
        light = tuple(min(255, round(c + 0.4 * (255 - c))) for c in st.back)
        step = round(0.05 * self.W)
        for k in range(-self.H, self.W + self.H, step):
            draw.line((k, 0, k + self.H, self.H), fill=light, width=SS)
            draw.line((k, self.H, k + self.H, 0), fill=light, width=SS)
        draw.rectangle((0, 0, self.W, m), fill=st.paper)
        draw.rectangle((0, self.H - m, self.W, self.H), fill=st.paper)
        draw.rectangle((0, 0, m, self.H), fill=st.paper)
        draw.rectangle((self.W - m, 0, self.W, self.H), fill=st.paper)
        return self.face(img)


_SIDES4 = tuple((c, f) for c in (0, 2) for f in (0.0, 1 / 3, 2 / 3, 1.0))
#: Centre pips of number cards: (column 0/1/2, height 0..1 in the centre area).
PIP_GRID: dict[int, tuple[tuple[int, float], ...]] = {
    2: ((1, 0.0), (1, 1.0)),
    3: ((1, 0.0), (1, 0.5), (1, 1.0)),
    4: ((0, 0.0), (2, 0.0), (0, 1.0), (2, 1.0)),
    5: ((0, 0.0), (2, 0.0), (1, 0.5), (0, 1.0), (2, 1.0)),
    6: ((0, 0.0), (2, 0.0), (0, 0.5), (2, 0.5), (0, 1.0), (2, 1.0)),
    7: ((0, 0.0), (2, 0.0), (1, 0.25), (0, 0.5), (2, 0.5), (0, 1.0), (2, 1.0)),
    8: ((0, 0.0), (2, 0.0), (1, 0.25), (0, 0.5), (2, 0.5), (1, 0.75), (0, 1.0), (2, 1.0)),
    9: (*_SIDES4, (1, 0.5)),
    10: (*_SIDES4, (1, 1 / 6), (1, 5 / 6)),
}


# ----------------------------------------------------------------------------- measuring

#: Margin round an index box (fraction of the card height; 4 px at 350) that must hold no
#: other ink, so a label is tight round the index alone.
CLEAR = 0.012


def _measure(
    code: str, face: RGBA, base: RGBA, cover: npt.NDArray[np.uint8], drawn: dict[str, Box]
) -> tuple[dict[str, Box], list[str]]:
    """Index boxes tight round the face's ink where each index was drawn, and what is wrong.

    The ink test is `_ink_mask`, the one `vision.synth.load_decks` measures hulls with. An
    index must be all inside its box (none lost to the card's edge margin) and no other ink
    may lie in or near the box.
    """
    h, w = face.shape[:2]
    ink, other = _ink_mask(face), _ink_mask(base)
    boxes: dict[str, Box] = {}
    probs: list[str] = []
    for key, (a, b, c, d) in drawn.items():
        x0, y0 = max(0, a // SS - 2), max(0, b // SS - 2)
        x1, y1 = min(w, -(-c // SS) + 2), min(h, -(-d // SS) + 2)
        ys, xs = np.nonzero(ink[y0:y1, x0:x1])
        if len(xs) == 0:
            probs.append(f"{code}/{key}: no index ink")
            continue
        box = (
            x0 + int(xs.min()),
            y0 + int(ys.min()),
            x0 + int(xs.max()) + 1,
            y0 + int(ys.max()) + 1,
        )
        boxes[key] = box
        cy, cx = np.nonzero(cover[y0:y1, x0:x1] >= 128)
        if len(cx) and (
            x0 + cx.min() < box[0]
            or y0 + cy.min() < box[1]
            or x0 + cx.max() >= box[2]
            or y0 + cy.max() >= box[3]
        ):
            probs.append(f"{code}/{key}: index ink outside its box")
        k = max(2, round(CLEAR * h))
        near = other[max(0, box[1] - k) : box[3] + k, max(0, box[0] - k) : box[2] + k]
        if near.any():
            probs.append(f"{code}/{key}: other ink within {k} px of the index")
    return boxes, probs


def _mirrored(box: Box, w: int) -> Box:
    return (w - box[2], box[1], w - box[0], box[3])


def check_generated(code: str, face: RGBA, boxes: dict[str, Box]) -> list[str]:
    """`check_face` for every corner: ``tr``/``bl`` are checked as ``tl``/``br`` of the face
    mirrored left-right (`check_face` knows only the two corners of two-index decks)."""
    pair: dict[str, Box] = {k: boxes[k] for k in ("tl", "br") if k in boxes}
    probs = check_face(code, face, pair)
    if "tr" in boxes or "bl" in boxes:
        w = face.shape[1]
        mirror = np.ascontiguousarray(face[:, ::-1])
        other = {
            new: _mirrored(boxes[old], w)
            for old, new in (("tr", "tl"), ("bl", "br"))
            if old in boxes
        }
        for p in check_face(code, mirror, other):
            if "/" in p.split(":", 1)[0]:
                p = p.replace("/tl:", "/tr:").replace("/br:", "/bl:")
                probs.append(p)
    return probs


# ----------------------------------------------------------------------------- decks


def deck_seed(seed: int, index: int) -> int:
    """The seed of deck `index` of run `seed` (decks independent of each other and of count)."""
    return int(np.random.SeedSequence([seed, index]).generate_state(1)[0])


def _style_meta(style: DeckStyle) -> dict[str, Any]:
    meta = asdict(style)
    meta["colours"] = {s: list(c) for s, c in style.colours.items()}
    return meta


def make_font_deck(
    out_dir: Path | str,
    seed: int,
    fonts: Sequence[Path | str],
    height: int = FACE_HEIGHT,
    four_corners: bool | None = None,
) -> DeckArt:
    """Generate one deck design into the folder `out_dir` (replaced); its name is the folder's.

    `fonts`: candidate rank typefaces (`usable_fonts`); those that cannot print every rank are
    left out. The deck's look depends only on (`seed`, the usable fonts, `height`);
    `four_corners` forces indices in all four corners (True) or two (False) instead of the
    seed's choice, leaving every other choice as it was.
    """
    if height < 60:
        raise FontDeckError(f"face height {height} px is too small (at least 60)")
    usable = sorted({Path(f) for f in fonts if Path(f).is_file() and font_ok(str(f))})
    if not usable:
        given = ", ".join(str(f) for f in fonts) or "none"
        raise FontDeckError(f"no usable font (each must print 0-9, A, J, Q, K, 10): {given}")
    suit_fonts = [f for f in usable if suit_font_ok(str(f)) and not _is_slanted(f)]
    fallback = fallback_font_dir()
    if not suit_fonts and fallback is not None and (fallback / "DejaVuSans.ttf").is_file():
        suit_fonts = [fallback / "DejaVuSans.ttf"]
    style = pick_style(np.random.default_rng(seed), usable, suit_fonts, seed, height)
    if four_corners is not None:
        style = replace(style, four_corners=four_corners)
    paint = _Painter(style)
    deck_dir = Path(out_dir)
    if deck_dir.exists():
        shutil.rmtree(deck_dir)
    deck_dir.mkdir(parents=True)
    boxes: dict[str, dict[str, Box]] = {}
    probs: list[str] = []
    for code in CLASSES:
        img = paint.base(code)
        base = paint.face(img)
        cover = Image.new("L", img.size, 0)
        paint.indices(img, cover, code)
        face = paint.face(img)
        small = np.asarray(cover.reduce(SS))
        got, bad = _measure(code, face, base, small, paint.index_boxes_ss(code))
        probs += bad
        if len(got) == len(paint.index_boxes_ss(code)):
            boxes[code] = got
            probs += check_generated(code, face, got)
        Image.fromarray(face).save(deck_dir / f"{code}.png")
    Image.fromarray(paint.back()).save(deck_dir / "back.png")
    cards, deck_probs, ok, usable_deck = judge_cards(probs, boxes)
    art = DeckArt(
        name=deck_dir.name,
        size=(style.width, style.height),
        boxes=boxes,
        ok=ok,
        problems=deck_probs + [p for c in CLASSES for p in cards[c]["problems"]],
        backs=["back.png"],
        cards=cards,
        usable=usable_deck,
        meta={
            "source": "procedural (vision/fontdecks.py)",
            "licence": f"generated; rank font {Path(style.font).name} under its own licence",
            "format": "fontdeck",
            "style": _style_meta(style),
        },
    )
    (deck_dir / "boxes.json").write_text(json.dumps(art.to_json(), indent=1))
    return art


def make_font_decks(
    out_dir: Path | str,
    count: int,
    seed: int,
    fonts: Sequence[Path | str] | None = None,
    height: int = FACE_HEIGHT,
    progress: bool = True,
) -> list[DeckArt]:
    """``out_dir/font-000`` ... ``font-{count-1}``: `count` decks of run `seed`, and index.json."""
    from tqdm import tqdm

    if count < 1:
        raise FontDeckError(f"deck count must be at least 1, got {count}")
    fonts = usable_fonts() if fonts is None else fonts
    out = Path(out_dir)
    arts = [
        make_font_deck(out / f"font-{i:03d}", deck_seed(seed, i), fonts, height)
        for i in tqdm(range(count), desc="decks", unit="deck", disable=not progress)
    ]
    write_index(out)
    return arts


def _run(args: argparse.Namespace) -> int:
    arts = make_font_decks(args.out_dir, args.count, args.seed, height=args.height)
    bad = [a for a in arts if not a.ok]
    for art in bad:
        print(f"{art.name}: {len(art.failed)} cards failed: {'; '.join(art.problems[:3])}")
    print(f"{len(arts) - len(bad)} of {len(arts)} decks pass all 52 cards -> {args.out_dir}")
    return 0 if arts and all(a.usable for a in arts) else 1


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `cribcam fontdecks` (called from `vision.cli.register`)."""
    p = commands.add_parser("fontdecks", help="generate procedural deck designs from fonts")
    p.add_argument("out_dir", type=Path, help="writes OUT/font-000, OUT/font-001, ...")
    p.add_argument("--count", type=int, default=50, help="number of decks (50)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--height", type=int, default=FACE_HEIGHT, help="face height in px")
    p.set_defaults(run=_run)
