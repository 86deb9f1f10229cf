"""A tune exports the deck's reader as the shipped reader was exported (the same shapes and
weight precision, so OpenVINO compiles and runs both alike) and marks it to read alone, the
base reader held in its weights. Training itself is replaced: `test_tune.py` trains."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import cribtrain.fit.train
from cribtrain.fit import tune
from cribtrain.fit.tune import TuneSettings, export_settings, tune_profile
from cribtrain.fit.tune_data import FIXTURE_DECK
from vision.config import DEFAULT_READING, ReadingConfig
from vision.decks.enroll import PATCH_PX
from vision.decks.profiles import ProfileStore
from vision.detection.models import MODELS_DIR, READER_FILE, SMALL_READER_FILE
from vision.detection.reader import IndexReader
from vision.detection.reader_classes import reader_info

QUICK = TuneSettings(variants=1, general_per_class=1, eval_angles=1)
SHIPPED = {"imgsz": 64, "dynamic": True, "half_weights": False}


def test_the_export_settings_are_read_from_the_onnx_itself() -> None:
    """The shipped reader: any batch and crop size, float32 weights; the small-index reader
    stores its weights in half precision (`store_weights_half`)."""
    assert export_settings(MODELS_DIR / READER_FILE) == SHIPPED
    assert export_settings(MODELS_DIR / SMALL_READER_FILE) == {**SHIPPED, "half_weights": True}


def _quick_tune(models: Path, root: Path, monkeypatch: pytest.MonkeyPatch,
                after: float | None = None) -> tuple[Path, dict[str, Any]]:  # fmt: skip
    """A tune of two noise cards whose training gives the base weights back and whose export
    writes the base reader's file, recording what the export was asked for; `after`: the
    held-back accuracy the tuned reader is given, the base's 1 (None: both measured)."""
    asked: dict[str, Any] = {}

    def export(weights: Path, target: Path, **settings: Any) -> Path:
        asked.update(settings)
        shutil.copyfile(models / READER_FILE, target)
        return target

    monkeypatch.setattr(tune, "_train", lambda work, weights, *_: weights)
    monkeypatch.setattr(cribtrain.fit.train, "blend_weights", lambda base, tuned, *_: tuned)
    monkeypatch.setattr(cribtrain.fit.train, "export_onnx", export)
    if after is not None:  # the base reads every held-back corner right
        monkeypatch.setattr(tune, "held_out_accuracy",
                            lambda onnx, *_: 1.0 if onnx.parent == models else after)  # fmt: skip
    rng = np.random.default_rng(0)
    patches = [rng.integers(0, 256, (PATCH_PX, PATCH_PX, 3), dtype=np.uint8) for _ in range(3)]
    store = ProfileStore(root)
    tune_profile(store, "home", [("AC", patches[:2]), ("2C", patches[2:])], base_models=models,
                 general=[FIXTURE_DECK], settings=QUICK)  # fmt: skip
    return store.get("home").reader, asked


def test_a_deck_reader_is_exported_as_the_base_reader_and_keeps_the_base_beside_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reader, asked = _quick_tune(MODELS_DIR, tmp_path / "decks", monkeypatch)
    assert asked == SHIPPED
    assert reader_info(reader).base_share == pytest.approx(1 - QUICK.tuned_share)
    loaded = IndexReader.load(MODELS_DIR, reader, DEFAULT_READING, lambda _: np.asarray)
    assert loaded.base is not None and loaded.keeps_base  # the surer where the two agree
    alone = ReadingConfig(deck_keeps_base=False)
    assert IndexReader.load(MODELS_DIR, reader, alone, lambda _: np.asarray).base is None


def test_the_export_follows_a_base_reader_stored_in_half_precision(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    models = tmp_path / "models"
    models.mkdir()
    shutil.copyfile(MODELS_DIR / SMALL_READER_FILE, models / READER_FILE)  # half weights
    shutil.copyfile(MODELS_DIR / tune.WEIGHTS_FILE, models / tune.WEIGHTS_FILE)
    _, asked = _quick_tune(models, tmp_path / "decks", monkeypatch)
    assert asked == {**SHIPPED, "half_weights": True}


def test_a_tune_that_keeps_the_base_reader_marks_it_all_base(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reader, _ = _quick_tune(MODELS_DIR, tmp_path / "decks", monkeypatch, after=0.0)
    assert reader.read_bytes() != (MODELS_DIR / READER_FILE).read_bytes()  # its metadata
    assert reader_info(reader).base_share == 1.0
    assert IndexReader.load(MODELS_DIR, reader, DEFAULT_READING, lambda _: np.asarray).base is None
