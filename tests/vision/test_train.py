"""Exporting trained weights: the ONNX lands where asked and nothing is left beside the weights."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np

from vision.detector import MODELS_DIR, load_model
from vision.train import export_onnx


def test_export_writes_only_the_target(tmp_path: Path) -> None:
    weights = tmp_path / "weights" / "reader.pt"
    weights.parent.mkdir()
    shutil.copy(MODELS_DIR / "reader.pt", weights)
    target = export_onnx(weights, tmp_path / "out" / "corner-reader.onnx", imgsz=64, dynamic=True)
    assert target == tmp_path / "out" / "corner-reader.onnx"
    assert sorted(p.name for p in weights.parent.iterdir()) == ["reader.pt"]
    forward, _ = load_model(target, "auto")
    out = forward(np.zeros((3, 3, 64, 64), np.float32))  # any batch size
    assert out.shape == (3, 52)
