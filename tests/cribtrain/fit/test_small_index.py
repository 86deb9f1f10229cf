"""The small-index reader's crops: shrunk scenes whose boxes stay on their glyphs."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from cribcam.cli import main
from cribtrain.data import trainsets
from cribtrain.data.cardart import CLASSES
from cribtrain.data.trainsets import BoxFinder, LabelledImage
from cribtrain.fit.small_index import CROP_MAX_PX, shrunk, shrunk_scenes, write_small_crops
from tests.cribtrain.data.test_trainsets import finding, photo_folder
from vision.config import ReadingConfig
from vision.detection.reader_classes import NOT_AN_INDEX
from vision.reading import CardReader

pytestmark = pytest.mark.slow  # training: left out of the fast loop

#: Two dark 20 × 40 glyphs and one 8 × 20, on a light 640-px table.
GLYPHS = np.array([[100, 100, 120, 140], [300, 200, 320, 240], [500, 400, 508, 420]], np.float64)


def table(tmp_path: Path) -> tuple[np.ndarray, LabelledImage]:
    pixels = np.full((480, 640, 3), 210, np.uint8)
    for x1, y1, x2, y2 in GLYPHS.astype(int):
        pixels[y1:y2, x1:x2] = 20
    return pixels, LabelledImage(tmp_path / "t.jpg", GLYPHS.copy(), np.array([4, 30, 51]))


def test_a_shrunk_scene_has_its_median_index_at_the_size_asked_its_boxes_on_the_glyphs(
    tmp_path: Path,
) -> None:
    pixels, labelled = table(tmp_path)
    small, boxes = shrunk(pixels, labelled, 10.0, 90)
    assert small.shape == (120, 160, 3)  # the median glyph was 40 px: a quarter of the side
    np.testing.assert_allclose(boxes.boxes, GLYPHS / 4)
    np.testing.assert_array_equal(boxes.classes, labelled.classes)
    for x1, y1, x2, y2 in boxes.boxes.round().astype(int):
        assert small[y1:y2, x1:x2].mean() < 80  # still dark ink inside each box
        assert small[y1 - 3 : y2 + 3, x2 + 1 : x2 + 3].mean() > 170  # and table beside it
    same, kept = shrunk(pixels, labelled, 80.0, 90)  # never enlarged
    assert same.shape == pixels.shape
    np.testing.assert_allclose(kept.boxes, GLYPHS)


def test_each_scene_is_shrunk_as_often_as_asked_to_indices_in_range(tmp_path: Path) -> None:
    scene = table(tmp_path)
    shrunk_copies = list(shrunk_scenes([scene, scene], 3, np.random.default_rng(0)))
    assert len(shrunk_copies) == 6
    medians = [float(np.median(box_side(copy[1]))) for copy in shrunk_copies]
    assert all(8 <= m <= 22.5 for m in medians) and len(set(medians)) == 6


def box_side(labelled: LabelledImage) -> np.ndarray:
    boxes = labelled.boxes
    return np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])


def test_small_crops_take_the_small_indices_and_stage_one_boxes_on_none(tmp_path: Path) -> None:
    """The 40-px glyphs are over `CROP_MAX_PX`: no crop; stage 1's box on a labelled glyph is
    no "none" crop, its box on bare table is."""
    pixels, labelled = table(tmp_path)
    assert 20 <= CROP_MAX_PX < 40 and ReadingConfig().small_reader_px < CROP_MAX_PX
    finder = finding([[101, 100, 120, 141], [400, 50, 420, 90]], [0.9, 0.5])
    counts = write_small_crops([(pixels, labelled)], finder, tmp_path / "c", prefix="t",
                               rotations=2)  # fmt: skip
    assert counts == {"index": 2, NOT_AN_INDEX: 2}
    filed = {p.parent.name for p in (tmp_path / "c").rglob("*.jpg")}
    assert filed == {CLASSES[51], NOT_AN_INDEX}
    for crop in (tmp_path / "c" / CLASSES[51]).glob("*.jpg"):
        ink = cv2.imread(str(crop)).mean(axis=2) < 100
        # The 8 x 20 glyph in a crop 2.4-3 times its height (a quarter to a tenth of it at the
        # main reader's margins), in the middle.
        assert 0.03 < ink.mean() < 0.09 and ink[24:40, 24:40].mean() > 0.3


def test_train_sets_small_writes_only_the_small_reader_crops(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    photos, out = photo_folder(tmp_path), tmp_path / "out"
    (tmp_path / "split.json").write_text(json.dumps({"train": ["a.jpg"], "holdout": []}))
    (tmp_path / "relabel").mkdir()

    def fake(reader: CardReader) -> BoxFinder:
        assert isinstance(reader, CardReader)
        return finding([[400, 400, 420, 430]], [0.5])

    monkeypatch.setattr(trainsets, "stage_one_boxes", fake)
    argv = ["train", "sets", str(out), "--synth", str(photos), "--synth-val", str(photos),
            "--real", str(photos), "--split", str(tmp_path / "split.json"),
            "--relabel", str(tmp_path / "relabel"), "--small"]  # fmt: skip
    assert main(argv) == 0
    printed = capsys.readouterr().out
    # One labelled index, shrunk twice from each synthetic scene and eight times from the real
    # photo, each crop at two turns; one "none" box in each shrunk copy.
    assert "reader/train/index: 20\n" in printed and "reader/train/none: 20\n" in printed
    assert "reader/val/index: 4\n" in printed and "reader/val/none: 4\n" in printed
    assert not (out / "detector").exists()
    with pytest.raises(SystemExit):
        main([*argv, "--none"])
