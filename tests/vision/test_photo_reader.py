"""`PhotoReader`: image bytes in, the `cribcam detect --json` object out."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import vision.photo_reader
from tests.samples import SAMPLES
from vision.config import ReadingConfig
from vision.detection.models import ModelMissingError
from vision.errors import BadImageError, ReaderFailedError
from vision.photo_reader import SELF_CHECK_PHOTO, PhotoReader


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


def test_the_self_check_reads_its_three_cards_with_the_shipped_models() -> None:
    check = PhotoReader().self_check()
    assert check.ok, check.detail
    assert check.detail.startswith("read 7H 8C 9H in ")


def test_a_reader_that_cannot_run_fails_its_self_check_and_every_frame_with_one_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An engine that cannot load (as onnxruntime missing once did) is one domain error, said
    once: the next frame is refused at once without loading again."""
    loads: list[int] = []

    def broken(*_: object, **__: object) -> None:
        loads.append(1)
        raise ModuleNotFoundError("No module named 'onnxruntime'")

    monkeypatch.setattr(vision.photo_reader, "CardReader", broken)
    reader = PhotoReader()
    check = reader.self_check()
    assert not check.ok and "onnxruntime" in check.detail
    with pytest.raises(ReaderFailedError, match="onnxruntime"):
        reader.detect(SELF_CHECK_PHOTO.read_bytes(), "again.jpg")
    assert loads == [1]
    reader.use_reader(None)  # a deck chosen: loading is tried again
    with pytest.raises(ReaderFailedError):
        reader.card_reader()
    assert loads == [1, 1]


def test_a_self_check_that_reads_other_cards_says_what_it_read(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    blank = tmp_path / "blank.jpg"
    blank.write_bytes((SAMPLES / "images" / "dev_0075.jpg").read_bytes())
    monkeypatch.setattr(vision.photo_reader, "SELF_CHECK_PHOTO", blank)
    check = PhotoReader().self_check()
    assert not check.ok and "self-check photo of 7H 8C 9H" in check.detail
