"""Train the orientation network (`vision.detection.orientation`) on the CPU in minutes.

Crops whose orientation is known: every labelled index of `cribcam synth` scenes (the scene's
meta gives each face's corners, so which corner an index sits at and how its face is turned),
and the real photos' indices whose card has both indices labelled (`pair_orientations`). Each
crop is cut once at a small random angle and box jitter (stage 1's boxes are not exact) and
turned by a random quarter turn at every epoch, its label turned with it.

    cribcam train orientation OUT --synth runs/synth ... --synth-val runs/synth-val
"""

from __future__ import annotations

import argparse
import json
import math
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt
from tqdm import tqdm

from cribtrain.data.cardart import CLASSES
from cribtrain.data.realsplit import split_part
from cribtrain.data.trainsets import labelled_images, read_yolo
from vision.detection.crops import READ_MARGIN, crop_index
from vision.detection.detections import FACING_UNKNOWN
from vision.detection.orientation import (
    DIAGONAL_TOLERANCE,
    ORIENTATION_FILE,
    ORIENTATION_PX,
    face_orientation,
    pair_orientations,
    quarter_turns,
    turned_label,
)

Image = npt.NDArray[np.uint8]
Sample = tuple[Image, npt.NDArray[np.float64], npt.NDArray[np.int8]]
#: Grey crops (N × side × side) and their orientations.
Crops = tuple[Image, npt.NDArray[np.int64]]
LEARNING_RATE = 3e-3
#: Each real index is cut this many times (differently jittered): they are few.
REAL_COPIES = 4
#: Jitter of a training crop: its angle (degrees, s.d.), its box's centre and side (shares).
ANGLE_SD, SHIFT, SCALE = 8.0, 0.08, 0.12


def scene_orientations(boxes: npt.NDArray[np.float64], classes: npt.NDArray[np.int64],
                       cards: list[dict[str, Any]]) -> npt.NDArray[np.int8]:  # fmt: skip
    """Each labelled index's orientation in a synthetic scene, from its card's face corners
    (unknown for a face turned near 45°, or a box no face of its card holds)."""
    out = np.full(len(boxes), FACING_UNKNOWN, np.int8)
    for n, (box, cls) in enumerate(zip(boxes, classes, strict=True)):
        centre = np.array([(box[0] + box[2]) / 2, (box[1] + box[3]) / 2], np.float32)
        for card in cards:
            corners = np.asarray(card["corners"], np.float32)
            if (
                card["code"] != CLASSES[cls]
                or cv2.pointPolygonTest(corners, (float(centre[0]), float(centre[1])), False) < 0
            ):
                continue
            turn = face_orientation(corners)
            k = quarter_turns(turn)
            if abs((turn - 90 * k + 180) % 360 - 180) > DIAGONAL_TOLERANCE:
                break
            nearest = int(np.hypot(*(corners - centre).T).argmin())
            out[n] = (k + (0 if nearest in (0, 1) else 2)) % 4
            break
    return out


def synthetic_samples(scenes: Path) -> Iterator[Sample]:
    for image in sorted((scenes / "images").glob("*.jpg")):
        frame = cv2.imread(str(image))
        meta = scenes / "meta" / (image.stem + ".json")
        if frame is None or not meta.exists():
            continue
        height, width = frame.shape[:2]
        labelled = read_yolo(image, scenes / "labels", width, height)
        cards = json.loads(meta.read_text())["cards"]
        known = scene_orientations(labelled.boxes, labelled.classes, cards)
        yield np.asarray(frame, np.uint8), labelled.boxes, known


def real_samples(dataset: Path, names: Sequence[str], relabel: Path | None) -> Iterator[Sample]:
    for frame, labelled in labelled_images(dataset, names, relabel):
        yield frame, labelled.boxes, pair_orientations(labelled.boxes, labelled.classes)


def cut(samples: Iterator[Sample], rng: np.random.Generator, copies: int = 1,
        desc: str = "crops") -> tuple[Image, npt.NDArray[np.int64]]:  # fmt: skip
    """Jittered grey crops of every index of known orientation, with their orientations."""
    crops: list[Image] = []
    labels: list[int] = []
    for frame, boxes, orientations in tqdm(list(samples), desc=desc, unit="img"):
        grey = np.asarray(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), np.uint8)
        for box, orientation in zip(boxes, orientations, strict=True):
            if orientation == FACING_UNKNOWN or min(box[2] - box[0], box[3] - box[1]) < 3:
                continue
            for _ in range(copies):
                side = max(box[2] - box[0], box[3] - box[1])
                shift = rng.uniform(-SHIFT, SHIFT, 2) * side
                scale = 1 + rng.uniform(-SCALE, SCALE)
                centre = (box[:2] + box[2:]) / 2 + shift
                half = (box[2:] - box[:2]) / 2 * scale
                jittered = np.concatenate([centre - half, centre + half])
                angle = rng.normal(0, ANGLE_SD)
                crops.append(crop_index(grey, jittered, ORIENTATION_PX, margin=READ_MARGIN,
                                        angle=angle))  # fmt: skip
                labels.append(int(orientation))
    return np.asarray(crops, np.uint8).reshape(-1, ORIENTATION_PX, ORIENTATION_PX), np.asarray(
        labels, np.int64
    )


def network() -> Any:
    """About 51 k weights: three conv blocks, global pooling, four logits."""
    from torch import nn

    def block(cin: int, cout: int) -> list[nn.Module]:
        return [nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(),
                nn.Conv2d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(),
                nn.MaxPool2d(2)]  # fmt: skip

    return nn.Sequential(*block(1, 16), *block(16, 32), *block(32, 48),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(48, 4))  # fmt: skip


def augment(crops: Image, labels: npt.NDArray[np.int64], rng: np.random.Generator
            ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int64]]:  # fmt: skip
    """A random quarter turn each (label turned too), some inverted (light ink on dark faces),
    contrast and brightness varied."""
    turns = rng.integers(0, 4, len(crops))
    out = np.empty((len(crops), 1, ORIENTATION_PX, ORIENTATION_PX), np.float32)
    for k in range(4):
        at = turns == k
        out[at, 0] = np.rot90(crops[at], k, axes=(1, 2))
    out /= 255
    invert = rng.random(len(crops)) < 0.1
    out[invert] = 1 - out[invert]
    gain = rng.uniform(0.6, 1.3, (len(crops), 1, 1, 1)).astype(np.float32)
    bias = rng.uniform(-0.15, 0.15, (len(crops), 1, 1, 1)).astype(np.float32)
    np.clip(out * gain + bias, 0, 1, out=out)
    return out, np.asarray([turned_label(int(o), int(k)) for o, k in zip(labels, turns,
                                                                         strict=True)])  # fmt: skip


def accuracy(model: Any, crops: Image, labels: npt.NDArray[np.int64]) -> dict[str, float]:
    """Share right at every quarter turn, and share of confident readings and their accuracy."""
    import torch

    from vision.config import ReadingConfig

    model.eval()
    right = sure = sure_right = 0
    with torch.no_grad():
        for k in range(4):
            x = np.rot90(crops, k, axes=(1, 2))[:, None].astype(np.float32) / 255
            p = torch.softmax(model(torch.from_numpy(np.ascontiguousarray(x))), 1).numpy()
            want = (labels - k) % 4
            got = p.argmax(1)
            confident = p.max(1) >= ReadingConfig().min_orientation_confidence
            right += int((got == want).sum())
            sure += int(confident.sum())
            sure_right += int((confident & (got == want)).sum())
    n = max(4 * len(labels), 1)
    return {"accuracy": right / n, "sure": sure / n, "sure_accuracy": sure_right / max(sure, 1)}


def train(train_set: tuple[Image, npt.NDArray[np.int64]],
          val_sets: dict[str, tuple[Image, npt.NDArray[np.int64]]],
          out: Path, minutes: float, seed: int = 0) -> Path:  # fmt: skip
    """Train within `minutes`, keep the weights best on the first validation set, export ONNX."""
    import torch

    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    model = network()
    optimiser = torch.optim.AdamW(model.parameters(), lr=LEARNING_RATE, weight_decay=1e-4)
    crops, labels = train_set
    batch, start, epoch, best = 256, time.monotonic(), 0, -1.0
    steps = math.ceil(len(crops) / batch)
    out.mkdir(parents=True, exist_ok=True)
    log = (out / "orientation-results.csv").open("w")
    measures = ("accuracy", "sure", "sure_accuracy")
    log.write("epoch,minutes,loss," + ",".join(f"{name}_{m}" for name in val_sets
                                               for m in measures) + "\n")  # fmt: skip
    while time.monotonic() - start < minutes * 60:
        epoch += 1
        model.train()
        order = rng.permutation(len(crops))
        total = 0.0
        for step in tqdm(range(steps), desc=f"epoch {epoch}", unit="batch", leave=False):
            at = order[step * batch : (step + 1) * batch]
            spent = min((time.monotonic() - start) / (minutes * 60), 1.0)
            for group in optimiser.param_groups:  # cosine decay over the time budget
                group["lr"] = LEARNING_RATE * (0.02 + 0.98 * (1 + math.cos(math.pi * spent)) / 2)
            x, y = augment(crops[at], labels[at], rng)
            loss = torch.nn.functional.cross_entropy(model(torch.from_numpy(x)),
                                                     torch.from_numpy(y))  # fmt: skip
            optimiser.zero_grad()
            loss.backward()  # type: ignore[no-untyped-call]
            optimiser.step()
            total += float(loss.detach())
        scores = {name: accuracy(model, *data) for name, data in val_sets.items()}
        first = next(iter(scores.values()))["accuracy"]
        row = [f"{s[m]:.4f}" for s in scores.values() for m in measures]
        log.write(f"{epoch},{(time.monotonic() - start) / 60:.1f},{total / steps:.4f},"
                  + ",".join(row) + "\n")  # fmt: skip
        log.flush()
        print(f"epoch {epoch}: loss {total / steps:.4f} " + " ".join(
            f"{name} {s['accuracy']:.4f} (sure {s['sure']:.3f} at {s['sure_accuracy']:.4f})"
            for name, s in scores.items()))  # fmt: skip
        if first > best:
            best = first
            torch.save(model.state_dict(), out / "orientation.pt")
    model.load_state_dict(torch.load(out / "orientation.pt"))
    return export(model, out / ORIENTATION_FILE)


def export(model: Any, path: Path) -> Path:
    import torch

    model.eval()
    example = torch.zeros(1, 1, ORIENTATION_PX, ORIENTATION_PX)
    torch.onnx.export(model, (example,), str(path), input_names=["crops"],
                      output_names=["logits"], dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}},
                      opset_version=17, dynamo=False)  # fmt: skip
    return path


def train_orientation(args: argparse.Namespace) -> Path:
    """`cribcam train orientation`: cut the crops, train, export; the ONNX file's path."""
    rng = np.random.default_rng(args.seed)

    def crops_of(dirs: Sequence[Path]) -> Crops:
        parts = [cut(synthetic_samples(d), rng, 1, d.name) for d in dirs]
        return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])

    real_train = cut(real_samples(args.real, split_part(args.split, "train"), args.relabel), rng,
                     REAL_COPIES, "real train")  # fmt: skip
    real_val = cut(real_samples(args.real, split_part(args.split, "holdout"), args.relabel), rng,
                   1, "real held-out")  # fmt: skip
    synth = crops_of(args.synth)
    train_set = (np.concatenate([real_train[0], synth[0]]),
                 np.concatenate([real_train[1], synth[1]]))  # fmt: skip
    val_sets = {"synth": crops_of(args.synth_val), "real": real_val}
    print(f"train {len(train_set[1])} crops (real {len(real_train[1])}), "
          + ", ".join(f"val {k} {len(v[1])}" for k, v in val_sets.items()))  # fmt: skip
    return train(train_set, val_sets, args.out, args.minutes, args.seed)
