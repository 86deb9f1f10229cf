"""The data plumbing of training: the real-photo split, windows, crops ("none" crops too) and
the metrics."""

from __future__ import annotations

import ast
import json
from collections.abc import Sequence
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from cribcam.cli import main
from cribcam.commands.train import SPLIT
from cribtrain.data import trainsets
from cribtrain.data.realsplit import bursts, read_shots, split
from cribtrain.data.trainsets import (
    BoxFinder,
    LabelledImage,
    build_windows,
    read_yolo,
    stage_one_boxes,
    write_crops,
    write_none_crops,
    write_windows,
)
from cribtrain.measure.evaluate import ImageResult, confusion_counts, corner_metrics
from vision.config import ReadingConfig
from vision.detection.crops import crop_index
from vision.detection.detections import Detections
from vision.detection.finder import IndexFinder
from vision.detection.models import DETECTOR_FILE, MODELS_DIR
from vision.detection.reader_classes import NOT_AN_INDEX
from vision.reading import CardReader


def fake_dev_real(root: Path) -> Path:
    """A dev-real-shaped folder: 3 capture groups, bursts of shots sharing a card."""
    (root / "labels").mkdir(parents=True)
    rows = ["file,subset,source_repo,commit,source_path,source_label,boxes,dropped_boxes,note"]
    number = 0
    for group, names in {
        "amm-phoneA-IMG_2022": [f"IMG_20220921_19{m:02d}{s:02d}_jpg" for m in range(0, 50, 2)
                                for s in (1, 9)],
        "amm-phoneB-IMG_NNNN": [f"IMG_{7700 + n}_JPG" for n in range(0, 60, 1)],
        "amm-webcam-table-WIN": [f"WIN_20240627_11_{m:02d}_{s:02d}_Pro_jpg" for m in range(0, 40, 4)
                                 for s in (2, 30)],
    }.items():  # fmt: skip
        for k, name in enumerate(names):
            number += 1
            file = f"dev_{number:04d}.jpg"
            rows.append(f"{file},{group},r,c,datasets/train/images/{name}.rf.x.jpg,l,1,,")
            card = k // 2 if group != "amm-phoneB-IMG_NNNN" else k // 3
            (root / "labels" / f"dev_{number:04d}.txt").write_text(f"{card % 52} 0.5 0.5 0.1 0.1\n")
    (root / "provenance.csv").write_text("\n".join(rows) + "\n")
    return root


def test_real_split_keeps_bursts_together_and_holds_out_up_to_forty_percent(
    tmp_path: Path,
) -> None:
    dataset = fake_dev_real(tmp_path / "dev-real")
    parts = split(dataset)
    assert parts == split(dataset)  # deterministic
    train, held = set(parts["train"]), set(parts["holdout"])
    shots = read_shots(dataset)
    assert not train & held and len(train) + len(held) == len(shots)
    groups = bursts(shots)
    assert any(len(burst) > 1 for burst in groups)
    for burst in groups:
        sides = {shot.file in held for shot in burst}
        assert len(sides) == 1, f"burst {[s.file for s in burst]} crosses the split"
    for group in ("phoneA", "phoneB", "webcam"):
        members = [s.file for s in shots if s.group == group]
        share = sum(f in held for f in members) / len(members)
        assert 0.25 < share <= 0.4, (group, share)


def test_committed_split_covers_every_photo_once() -> None:
    committed = json.loads(SPLIT.read_text())
    files = committed["train"] + committed["holdout"]
    assert len(files) == len(set(files)) == 634


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


def test_card_windows_are_the_same_windows_labelled_with_their_cards(tmp_path: Path) -> None:
    pixels, labelled = scene(tmp_path)
    for card_classes, folder in ((False, "one"), (True, "cards")):
        write_windows([(pixels, labelled)], tmp_path / folder, prefix="t", per_image=6, seed=1,
                      card_classes=card_classes)  # fmt: skip
    read = 0
    for one in sorted((tmp_path / "one" / "labels").glob("*.txt")):
        plain = [line.split() for line in one.read_text().splitlines()]
        cards = [line.split() for line in (tmp_path / "cards" / "labels" / one.name).read_text()
                 .splitlines()]  # fmt: skip
        assert [row[1:] for row in plain] == [row[1:] for row in cards]
        assert {row[0] for row in plain} <= {"0"} and {row[0] for row in cards} <= {"4", "30"}
        read += sum(row[0] == "4" for row in cards)
    assert read  # the index in the scene's middle is labelled 5C somewhere


def test_window_sets_name_their_classes(tmp_path: Path) -> None:
    photos = tmp_path / "photos"
    (photos / "images").mkdir(parents=True)
    (photos / "labels").mkdir()
    pixels, _ = scene(tmp_path)
    cv2.imwrite(str(photos / "images" / "a.jpg"), pixels)
    (photos / "labels" / "a.txt").write_text("4 0.18 0.17 0.02 0.04\n")
    for card_classes, nc in ((False, 1), (True, 52)):
        out = tmp_path / f"set{nc}"
        counts = build_windows([photos], photos, photos, ["a.jpg"], out, card_classes=card_classes)
        assert counts == {f"set{nc}/train": 6, f"set{nc}/val": 2}
        data = dict(line.split(": ", 1) for line in (out / "data.yaml").read_text().splitlines())
        names = ast.literal_eval(data["names"])
        assert int(data["nc"]) == len(names) == nc
        assert names[4] == "5C" if nc == 52 else names == ["index"]


def test_real_windows_take_the_corrected_labels(tmp_path: Path) -> None:
    """A corrected label file replaces the real photo's own; the synthetic sets keep theirs."""
    photos = tmp_path / "photos"
    (photos / "images").mkdir(parents=True)
    (photos / "labels").mkdir()
    (tmp_path / "relabel").mkdir()
    pixels, _ = scene(tmp_path)
    cv2.imwrite(str(photos / "images" / "a.jpg"), pixels)
    (photos / "labels" / "a.txt").write_text("4 0.18 0.17 0.02 0.04\n")
    (tmp_path / "relabel" / "a.txt").write_text("30 0.18 0.17 0.02 0.04\n")
    out = tmp_path / "set"
    build_windows([photos], photos, photos, ["a.jpg"], out, card_classes=True,
                  relabel=tmp_path / "relabel")  # fmt: skip
    classes = {
        prefix: {line.split()[0] for f in (out / "train" / "labels").glob(f"{prefix}_*.txt")
                 for line in f.read_text().splitlines()}
        for prefix in ("real", "syn")
    }  # fmt: skip
    assert classes == {"real": {"30"}, "syn": {"4"}}


def test_crops_are_square_rotated_and_filed_by_class(tmp_path: Path) -> None:
    pixels, labelled = scene(tmp_path)
    crop = crop_index(pixels, labelled.boxes[0], 64)
    assert crop.shape == (64, 64, 3) and crop.dtype == np.uint8
    assert crop[32, 32].max() < 50  # the dark glyph sits in the middle
    write_crops([(pixels, labelled)], tmp_path / "c", prefix="t", rotations=3, seed=0)
    assert len(list((tmp_path / "c" / "5C").glob("*.jpg"))) == 3
    assert len(list((tmp_path / "c" / "5H").glob("*.jpg"))) == 3


def finding(boxes: Sequence[Sequence[float]], scores: Sequence[float]) -> BoxFinder:
    """A stand-in for stage 1 that finds `boxes` in any frame."""
    found = np.array(boxes, np.float32).reshape(-1, 4), np.array(scores, np.float32)
    return lambda frame: found


def none_crops(folder: Path) -> list[npt.NDArray[np.uint8]]:
    return [np.asarray(cv2.imread(str(p))) for p in sorted((folder / NOT_AN_INDEX).glob("*.jpg"))]


def test_none_crops_are_stage_one_boxes_on_no_labelled_index(tmp_path: Path) -> None:
    pixels, labelled = scene(tmp_path)
    on_index, twice, apart = [101, 99, 112, 125], [400, 400, 420, 430], [401, 401, 420, 430]
    finder = finding([on_index, twice, apart], [0.9, 0.5, 0.4])
    written = write_none_crops([(pixels, labelled)], finder, tmp_path / "c", prefix="t",
                               rotations=3)  # fmt: skip
    assert written == 3  # the box twice over one spot is cut once
    names = sorted(p.name for p in (tmp_path / "c" / NOT_AN_INDEX).iterdir())
    assert names == ["t_s_0_0.jpg", "t_s_0_1.jpg", "t_s_0_2.jpg"]
    assert all(crop[32, 32].min() > 150 for crop in none_crops(tmp_path / "c"))  # no glyph


def test_an_image_without_labels_gives_all_its_boxes_up_to_the_cap_best_scored(
    tmp_path: Path,
) -> None:
    pixels = np.full((640, 640, 3), 200, np.uint8)
    pixels[100:124, 100:112] = pixels[300:324, 300:312] = 0
    boxes = [[100, 100, 112, 124], [300, 300, 312, 324], [500, 500, 512, 524], [50, 500, 62, 524]]
    finder = finding(boxes, [0.8, 0.6, 0.3, 0.2])
    bare = LabelledImage(tmp_path / "b.jpg", np.zeros((0, 4)), np.zeros(0, np.int64))
    kept = {}
    for cap in (10, 2):
        out = tmp_path / f"cap{cap}"
        kept[cap] = write_none_crops([(pixels, bare)], finder, out, prefix="t", rotations=2,
                                     cap=cap)  # fmt: skip
    assert kept == {10: 8, 2: 4}
    assert all(crop[32, 32].max() < 50 for crop in none_crops(tmp_path / "cap2"))  # the best


def test_stage_one_looks_as_the_app_may_at_a_frame() -> None:
    """At its own side, at the closer look's where the frame holds the pixels, and far."""
    detector = IndexFinder(MODELS_DIR / DETECTOR_FILE, "auto", ReadingConfig(detector_side=640))
    sides: list[int | None] = []

    def find(frame: Any, min_score: float, side: int | None = None) -> Detections:
        assert min_score == 0.1 and side is not None
        sides.append(side)
        return Detections([[0, 0, side, 1]], [0.5], [-1])

    detector.find = find  # type: ignore[method-assign]
    finder = stage_one_boxes(cast(CardReader, SimpleNamespace(finder=detector)))
    looks = {}
    for width, height in ((640, 480), (1000, 800), (1920, 1080)):
        sides.clear()
        boxes, scores = finder(np.zeros((height, width, 3), np.uint8))
        assert boxes[:, 2].tolist() == sides and scores.tolist() == [0.5] * len(boxes)
        looks[width] = list(sides)
    # 1000 × 800 holds 894² pixels: a closer look at 864 (no more); 640 × 480 too few (< 768).
    assert looks == {640: [640, 320], 1000: [640, 864, 320], 1920: [640, 928, 320]}


def photo_folder(tmp_path: Path) -> Path:
    photos = tmp_path / "photos"
    (photos / "images").mkdir(parents=True)
    (photos / "labels").mkdir()
    cv2.imwrite(str(photos / "images" / "a.jpg"), scene(tmp_path)[0])
    (photos / "labels" / "a.txt").write_text("4 0.18 0.17 0.02 0.04\n")
    return photos


def test_sets_with_none_crop_stage_one_of_the_models_asked_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    photos, out = photo_folder(tmp_path), tmp_path / "out"
    (tmp_path / "split.json").write_text(json.dumps({"train": ["a.jpg"], "holdout": []}))
    (tmp_path / "relabel").mkdir()
    argv = ["train", "sets", str(out), "--synth", str(photos), "--synth-val", str(photos),
            "--real", str(photos), "--split", str(tmp_path / "split.json"),
            "--relabel", str(tmp_path / "relabel"), "--none"]  # fmt: skip
    assert main([*argv, "--models", str(tmp_path / "nothing")]) == 2
    assert "card model files not found" in capsys.readouterr().err

    def fake(reader: CardReader) -> BoxFinder:
        assert isinstance(reader, CardReader)
        return finding([[108, 97, 122, 124], [400, 400, 420, 430]], [0.9, 0.5])

    monkeypatch.setattr(trainsets, "stage_one_boxes", fake)
    assert main(argv) == 0
    printed = capsys.readouterr().out
    assert "reader/train/none: 10\n" in printed  # 2 rotations of the synth set, 8 of the real
    assert "reader/val/none: 2\n" in printed and "reader/train: " in printed
    assert len(list((out / "reader" / "train" / NOT_AN_INDEX).glob("real_a_0_*.jpg"))) == 8
    with pytest.raises(SystemExit):
        main([*argv, "--cards"])  # detector windows only: no reader crops to add to


def test_yolo_labels_read_as_pixel_boxes(tmp_path: Path) -> None:
    (tmp_path / "labels").mkdir()
    (tmp_path / "labels" / "a.txt").write_text("7 0.5 0.5 0.1 0.2\n")
    read = read_yolo(tmp_path / "a.jpg", tmp_path / "labels", 200, 100)
    assert read.classes.tolist() == [7]
    assert read.boxes.tolist() == [[90.0, 40.0, 110.0, 60.0]]


def result(truth: Detections, found: Detections) -> ImageResult:
    names = ("AC", "2C", "3C")
    return ImageResult("x.jpg", truth, found, frozenset(names[c] for c in truth.class_ids),
                       frozenset(names[c] for c in found.class_ids), 1.0, (640, 640))  # fmt: skip


def test_corner_metrics_and_confusions() -> None:
    truth = Detections([[0, 0, 10, 20], [50, 50, 60, 70]], [1, 1], [0, 1])
    perfect = corner_metrics([result(truth, truth)])
    assert perfect[0] == {0: 1.0, 1: 1.0} and perfect[1] == {0: 1.0, 1: 1.0}
    misread = Detections([[0, 0, 10, 20], [50, 50, 60, 70]], [0.9, 0.8], [0, 2])
    ap, recall = corner_metrics([result(truth, misread)])
    assert ap[0] == 1.0 and ap[1] == 0.0 and recall[1] == 0.0
    assert confusion_counts([result(truth, misread)]) == {(1, 2): 1}
    assert result(truth, misread).precision == 0.5 and result(truth, misread).recall == 0.5
