"""Crops of small corner indices, for a second reader of them (`SMALL_READER_FILE`).

A whole table in a 640-px frame shows indices of 8-24 px, where the reader took spades for
clubs and sixes for fives: an index that small holds few pixels. The card around it holds more
(the pips beside the index, a court card's picture), so a second reader learns crops with the
card around the index (`CONTEXT_MARGINS`), and the app reads each box under `small_reader_px`
with both readers and combines the two (`vision.reading.CardReader`). Its crops come from the
training scenes shrunk until their indices are that small, then blurred, noised and
JPEG-compressed at that size as a camera would.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

import cv2
import numpy as np
from tqdm import tqdm

from cribtrain.data.cardart import CLASSES
from cribtrain.data.trainsets import (
    BoxFinder,
    Image,
    LabelledImage,
    labelled_images,
    not_indices,
    write_turned,
)
from vision.config import ReadingConfig
from vision.detection.detections import box_sizes
from vision.detection.reader_classes import NOT_AN_INDEX
from vision.errors import TrainingError

#: A shrunk scene's median index, drawn uniformly from this range (px).
SHRUNK_INDEX_PX = (8.0, 22.0)
#: JPEG quality a shrunk scene is saved at, drawn uniformly from this range.
SHRUNK_QUALITY = (55, 95)
#: Shrinking averages a scene's own blur and noise away, so a shrunk scene is blurred (Gaussian
#: sigma, px) and noised (grey levels) again at its new size, each drawn from these ranges: a
#: camera's lens and sensor work at the pixels it gives.
SHRUNK_BLUR = (0.0, 1.0)
SHRUNK_NOISE = (0.0, 6.0)
#: Labelled indices up to this size are cut from a shrunk scene: a little over the routing
#: size, so the reader has seen the boxes that stage 1 draws a little larger than the label.
CROP_MAX_PX = ReadingConfig().small_reader_px + 4
#: The margins (share of the box's longer side on each side) the crops are cut at: the crop is
#: 2.4-3 times the index, so it shows the pips beside it; the app cuts at `CONTEXT_MARGIN`.
CONTEXT_MARGINS = (0.7, 1.0)
CONTEXT_MARGIN = 0.85
#: Shrunk copies of each scene, and of each real photo (they are few, and they hold real print
#: and camera noise).
SCENE_LOOKS, PHOTO_LOOKS = 2, 8
#: "none" crops per shrunk scene, the best scored: about one for three index crops, as the
#: main reader's sets have.
NONE_CAP = 4


def shrunk(
    pixels: Image, labelled: LabelledImage, index_px: float, quality: int,
    blur: float = 0.0, noise: float = 0.0, rng: np.random.Generator | None = None,
) -> tuple[Image, LabelledImage]:  # fmt: skip
    """The scene shrunk until its median index is `index_px` (never enlarged), blurred by
    `blur` (sigma, px), noised by `noise` (grey levels, drawn from `rng`), then JPEG
    round-tripped at `quality`; its boxes scaled with it."""
    height, width = pixels.shape[:2]
    sizes = box_sizes(labelled.boxes)
    scale = min(1.0, index_px / float(np.median(sizes))) if len(sizes) else 1.0
    size = (max(1, round(width * scale)), max(1, round(height * scale)))
    small = cv2.resize(pixels, size, interpolation=cv2.INTER_AREA)
    if blur > 0:
        small = cv2.GaussianBlur(small, (0, 0), blur)
    if noise > 0:
        grain = (rng or np.random.default_rng()).normal(0.0, noise, small.shape)
        small = np.clip(small + grain, 0, 255).astype(np.uint8)
    ok, encoded = cv2.imencode(".jpg", small, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise TrainingError(f"could not JPEG-encode a shrunk {labelled.image.name}")
    decoded = np.asarray(cv2.imdecode(encoded, cv2.IMREAD_COLOR), dtype=np.uint8)
    factors = np.array([size[0] / width, size[1] / height] * 2)
    return decoded, LabelledImage(labelled.image, labelled.boxes * factors, labelled.classes)


def shrunk_scenes(
    sources: Iterable[tuple[Image, LabelledImage]], looks: int, rng: np.random.Generator
) -> Iterator[tuple[Image, LabelledImage]]:
    """`looks` shrunk copies of each labelled scene, each at its own index size, blur, noise
    and quality."""
    for pixels, labelled in sources:
        for _ in range(looks):
            index_px = float(rng.uniform(*SHRUNK_INDEX_PX))
            quality = int(rng.integers(SHRUNK_QUALITY[0], SHRUNK_QUALITY[1] + 1))
            blur, noise = float(rng.uniform(*SHRUNK_BLUR)), float(rng.uniform(*SHRUNK_NOISE))
            yield shrunk(pixels, labelled, index_px, quality, blur, noise, rng)


def write_small_crops(
    scenes: Iterable[tuple[Image, LabelledImage]],
    finder: BoxFinder,
    out_dir: Path,
    *,
    prefix: str,
    rotations: int = 2,
    seed: int = 0,
) -> dict[str, int]:
    """Crops of the small labelled indices of shrunk scenes into `out_dir/<class name>/`, and
    of what stage 1 boxes there that is no index into `out_dir/none/`, each with the card
    around it (`CONTEXT_MARGINS`)."""
    rng = np.random.default_rng(seed)
    for name in (*CLASSES, NOT_AN_INDEX):
        (out_dir / name).mkdir(parents=True, exist_ok=True)
    counts = {"index": 0, NOT_AN_INDEX: 0}
    for k, (pixels, labelled) in enumerate(tqdm(scenes, desc=f"small {prefix}", unit="scene")):
        stem = f"{prefix}_{labelled.image.stem}_{k}"
        small = box_sizes(labelled.boxes) <= CROP_MAX_PX
        for i in np.flatnonzero(small):
            box, name = labelled.boxes[i], CLASSES[labelled.classes[i]]
            if min(box[2] - box[0], box[3] - box[1]) >= 3:
                counts["index"] += write_turned(
                    pixels, box, out_dir / name / f"{stem}_{i}", 64, rotations, rng,
                    CONTEXT_MARGINS,
                )  # fmt: skip
        for n, box in enumerate(not_indices(finder, pixels, labelled, NONE_CAP)):
            counts[NOT_AN_INDEX] += write_turned(
                pixels, box, out_dir / NOT_AN_INDEX / f"{stem}_n{n}", 64, rotations, rng,
                CONTEXT_MARGINS,
            )  # fmt: skip
    return counts


def build_small_sets(
    synth: Sequence[Path],
    synth_val: Path,
    real: Path,
    real_train: Sequence[str],
    out: Path,
    finder: BoxFinder,
    *,
    relabel: Path | None = None,
    looks: int = SCENE_LOOKS,
) -> dict[str, int]:
    """The small-index reader's crops in `out/reader/{train,val}`: from each synthetic scene
    `looks` shrunk copies, from each real photo of the training part `PHOTO_LOOKS`."""
    reader = out / "reader"
    rng = np.random.default_rng(31)
    counts: dict[str, int] = {}
    for k, folder in enumerate(synth):
        scenes = shrunk_scenes(labelled_images(folder), looks, rng)
        _add(counts, "reader/train", write_small_crops(scenes, finder, reader / "train",
                                                      prefix=f"s{k}", seed=k))  # fmt: skip
    photos = shrunk_scenes(labelled_images(real, real_train, relabel), PHOTO_LOOKS, rng)
    _add(counts, "reader/train",
         write_small_crops(photos, finder, reader / "train", prefix="real", seed=100))  # fmt: skip
    scenes = shrunk_scenes(labelled_images(synth_val), looks, rng)
    _add(counts, "reader/val",
         write_small_crops(scenes, finder, reader / "val", prefix="val", seed=200))  # fmt: skip
    return counts


def _add(counts: dict[str, int], part: str, written: dict[str, int]) -> None:
    for kind, count in written.items():
        key = f"{part}/{kind}"
        counts[key] = counts.get(key, 0) + count
