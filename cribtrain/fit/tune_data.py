"""Training crops for a deck tune: the player's confirmed patches, varied, plus general crops.

The confirmed patches are few (one or two per card), so each is cut many times the way the
camera could see it: any rotation, a little perspective, blur, light and colour changes, noise
and JPEG. A share of general crops from other deck designs keeps the tuned reader from
forgetting what it knew (the player may one day bring another deck, or a card be misread).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np
import numpy.typing as npt

from vision.decks.enroll import PATCH_SPAN, READ_PX, crop_from_patch
from vision.detection.crops import crop_index
from vision.detection.detections import CLASS_NAMES

if TYPE_CHECKING:
    from cribtrain.data.cardart import DeckArt

Image = npt.NDArray[np.uint8]
Rng = np.random.Generator
#: A rendered deck as `cribtrain.data.cardart.load_deck` gives it: its boxes and its faces by card.
LoadedDeck = tuple["DeckArt", dict[str, Image]]
ROOT = Path(__file__).resolve().parents[2]
#: General crops come from the rendered training decks when present, else the small test deck.
CARDART = ROOT / "datasets" / "cardart"
FIXTURE_DECK = ROOT / "tests" / "fixtures" / "deck-standard"


def varied_crop(patch: Image, rng: Rng) -> Image:
    """One training crop of a patch as a camera might see it (see module doc)."""
    size = patch.shape[0]
    jitter = rng.uniform(-0.1, 0.1, (4, 2)) * size
    corners = np.array([[0, 0], [size, 0], [size, size], [0, size]], np.float32)
    warp = cv2.getPerspectiveTransform(corners, (corners + jitter).astype(np.float32))
    warped = cv2.warpPerspective(patch, warp, (size, size), borderMode=cv2.BORDER_REPLICATE)
    crop = crop_from_patch(np.asarray(warped, np.uint8), margin=float(rng.uniform(0.15, 0.35)),
                           angle=float(rng.uniform(0, 360)))  # fmt: skip
    return photometric(crop, rng)


#: Share of a deck's crops seen in a fan or a stack: another of its cards lies over the index's
#: neighbourhood (`covered_patch`), for the cards the shipped reader misses most (one corner
#: beside another card's). Off: at 0.3 it read the real decks no better (docs/decks.md).
COVERED_SHARE = 0.0
#: Where the covering card's edge lies, from the index's centre, in index sizes: under 0.5 it
#: cuts the index (up to 35 % of its side covered), over 0.5 only its margin.
COVER_EDGE = (0.15, 1.0)


def covered_patch(patch: Image, cover: Image, rng: Rng) -> Image:
    """`patch` with `cover` (another card's patch of the same deck) lying over it: beyond a
    straight edge at a random angle, `COVER_EDGE` index sizes from the index's centre, the
    covering card's corner, turned so that its index faces the edge as a fanned or stacked
    card's does, and a thin shadow along the edge."""
    size = patch.shape[0]
    side = size / PATCH_SPAN
    angle = rng.uniform(0, 2 * np.pi)
    along = np.array([np.cos(angle), np.sin(angle)])
    edge = float(rng.uniform(*COVER_EDGE)) * side
    centre = (size - 1) / 2
    # the cover's index about an index size beyond the edge: its card's own edge near the line
    shift = along * (edge + float(rng.uniform(0.5, 0.7)) * side)
    turn = cv2.getRotationMatrix2D((centre, centre), -float(np.degrees(angle)), 1.0)
    turn[:, 2] += shift
    moved = cv2.warpAffine(cover, turn, (size, size), borderMode=cv2.BORDER_REFLECT)
    ys, xs = np.mgrid[0:size, 0:size].astype(np.float32) - centre
    beyond = xs * along[0] + ys * along[1] - edge
    out = patch.copy()
    out[beyond > 0] = moved[beyond > 0]
    shadow = (beyond > -1.5) & (beyond <= 0)
    out[shadow] = (out[shadow].astype(np.float32) * rng.uniform(0.3, 0.7)).astype(np.uint8)
    return out


#: Share of crops turned grey: a quarter of the game scenes are (as many real photos), and
#: there a suit is told by its shape alone; see MODEL_CARD.md, deck enrolment.
GREY_SHARE = 0.25


#: Share of crops seen as a far or small card: shrunk, then enlarged back to the crop's side.
FAR_CARD_SHARE = 0.6
#: A far card's crop is shrunk to this share of its side, drawn log-uniformly: its glyph is
#: then 7-40 px tall, about half of them under 16 px, as a whole table in a 640-px frame shows.
#: Drawn uniformly from 0.2, the tune saw few that small and read them worse than the base
#: reader did (MODEL_CARD.md, "Deck enrolment").
FAR_CARD_SIDE = (0.16, 0.9)


def far_card_side(side: int, rng: Rng) -> int:
    """The side (px) a far card's crop of `side` px is shrunk to (`FAR_CARD_SIDE`)."""
    low, high = np.log(FAR_CARD_SIDE)
    return max(8, round(side * float(np.exp(rng.uniform(low, high)))))


def photometric(crop: Image, rng: Rng) -> Image:
    """Light, colour cast or grey, blur, low resolution, noise and JPEG."""
    img: npt.NDArray[np.float32] = crop.astype(np.float32) * np.float32(rng.uniform(0.6, 1.3))
    img = img + np.float32(rng.uniform(-30, 30))
    if rng.random() < GREY_SHARE:  # a grey camera: luminance, as the scene generator's
        img[:] = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)[..., None]
    else:
        img *= rng.uniform(0.9, 1.1, 3).astype(np.float32)
    if rng.random() < 0.5:
        img = np.asarray(cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 1.2)), np.float32)
    if rng.random() < FAR_CARD_SHARE:
        side = crop.shape[0]
        small = far_card_side(side, rng)
        shrunk = cv2.resize(img, (small, small), interpolation=cv2.INTER_AREA)
        img = np.asarray(
            cv2.resize(shrunk, (side, side), interpolation=cv2.INTER_LINEAR), np.float32
        )
    img += rng.normal(0, rng.uniform(0, 6), img.shape).astype(np.float32)
    out = np.clip(img, 0, 255).astype(np.uint8)
    if rng.random() < 0.5:
        quality = int(rng.integers(40, 96))
        ok, encoded = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, quality])
        if ok:
            out = np.asarray(cv2.imdecode(encoded, cv2.IMREAD_COLOR), np.uint8)
    return out


def general_decks(exclude: Iterable[str] = ()) -> list[Path]:
    """Deck folders for general crops: rendered training decks (held-out designs and
    `exclude` left out), else the committed test deck."""
    from cribtrain.data.cardart import held_out

    skip = held_out() | set(exclude)
    decks = []
    if CARDART.exists():
        decks = [d for d in sorted(CARDART.iterdir())
                 if (d / "boxes.json").exists() and d.name not in skip
                 and json.loads((d / "boxes.json").read_text()).get("boxes")]  # fmt: skip
    return decks or ([FIXTURE_DECK] if FIXTURE_DECK.exists() else [])


def load_deck_faces(decks: Sequence[Path]) -> list[LoadedDeck]:
    """The decks' cards that passed their checks, loaded once for every kind of crop."""
    from cribtrain.data.cardart import load_deck

    return [load_deck(d, only_ok=True) for d in decks]


def general_crops(loaded: Sequence[LoadedDeck], per_class: int, rng: Rng) -> dict[str, list[Image]]:
    """`per_class` varied crops of every card from randomly chosen decks (faces on a table)."""
    out: dict[str, list[Image]] = {card: [] for card in CLASS_NAMES}
    if not loaded:
        return out
    for card in CLASS_NAMES:
        holders = [(art, faces) for art, faces in loaded if card in faces and card in art.boxes]
        for _ in range(per_class if holders else 0):
            art, faces = holders[int(rng.integers(len(holders)))]
            corner = list(art.boxes[card].values())[int(rng.integers(len(art.boxes[card])))]
            out[card].append(_face_crop(faces[card], np.asarray(corner, np.float64), rng))
    return out


def none_crops(decks: Sequence[LoadedDeck], count: int, rng: Rng) -> list[Image]:
    """`count` varied crops of what is no index, for a reader with a "not an index" class
    (`vision.detection.reader_classes.NOT_AN_INDEX`): a box of an index's size in the middle of a
    face,
    where the pips and the court figure are, which stage 1 boxes on close-ups. A tune keeps
    the class alive with them; the player's deck gives no such crops."""
    loaded = [(art, faces) for art, faces in decks if faces]
    out: list[Image] = []
    for _ in range(count if loaded else 0):
        art, faces = loaded[int(rng.integers(len(loaded)))]
        card = sorted(faces)[int(rng.integers(len(faces)))]
        face = faces[card]
        height, width = face.shape[:2]
        corners = list(art.boxes.get(card, {}).values())
        x1, y1, x2, y2 = corners[0] if corners else (0, 0, width / 8, height / 6)
        side_x, side_y = (x2 - x1) * rng.uniform(0.8, 1.6), (y2 - y1) * rng.uniform(0.8, 1.6)
        cx, cy = width * rng.uniform(0.3, 0.7), height * rng.uniform(0.25, 0.75)
        box = np.array([cx - side_x / 2, cy - side_y / 2, cx + side_x / 2, cy + side_y / 2])
        out.append(_face_crop(face, box, rng))
    return out


def _face_crop(face: Image, box: npt.NDArray[np.float64], rng: Rng) -> Image:
    """A face (RGBA) laid on a plain table colour, one index cut at a random angle."""
    height, width = face.shape[:2]
    pad = height // 3
    table = rng.uniform(20, 200, 3)
    canvas = np.empty((height + 2 * pad, width + 2 * pad, 3), np.float32)
    canvas[:] = table
    alpha = face[:, :, 3:4].astype(np.float32) / 255
    bgr = face[:, :, 2::-1].astype(np.float32)
    canvas[pad : pad + height, pad : pad + width] = bgr * alpha + table * (1 - alpha)
    margin, angle = float(rng.uniform(0.15, 0.35)), float(rng.uniform(0, 360))
    crop = crop_index(canvas.astype(np.uint8), box + pad, READ_PX, margin=margin, angle=angle)
    return photometric(crop, rng)


def write_class_tree(root: Path, crops: dict[str, list[Image]], prefix: str) -> int:
    """Write crops as `root/<class>/<prefix>-<n>.jpg` (ultralytics' classify layout): a folder
    for every card, and for any other class `crops` holds (`NOT_AN_INDEX`)."""
    written = 0
    for card in [*CLASS_NAMES, *sorted(set(crops) - set(CLASS_NAMES))]:
        (root / card).mkdir(parents=True, exist_ok=True)
        for k, crop in enumerate(crops.get(card, [])):
            cv2.imwrite(str(root / card / f"{prefix}-{k:04d}.jpg"), crop,
                        [cv2.IMWRITE_JPEG_QUALITY, 95])  # fmt: skip
            written += 1
    return written


def fill_every_class(source: Path, target: Path) -> int:
    """Copy one crop of each class folder of `source` that `target` has none of; returns how
    many. Ultralytics checks that a validation tree holds every training class (and logs an
    error when not); a tune holds back patches of only some cards."""
    copied = 0
    for folder in sorted(p for p in source.iterdir() if p.is_dir()):
        first = min(folder.glob("*.jpg"), default=None)
        if first is None or any((target / folder.name).glob("*.jpg")):
            continue
        (target / folder.name).mkdir(parents=True, exist_ok=True)
        shutil.copy(first, target / folder.name / first.name)
        copied += 1
    return copied
