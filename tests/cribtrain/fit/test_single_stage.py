"""The single 52-class detector the two stages are compared with: read as stage 1 is read, and
its card threshold chosen by the same rule."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cribtrain.fit.single_stage import (
    MIN_SCORE,
    ReadPhoto,
    SingleStageReader,
    card_counts,
    threshold_for,
)
from tests.helpers import REPO
from vision.config import ReadingConfig
from vision.detection.detections import CLASS_NAMES, Detections
from vision.detection.models import DETECTOR_FILE, MODELS_DIR
from vision.errors import VisionError
from vision.reading import CardReader
from vision.table.sources import read_image

pytestmark = pytest.mark.slow  # training: left out of the fast loop

SAMPLE = REPO / "datasets" / "samples" / "images" / "dev_0594.jpg"


def test_reads_boxes_exactly_as_stage_one_does() -> None:
    # The shipped one-class corner detector stands in for a 52-class one: every box is class 0.
    frame = read_image(SAMPLE)
    single = SingleStageReader(MODELS_DIR / DETECTOR_FILE)
    found = single.detections(frame)
    stage_one = CardReader(config=ReadingConfig(min_box_score=MIN_SCORE)).find_indices(frame)
    assert len(found) == len(stage_one) > 0
    np.testing.assert_allclose(found.boxes, stage_one.boxes)
    np.testing.assert_allclose(found.scores, stage_one.scores)
    assert set(found.class_ids.tolist()) == {0}
    assert single.read(frame).times.find_indices > 0


def test_a_missing_model_is_named(tmp_path: Path) -> None:
    with pytest.raises(VisionError, match=r"nowhere\.onnx"):
        SingleStageReader(tmp_path / "nowhere.onnx")


def _photo(readings: list[tuple[str, float, float]], truth: set[str]) -> ReadPhoto:
    """Readings (card, score, x) of 20-px indices on one row, far apart."""
    boxes = [[x, 100, x + 14, 120] for _, _, x in readings]
    found = Detections(boxes, [s for _, s, _ in readings],
                       [CLASS_NAMES.index(c) for c, _, _ in readings])  # fmt: skip
    return ReadPhoto(found, frozenset(truth))


def test_the_threshold_is_the_lowest_reaching_the_precision() -> None:
    photos = [
        _photo([("5C", 0.9, 100), ("7H", 0.32, 400)], {"5C"}),  # 7H is not there
        _photo([("KS", 0.6, 100), ("2D", 0.2, 400)], {"KS", "2D"}),
    ]
    assert card_counts(photos, 0.05) == card_counts(photos, 0.2)
    counts = card_counts(photos, 0.2)
    assert (counts.right, counts.read, counts.there) == (3, 4, 3)
    assert threshold_for(photos, 0.98) == 0.35  # the first grid step over 7H's 0.32
    counts = card_counts(photos, 0.35)
    assert (counts.right, counts.read, counts.there) == (2, 2, 3)
