"""Training sets for the two stages, cut from labelled scenes (synthetic or real).

Stage 1 (find corner indices, one class) trains on square windows cut from full-size scenes:
glyphs keep the pixel size they have at inference, and a 320-px window costs a quarter of a
640-px image. Stage 2 (read a corner index, 52 classes) trains on crops of each labelled index,
cut from the full-resolution scene with a margin, at every rotation, so a card seen upside down
from across the table reads the same. A reader with a 53rd class, "none", also trains on what
stage 1 boxes that is no index (`write_none_crops`): pips, card art, keys.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt
from tqdm import tqdm

from cribtrain.data.cardart import CLASSES
from cribtrain.measure.evaluate import label_files, photo_files
from vision.detection.crops import crop_index
from vision.detection.detections import Detections, iou_matrix, suppress_overlaps
from vision.detection.finder import IndexFinder
from vision.detection.reader_classes import NOT_AN_INDEX
from vision.reading import CardReader

Image = npt.NDArray[np.uint8]
Boxes = npt.NDArray[np.float32]
#: Stage 1 on one frame: its boxes (N × 4 pixel x1, y1, x2, y2) and their scores (N).
BoxFinder = Callable[[Image], tuple[Boxes, npt.NDArray[np.float32]]]
#: Share of a box that must stay inside a window for the box to be labelled there.
MIN_VISIBLE = 0.6
#: A stage 1 box overlapping every labelled index less than this is no index ("none").
NONE_MAX_IOU = 0.2
#: Stage 1's lowest score the app still reads: every box the reader may be shown.
NONE_MIN_SCORE = 0.1
#: The reader's crops: at most `SCENE_CROPS` indices a synthetic scene (dense scenes would
#: drown the real crops), each at `SCENE_TURNS` turns; a real photo's at `PHOTO_TURNS`, with
#: up to `PHOTO_NONE` "none" crops: they are few, and they hold the clutter the app meets.
SCENE_CROPS, SCENE_TURNS, PHOTO_TURNS, PHOTO_NONE = 12, 2, 8, 40


@dataclass(frozen=True)
class LabelledImage:
    image: Path
    boxes: npt.NDArray[np.float64]  # N × 4 pixel x1, y1, x2, y2
    classes: npt.NDArray[np.int64]  # N class ids 0..51


def read_yolo(image: Path, labels_dir: Path, width: int, height: int) -> LabelledImage:
    """A YOLO label file (class cx cy w h, normalised) as pixel boxes."""
    label = labels_dir / (image.stem + ".txt")
    rows = [line.split() for line in label.read_text().splitlines() if line.strip()]
    data = np.array(rows, dtype=np.float64).reshape(-1, 5)
    cx, cy, w, h = data[:, 1] * width, data[:, 2] * height, data[:, 3] * width, data[:, 4] * height
    boxes = np.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], axis=1)
    return LabelledImage(image, boxes, data[:, 0].astype(np.int64))


def labelled_images(
    folder: Path, names: Iterable[str] | None = None, relabel: Path | None = None
) -> Iterator[tuple[Image, LabelledImage]]:
    """Images of a YOLO folder (images/, labels/) with their boxes; `names` restricts them;
    a label file in `relabel` replaces the folder's own
    (`cribtrain.measure.evaluate.label_files`)."""
    images = photo_files(folder, names)
    for path, label in zip(images, label_files(folder, images, relabel), strict=True):
        pixels = cv2.imread(str(path))
        if pixels is None:
            continue
        height, width = pixels.shape[:2]
        yield np.asarray(pixels, dtype=np.uint8), read_yolo(path, label.parent, width, height)


def write_windows(
    sources: Iterable[tuple[Image, LabelledImage]],
    out_dir: Path,
    *,
    prefix: str,
    size: int = 320,
    per_image: int = 4,
    seed: int = 0,
    card_classes: bool = False,
) -> int:
    """Cut `per_image` random windows (biased to contain indices) from each image, labelled one
    class ("an index"), or each index's card when `card_classes` (the single-stage comparison)."""
    rng = np.random.default_rng(seed)
    (out_dir / "images").mkdir(parents=True, exist_ok=True)
    (out_dir / "labels").mkdir(parents=True, exist_ok=True)
    written = 0
    for pixels, labelled in tqdm(list(sources), desc=f"windows {prefix}", unit="img"):
        height, width = pixels.shape[:2]
        for k in range(per_image):
            x0, y0 = _window_origin(rng, labelled.boxes, width, height, size, k)
            window = pixels[y0 : y0 + size, x0 : x0 + size]
            classes = labelled.classes if card_classes else np.zeros_like(labelled.classes)
            lines = _window_labels(labelled.boxes, classes, x0, y0, size)
            name = f"{prefix}_{labelled.image.stem}_{k}"
            cv2.imwrite(str(out_dir / "images" / f"{name}.jpg"), window,
                        [cv2.IMWRITE_JPEG_QUALITY, 92])  # fmt: skip
            (out_dir / "labels" / f"{name}.txt").write_text("".join(lines))
            written += 1
    return written


def _window_origin(
    rng: np.random.Generator, boxes: npt.NDArray[np.float64], width: int, height: int,
    size: int, k: int,
) -> tuple[int, int]:  # fmt: skip
    if width <= size and height <= size:
        return 0, 0
    if len(boxes) and k % 2 == 0:  # every other window centred near a random index
        box = boxes[rng.integers(len(boxes))]
        cx = (box[0] + box[2]) / 2 + rng.uniform(-size / 3, size / 3)
        cy = (box[1] + box[3]) / 2 + rng.uniform(-size / 3, size / 3)
    else:
        cx, cy = rng.uniform(0, width), rng.uniform(0, height)
    x0 = int(np.clip(cx - size / 2, 0, max(width - size, 0)))
    y0 = int(np.clip(cy - size / 2, 0, max(height - size, 0)))
    return x0, y0


def _window_labels(
    boxes: npt.NDArray[np.float64], classes: npt.NDArray[np.int64], x0: int, y0: int, size: int
) -> list[str]:
    lines = []
    for (x1, y1, x2, y2), cls in zip(boxes, classes, strict=True):
        area = max(x2 - x1, 1e-6) * max(y2 - y1, 1e-6)
        cx1, cy1 = max(x1 - x0, 0), max(y1 - y0, 0)
        cx2, cy2 = min(x2 - x0, size), min(y2 - y0, size)
        if cx2 <= cx1 or cy2 <= cy1 or (cx2 - cx1) * (cy2 - cy1) < MIN_VISIBLE * area:
            continue
        lines.append(f"{cls} {(cx1 + cx2) / 2 / size:.6f} {(cy1 + cy2) / 2 / size:.6f} "
                     f"{(cx2 - cx1) / size:.6f} {(cy2 - cy1) / size:.6f}\n")  # fmt: skip
    return lines


def write_crops(
    sources: Iterable[tuple[Image, LabelledImage]],
    out_dir: Path,
    *,
    prefix: str,
    size: int = 64,
    rotations: int = 3,
    seed: int = 0,
) -> int:
    """Crops of every labelled index into `out_dir/<class name>/`, at random rotations."""
    rng = np.random.default_rng(seed)
    for name in CLASSES:
        (out_dir / name).mkdir(parents=True, exist_ok=True)
    written = 0
    for pixels, labelled in tqdm(list(sources), desc=f"crops {prefix}", unit="img"):
        for i, (box, cls) in enumerate(zip(labelled.boxes, labelled.classes, strict=True)):
            if min(box[2] - box[0], box[3] - box[1]) < 3:
                continue
            stem = out_dir / CLASSES[cls] / f"{prefix}_{labelled.image.stem}_{i}"
            written += write_turned(pixels, box, stem, size, rotations, rng)
    return written


def write_none_crops(
    sources: Iterable[tuple[Image, LabelledImage]],
    finder: BoxFinder,
    out_dir: Path,
    *,
    prefix: str,
    size: int = 64,
    rotations: int = 2,
    seed: int = 0,
    cap: int = 30,
) -> int:
    """Crops of what stage 1 boxes that is no labelled index into `out_dir/none/`
    (`NOT_AN_INDEX`), cut and turned as `write_crops` cuts the indices.

    `finder` is stage 1 as the app runs it (`stage_one_boxes`), so the reader learns to set
    aside the very pips, art and keys it will be shown. At most `cap` per image, the best
    scored (the likeliest to pass for an index), so a busy scene does not drown the cards.
    """
    rng = np.random.default_rng(seed)
    (out_dir / NOT_AN_INDEX).mkdir(parents=True, exist_ok=True)
    written = 0
    for pixels, labelled in tqdm(list(sources), desc=f"none {prefix}", unit="img"):
        for i, box in enumerate(not_indices(finder, pixels, labelled, cap)):
            stem = out_dir / NOT_AN_INDEX / f"{prefix}_{labelled.image.stem}_{i}"
            written += write_turned(pixels, box, stem, size, rotations, rng)
    return written


def write_turned(
    pixels: Image, box: npt.NDArray[np.float64], stem: Path, size: int, rotations: int,
    rng: np.random.Generator, margins: tuple[float, float] = (0.1, 0.4),
) -> int:  # fmt: skip
    """`rotations` crops of one box at `stem`_<r>.jpg, the first as cut, the others at random
    angles, each with a random margin from `margins` (the reader meets loose and tight boxes
    alike)."""
    for r in range(rotations):
        angle = 0.0 if r == 0 else float(rng.uniform(0, 360))
        margin = float(rng.uniform(*margins))
        crop = crop_index(pixels, box, size, margin=margin, angle=angle)
        cv2.imwrite(f"{stem}_{r}.jpg", crop, [cv2.IMWRITE_JPEG_QUALITY, 92])
    return rotations


def not_indices(
    finder: BoxFinder, pixels: Image, labelled: LabelledImage, cap: int
) -> npt.NDArray[np.float64]:
    """Stage 1's boxes apart from every labelled index (all of them in an image without
    labels), each glyph once, the `cap` best scored."""
    boxes, scores = finder(pixels)
    if len(labelled.boxes):
        apart = iou_matrix(boxes, labelled.boxes.astype(np.float32)).max(axis=1) < NONE_MAX_IOU
        boxes, scores = boxes[apart], scores[apart]
    kept = suppress_overlaps(boxes, scores)
    return boxes[kept[np.argsort(-scores[kept], kind="stable")][:cap]].astype(np.float64)


def stage_one_boxes(reader: CardReader) -> BoxFinder:
    """`reader`'s stage 1 as a `BoxFinder`: every box down to the lowest score the app reads,
    pooled over the looks the app may take at a frame (`_look_sides`)."""
    finder = reader.finder

    def find(frame: Image) -> tuple[Boxes, npt.NDArray[np.float32]]:
        sides = _look_sides(finder, frame)
        looks = Detections.concatenate([finder.find(frame, NONE_MIN_SCORE, side) for side in sides])
        return looks.boxes, looks.scores

    return find


def _look_sides(finder: IndexFinder, frame: Image) -> list[int]:
    """The sides stage 1 may read `frame` at: its own, the closer look's where the frame holds
    enough pixels for one, and the far look's."""
    height, width = frame.shape[:2]
    extra = (finder.closer_side_for(width, height), finder.far_side)
    return [finder.side, *(side for side in extra if side is not None)]


def capped(
    sources: Iterable[tuple[Image, LabelledImage]], cap: int, seed: int
) -> Iterator[tuple[Image, LabelledImage]]:
    """At most `cap` indices per scene: dense synthetic scenes would drown the real crops."""
    rng = np.random.default_rng(seed)
    for pixels, labelled in sources:
        if len(labelled.boxes) > cap:
            keep = rng.choice(len(labelled.boxes), cap, replace=False)
            labelled = LabelledImage(labelled.image, labelled.boxes[keep], labelled.classes[keep])
        yield pixels, labelled


def build_sets(
    synth: Sequence[Path],
    synth_val: Path,
    real: Path,
    real_train: Sequence[str],
    out: Path,
    *,
    relabel: Path | None = None,
    none_finder: BoxFinder | None = None,
) -> dict[str, int]:
    """Both stages' training sets: detector windows and reader crops from one or more synthetic
    sets, plus the real photos of the training part of the split (more windows and rotations
    each: they are few), with the corrected labels in `relabel` where it has them; with
    `none_finder`, the "none" crops too (`write_none_sets`)."""
    counts = build_windows(synth, synth_val, real, real_train, out / "detector", relabel=relabel)
    cls = out / "reader"
    crops = 0
    for k, folder in enumerate(synth):
        crops += write_crops(
            capped(labelled_images(folder), SCENE_CROPS, 4 + 10 * k),
            cls / "train",
            prefix=_prefix(k),
            rotations=SCENE_TURNS,
            seed=4 + 10 * k,
        )
    counts["reader/train"] = crops + write_crops(
        labelled_images(real, real_train, relabel),
        cls / "train",
        prefix="real",
        rotations=PHOTO_TURNS,
        seed=5,
    )
    counts["reader/val"] = write_crops(
        capped(labelled_images(synth_val), SCENE_CROPS, 6),
        cls / "val",
        prefix="val",
        rotations=SCENE_TURNS,
        seed=6,
    )
    if none_finder is not None:
        counts |= write_none_sets(none_finder, synth, synth_val, real, real_train, cls, relabel)
    return counts


def write_none_sets(
    finder: BoxFinder, synth: Sequence[Path], synth_val: Path, real: Path,
    real_train: Sequence[str], reader: Path, relabel: Path | None,
) -> dict[str, int]:  # fmt: skip
    """The "none" crops beside the reader crops in `reader`, from the same scenes; the real
    photos give more each (more rotations, a higher cap): they are few, and they hold the
    clutter the app meets. Every label counts here (no `capped`): a labelled index left out
    would be filed as no index."""
    synthetic = sum(
        write_none_crops(labelled_images(folder), finder, reader / "train", prefix=_prefix(k),
                         seed=7 + 10 * k)
        for k, folder in enumerate(synth)
    )  # fmt: skip
    photos = write_none_crops(labelled_images(real, real_train, relabel), finder,
                              reader / "train", prefix="real", rotations=PHOTO_TURNS,
                              cap=PHOTO_NONE, seed=8)  # fmt: skip
    return {
        f"reader/train/{NOT_AN_INDEX}": synthetic + photos,
        f"reader/val/{NOT_AN_INDEX}": write_none_crops(
            labelled_images(synth_val), finder, reader / "val", prefix="val", seed=9
        ),
    }


def build_windows(
    synth: Sequence[Path],
    synth_val: Path,
    real: Path,
    real_train: Sequence[str],
    out: Path,
    *,
    card_classes: bool = False,
    relabel: Path | None = None,
) -> dict[str, int]:
    """Detector windows and their data.yaml in `out`: one class (stage 1), or the 52 cards
    (`card_classes`: the single-stage detector the two stages are compared with, on the very
    same windows)."""
    windows = sum(
        write_windows(labelled_images(folder), out / "train", prefix=_prefix(k), per_image=3,
                      seed=1 + 10 * k, card_classes=card_classes)
        for k, folder in enumerate(synth)
    )  # fmt: skip
    counts = {
        f"{out.name}/train": windows
        + write_windows(labelled_images(real, real_train, relabel), out / "train", prefix="real",
                        per_image=3, seed=2, card_classes=card_classes),
        f"{out.name}/val": write_windows(labelled_images(synth_val), out / "val", prefix="val",
                                         per_image=2, seed=3, card_classes=card_classes),
    }  # fmt: skip
    write_data_yaml(out, list(CLASSES) if card_classes else ["index"])
    return counts


def write_data_yaml(out: Path, names: list[str]) -> Path:
    """Ultralytics' data.yaml for the windows in `out`/train and `out`/val."""
    data = out / "data.yaml"
    data.write_text(
        f"path: {out.resolve()}\ntrain: train/images\nval: val/images\n"
        f"nc: {len(names)}\nnames: {names}\n"
    )
    return data


def _prefix(k: int) -> str:
    return "syn" if k == 0 else f"syn{k}"
