"""Procedural card decks drawn from fonts: many extra corner-index designs for training.

Why: the reader is trained on scenes rendered from a few deck designs and reads unseen designs
poorly. Each deck here draws its look (`cribtrain.data.deck_style`: typeface, weight, index size and
place, pip shapes from `cribtrain.data.deck_suits` or a font's suit glyphs, colours) from one seed
(deterministic), renders its 52 faces supersampled (anti-aliased like the SVG renders) and
measures every index box on the finished face with the ink test the scene generator uses
(`cribtrain.data.cardart._ink_mask`), so the labels are exact by construction. The centre (pip grid,
big suit, framed court letter) only has to look card-like. Fonts are found and vetted by
`cribtrain.data.deck_fonts`.

A deck folder has the layout `cribtrain.data.cardart.load_deck` reads: ``<CODE>.png`` faces (RGBA,
rounded corners, transparent outside), ``back.png`` and ``boxes.json`` (`DeckArt`, with
per-card verdicts from `check_face`). Decks with indices in all four corners have ``tl``,
``tr``, ``bl`` and ``br`` boxes (the bottom ones printed turned 180 degrees).

    cribcam fontdecks datasets/fontdecks --count 200 --seed 0
"""

from __future__ import annotations

import argparse
import json
import shutil
from collections.abc import Sequence
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from PIL import Image, ImageDraw

from cribtrain.data.cardart import (
    CLASSES,
    FACE_HEIGHT,
    MIN_FACE_HEIGHT,
    RGBA,
    Box,
    DeckArt,
    _ink_mask,
    check_face,
    judge_cards,
    mirrored_box,
    write_index,
)
from cribtrain.data.deck_fonts import (
    SUIT_CHARS,
    Mask,
    fallback_font_dir,
    font_ok,
    glyph_mask,
    is_slanted,
    stroke_for,
    suit_font_ok,
    usable_fonts,
)
from cribtrain.data.deck_style import DeckStyle, Rgb, pick_style
from cribtrain.data.deck_suits import ASPECT_KNOB, draw_prims, suit_shape
from vision.errors import FontDeckError

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
#: Faces are drawn this many times larger and reduced, for anti-aliased edges.
SS = 3


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
        stroke = stroke_for(style.font, style.stem)
        cap = glyph_mask(style.font, "K", stroke).height
        scale = style.rank_h * self.H / cap
        narrow = 0.16 * self.W  # index widths well inside check_face's limits
        wide = 0.22 * self.W
        self.suits = {s: self._suit_mask(s) for s in SUIT_CHARS}
        self._symbols: dict[tuple[str, int, bool], Mask] = {}
        big: dict[str, tuple[Mask, float, float]] = {}  # rank glyphs, their size on the face
        for rank in RANKS:
            if rank == "10":
                one = glyph_mask(style.font, "1", stroke)
                m = _hcat(one, glyph_mask(style.font, "0", stroke), round(style.ten_gap * cap))
                sx = style.squeeze * style.ten_squeeze
            else:
                m = glyph_mask(style.font, rank, stroke)
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
            return glyph_mask(self.st.suit_font, SUIT_CHARS[suit])
        m = draw_prims(suit_shape(suit, self.st.shape))
        stretch = self.st.shape.get(ASPECT_KNOB.get(suit, ""), 1.0)
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
        letter = glyph_mask(st.font, rank)
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

    The ink test is `_ink_mask`, the one `cribtrain.data.synth.load_decks` measures hulls with. An
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


def check_generated(code: str, face: RGBA, boxes: dict[str, Box]) -> list[str]:
    """`check_face` for every corner: ``tr``/``bl`` are checked as ``tl``/``br`` of the face
    mirrored left-right (`check_face` knows only the two corners of two-index decks)."""
    pair: dict[str, Box] = {k: boxes[k] for k in ("tl", "br") if k in boxes}
    probs = check_face(code, face, pair)
    if "tr" in boxes or "bl" in boxes:
        w = face.shape[1]
        mirror = np.ascontiguousarray(face[:, ::-1])
        other = {
            new: mirrored_box(boxes[old], w)
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
    if height < MIN_FACE_HEIGHT:
        raise FontDeckError(f"face height {height} px is too small (at least {MIN_FACE_HEIGHT})")
    usable = sorted({Path(f) for f in fonts if Path(f).is_file() and font_ok(str(f))})
    if not usable:
        given = ", ".join(str(f) for f in fonts) or "none"
        raise FontDeckError(f"no usable font (each must print 0-9, A, J, Q, K, 10): {given}")
    suit_fonts = [f for f in usable if suit_font_ok(str(f)) and not is_slanted(f)]
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
    """Add `cribcam fontdecks` (called from `cribcam.commands.art.register`)."""
    p = commands.add_parser("fontdecks", help="generate procedural deck designs from fonts")
    p.add_argument("out_dir", type=Path, help="writes OUT/font-000, OUT/font-001, ...")
    p.add_argument("--count", type=int, default=50, help="number of decks (50)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--height", type=int, default=FACE_HEIGHT, help="face height in px")
    p.set_defaults(run=_run)
