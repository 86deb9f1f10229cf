"""Stage 1, the index finder: the input it builds of a frame, and where it looks again."""

from __future__ import annotations

import numpy as np
import pytest

from tests.samples import SAMPLES, labelled
from vision.config import ReadingConfig
from vision.detection.detections import UNKNOWN_CLASS, iou_matrix
from vision.detection.finder import IndexFinder, input_shape, letterbox
from vision.detection.models import DETECTOR_FILE, MODELS_DIR
from vision.table.sources import read_image


def _finder(side: int | None = None, backend: str = "openvino") -> IndexFinder:
    return IndexFinder(MODELS_DIR / DETECTOR_FILE, backend, ReadingConfig(detector_side=side))


def test_a_wide_frame_gets_a_square_photos_pixels_padded_only_to_the_stride() -> None:
    frame = np.zeros((720, 1280, 3), np.uint8)
    batch, scale, (left, top) = letterbox(frame, 800, stride=32)
    assert batch.shape == (1, 3, 576, 1024) and scale == 0.8 and (left, top) == (0, 0)
    square, scale, (left, top) = letterbox(frame, 800)
    assert square.shape == (1, 3, 800, 800) and scale == 0.625 and (left, top) == (0, 175)


@pytest.mark.parametrize(("width", "height"), [(20_000, 2), (2, 20_000), (1, 1)])
def test_a_sliver_or_a_dot_of_a_frame_scales_to_at_least_a_pixel(width: int, height: int) -> None:
    """A 20,000 x 2 picture scales to under one pixel across; it is read at one."""
    for stride in (None, 32):
        batch, _, _ = letterbox(np.zeros((height, width, 3), np.uint8), 800, stride)
        assert min(batch.shape[2:]) >= 1


@pytest.mark.parametrize(
    ("width", "height", "shape"),
    [
        (640, 640, (800, 800)),
        (1280, 720, (1024, 576)),
        (720, 1280, (576, 1024)),
        (640, 480, (896, 672)),
        (1280, 960, (896, 672)),
        (4000, 100, (1600, 64)),  # the longer side at most twice the size
        (3, 2, (960, 640)),
    ],
)
def test_every_frame_is_read_at_up_to_a_squares_pixels(
    width: int, height: int, shape: tuple[int, int]
) -> None:
    scale, (out_w, out_h) = input_shape(width, height, 800, 32)
    assert (out_w, out_h) == shape and out_w * out_h <= 800 * 800
    assert out_w - 32 < round(width * scale) <= out_w
    assert out_h - 32 < round(height * scale) <= out_h


@pytest.mark.parametrize("backend", ["openvino", "onnxruntime"])
def test_a_wide_frame_is_read_at_its_own_shape_and_boxed_where_its_indices_are(
    backend: str,
) -> None:
    """A wide frame (1152 × 640, about a camera's 16:9) reaches the detector as 1024 × 576, not
    in an 800 square, and either way its boxes land on the labelled indices in the frame's
    pixels; one loaded model runs both sizes."""
    photo = read_image(SAMPLES / "images" / "dev_0594.jpg")
    wide = np.full((640, 1152, 3), (60, 110, 40), np.uint8)  # felt either side of the photo
    wide[:, 256:896] = photo
    truth = labelled("dev_0594.jpg", 640, 640).boxes + np.float32([256, 0, 256, 0])
    finder = _finder(backend=backend)
    shapes: list[tuple[int, ...]] = []
    forward = finder.forward
    finder.forward = lambda batch: shapes.append(batch.shape) or forward(batch)  # type: ignore[func-returns-value]
    own_shape = finder.find(wide, 0.4)
    finder.stride = None
    in_square = finder.find(wide, 0.4)
    assert shapes == [(1, 3, 576, 1024), (1, 3, 800, 800)]
    for found in (own_shape, in_square):
        assert (iou_matrix(truth, found.boxes) >= 0.5).any(axis=1).mean() >= 0.8
        # stage 1 names no card: its score is the box's
        assert (found.class_ids == UNKNOWN_CLASS).all()
        assert found.box_scores is not None and (found.box_scores == found.scores).all()


@pytest.mark.parametrize(("side", "far"), [(800, 384), (640, 320), (96, 64)])
def test_a_far_look_reads_at_half_the_side(side: int, far: int) -> None:
    finder = _finder(side)
    assert finder.far_side == far
    finder.stride = None  # as a detector exported for one size, which can read no other
    assert finder.far_side is None


@pytest.mark.parametrize(("side", "closer"), [(800, 1152), (640, 928)])
def test_a_closer_look_reads_at_about_one_and_a_half_times_the_side(side: int, closer: int) -> None:
    finder = _finder(side)
    assert finder.closer_side == closer
    finder.stride = None  # as a detector exported for one size, which can read no other
    assert finder.closer_side is None
