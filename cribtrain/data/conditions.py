"""Real-camera conditions for training: defocus and motion blur, dim light with sensor noise,
glare and JPEG, drawn at random for a photo or a rendered scene.

The real photos are few and mostly sharp and well lit, while a webcam over a kitchen table is
often neither; `write_conditioned` turns each real training photo into a few more, each under
conditions drawn from `CameraConditions`, keeping its labels (no geometry changes, so every box
stays exact). The evaluation's fixed conditions (`cribtrain.measure.evaluate`) lie inside these
ranges but are not their only values, so the figures measured there are not fitted to them.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt
from tqdm import tqdm

from cribtrain.measure.evaluate import label_files, photo_files
from vision.table.sources import read_image

Image = npt.NDArray[np.uint8]
Rng = np.random.Generator


@dataclass(frozen=True)
class CameraConditions:
    """How often each condition is drawn (`p_*`) and its range."""

    p_defocus: float = 0.45
    defocus_sigma: tuple[float, float] = (0.6, 2.6)
    p_motion: float = 0.2
    motion_px: tuple[int, int] = (3, 11)
    p_dim: float = 0.45
    light: tuple[float, float] = (0.22, 0.7)
    #: Sensor noise (grey levels, sd) of a well-lit photo; a dim one is amplified, so its noise
    #: grows as the light falls (`noise / light ** 0.5`).
    noise: tuple[float, float] = (1.0, 5.0)
    p_glare: float = 0.2
    jpeg_quality: tuple[int, int] = (30, 90)


CONDITIONS = CameraConditions()


def conditioned(image: Image, rng: Rng, conditions: CameraConditions = CONDITIONS) -> Image:
    """`image` (BGR) as a poorer camera in a dimmer room might have taken it."""
    out = image.astype(np.float32)
    if rng.random() < conditions.p_glare:
        out = _glare(out, rng)
    if rng.random() < conditions.p_defocus:
        out = np.asarray(cv2.GaussianBlur(out, (0, 0), rng.uniform(*conditions.defocus_sigma)),
                         np.float32)  # fmt: skip
    if rng.random() < conditions.p_motion:
        out = _motion_blur(out, int(rng.integers(*conditions.motion_px, endpoint=True)), rng)
    light = rng.uniform(*conditions.light) if rng.random() < conditions.p_dim else 1.0
    out *= light
    sd = rng.uniform(*conditions.noise) / math.sqrt(light)
    out += rng.normal(0.0, sd, out.shape).astype(np.float32)
    pixels = np.clip(out, 0, 255).astype(np.uint8)
    quality = int(rng.integers(*conditions.jpeg_quality, endpoint=True))
    ok, encoded = cv2.imencode(".jpg", pixels, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return np.asarray(cv2.imdecode(encoded, cv2.IMREAD_COLOR), np.uint8) if ok else pixels


def _motion_blur(image: npt.NDArray[np.float32], length: int, rng: Rng) -> npt.NDArray[np.float32]:
    kernel = np.zeros((length, length), np.float32)
    kernel[length // 2, :] = 1.0
    centre = (length / 2 - 0.5, length / 2 - 0.5)
    turn = cv2.getRotationMatrix2D(centre, rng.uniform(0, 180), 1.0)
    kernel = np.asarray(cv2.warpAffine(kernel, turn, (length, length)), np.float32)
    return np.asarray(cv2.filter2D(image, -1, kernel / max(float(kernel.sum()), 1e-6)), np.float32)


def _glare(image: npt.NDArray[np.float32], rng: Rng) -> npt.NDArray[np.float32]:
    """A soft bright patch, as a lamp reflected by glossy cards."""
    h, w = image.shape[:2]
    mask = np.zeros((h, w), np.float32)
    centre = (int(rng.uniform(0, w)), int(rng.uniform(0, h)))
    axes = (max(1, int(rng.uniform(0.04, 0.2) * w)), max(1, int(rng.uniform(0.02, 0.1) * h)))
    cv2.ellipse(mask, centre, axes, rng.uniform(0, 180), 0, 360, 1.0, -1)
    mask = np.asarray(cv2.GaussianBlur(mask, (0, 0), rng.uniform(4, 20)), np.float32)
    return image + rng.uniform(60, 180) * mask[..., None]


def write_conditioned(
    dataset: Path, names: Sequence[str], out: Path, *, copies: int = 2, seed: int = 0,
    relabel: Path | None = None, conditions: CameraConditions = CONDITIONS,
) -> dict[str, list[str]]:  # fmt: skip
    """A YOLO folder in `out` holding each photo of `names` as it is and `copies` times under
    drawn conditions, with its labels (the corrected ones in `relabel` where it has them), and
    the split of the new folder (every photo under "train"), also written as `out/split.json`."""
    images = photo_files(dataset, names)
    labels = label_files(dataset, images, relabel)
    (out / "images").mkdir(parents=True, exist_ok=True)
    (out / "labels").mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    written: list[str] = []
    for image, label in tqdm(list(zip(images, labels, strict=True)), desc="conditions",
                             unit="photo"):  # fmt: skip
        frame = read_image(image)
        text = label.read_text() if label.exists() else ""
        versions = [(image.stem, frame)] + [
            (f"{image.stem}-c{k}", conditioned(frame, rng, conditions)) for k in range(copies)
        ]
        for stem, pixels in versions:
            cv2.imwrite(str(out / "images" / f"{stem}.jpg"), pixels, [cv2.IMWRITE_JPEG_QUALITY, 95])
            (out / "labels" / f"{stem}.txt").write_text(text)
            written.append(f"{stem}.jpg")
    split = {"train": written, "holdout": []}
    (out / "split.json").write_text(json.dumps(split, indent=0))
    return split
