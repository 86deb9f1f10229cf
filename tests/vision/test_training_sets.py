"""The data plumbing of training: the real-photo split, windows, crops and the metrics."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from vision.crops import crop_index
from vision.detections import Detections
from vision.evaluate import ImageResult, confusion_counts, corner_metrics
from vision.realsplit import bursts, read_shots, split
from vision.trainsets import LabelledImage, read_yolo, write_crops, write_windows

DEV_REAL = Path(__file__).resolve().parents[3] / "shared" / "datasets" / "dev-real"


def test_real_split_keeps_bursts_together_and_holds_out_about_forty_percent() -> None:
    parts = split(DEV_REAL)
    assert parts == split(DEV_REAL)  # deterministic
    train, held = set(parts["train"]), set(parts["holdout"])
    assert not train & held and len(train) + len(held) == 634
    for burst in bursts(read_shots(DEV_REAL)):
        sides = {shot.file in held for shot in burst}
        assert len(sides) == 1, f"burst {[s.file for s in burst]} crosses the split"
    shots = read_shots(DEV_REAL)
    for group in ("phoneA", "phoneB", "webcam"):
        members = [s.file for s in shots if s.group == group]
        share = sum(f in held for f in members) / len(members)
        assert 0.3 < share <= 0.4, (group, share)


def scene(tmp_path: Path) -> tuple[np.ndarray, LabelledImage]:
    pixels = np.full((640, 640, 3), 200, np.uint8)
    boxes = np.array([[100, 100, 112, 124], [630, 300, 650, 330]], dtype=np.float64)
    pixels[100:124, 100:112] = 0
    return pixels, LabelledImage(tmp_path / "s.jpg", boxes, np.array([4, 30]))


def test_windows_keep_boxes_mostly_inside_and_drop_the_rest(tmp_path: Path) -> None:
    pixels, labelled = scene(tmp_path)
    written = write_windows([(pixels, labelled)], tmp_path / "w", prefix="t", size=320,
                            per_image=6, seed=1)  # fmt: skip
    assert written == 6
    for label in (tmp_path / "w" / "labels").glob("*.txt"):
        for line in label.read_text().splitlines():
            cls, cx, cy, w, h = (float(v) for v in line.split())
            assert cls == 0 and 0 <= cx <= 1 and 0 <= cy <= 1 and 0 < w <= 1 and 0 < h <= 1
    # The box hanging off the image (630..650 on a 640 frame) is never more than 60 % inside.
    lines = [line for p in (tmp_path / "w" / "labels").glob("*.txt")
             for line in p.read_text().splitlines()]  # fmt: skip
    assert all(float(line.split()[3]) * 320 < 15 for line in lines)


def test_crops_are_square_rotated_and_filed_by_class(tmp_path: Path) -> None:
    pixels, labelled = scene(tmp_path)
    crop = crop_index(pixels, labelled.boxes[0], 64)
    assert crop.shape == (64, 64, 3) and crop.dtype == np.uint8
    assert crop[32, 32].max() < 50  # the dark glyph sits in the middle
    write_crops([(pixels, labelled)], tmp_path / "c", prefix="t", rotations=3, seed=0)
    assert len(list((tmp_path / "c" / "5C").glob("*.jpg"))) == 3
    assert len(list((tmp_path / "c" / "5H").glob("*.jpg"))) == 3


def test_yolo_labels_read_as_pixel_boxes(tmp_path: Path) -> None:
    (tmp_path / "labels").mkdir()
    (tmp_path / "labels" / "a.txt").write_text("7 0.5 0.5 0.1 0.2\n")
    read = read_yolo(tmp_path / "a.jpg", tmp_path / "labels", 200, 100)
    assert read.classes.tolist() == [7]
    assert read.boxes.tolist() == [[90.0, 40.0, 110.0, 60.0]]


def result(truth: Detections, found: Detections) -> ImageResult:
    names = ("AC", "2C", "3C")
    return ImageResult("x.jpg", truth, found, frozenset(names[c] for c in truth.class_ids),
                       frozenset(names[c] for c in found.class_ids), 1.0)  # fmt: skip


def test_corner_metrics_and_confusions() -> None:
    truth = Detections([[0, 0, 10, 20], [50, 50, 60, 70]], [1, 1], [0, 1])
    perfect = corner_metrics([result(truth, truth)])
    assert perfect[0] == {0: 1.0, 1: 1.0} and perfect[1] == {0: 1.0, 1: 1.0}
    misread = Detections([[0, 0, 10, 20], [50, 50, 60, 70]], [0.9, 0.8], [0, 2])
    ap, recall = corner_metrics([result(truth, misread)])
    assert ap[0] == 1.0 and ap[1] == 0.0 and recall[1] == 0.0
    assert confusion_counts([result(truth, misread)]) == {(1, 2): 1}
    assert result(truth, misread).precision == 0.5 and result(truth, misread).recall == 0.5
