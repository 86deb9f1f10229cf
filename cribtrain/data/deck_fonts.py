"""Finding and vetting fonts for the procedural decks, and rendering their glyphs as masks.

Why a module of its own: a deck's look starts from a system font, and a font is only usable if
it draws every rank ("0"-"9", "A", "J", "Q", "K" and "10") as distinct glyphs rather than its
"missing glyph" box; suit pips may come from the Unicode suit glyphs of a font that has all
four. Glyphs are rendered at one big size and cropped to their ink; the painter
(`cribtrain.data.fontdecks`) scales them to the face.
"""

from __future__ import annotations

import functools
import importlib.util
import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from vision.errors import FontDeckError

#: Where system fonts are looked for; matplotlib's bundled DejaVu fonts are always added.
FONT_ROOTS: tuple[Path, ...] = (Path("/usr/share/fonts"),)
#: Characters every rank font must draw (distinctly, not as its "missing glyph" box).
INDEX_CHARS = "0123456789AJQK"
SUIT_CHARS = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}
#: Font files never used: hairline weights vanish at index size; "Display" cuts lack digits.
_SKIP_WORDS = ("extralight", "thin", "hairline", "display", "lastresort")
_MISSING = "\U0010fffd"  # a private-use code point no font maps: renders its .notdef glyph
_BIG = 240  # font size (px) at which glyphs are rendered once, then scaled

Mask = Image.Image  # mode "L", cropped to its ink


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


def is_slanted(path: Path) -> bool:
    """Whether a font file is an italic or oblique cut (by its name)."""
    name = path.stem.lower()
    return "italic" in name or "oblique" in name


def glyph_mask(path: str, text: str, stroke: int = 0) -> Mask:
    """One string in a font, big, cropped to its ink (fonts are checked by `font_ok`)."""
    mask = _render(_font(path), text, stroke)
    if mask is None:
        raise FontDeckError(f"font {path} draws nothing for {text!r}")
    return mask


def stroke_for(path: str, stem: float) -> int:
    """Extra outline (px at the big size) that makes the font's stems at least `stem` of its
    cap height: real indices are seldom hairline, and a hairline "7" over a wide pip fails
    `check_face`'s rank-over-pip test."""
    one = np.asarray(glyph_mask(path, "1")) >= 128
    row = one[int(one.shape[0] * 0.55)].astype(np.int8)
    edges = np.flatnonzero(np.diff(np.concatenate([[0], row, [0]])))
    widest = int((edges[1::2] - edges[::2]).max()) if len(edges) else 0
    cap = glyph_mask(path, "K").height
    return max(0, math.ceil((stem * cap - widest) / 2))


@functools.lru_cache(maxsize=64)
def _font(path: str) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(path, _BIG)
