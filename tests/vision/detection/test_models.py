"""Loading the card models: engines, threads, and what is said where one is missing."""

from __future__ import annotations

import builtins
import os
from typing import Any

import numpy as np
import pytest

from tests.samples import SAMPLES, labelled_cards
from vision.detection.models import (
    MODELS_DIR,
    ORT_INSTALL,
    READER_FILE,
    EngineMissingError,
    checked_side,
    load_model,
)
from vision.errors import VisionError
from vision.reading import CardReader
from vision.table.sources import read_image

#: A real photo the shipped models read right, every card.
PHOTO = "dev_0594.jpg"


def _threads_now() -> int:
    return len(os.listdir("/proc/self/task"))


@pytest.mark.slow  # reads whole frames through the shipped models
def test_a_one_thread_model_starts_no_threads_and_reads_the_same() -> None:
    """`threads=1` (processes reading side by side) keeps ONNX Runtime's pool to the calling
    thread, where by default it starts one a core; the readings are the same."""
    crops = np.random.default_rng(0).random((4, 3, 64, 64), dtype=np.float32)
    load_model(MODELS_DIR / READER_FILE, "onnxruntime", threads=1)  # the runtime's own thread
    before = _threads_now()
    one = load_model(MODELS_DIR / READER_FILE, "onnxruntime", threads=1)
    assert _threads_now() == before
    every = load_model(MODELS_DIR / READER_FILE, "onnxruntime")
    assert _threads_now() == before + len(os.sched_getaffinity(0)) - 1
    assert np.abs(one.run(crops) - every.run(crops)).max() < 1e-5
    frame = read_image(SAMPLES / "images" / PHOTO)
    alone, shared = CardReader(threads=1).cards(frame).cards, CardReader().cards(frame).cards
    assert [seen.card for seen in alone] == [seen.card for seen in shared]
    # OpenVINO's bfloat16 sums in another order on another number of threads
    assert max(abs(a.confidence - b.confidence) for a, b in zip(alone, shared, strict=True)) < 0.01


def _without(monkeypatch: pytest.MonkeyPatch, *packages: str) -> None:
    """Imports of `packages` fail, as where they are not installed."""
    real_import = builtins.__import__

    def failing(name: str, *args: Any, **kwargs: Any) -> Any:
        if name.split(".")[0] in packages:
            raise ImportError(f"No module named {name!r}")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", failing)


@pytest.mark.parametrize("backend", ["onnxruntime", "auto"])
def test_onnx_runtime_missing_is_named_with_its_install_command(
    monkeypatch: pytest.MonkeyPatch, backend: str
) -> None:
    """ONNX Runtime is the `ort` extra: asked for (or "auto" without OpenVINO) where it is not
    installed, the error names the package and how to install it."""
    _without(monkeypatch, "onnxruntime", *(["openvino"] if backend == "auto" else []))
    with pytest.raises(EngineMissingError, match="onnxruntime") as error:
        load_model(MODELS_DIR / READER_FILE, backend)
    assert ORT_INSTALL in str(error.value) and isinstance(error.value, VisionError)


def test_openvino_missing_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    _without(monkeypatch, "openvino")
    with pytest.raises(EngineMissingError, match="openvino"):
        load_model(MODELS_DIR / READER_FILE, "openvino")


def test_a_photo_is_read_with_openvino_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """The player's install has no ONNX Runtime: every step of reading, the models' metadata
    included, runs without it."""
    _without(monkeypatch, "onnxruntime")
    assert load_model(MODELS_DIR / READER_FILE, "auto").runtime == "openvino"
    frame = read_image(SAMPLES / "images" / PHOTO)
    read = {str(seen.card) for seen in CardReader().cards(frame).cards}
    assert read == labelled_cards(PHOTO, frame.shape[1], frame.shape[0])


def test_an_unknown_backend_is_named() -> None:
    with pytest.raises(VisionError, match="'tensorrt'"):
        load_model(MODELS_DIR / READER_FILE, "tensorrt")


@pytest.mark.parametrize("side", [0, 100, 650, 4128])
def test_a_detector_side_off_the_stride_or_too_large_is_refused(side: int) -> None:
    with pytest.raises(VisionError, match=str(side)):
        checked_side(side)
