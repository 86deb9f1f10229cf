"""Card art: render the Debian/KDE SVG decks to per-card PNG faces and find their corner indices.

Why this way: `rsvg-convert --export-id` crops many cards wrongly, and pure-Python SVG
bounding boxes miss embedded pictures. So each card is rendered *isolated* (every element
not on its path to the root is hidden) on the full sheet canvas, and cut by the alpha
extent of what is left: the true painted extent, at the final scale, with no neighbours.

The corner-index boxes (rank + suit pip) are found from the rendered pixels: connected
components of ink near the top-left corner, grouped; the bottom-right index is the same
search on the face turned 180 degrees. Every face and box is checked; a deck is usable
only when all 52 faces pass.

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

SUITS = "CDHS"
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
#: Class names in the order of dev-real's classes.txt: ids 0..51.
CLASSES: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS)
CLASS_ID: dict[str, int] = {c: i for i, c in enumerate(CLASSES)}

KDE_DIR = Path("/usr/share/carddecks")
FACE_HEIGHT = 350
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
    ``[x0, y0, x1, y1]`` pixel bounds (x1, y1 exclusive) in the face PNG.
    """

    name: str
    size: tuple[int, int]  # (width, height) of every face PNG
    boxes: dict[str, dict[str, Box]]
    ok: bool = True
    problems: list[str] = field(default_factory=list)
    backs: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """Plain-JSON form (lists, not tuples)."""
        return {
            "name": self.name,
            "size": list(self.size),
            "ok": self.ok,
            "problems": self.problems,
            "backs": self.backs,
            "boxes": {c: {k: list(v) for k, v in b.items()} for c, b in self.boxes.items()},
        }

    @staticmethod
    def from_json(data: dict[str, Any]) -> DeckArt:
        """Inverse of `to_json`."""
        boxes: dict[str, dict[str, Box]] = {
            c: {k: (int(v[0]), int(v[1]), int(v[2]), int(v[3])) for k, v in b.items()}
            for c, b in data["boxes"].items()
        }
        return DeckArt(
            name=str(data["name"]),
            size=(int(data["size"][0]), int(data["size"][1])),
            boxes=boxes,
            ok=bool(data.get("ok", True)),
            problems=[str(p) for p in data.get("problems", [])],
            backs=[str(b) for b in data.get("backs", [])],
        )


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
        self.parent: dict[ET.Element, ET.Element] = {
            c: p for p in self.root.iter() for c in p
        }
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
        cmd += [f"--left={-x0}px", f"--top={-y0}px", f"--page-width={x1 - x0}px",
                f"--page-height={y1 - y0}px"]
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


def _ink_mask(face: RGBA) -> npt.NDArray[np.bool_]:
    """Pixels that differ clearly from the card's paper colour (inside the card outline)."""
    h, w = face.shape[:2]
    rgb = face[:, :, :3].astype(np.int16)
    alpha = face[:, :, 3] >= 200
    # paper = median colour of the corner window (mostly paper on every design)
    win = rgb[: h // 3, : w // 3][alpha[: h // 3, : w // 3]]
    paper = np.median(win.reshape(-1, 3), axis=0) if len(win) else np.array([255, 255, 255])
    diff = np.abs(rgb - paper.astype(np.int16)).max(axis=2)
    inside = cv2.erode(
        alpha.astype(np.uint8), np.ones((3, 3), np.uint8), iterations=max(2, round(w * 0.02))
    ).astype(bool)
    result: npt.NDArray[np.bool_] = (diff > 70) & inside
    return result


def find_index_box(face: RGBA) -> Box | None:
    """Box around the top-left corner index (rank glyph + suit pip) of an upright face.

    Why heuristics: the decks have no index geometry, only pictures. The index is the ink
    nearest the top-left corner, grown by nearby blobs into a small column; blobs that run
    out of the search window (frames, pictures) are ignored.
    """
    h, w = face.shape[:2]
    ww, wh = int(w * 0.30), int(h * 0.42)
    ink = _ink_mask(face)[:wh, :ww].astype(np.uint8)
    n, _lab, stats, _cent = cv2.connectedComponentsWithStats(ink, connectivity=8)
    min_area = max(4, int(w * h * 0.00015))
    blobs: list[Box] = []
    for i in range(1, n):
        x, y, bw, bh, area = (int(v) for v in stats[i])
        if area < min_area or x + bw >= ww - 1 or y + bh >= wh - 1:
            continue
        if bw > 0.25 * w or bh > 0.3 * h:
            continue
        blobs.append((x, y, x + bw, y + bh))
    if not blobs:
        return None
    seed = min(blobs, key=lambda b: (b[0] + b[2]) / 2 / w + (b[1] + b[3]) / 2 / h)
    group = seed
    gap_y, gap_x = 0.035 * h, 0.03 * w
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
            side = y_overlap > 0.3 * min(gy1 - gy0, b[3] - b[1]) and (
                -gap_x <= b[0] - gx1 <= gap_x
            )
            col = x_overlap > 0.3 * min(gx1 - gx0, b[2] - b[0])
            if (below and col) or side:
                new = (min(gx0, b[0]), min(gy0, b[1]), max(gx1, b[2]), max(gy1, b[3]))
                if new[2] - new[0] > 0.24 * w or new[3] - new[1] > 0.36 * h:
                    continue
                group = new
                changed = True
    return group


def index_boxes(face: RGBA) -> dict[str, Box] | None:
    """Top-left and bottom-right index boxes; the latter found on the face turned 180°."""
    h, w = face.shape[:2]
    tl = find_index_box(face)
    rot = find_index_box(np.ascontiguousarray(face[::-1, ::-1]))
    if tl is None or rot is None:
        return None
    br = (w - rot[2], h - rot[3], w - rot[0], h - rot[1])
    return {"tl": tl, "br": br}


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
        if not (0.025 * h <= bw <= (0.26 if wide else 0.2) * w and 0.06 * h <= bh <= 0.34 * h):
            probs.append(f"{code}/{key}: index size {bw}x{bh}")
        if not (cx < 0.22 and cy < 0.25):
            probs.append(f"{code}/{key}: index not at corner ({cx:.2f},{cy:.2f})")
        if bh < bw * (0.6 if wide else 0.9):
            probs.append(f"{code}/{key}: index not upright {bw}x{bh}")
    return probs


def _deck_consistency(boxes: dict[str, dict[str, Box]], size: tuple[int, int]) -> list[str]:
    """Flag cards whose index box is far from the deck's typical place (a wrong blob)."""
    w, h = size
    probs: list[str] = []
    for key in ("tl", "br"):
        arr = np.array([b[key] for b in boxes.values()], dtype=float)
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
    deck_dir = out_dir / name
    if missing:
        return DeckArt(name, (0, 0), {}, ok=False, problems=[f"missing ids {missing[:4]}..."])
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
        return DeckArt(name, (0, 0), {}, ok=False, problems=["cards render empty"])
    zoom = height * 1.25 / float(np.median(heights))
    sheet_w = round(probe_w * zoom)

    def work(code: str) -> tuple[str, RGBA | None]:
        # Pass 2: render only the card's window at full scale, cut by its alpha.
        b = where[code]
        if b is None:
            return code, None
        pad = 3 + 0.05 * (b[3] - b[1])
        win = (int((b[0] - pad) * zoom), int((b[1] - pad) * zoom),
               int((b[2] + pad) * zoom), int((b[3] + pad) * zoom))
        return code, _cut(_rsvg(svgs[code], sheet_w, win))

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        cuts = dict(pool.map(work, list(ids)))
    probs: list[str] = []
    faces_raw = {c: cuts[c] for c in CLASSES}
    shapes = [f.shape[:2] for f in faces_raw.values() if f is not None]
    if len(shapes) < 52:
        probs.append("some faces render empty")
    if not shapes:
        return DeckArt(name, (0, 0), {}, ok=False, problems=probs)
    mh, mw = np.median(np.array(shapes), axis=0)
    # portrait decks only; a landscape deck is reported, not rotated
    size = (round(height * mw / mh), height)
    if deck_dir.exists():
        shutil.rmtree(deck_dir)
    deck_dir.mkdir(parents=True)
    boxes: dict[str, dict[str, Box]] = {}
    for code, raw in faces_raw.items():
        if raw is None:
            continue
        rh, rw = raw.shape[:2]
        if abs(rh / mh - 1) > 0.03 or abs(rw / mw - 1) > 0.03:
            probs.append(f"{code}: size {rw}x{rh} vs deck {mw:.0f}x{mh:.0f}")
        face = np.asarray(Image.fromarray(raw).resize(size, Image.Resampling.LANCZOS))
        b = index_boxes(face)
        probs.extend(check_face(code, face, b))
        if b is not None:
            boxes[code] = b
        Image.fromarray(face).save(deck_dir / f"{code}.png", optimize=True)
    if len(boxes) == 52:
        probs.extend(_deck_consistency(boxes, size))
    backs: list[str] = []
    back = cuts.get("back")
    if back is not None:
        Image.fromarray(back).resize(size, Image.Resampling.LANCZOS).save(deck_dir / "back.png")
        backs.append("back.png")
    art = DeckArt(name, size, boxes, ok=not probs and len(boxes) == 52, problems=probs,
                  backs=backs)
    (deck_dir / "boxes.json").write_text(json.dumps(art.to_json(), indent=1))
    return art


def render_all(
    out_dir: Path | str, decks: Sequence[str] | None = None, height: int = FACE_HEIGHT,
    source: Path = KDE_DIR,
) -> dict[str, DeckArt]:
    """Render every installed KDE deck (or the named ones) into `out_dir`; one-step setup.

    Needs `rsvg-convert` (apt: librsvg2-bin) and the decks (apt: kdegames-card-data-kf5).
    Writes ``out_dir/index.json`` summarising which decks passed the checks.
    """
    from tqdm import tqdm

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    if shutil.which("rsvg-convert") is None:
        raise RuntimeError("rsvg-convert missing: apt-get install librsvg2-bin")
    found = find_kde_decks(source)
    if not found:
        raise RuntimeError(f"no decks in {source}: apt-get install kdegames-card-data-kf5")
    names = list(decks) if decks else list(found)
    result: dict[str, DeckArt] = {}
    for name in tqdm(names, desc="decks", unit="deck"):
        result[name] = render_deck(name, found[name], out, height)
    summary = {n: {"ok": a.ok, "problems": a.problems[:20]} for n, a in result.items()}
    (out / "index.json").write_text(json.dumps(summary, indent=1))
    return result


def load_deck(deck_dir: Path | str) -> tuple[DeckArt, dict[str, RGBA]]:
    """Read a rendered deck folder: its boxes and the 52 RGBA faces by class code."""
    d = Path(deck_dir)
    art = DeckArt.from_json(json.loads((d / "boxes.json").read_text()))
    faces = {c: np.asarray(Image.open(d / f"{c}.png").convert("RGBA")) for c in CLASSES}
    return art, faces


def recheck_deck(deck_dir: Path | str) -> DeckArt:
    """Re-find and re-check the index boxes of an already rendered deck (no re-rendering)."""
    d = Path(deck_dir)
    old = DeckArt.from_json(json.loads((d / "boxes.json").read_text()))
    faces = {c: np.asarray(Image.open(d / f"{c}.png").convert("RGBA")) for c in CLASSES}
    probs: list[str] = [p for p in old.problems if ": size " in p]
    boxes: dict[str, dict[str, Box]] = {}
    for code, face in faces.items():
        b = index_boxes(face)
        probs.extend(check_face(code, face, b))
        if b is not None:
            boxes[code] = b
    if len(boxes) == 52:
        probs.extend(_deck_consistency(boxes, old.size))
    art = DeckArt(old.name, old.size, boxes, ok=not probs and len(boxes) == 52,
                  problems=probs, backs=old.backs)
    (d / "boxes.json").write_text(json.dumps(art.to_json(), indent=1))
    return art


def iter_deck_dirs(root: Path | str, only_ok: bool = True) -> Iterator[Path]:
    """Deck folders under `root` (those whose boxes.json says ok, unless `only_ok` is off)."""
    for bj in sorted(Path(root).glob("*/boxes.json")):
        if not only_ok or json.loads(bj.read_text()).get("ok", False):
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
            k: (int(v[0] * s), int(v[1] * s), min(size[0], int(np.ceil(v[2] * s))),
                min(size[1], int(np.ceil(v[3] * s))))
            for k, v in b.items()
        }
        for c, b in art.boxes.items()
    }
    backs: list[str] = []
    for b in art.backs:
        src = Path(deck_dir) / b
        Image.open(src).convert("RGBA").resize(size, Image.Resampling.LANCZOS).quantize(
            256
        ).save(out / b, optimize=True)
        backs.append(b)
    small = DeckArt(art.name, size, boxes, art.ok, art.problems, backs)
    (out / "boxes.json").write_text(json.dumps(small.to_json(), indent=1))
    return small
