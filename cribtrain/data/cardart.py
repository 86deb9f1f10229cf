"""Card art: render the Debian/KDE SVG decks to per-card PNG faces and find their corner indices.

Why this way: `rsvg-convert --export-id` crops many cards wrongly, and pure-Python SVG
bounding boxes miss embedded pictures. So each card is rendered *isolated* (every element
not on its path to the root is hidden) on the full sheet canvas, and cut by the alpha
extent of what is left: the true painted extent, at the final scale, with no neighbours.

The corner-index boxes (rank + suit pip) are found from the rendered pixels: connected
components of ink near the top-left corner, grouped; the bottom-right index is the same
search on the face turned 180 degrees; a four-index deck's top-right and bottom-left indices
are those boxes mirrored where the same ink is printed. Every face and box is checked; a deck
is usable only when all 52 faces pass.

Layout of a rendered deck folder: ``<out>/<deck>/<CODE>.png`` (CODE as in classes.txt,
e.g. ``10H``), optional ``back.png``, and ``boxes.json`` (see `DeckArt`).
"""

from __future__ import annotations

import gzip
import io
import json
import shutil
import subprocess
import xml.etree.ElementTree as ET
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt
from PIL import Image

from vision.detection.detections import CLASS_NAMES
from vision.errors import CardArtError

SUITS = "CDHS"
#: Class names in the order of dev-real's classes.txt: ids 0..51 (one list for the package).
CLASSES: tuple[str, ...] = CLASS_NAMES
CLASS_ID: dict[str, int] = {c: i for i, c in enumerate(CLASSES)}

KDE_DIR = Path("/usr/share/carddecks")
DECKS_CONFIG = Path(__file__).resolve().parents[2] / "datasets" / "decks.json"
#: Ignored by git (inside the rendered-art folder); `fetch_npm_decks` fills it.
NPM_CACHE = Path(__file__).resolve().parents[2] / "datasets" / "cardart" / "_npm"


def held_out(config: Path = DECKS_CONFIG) -> set[str]:
    """Deck designs kept out of training (for testing transfer to unseen designs)."""
    if not config.exists():
        return set()
    return set(json.loads(config.read_text()).get("held_out", []))


FACE_HEIGHT = 350
#: The smallest face rendered: under it the corner indices are too few pixels to box.
MIN_FACE_HEIGHT = 60
KDE_SUIT = {"C": "club", "D": "diamond", "H": "heart", "S": "spade"}
KDE_RANK = {"A": "1", "J": "jack", "Q": "queen", "K": "king"}

Box = tuple[int, int, int, int]
RGBA = npt.NDArray[np.uint8]


def kde_id(code: str) -> str:
    """SVG element id of a card in the KDE decks (`queen_heart`, `1_spade`)."""
    rank, suit = code[:-1], code[-1]
    return f"{KDE_RANK.get(rank, rank)}_{KDE_SUIT[suit]}"


@dataclass
class DeckArt:
    """One rendered deck as stored in ``boxes.json``.

    ``boxes[code]`` holds the top-left (``tl``) and bottom-right (``br``) index boxes as
    ``[x0, y0, x1, y1]`` pixel bounds (x1, y1 exclusive) in the face PNG (cards whose index
    was not found have no entry). ``cards[code]`` is the per-card verdict
    ``{"ok": bool, "problems": [...]}``; ``ok`` (deck) means all 52 cards pass, ``usable``
    means at least `MIN_CARDS` pass and nothing is wrong with the deck as a whole, so the
    passing cards (`ok_codes`) can be used and the failing ones (`failed`) left out.
    """

    name: str
    size: tuple[int, int]  # (width, height) of every face PNG
    boxes: dict[str, dict[str, Box]]
    ok: bool = True
    problems: list[str] = field(default_factory=list)
    backs: list[str] = field(default_factory=list)
    cards: dict[str, dict[str, Any]] = field(default_factory=dict)
    usable: bool | None = None  # None: derive from `ok`
    meta: dict[str, Any] = field(default_factory=dict)  # source, licence, ...

    def __post_init__(self) -> None:
        if self.usable is None:
            self.usable = self.ok

    def card_ok(self, code: str) -> bool:
        """Whether one card passed (decks stored before per-card verdicts: the deck's `ok`)."""
        if code not in self.boxes:
            return False
        if code in self.cards:
            return bool(self.cards[code].get("ok", False))
        return self.ok

    @property
    def ok_codes(self) -> list[str]:
        """Codes of the passing cards, in class order."""
        return [c for c in CLASSES if self.card_ok(c)]

    @property
    def failed(self) -> list[str]:
        """Codes of the cards to leave out."""
        return [c for c in CLASSES if not self.card_ok(c)]

    def to_json(self) -> dict[str, Any]:
        """Plain-JSON form (lists, not tuples)."""
        return {
            "name": self.name,
            "size": list(self.size),
            "ok": self.ok,
            "usable": self.usable,
            "n_ok": len(self.ok_codes),
            "failed": self.failed,
            "problems": self.problems,
            "backs": self.backs,
            "meta": self.meta,
            "cards": self.cards,
            "boxes": {c: {k: list(v) for k, v in b.items()} for c, b in self.boxes.items()},
        }

    @staticmethod
    def from_json(data: dict[str, Any]) -> DeckArt:
        """Inverse of `to_json` (also reads the older form without per-card verdicts)."""
        boxes: dict[str, dict[str, Box]] = {
            c: {k: (int(v[0]), int(v[1]), int(v[2]), int(v[3])) for k, v in b.items()}
            for c, b in data["boxes"].items()
        }
        ok = bool(data.get("ok", True))
        usable = data.get("usable")
        return DeckArt(
            name=str(data["name"]),
            size=(int(data["size"][0]), int(data["size"][1])),
            boxes=boxes,
            ok=ok,
            problems=[str(p) for p in data.get("problems", [])],
            backs=[str(b) for b in data.get("backs", [])],
            cards={str(c): dict(v) for c, v in data.get("cards", {}).items()},
            usable=ok if usable is None else bool(usable),
            meta=dict(data.get("meta", {})),
        )


#: A deck is usable (its passing cards used) when at least this many of its 52 cards pass.
MIN_CARDS = 36


def card_of(problem: str) -> str | None:
    """The card code a problem line is about (``"10H/br: ..."`` -> ``10H``), or None."""
    head = problem.split(":", 1)[0].split("/", 1)[0].strip()
    return head if head in CLASS_ID else None


def judge_cards(
    problems: Sequence[str],
    boxes: dict[str, dict[str, Box]],
    exclude: dict[str, str] | None = None,
    min_cards: int = MIN_CARDS,
) -> tuple[dict[str, dict[str, Any]], list[str], bool, bool]:
    """Per-card verdicts from a deck's problem lines.

    A card passes when its index boxes were found and no problem names it; `exclude` (code ->
    reason) fails cards by hand. Problems that name no card concern the whole deck and make it
    unusable. Returns (cards, deck_problems, ok, usable).
    """
    per: dict[str, list[str]] = {c: [] for c in CLASSES}
    deck_probs: list[str] = []
    for p in problems:
        code = card_of(p)
        if code is None:
            deck_probs.append(p)
        else:
            per[code].append(p)
    for code, reason in (exclude or {}).items():
        if code in per:
            per[code].append(f"{code}: excluded ({reason})")
    cards: dict[str, dict[str, Any]] = {}
    for code in CLASSES:
        probs = per[code] if code in boxes else (per[code] or [f"{code}: no index found"])
        cards[code] = {"ok": not probs, "problems": probs}
    n_ok = sum(1 for v in cards.values() if v["ok"])
    ok = n_ok == 52 and not deck_probs
    usable = n_ok >= min_cards and not deck_probs
    return cards, deck_probs, ok, usable


# ----------------------------------------------------------------------------- rendering

_KEEP_TAGS = {"defs", "metadata", "style", "namedview", "title", "desc"}


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _refs(elem: ET.Element) -> set[str]:
    """Ids an element's subtree refers to (href, url(#id)), so they are never hidden."""
    out: set[str] = set()
    for e in elem.iter():
        for key, val in e.attrib.items():
            if _local(key) == "href" and val.startswith("#"):
                out.add(val[1:])
            start = val.find("url(#")
            while start >= 0:
                end = val.find(")", start)
                out.add(val[start + 5 : end].strip("'\""))
                start = val.find("url(#", end)
    return out


class _Sheet:
    """A parsed SVG sheet that can be serialised with all but one element hidden."""

    def __init__(self, svg_path: Path) -> None:
        raw = svg_path.read_bytes()
        if raw[:2] == b"\x1f\x8b":
            raw = gzip.decompress(raw)
        for prefix, uri in (
            ("", "http://www.w3.org/2000/svg"),
            ("xlink", "http://www.w3.org/1999/xlink"),
            ("sodipodi", "http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd"),
            ("inkscape", "http://www.inkscape.org/namespaces/inkscape"),
        ):
            ET.register_namespace(prefix, uri)
        self.root = ET.fromstring(raw)
        self.parent: dict[ET.Element, ET.Element] = {c: p for p in self.root.iter() for c in p}
        self.by_id: dict[str, ET.Element] = {
            e.attrib["id"]: e for e in self.root.iter() if "id" in e.attrib
        }

    def _protected(self, target: ET.Element) -> set[ET.Element]:
        """Elements (and their ancestors) that the target references, transitively."""
        seen: set[str] = set()
        todo = list(_refs(target))
        keep: set[ET.Element] = set()
        while todo:
            ref = todo.pop()
            if ref in seen or ref not in self.by_id:
                continue
            seen.add(ref)
            elem = self.by_id[ref]
            todo.extend(_refs(elem))
            node: ET.Element | None = elem
            while node is not None:
                keep.add(node)
                node = self.parent.get(node)
        return keep

    def isolated(self, elem_id: str) -> bytes:
        """SVG bytes showing only `elem_id` (and whatever it references)."""
        target = self.by_id[elem_id]
        chain: list[ET.Element] = []
        node: ET.Element | None = target
        while node is not None:
            chain.append(node)
            node = self.parent.get(node)
        keep = set(chain) | self._protected(target)
        changed: list[tuple[ET.Element, str | None]] = []
        for anc in chain[1:]:
            for child in anc:
                if child in keep or _local(child.tag) in _KEEP_TAGS:
                    continue
                changed.append((child, child.get("style")))
                child.set("style", (child.get("style") or "") + ";display:none")
        for anc in chain:  # a hidden layer or card would hide the target too
            style = anc.get("style")
            if style and "display:none" in style.replace(" ", ""):
                changed.append((anc, style))
                anc.set("style", style.replace(" ", "").replace("display:none", "display:inline"))
        try:
            return ET.tostring(self.root)
        finally:
            for elem, style in changed:
                if style is None:
                    elem.attrib.pop("style", None)
                else:
                    elem.set("style", style)


def _rsvg(svg: bytes, width: int, window: Box | None = None) -> RGBA:
    """Render SVG bytes with the sheet `width` px wide; only `window` (x0, y0, x1, y1) if given.

    Rendering just a window keeps each isolated card cheap at full resolution.
    """
    cmd = ["rsvg-convert", "-w", str(width), "-f", "png"]
    if window is not None:
        x0, y0, x1, y1 = window
        cmd += [
            f"--left={-x0}px",
            f"--top={-y0}px",
            f"--page-width={x1 - x0}px",
            f"--page-height={y1 - y0}px",
        ]
    png = subprocess.run(
        cmd,
        input=svg,
        capture_output=True,
        check=True,
    ).stdout
    img = Image.open(io.BytesIO(png)).convert("RGBA")
    return np.asarray(img).copy()


def _alpha_bbox(rgba: RGBA, thresh: int = 128) -> Box | None:
    ys, xs = np.nonzero(rgba[:, :, 3] >= thresh)
    if len(xs) == 0:
        return None
    return int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1


def _cut(rgba: RGBA) -> RGBA | None:
    """Crop to the largest opaque blob: the card, without stray bits of referenced neighbours."""
    mask = (rgba[:, :, 3] >= 128).astype(np.uint8)
    n, lab, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if n < 2:
        return None
    big = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    x, y, w, h = (int(v) for v in stats[big, :4])
    out = rgba[y : y + h, x : x + w].copy()
    sub = lab[y : y + h, x : x + w]
    out[(sub != big) & (sub != 0)] = 0
    return out


# ----------------------------------------------------------------------------- index boxes


def _ink_mask(face: RGBA, margin: int | None = None) -> npt.NDArray[np.bool_]:
    """Pixels that differ clearly from the card's paper colour (inside the card outline).

    `margin`: px of the card's edge left out (its outline); default 2% of the width.
    """
    h, w = face.shape[:2]
    rgb = face[:, :, :3].astype(np.int16)
    alpha = face[:, :, 3] >= 200
    # paper = median colour of the corner window (mostly paper on every design)
    win = rgb[: h // 3, : w // 3][alpha[: h // 3, : w // 3]]
    paper = np.median(win.reshape(-1, 3), axis=0) if len(win) else np.array([255, 255, 255])
    diff = np.abs(rgb - paper.astype(np.int16)).max(axis=2)
    iters = max(2, round(w * 0.02)) if margin is None else margin
    inside = alpha
    if iters > 0:
        inside = cv2.erode(
            alpha.astype(np.uint8), np.ones((3, 3), np.uint8), iterations=iters
        ).astype(bool)
    result: npt.NDArray[np.bool_] = (diff > 70) & inside
    return result


#: Finder settings tried in turn, (edge margin px or None = default, gap scale): the first
#: gives the boxes measured so far; the others recover indices printed at the very edge
#: (konqi-modern) and pips set further below the rank (nicu-white's 10s).
FINDER_VARIANTS: tuple[tuple[int | None, float], ...] = (
    (None, 1.0),
    (1, 1.0),
    (None, 1.8),
    (1, 1.8),
    (0, 1.0),
)


def find_index_box(face: RGBA, margin: int | None = None, gap: float = 1.0) -> Box | None:
    """Box around the top-left corner index (rank glyph + suit pip) of an upright face.

    Why heuristics: the decks have no index geometry, only pictures. The index is the ink
    nearest the top-left corner, grown by nearby blobs into a small column; blobs that run
    out of the search window (frames, pictures) and thin lines (frame rules) are ignored.
    `margin` and `gap` as in `FINDER_VARIANTS`.
    """
    h, w = face.shape[:2]
    ww, wh = int(w * 0.30), int(h * 0.50)
    ink = _ink_mask(face, margin)[:wh, :ww].astype(np.uint8)
    n, _lab, stats, _cent = cv2.connectedComponentsWithStats(ink, connectivity=8)
    min_area = max(4, int(w * h * 0.00015))
    blobs: list[Box] = []
    for i in range(1, n):
        x, y, bw, bh, area = (int(v) for v in stats[i])
        if area < min_area or x + bw >= ww - 1 or y + bh >= wh - 1:
            continue
        if bw > 0.25 * w or bh > 0.3 * h:
            continue
        if max(bw, bh) < 0.025 * h:  # specks of paper texture
            continue
        thin = min(bw, bh)
        if thin <= max(2, 0.012 * w) and max(bw, bh) > 6 * thin:  # a rule, not a glyph
            continue
        blobs.append((x, y, x + bw, y + bh))
    if not blobs:
        return None
    seed = min(blobs, key=lambda b: (b[0] + b[2]) / 2 / w + (b[1] + b[3]) / 2 / h)
    group = seed
    gap_y, gap_x = 0.035 * h * gap, 0.03 * w
    changed = True
    while changed:
        changed = False
        for b in blobs:
            gx0, gy0, gx1, gy1 = group
            if b[0] >= gx0 and b[1] >= gy0 and b[2] <= gx1 and b[3] <= gy1:
                continue
            x_overlap = min(gx1, b[2]) - max(gx0, b[0])
            y_overlap = min(gy1, b[3]) - max(gy0, b[1])
            below = 0 <= b[1] - gy1 <= gap_y or (y_overlap > 0 and b[1] >= gy0)
            side = y_overlap > 0.3 * min(gy1 - gy0, b[3] - b[1]) and (-gap_x <= b[0] - gx1 <= gap_x)
            col = x_overlap > 0.3 * min(gx1 - gx0, b[2] - b[0])
            if (below and col) or side:
                new = (min(gx0, b[0]), min(gy0, b[1]), max(gx1, b[2]), max(gy1, b[3]))
                if new[2] - new[0] > 0.24 * w or new[3] - new[1] > 0.40 * h:
                    continue
                group = new
                changed = True
    return group


def _boxes_with(face: RGBA, margin: int | None, gap: float) -> dict[str, Box] | None:
    h, w = face.shape[:2]
    tl = find_index_box(face, margin, gap)
    rot = find_index_box(np.ascontiguousarray(face[::-1, ::-1]), margin, gap)
    if tl is None or rot is None:
        return None
    br = (w - rot[2], h - rot[3], w - rot[0], h - rot[1])
    return {"tl": tl, "br": br}


def index_box_candidates(face: RGBA, code: str = "AS") -> list[dict[str, Box]]:
    """Index boxes from every finder variant that passes `check_face`, best first."""
    out: list[dict[str, Box]] = []
    for margin, gap in FINDER_VARIANTS:
        b = _boxes_with(face, margin, gap)
        if b is not None and not _box_problems(check_face(code, face, b)) and b not in out:
            out.append(b)
    return out


def _box_problems(probs: list[str]) -> list[str]:
    """The problems about the index boxes (not the face's shape)."""
    return [p for p in probs if "/" in p.split(":", 1)[0] or "no index" in p]


def index_boxes(face: RGBA, code: str = "AS") -> dict[str, Box] | None:
    """Top-left and bottom-right index boxes; the latter found on the face turned 180°.

    The finder variants are tried in turn and the first whose boxes pass `check_face` wins;
    when none passes, the default variant's boxes (or None) come back, to be reported.
    """
    cands = index_box_candidates(face, code)
    if cands:
        return cands[0]
    return _boxes_with(face, *FINDER_VARIANTS[0])


def find_deck_boxes(
    faces: dict[str, RGBA], usual_place: bool = False
) -> tuple[dict[str, dict[str, Box]], list[str]]:
    """Index boxes of a deck's faces and the problems found, per card.

    A card whose passing boxes lie off the deck's usual index place gets its other passing
    variants tried (nearest the usual place wins). With `usual_place` (decks checked by eye:
    an index touching the art or the frame gets the pip alone boxed), a corner whose box
    still fails, or lies off that place, takes the usual place's box when that one passes.
    A four-index deck's cards also get their ``tr`` and ``bl`` boxes (`mirrored_corners`).
    """
    boxes: dict[str, dict[str, Box]] = {}
    cands: dict[str, list[dict[str, Box]]] = {}
    for code, face in faces.items():
        cands[code] = index_box_candidates(face, code)
        b = cands[code][0] if cands[code] else index_boxes(face, code)
        if b is not None:
            boxes[code] = b
    if not faces:
        return boxes, []
    h, w = next(iter(faces.values())).shape[:2]
    good = {c: boxes[c] for c in boxes if cands.get(c)}
    if len(good) >= 8:
        med = {
            k: np.median(np.array([b[k] for b in good.values()], float), axis=0)
            for k in ("tl", "br")
        }
        for code, options in cands.items():
            if len(options) > 1:
                boxes[code] = min(options, key=lambda b: _off_place(b, med, (w, h)))
        if usual_place:
            usual = {k: _as_box(med[k]) for k in med}
            for code, face in faces.items():
                placed = _at_usual_place(code, face, boxes.get(code, {}), usual, (w, h))
                if len(placed) == 2:
                    boxes[code] = placed
    probs = [p for code, face in faces.items() for p in check_face(code, face, boxes.get(code))]
    probs.extend(_deck_consistency(boxes, (w, h), only=set(good)))
    mirrored = {code: mirrored_corners(faces[code], found) for code, found in boxes.items()}
    if sum(map(bool, mirrored.values())) >= FOUR_INDEX_SHARE * len(boxes):
        boxes = {code: found | mirrored[code] for code, found in boxes.items()}
    return boxes, probs


#: A four-index deck (Dondorf, xskat-french) prints its top-right and bottom-left indices where
#: the top-left and bottom-right ones lie mirrored left to right. A mirrored box is taken as an
#: index when the ink there matches the original's this closely (intersection over union of
#: the two ink masks, the best of shifts up to `MIRROR_SHIFT` of the box's height).
MIRROR_MATCH = 0.6
MIRROR_SHIFT = 0.08
#: A deck is taken for a four-index one when at least this share of its cards match: a court
#: card's picture can mirror its own index (the small standard test deck's QC does).
FOUR_INDEX_SHARE = 0.5


def mirrored_box(box: Box, width: int) -> Box:
    """`box` mirrored left to right on a face `width` pixels wide."""
    return (width - box[2], box[1], width - box[0], box[3])


def mirrored_corners(face: RGBA, boxes: dict[str, Box]) -> dict[str, Box]:
    """The ``tr`` and ``bl`` indices of a four-index face: ``tl`` and ``br`` mirrored, kept
    where the same glyphs are printed there (an index is printed, never mirrored, so its ink
    matches the original's unmirrored). Two-index decks have pips or nothing there."""
    h, w = face.shape[:2]
    ink = _ink_mask(face)
    found: dict[str, Box] = {}
    for source, target in (("tl", "tr"), ("br", "bl")):
        if source not in boxes:
            continue
        x0, y0, x1, y1 = boxes[source]
        glyphs = ink[y0:y1, x0:x1]
        if not glyphs.any():
            continue
        mirror = mirrored_box(boxes[source], w)
        best, at = 0.0, mirror
        reach = max(1, round(MIRROR_SHIFT * (y1 - y0)))
        for dx in range(-reach, reach + 1):
            for dy in range(-reach, reach + 1):
                m0, n0, m1, n1 = mirror[0] + dx, mirror[1] + dy, mirror[2] + dx, mirror[3] + dy
                if m0 < 0 or n0 < 0 or m1 > w or n1 > h:
                    continue
                there = ink[n0:n1, m0:m1]
                union = int((glyphs | there).sum())
                match = int((glyphs & there).sum()) / union if union else 0.0
                if match > best:
                    best, at = match, (m0, n0, m1, n1)
        if best >= MIRROR_MATCH:
            found[target] = at
    return found


def _as_box(values: npt.NDArray[Any]) -> Box:
    x0, y0, x1, y1 = (round(float(v)) for v in values)
    return (x0, y0, x1, y1)


def _at_usual_place(code: str, face: RGBA, own: dict[str, Box], usual: dict[str, Box],
                    size: tuple[int, int]) -> dict[str, Box]:  # fmt: skip
    """`own` with each corner that fails `check_face` or lies off the usual place replaced by
    the usual place's box, where that box passes."""
    placed = dict(own)
    for key, place in usual.items():
        mine = own.get(key)
        if (mine is not None and not _box_problems(check_face(code, face, {key: mine}))
                and _off_place({key: mine}, {key: place}, size) <= 1):  # fmt: skip
            continue
        if not _box_problems(check_face(code, face, {key: place})):
            placed[key] = place
    return placed


def _off_place(b: dict[str, Box], med: dict[str, Any], size: tuple[int, int]) -> float:
    """How far (in units of the allowed distance) a card's boxes lie from the deck's median."""
    w, h = size
    worst = 0.0
    for key in b:
        m = med[key]
        cx, cy = (b[key][0] + b[key][2]) / 2, (b[key][1] + b[key][3]) / 2
        mx, my = (m[0] + m[2]) / 2, (m[1] + m[3]) / 2
        worst = max(worst, abs(cx - mx) / (0.06 * w), abs(cy - my) / (0.06 * h))
    return worst


def check_face(code: str, face: RGBA, boxes: dict[str, Box] | None) -> list[str]:
    """Problems with one rendered face (empty list when it looks like a usable card)."""
    h, w = face.shape[:2]
    probs: list[str] = []
    if not 0.6 <= w / h <= 0.8:
        probs.append(f"{code}: aspect {w / h:.2f}")
    if (face[:, :, 3] >= 128).mean() < 0.85:
        probs.append(f"{code}: face not filled")
    if boxes is None:
        probs.append(f"{code}: no index found")
        return probs
    for key, (x0, y0, x1, y1) in boxes.items():
        bw, bh = x1 - x0, y1 - y0
        cx, cy = (x0 + x1) / 2 / w, (y0 + y1) / 2 / h
        if key == "br":
            cx, cy = 1 - cx, 1 - cy
        wide = code.startswith("10")  # "10" is two glyphs side by side
        if not (0.025 * h <= bw <= (0.26 if wide else 0.2) * w and 0.06 * h <= bh <= 0.40 * h):
            probs.append(f"{code}/{key}: index size {bw}x{bh}")
        if not (cx < 0.22 and cy < 0.25):
            probs.append(f"{code}/{key}: index not at corner ({cx:.2f},{cy:.2f})")
        if bh < bw * (0.6 if wide else 0.9):
            probs.append(f"{code}/{key}: index not upright {bw}x{bh}")
        elif not _stacked(face, (x0, y0, x1, y1)):
            probs.append(f"{code}/{key}: index lacks rank above pip")
    return probs


def _paper(face: RGBA) -> npt.NDArray[Any]:
    """The card's paper colour: median of a thin strip just inside its outline.

    (The corner window that `_ink_mask` uses can be mostly picture on a small court card.)
    """
    w = face.shape[1]
    alpha = (face[:, :, 3] >= 200).astype(np.uint8)
    k = np.ones((3, 3), np.uint8)
    outer = cv2.erode(alpha, k, iterations=max(2, round(w * 0.02)))
    inner = cv2.erode(outer, k, iterations=max(2, round(w * 0.015)))
    strip = face[:, :, :3][(outer > 0) & (inner == 0)]
    if not len(strip):
        return np.full(3, 255)
    paper: npt.NDArray[Any] = np.median(strip.reshape(-1, 3), axis=0)
    return paper


def _stacked(face: RGBA, box: Box) -> bool:
    """Whether the box holds two bands of ink one above the other (rank over suit pip).

    Catches boxes around the rank alone: separated by an empty row, each band at least 2% of
    the card height tall.
    """
    x0, y0, x1, y1 = box
    h = face.shape[0]
    sub = face[y0:y1, x0:x1]
    if sub.size == 0:
        return False
    rgb = sub[:, :, :3].astype(np.int16)
    paper = _paper(face)
    ink = (np.abs(rgb - paper.astype(np.int16)).max(axis=2) > 70) & (sub[:, :, 3] >= 200)
    counts = ink.sum(axis=1)
    # a row with a pixel or two of ink still separates (glyphs touching after downscaling)
    rows = counts > max(1, int(0.2 * counts.max())) if counts.size else counts > 0
    bands: list[int] = []
    run = 0
    for r in rows:
        if r:
            run += 1
        elif run:
            bands.append(run)
            run = 0
    if run:
        bands.append(run)
    return sum(1 for b in bands if b >= 0.02 * h) >= 2


def _deck_consistency(
    boxes: dict[str, dict[str, Box]], size: tuple[int, int], only: set[str] | None = None
) -> list[str]:
    """Flag cards whose index box is far from the deck's typical place (a wrong blob).

    The typical place is the median over the cards in `only` (default: all); needs 8 cards.
    """
    w, h = size
    probs: list[str] = []
    ref = [c for c in boxes if only is None or c in only]
    if len(ref) < 8:
        return probs
    for key in ("tl", "br"):
        arr = np.array([boxes[c][key] for c in ref], dtype=float)
        med = np.median(arr, axis=0)
        for code, b in boxes.items():
            cx, cy = (b[key][0] + b[key][2]) / 2, (b[key][1] + b[key][3]) / 2
            mx, my = (med[0] + med[2]) / 2, (med[1] + med[3]) / 2
            if abs(cx - mx) > 0.06 * w or abs(cy - my) > 0.06 * h:
                probs.append(f"{code}/{key}: index off the deck's usual place")
    return probs


# ----------------------------------------------------------------------------- decks


def find_kde_decks(root: Path = KDE_DIR) -> dict[str, Path]:
    """Deck name -> SVG(Z) file for the installed KDE card decks."""
    out: dict[str, Path] = {}
    for d in sorted(root.glob("svg-*")):
        files = sorted(d.glob("*.svg*"))
        if files:
            out[d.name.removeprefix("svg-")] = files[0]
    return out


def render_deck(
    name: str, svg_path: Path, out_dir: Path, height: int = FACE_HEIGHT, jobs: int = 2
) -> DeckArt:
    """Render the 52 faces (+ back) of one deck into ``out_dir/name`` with ``boxes.json``."""
    sheet = _Sheet(svg_path)
    missing = [c for c in CLASSES if kde_id(c) not in sheet.by_id]
    if missing:
        return DeckArt(
            name, (0, 0), {}, ok=False, usable=False, problems=[f"missing ids {missing[:4]}..."]
        )
    ids = {c: kde_id(c) for c in CLASSES}
    if "back" in sheet.by_id:
        ids["back"] = "back"
    svgs = {c: sheet.isolated(i) for c, i in ids.items()}
    # Pass 1, cheap: where is each card on a small sheet, and what scale gives `height` px?
    probe_w = 1600

    def probe(code: str) -> tuple[str, Box | None]:
        return code, _alpha_bbox(_rsvg(svgs[code], probe_w), thresh=1)

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        where = dict(pool.map(probe, list(ids)))
    heights = [b[3] - b[1] for b in where.values() if b is not None]
    if not heights:
        return DeckArt(name, (0, 0), {}, ok=False, usable=False, problems=["cards render empty"])
    zoom = height * 1.25 / float(np.median(heights))
    sheet_w = round(probe_w * zoom)

    def work(code: str) -> tuple[str, RGBA | None]:
        # Pass 2: render only the card's window at full scale, cut by its alpha.
        b = where[code]
        if b is None:
            return code, None
        pad = 3 + 0.05 * (b[3] - b[1])
        win = (
            int((b[0] - pad) * zoom),
            int((b[1] - pad) * zoom),
            int((b[2] + pad) * zoom),
            int((b[3] + pad) * zoom),
        )
        return code, _cut(_rsvg(svgs[code], sheet_w, win))

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        cuts = dict(pool.map(work, list(ids)))
    shapes = [f.shape[:2] for c, f in cuts.items() if f is not None and c != "back"]
    if not shapes:
        return DeckArt(name, (0, 0), {}, ok=False, usable=False, problems=["faces render empty"])
    mh, mw = np.median(np.array(shapes), axis=0)
    for code, raw in list(cuts.items()):
        # a card drawn at another scale in the sheet (gm-paris' courts): same shape, other
        # size. Render it again at its own scale rather than upscale a small picture.
        if raw is None or code == "back":
            continue
        rh, rw = raw.shape[:2]
        if rh < mh * 0.97 and abs((rw / rh) / (mw / mh) - 1) <= 0.03:
            f = mh / rh
            b = where[code]
            assert b is not None
            pad = 3 + 0.05 * (b[3] - b[1])
            z = zoom * f
            win = (
                int((b[0] - pad) * z),
                int((b[1] - pad) * z),
                int((b[2] + pad) * z),
                int((b[3] + pad) * z),
            )
            cuts[code] = _cut(_rsvg(svgs[code], round(probe_w * z), win))
    return save_deck(name, cuts, out_dir, height, _kde_meta(svg_path))


def _kde_meta(svg_path: Path) -> dict[str, Any]:
    return {
        "source": f"KDE card deck {svg_path}",
        "licence": "as the Debian package kdegames-card-data-kf5 states it (its copyright file)",
        "format": "kde-svg",
    }


def _decks_config() -> dict[str, Any]:
    return dict(json.loads(DECKS_CONFIG.read_text())) if DECKS_CONFIG.exists() else {}


def _deck_exclusions(name: str, config: dict[str, Any]) -> dict[str, str]:
    """Cards of `name` that ``datasets/decks.json`` ("exclude_cards") leaves out by hand."""
    entry = config.get("exclude_cards", {}).get(name)
    if not entry:
        return {}
    out: dict[str, str] = {}
    for pat in entry.get("cards", []):
        codes = [pat[:-1] + s for s in SUITS] if pat.endswith("*") else [pat]
        for c in codes:
            if c in CLASS_ID:
                out[c] = str(entry.get("reason", "excluded by hand"))
    return out


def judge_deck(
    name: str,
    faces: dict[str, RGBA],
    size: tuple[int, int],
    extra: Sequence[str] = (),
    backs: Sequence[str] = (),
    meta: dict[str, Any] | None = None,
) -> DeckArt:
    """Find and check every face's index boxes and give the per-card and deck verdicts.

    `extra`: problems found while rendering (card-level ones start with the card's code).
    """
    config = _decks_config()
    boxes, probs = find_deck_boxes(faces, name in config.get("index_at_usual_place", []))
    probs = list(extra) + probs
    if len(faces) < 52:
        probs.append(f"{52 - len(faces)} faces render empty")
    if size[0] >= size[1]:
        probs.append(f"landscape faces {size[0]}x{size[1]}")
    cards, deck_probs, ok, usable = judge_cards(probs, boxes, _deck_exclusions(name, config))
    probs = deck_probs + [p for c in CLASSES for p in cards[c]["problems"]]
    return DeckArt(
        name,
        size,
        boxes,
        ok=ok,
        problems=probs,
        backs=list(backs),
        cards=cards,
        usable=usable,
        meta=dict(meta or {}),
    )


def save_deck(
    name: str,
    cuts: dict[str, RGBA | None],
    out_dir: Path,
    height: int = FACE_HEIGHT,
    meta: dict[str, Any] | None = None,
) -> DeckArt:
    """Write cut card pictures (code -> RGBA, "back" optional) as a deck folder, judged.

    Faces are resized to the deck's median shape at `height` px; a face whose shape differs
    by over 3% is still written but fails (named in its problems).
    """
    deck_dir = Path(out_dir) / name
    shapes = [f.shape[:2] for c, f in cuts.items() if f is not None and c != "back"]
    if not shapes:
        return DeckArt(name, (0, 0), {}, ok=False, usable=False, problems=["faces render empty"])
    mh, mw = np.median(np.array(shapes), axis=0)
    size = (round(height * mw / mh), height)
    if deck_dir.exists():
        shutil.rmtree(deck_dir)
    deck_dir.mkdir(parents=True)
    extra: list[str] = []
    faces: dict[str, RGBA] = {}
    for code in CLASSES:
        raw = cuts.get(code)
        if raw is None:
            continue
        rh, rw = raw.shape[:2]
        if abs(rh / mh - 1) > 0.03 or abs(rw / mw - 1) > 0.03:
            extra.append(f"{code}: size {rw}x{rh} vs deck {mw:.0f}x{mh:.0f}")
        face = np.asarray(Image.fromarray(raw).resize(size, Image.Resampling.LANCZOS))
        faces[code] = face
        Image.fromarray(face).save(deck_dir / f"{code}.png", optimize=True)
    backs: list[str] = []
    back = cuts.get("back")
    if back is not None:
        Image.fromarray(back).resize(size, Image.Resampling.LANCZOS).save(deck_dir / "back.png")
        backs.append("back.png")
    art = judge_deck(name, faces, size, extra, backs, meta)
    (deck_dir / "boxes.json").write_text(json.dumps(art.to_json(), indent=1))
    return art


def write_index(out_dir: Path | str) -> dict[str, Any]:
    """``out_dir/index.json``: every rendered deck's verdict (ok, usable, passing cards)."""
    out = Path(out_dir)
    summary: dict[str, Any] = {}
    for bj in sorted(out.glob("*/boxes.json")):
        art = DeckArt.from_json(json.loads(bj.read_text()))
        summary[art.name] = {
            "ok": art.ok,
            "usable": art.usable,
            "n_ok": len(art.ok_codes),
            "failed": art.failed,
            "licence": art.meta.get("licence", ""),
            "problems": art.problems[:20],
        }
    (out / "index.json").write_text(json.dumps(summary, indent=1))
    return summary


def render_all(
    out_dir: Path | str,
    decks: Sequence[str] | None = None,
    height: int = FACE_HEIGHT,
    source: Path = KDE_DIR,
    npm_dir: Path | str | None = NPM_CACHE,
) -> dict[str, DeckArt]:
    """Render every installed KDE deck and every npm deck design found (or the named ones).

    The whole card-art set-up, from the repository root::

        apt-get install -y kdegames-card-data-kf5 librsvg2-bin nodejs npm
        python -c "from cribtrain.data.cardart import fetch_npm_decks; fetch_npm_decks()"
        cribcam cardart datasets/cardart

    (`fetch_npm_decks` puts the pinned npm packages in `NPM_CACHE`; `cribcam cardart` renders
    the KDE decks and, when their packages are in `npm_dir`, the npm decks.) Writes
    ``out_dir/index.json`` summarising every deck folder's verdict.
    """
    from tqdm import tqdm

    if height < MIN_FACE_HEIGHT:
        raise CardArtError(f"face height {height} px is too small (at least {MIN_FACE_HEIGHT})")
    found = find_kde_decks(source)
    npm_names = [d.name for d in NPM_DECKS]
    unknown = sorted(set(decks or ()) - set(found) - set(npm_names))
    if unknown:
        known = ", ".join(sorted({*found, *npm_names}))
        raise CardArtError(f"no deck named {', '.join(unknown)}; the decks known here: {known}")
    if shutil.which("rsvg-convert") is None:
        raise CardArtError("rsvg-convert missing: apt-get install librsvg2-bin")
    names = [n for n in decks if n in found] if decks else list(found)
    if not found and not npm_dir:
        raise CardArtError(f"no decks in {source}: apt-get install kdegames-card-data-kf5")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    result: dict[str, DeckArt] = {}
    for name in tqdm(names, desc="decks", unit="deck"):
        result[name] = render_deck(name, found[name], out, height)
    wanted_npm = [n for n in decks if n in npm_names] if decks else npm_names
    if npm_dir is not None and Path(npm_dir).exists() and wanted_npm:
        result.update(render_npm_decks(out, npm_dir, height, wanted_npm))
    write_index(out)
    return result


# ----------------------------------------------------------------------------- npm decks

#: npm packages with free deck art (licence as the registry states it), pinned versions.
NPM_PACKAGES: dict[str, str] = {
    "svg-cards": "4.0.2",
    "cardsJS": "1.1.1",
    "@letele/playing-cards": "0.1.0",
    "@heruka_urgyen/react-playing-cards": "0.5.0",
    "@younestouati/playing-cards-standard-deck": "3.0.0",
}

_NPM_SUIT = {"C": "club", "D": "diamond", "H": "heart", "S": "spade"}
_NPM_RANK = {"A": "1", "J": "jack", "Q": "queen", "K": "king"}


@dataclass(frozen=True)
class NpmDeck:
    """Where one deck design lies in an unpacked npm package.

    `pattern` is a path under the package root with ``{code}``-style fields filled by `files`.
    """

    name: str
    package: str
    licence: str
    note: str
    kind: str  # "svg" (one file a card), "png", or "react" (components in a JS bundle)
    faces: dict[str, str]  # code -> path under the package root ("react": component name)
    back: str | None


def _npm_specs() -> list[NpmDeck]:
    def k(
        fmt: str,
        rank: dict[str, str] | None = None,
        suit: dict[str, str] | None = None,
    ) -> dict[str, str]:
        out = {}
        for c in CLASSES:
            r, s = c[:-1], c[-1]
            out[c] = fmt.format(r=(rank or {}).get(r, r), s=(suit or {}).get(s, s))
        return out

    num = {"A": "1", "J": "11", "Q": "12", "K": "13"}
    low = {s: s.lower() for s in SUITS}
    her = "src/images/{v}/{{r}}{{s}}.svg"
    specs = [
        NpmDeck(
            "npm-svg-cards",
            "svg-cards",
            "LGPL-2.1",
            "SVG-cards 4.0.2 by David Bellot (French court figures, black rim)",
            "png",
            k("png/2x/{s}_{r}.png", _NPM_RANK, _NPM_SUIT),
            "png/2x/back.png",
        ),
        NpmDeck(
            "npm-cardsjs",
            "cardsJS",
            "MIT",
            "cardsJS 1.1.1 faces (same design family as npm-younestouati)",
            "svg",
            k("cards/{r}{s}.svg"),
            "cards/Blue_Back.svg",
        ),
        NpmDeck(
            "npm-younestouati",
            "@younestouati/playing-cards-standard-deck",
            "LGPL-3.0",
            "playing-cards-standard-deck 3.0.0 (near-identical art to npm-cardsjs)",
            "svg",
            k("cards/{r}{s}.svg", num, low),
            "cards/back.svg",
        ),
        NpmDeck(
            "npm-letele",
            "@letele/playing-cards",
            "CC0-1.0",
            "@letele/playing-cards 0.1.0: React components, Adrian Kennard's SVG cards",
            "react",
            k("{s}{r}", {"A": "a", "J": "j", "Q": "q", "K": "k"}),
            "B1",
        ),
    ]
    for v, note in (
        ("4color", "four-colour suits"),
        ("2color-bf", "big indices"),
        ("4color-bf", "four-colour suits, big indices"),
    ):
        specs.append(
            NpmDeck(
                f"npm-heruka-{v}",
                "@heruka_urgyen/react-playing-cards",
                "MIT",
                f"react-playing-cards 0.5.0 images/{v}: Kennard-style cards, {note}",
                "svg",
                k(her.format(v=v), {"10": "T"}),
                "src/images/back.svg",
            )
        )
    return specs


NPM_DECKS: list[NpmDeck] = _npm_specs()

_REACT_TO_SVG_JS = r"""
// Extract @letele/playing-cards React components as plain SVG files.
import fs from 'fs';
const [src, out] = process.argv.slice(2);
let code = fs.readFileSync(src, 'utf8');
code = code.replace(/^import .*$/mg, '');
const m = code.match(/export \{([^}]*)\};?/);
code = code.replace(/export \{[^}]*\};?/, '');
const names = m[1].split(',').map(s => s.trim().split(/\s+as\s+/));
const esc = s => String(s).replace(/&/g,'&amp;').replace(/</g,'&lt;').replace(/"/g,'&quot;');
const special = {className: 'class', xlinkHref: 'xlink:href',
  xmlnsXlink: 'xmlns:xlink', xmlSpace: 'xml:space'};
const attr = k => special[k] || k.replace(/[A-Z]/g, c => '-' + c.toLowerCase());
const keepCamel = new Set(['viewBox', 'preserveAspectRatio', 'patternUnits', 'gradientUnits',
  'gradientTransform', 'patternTransform', 'stdDeviation', 'textLength', 'lengthAdjust',
  'clipPathUnits', 'markerWidth', 'markerHeight', 'refX', 'refY', 'startOffset']);
class El { constructor(s) { this.s = s; } }
const React = { createElement(tag, props, ...kids) {
  let a = '';
  for (const [k, v] of Object.entries(props || {})) {
    if (v === undefined || v === null || k.startsWith('aria')) continue;
    let val = v;
    if (k === 'style' && typeof v === 'object')
      val = Object.entries(v).map(([sk, sv]) => attr(sk) + ':' + sv).join(';');
    a += ' ' + (keepCamel.has(k) ? k : attr(k)) + '="' + esc(val) + '"';
  }
  const inner = kids.flat(Infinity)
    .filter(k => k !== null && k !== undefined && k !== false)
    .map(k => k instanceof El ? k.s : esc(k)).join('');
  return new El('<' + tag + a + '>' + inner + '</' + tag + '>');
}};
const _extends = Object.assign;
const fn = new Function('React', '_extends',
  code + '\nreturn {' + names.map(([a]) => a).join(',') + '};');
const comps = fn(React, _extends);
fs.mkdirSync(out, { recursive: true });
for (const [local, exported] of names) {
  let svg = comps[local]({}).s;
  if (!svg.includes('xmlns:xlink')) svg = svg.replace('<svg', '<svg xmlns:xlink="http://www.w3.org/1999/xlink"');
  fs.writeFileSync(out + '/' + exported + '.svg', '<?xml version="1.0" encoding="UTF-8"?>\n' + svg);
}
console.log(names.length);
"""


def fetch_npm_decks(cache: Path | str = NPM_CACHE) -> Path:
    """`npm pack` the deck packages (pinned in `NPM_PACKAGES`) into `cache`; skips present ones.

    Needs the `npm` client and the registry; the .tgz files are all later steps need.
    """
    out = Path(cache)
    out.mkdir(parents=True, exist_ok=True)
    for pkg, ver in NPM_PACKAGES.items():
        tgz = f"{pkg.lstrip('@').replace('/', '-')}-{ver}.tgz"
        if not (out / tgz).exists():
            subprocess.run(
                ["npm", "pack", f"{pkg}@{ver}"], cwd=out, check=True, capture_output=True
            )
    return out


def _unpacked(package_dir: Path, package: str, tmp: Path) -> Path | None:
    """Root of `package` in `package_dir`: a node_modules tree, or a `npm pack` .tgz there."""
    for cand in (package_dir / "node_modules" / package, package_dir / package):
        if (cand / "package.json").exists():
            return cand
    ver = NPM_PACKAGES.get(package, "")
    tgz = package_dir / f"{package.lstrip('@').replace('/', '-')}-{ver}.tgz"
    if not tgz.exists():
        return None
    dest = tmp / package.replace("/", "__")
    if not dest.exists():
        import tarfile

        dest.mkdir(parents=True)
        with tarfile.open(tgz) as tf:
            tf.extractall(dest, filter="data")
    return dest / "package"


def _react_svgs(root: Path, tmp: Path) -> Path:
    """Turn the @letele bundle's React components into SVG files (one per export), via node."""
    out = tmp / "letele-svg"
    if not out.exists():
        script = tmp / "react_to_svg.mjs"
        script.write_text(_REACT_TO_SVG_JS)
        subprocess.run(
            ["node", str(script), str(root / "dist" / "index.esm.js"), str(out)],
            check=True,
            capture_output=True,
        )
    return out


def _load_picture(path: Path, height: int) -> RGBA | None:
    """One card picture (SVG rendered a little larger than `height`, or PNG), cut by alpha."""
    if not path.exists():
        return None
    if path.suffix == ".svg":
        png = subprocess.run(
            ["rsvg-convert", "-h", str(round(height * 1.1)), "-f", "png", str(path)],
            capture_output=True,
            check=True,
        ).stdout
        rgba = np.asarray(Image.open(io.BytesIO(png)).convert("RGBA")).copy()
    else:
        rgba = np.asarray(Image.open(path).convert("RGBA")).copy()
    return _cut(rgba)


def render_npm_decks(
    out_dir: Path | str,
    package_dir: Path | str = NPM_CACHE,
    height: int = FACE_HEIGHT,
    decks: Sequence[str] | None = None,
) -> dict[str, DeckArt]:
    """Render the npm deck designs (`NPM_DECKS`) found in `package_dir` into `out_dir`.

    `package_dir`: where `fetch_npm_decks` put the .tgz files (or an ``npm install --prefix``
    folder). Decks whose package is missing are skipped. Each deck's ``boxes.json`` keeps its
    package, version, licence and source in ``meta``. Needs rsvg-convert, and node for
    @letele/playing-cards.
    """
    import tempfile

    pdir = Path(package_dir)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    result: dict[str, DeckArt] = {}
    with tempfile.TemporaryDirectory(prefix="npmdecks") as t:
        tmp = Path(t)
        for spec in NPM_DECKS:
            if decks and spec.name not in decks:
                continue
            root = _unpacked(pdir, spec.package, tmp)
            if root is None:
                continue
            if spec.kind == "react":
                if shutil.which("node") is None:
                    continue
                base = _react_svgs(root, tmp)
                paths = {c: base / f"{f}.svg" for c, f in spec.faces.items()}
                back = base / f"{spec.back}.svg" if spec.back else None
            else:
                paths = {c: root / f for c, f in spec.faces.items()}
                back = root / spec.back if spec.back else None
            todo = dict(paths)
            if back is not None:
                todo["back"] = back
            with ThreadPoolExecutor(max_workers=2) as pool:
                cuts = dict(
                    zip(
                        todo,
                        pool.map(lambda p: _load_picture(p, height), todo.values()),
                        strict=True,
                    )
                )
            ver = NPM_PACKAGES.get(spec.package, "")
            meta = {
                "source": f"npm {spec.package}@{ver}",
                "package": spec.package,
                "version": ver,
                "licence": spec.licence,
                "note": spec.note,
                "format": f"npm-{spec.kind}",
            }
            result[spec.name] = save_deck(spec.name, cuts, out, height, meta)
    return result


def load_deck(deck_dir: Path | str, only_ok: bool = False) -> tuple[DeckArt, dict[str, RGBA]]:
    """Read a rendered deck folder: its boxes and its RGBA faces by class code.

    By default all 52 faces (as before per-card verdicts); with `only_ok`, only the cards that
    passed (`DeckArt.ok_codes`), each with its boxes in ``art.boxes``.
    """
    d = Path(deck_dir)
    art = DeckArt.from_json(json.loads((d / "boxes.json").read_text()))
    codes = art.ok_codes if only_ok else list(CLASSES)
    faces = {c: np.asarray(Image.open(d / f"{c}.png").convert("RGBA")) for c in codes}
    return art, faces


def iter_deck_dirs(root: Path | str, only_ok: bool = True, partial: bool = False) -> Iterator[Path]:
    """Deck folders under `root`: those whose boxes.json says ok (all 52 cards pass), or,
    with `partial`, usable (enough cards pass; load them with ``load_deck(d, only_ok=True)``);
    every rendered deck when `only_ok` is off."""
    for bj in sorted(Path(root).glob("*/boxes.json")):
        data = json.loads(bj.read_text())
        ok = bool(data.get("ok", False))
        if not only_ok or ok or (partial and bool(data.get("usable", ok))):
            yield bj.parent


def export_small(deck_dir: Path | str, out_dir: Path | str, height: int = 120) -> DeckArt:
    """Copy a rendered deck at a smaller face height (compressed), e.g. as a test fixture."""
    art, faces = load_deck(deck_dir)
    s = height / art.size[1]
    size = (round(art.size[0] * s), height)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    for code, face in faces.items():
        img = Image.fromarray(face).resize(size, Image.Resampling.LANCZOS)
        img.quantize(256).save(out / f"{code}.png", optimize=True)
    boxes = {
        c: {
            k: (
                int(v[0] * s),
                int(v[1] * s),
                min(size[0], int(np.ceil(v[2] * s))),
                min(size[1], int(np.ceil(v[3] * s))),
            )
            for k, v in b.items()
        }
        for c, b in art.boxes.items()
    }
    backs: list[str] = []
    for b in art.backs:
        src = Path(deck_dir) / b
        Image.open(src).convert("RGBA").resize(size, Image.Resampling.LANCZOS).quantize(256).save(
            out / b, optimize=True
        )
        backs.append(b)
    small = DeckArt(art.name, size, boxes, art.ok, art.problems, backs)
    (out / "boxes.json").write_text(json.dumps(small.to_json(), indent=1))
    return small
