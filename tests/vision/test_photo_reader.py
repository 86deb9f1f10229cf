"""`PhotoReader`: image bytes in, the `cribcam detect --json` object out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.samples import SAMPLES
from vision.config import ReadingConfig
from vision.detection.models import ModelMissingError
from vision.errors import BadImageError
from vision.photo_reader import PhotoReader


@pytest.mark.slow  # reads whole frames through the shipped models
def test_photo_reader_answers_the_detect_json_shape() -> None:
    data = (SAMPLES / "images" / "dev_0075.jpg").read_bytes()
    answer = PhotoReader().detect(data, "dev_0075.jpg")
    assert answer["image"] == "dev_0075.jpg"
    assert {"card", "confidence", "box"} <= set(answer["cards"][0])
    json.dumps(answer)  # plain JSON all the way down


@pytest.mark.parametrize("data", [b"", b"not an image", b"\xff\xd8\xff\xe0" + b"\0" * 64])
def test_bad_image_bytes_raise_a_clear_error(data: bytes) -> None:
    with pytest.raises(BadImageError, match=r"image|bytes"):
        PhotoReader().detect(data, "bad.jpg")


def test_missing_models_are_named_before_any_loads(tmp_path: Path) -> None:
    with pytest.raises(ModelMissingError, match=r"corner-detector\.onnx"):
        PhotoReader(tmp_path)


def test_the_reading_asked_for_reaches_the_card_reader() -> None:
    config = ReadingConfig(detector_side=640, far_look=False)
    reader = PhotoReader(config=config).card_reader()
    assert reader.config is config and reader.input_side == 640
