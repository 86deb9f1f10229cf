"""Training settings, exporting trained weights (the ONNX lands where asked, nothing is left
beside the weights) and blending two readers' weights."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from cribcam.cli import main
from vision import train
from vision.detector import MODELS_DIR, load_model
from vision.errors import TrainingError, WeightsError
from vision.train import (
    READER_ARGS,
    blend_weights,
    export_onnx,
    load_checkpoint,
    save_checkpoint,
    train_stage,
)


@pytest.mark.parametrize("lr", [None, 0.003])
def test_a_stage_trains_with_its_settings_and_the_learning_rate_asked_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lr: float | None
) -> None:
    calls: list[tuple[str, dict[str, Any]]] = []

    class FakeYolo:
        def __init__(self, weights: str) -> None:
            self.weights = weights

        def train(self, **settings: Any) -> None:
            calls.append((self.weights, settings))

    monkeypatch.setattr(train, "offline_ultralytics", lambda: FakeYolo)
    (tmp_path / "reader" / "train").mkdir(parents=True)
    best = train_stage("reader", tmp_path / "reader", tmp_path / "runs", hours=0.5,
                       init=MODELS_DIR / "reader.pt", lr=lr)  # fmt: skip
    assert best == tmp_path / "runs" / "reader" / "weights" / "best.pt"
    ((weights, settings),) = calls
    assert weights == str(MODELS_DIR / "reader.pt") and settings["pretrained"]
    assert settings["time"] == 0.5 and settings["imgsz"] == READER_ARGS["imgsz"]
    assert settings["lr0"] == (lr if lr is not None else READER_ARGS["lr0"])


def test_training_what_is_not_there_is_refused_before_ultralytics_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ultralytics would look for a missing data set online; a budget of no time, weights that
    are not there and a set that was never made are named instead."""
    monkeypatch.setattr(train, "offline_ultralytics", lambda: pytest.fail("ultralytics started"))
    (tmp_path / "detector").mkdir()
    (tmp_path / "detector" / "data.yaml").write_text("path: .\n")
    refused = [
        ("reader", {"hours": 1.0}, "no reader training set at"),
        ("detector", {"hours": 0.0}, "more than 0 hours, got 0.0"),
        ("detector", {"hours": 1.0, "init": tmp_path / "none.pt"}, "no weights to start from"),
    ]
    for stage, settings, message in refused:
        data = tmp_path / ("reader" if stage == "reader" else "detector/data.yaml")
        with pytest.raises(TrainingError, match=message):
            train_stage(stage, data, tmp_path / "runs", **settings)
    with pytest.raises(TrainingError, match="no weights to export at"):
        export_onnx(tmp_path / "best.pt", tmp_path / "out.onnx", imgsz=64)
    argv = ["train", "sets", str(tmp_path / "out"), "--synth", str(tmp_path / "none")]
    assert main([*argv, "--synth-val", str(tmp_path)]) == 2
    assert f"no images/ in {tmp_path / 'none'}" in capsys.readouterr().err
    (tmp_path / "images").mkdir()
    sets = ["--synth", str(tmp_path), "--synth-val", str(tmp_path), "--real", str(tmp_path)]
    split = ["--split", str(tmp_path / "split.json")]
    assert main(["train", "sets", str(tmp_path / "out"), *sets, *split]) == 2
    assert f"cannot read the split {tmp_path / 'split.json'}" in capsys.readouterr().err


def test_export_writes_only_the_target(tmp_path: Path) -> None:
    weights = tmp_path / "weights" / "reader.pt"
    weights.parent.mkdir()
    shutil.copy(MODELS_DIR / "reader.pt", weights)
    target = export_onnx(weights, tmp_path / "out" / "corner-reader.onnx", imgsz=64, dynamic=True)
    assert target == tmp_path / "out" / "corner-reader.onnx"
    assert sorted(p.name for p in weights.parent.iterdir()) == ["reader.pt"]
    forward = load_model(target, "auto").run
    out = forward(np.zeros((3, 3, 64, 64), np.float32))  # any batch size
    assert out.shape == (3, 52)


def _shifted(source: Path, target: Path, by: float) -> Path:
    """`source` with every floating weight moved by `by` (a stand-in for a tuned reader)."""
    import torch

    checkpoint, model = load_checkpoint(source)
    with torch.no_grad():
        for value in model.state_dict().values():
            if value.is_floating_point():
                value += by
    return save_checkpoint(checkpoint, model, target)


def _weights(path: Path) -> dict[str, np.ndarray]:
    state = load_checkpoint(path)[1].state_dict()
    return {k: v.numpy() for k, v in state.items() if v.is_floating_point()}


def test_blend_lies_its_share_of_the_way_to_the_tuned_weights(tmp_path: Path) -> None:
    base = MODELS_DIR / "reader.pt"
    tuned = _shifted(base, tmp_path / "tuned.pt", 1.0)
    blended = blend_weights(base, tuned, 0.25, tmp_path / "blend.pt")
    before, after = _weights(base), _weights(blended)
    assert before.keys() == after.keys()
    for name, value in before.items():  # weights are stored in half precision
        gap = np.abs(after[name] - (value + 0.25))
        assert (gap <= 1e-2 * (1 + np.abs(value))).all(), name
    forward = load_model(export_onnx(blended, tmp_path / "blend.onnx", imgsz=64), "auto").run
    assert forward(np.zeros((1, 3, 64, 64), np.float32)).shape == (1, 52)


def test_blend_refuses_two_different_networks_and_a_share_outside_0_1(tmp_path: Path) -> None:
    reader, detector = MODELS_DIR / "reader.pt", MODELS_DIR / "detector.pt"
    with pytest.raises(WeightsError, match="not the same network"):
        blend_weights(reader, detector, 0.5, tmp_path / "x.pt")
    with pytest.raises(WeightsError, match="got 1"):
        blend_weights(reader, reader, 1.5, tmp_path / "x.pt")
    assert not (tmp_path / "x.pt").exists()


@pytest.fixture(scope="module")
def reader_weights(tmp_path_factory: pytest.TempPathFactory) -> Path:
    weights = tmp_path_factory.mktemp("weights") / "reader.pt"
    shutil.copy(MODELS_DIR / "reader.pt", weights)
    return weights


@pytest.mark.parametrize("backend", ["openvino", "onnxruntime"])
def test_a_model_tells_the_input_side_it_was_exported_for(
    reader_weights: Path, tmp_path: Path, backend: str
) -> None:
    fixed = export_onnx(reader_weights, tmp_path / "fixed.onnx", imgsz=96)
    any_size = export_onnx(reader_weights, tmp_path / "any.onnx", imgsz=64, dynamic=True)
    assert load_model(fixed, backend).input_side == 96
    assert load_model(any_size, backend).input_side is None


def test_half_weights_halve_the_file_and_keep_the_readings(
    reader_weights: Path, tmp_path: Path
) -> None:
    full = export_onnx(reader_weights, tmp_path / "full.onnx", imgsz=64, dynamic=True)
    half = export_onnx(reader_weights, tmp_path / "half.onnx", imgsz=64, dynamic=True,
                       half_weights=True)  # fmt: skip
    assert half.stat().st_size < 0.6 * full.stat().st_size
    crops = np.random.default_rng(0).random((8, 3, 64, 64), np.float32)
    for backend in ("openvino", "onnxruntime"):
        expected = load_model(full, backend, exact=True).run(crops)
        got = load_model(half, backend, exact=True).run(crops)
        assert np.abs(got - expected).max() < 0.01
        assert (got.argmax(axis=1) == expected.argmax(axis=1)).all()
