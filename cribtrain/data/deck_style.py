"""The random look of one procedural deck: colour palettes and every other per-deck choice.

Why: what differs between real decks' corner indices is the rank's typeface, weight, size and
place, "10" set wide or narrow, the suit pip's shape and size, and the colours (maroon or
bright red, near-black, four-colour decks). `pick_style` draws all of those from one random
generator in a fixed order, so a deck's look depends only on its seed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from cribtrain.data.cardart import FACE_HEIGHT
from cribtrain.data.deck_fonts import is_slanted

Rgb = tuple[int, int, int]

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
    weights = np.array([0.2 if is_slanted(f) else 1.0 for f in fonts])
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
