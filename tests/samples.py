"""The committed sample photos (datasets/samples) and their labels, shared by the tests of the
shipped models and of `cribcam detect`."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from vision.detection.detections import CLASS_NAMES, Detections
from vision.table.sources import read_image

SAMPLES = Path(__file__).resolve().parents[1] / "datasets" / "samples"


def labelled(name: str, width: int, height: int) -> Detections:
    text = (SAMPLES / "labels" / (Path(name).stem + ".txt")).read_text()
    return Detections.from_yolo_labels(text, width, height)


def labelled_cards(name: str, width: int, height: int) -> set[str]:
    return {CLASS_NAMES[c] for c in labelled(name, width, height).class_ids}


def cut_through(name: str, index: int) -> tuple[np.ndarray, str]:
    """A sample photo with its top cut away through the middle of one labelled index."""
    photo = read_image(SAMPLES / "images" / name)
    truth = labelled(name, photo.shape[1], photo.shape[0])
    _, y1, _, y2 = truth.boxes[index]
    return photo[round((y1 + y2) / 2) :], CLASS_NAMES[truth.class_ids[index]]
