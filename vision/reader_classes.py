"""The reader's output columns in card-class order.

Ultralytics numbers a classifier's classes by its training folders sorted as text ("10C" before
"2C"), not in the card-class order the rest of the pipeline uses (AC..KC, AD..KS). The exported
ONNX keeps the names in its metadata; this module reads them once so every caller can put the
columns back in card-class order.
"""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import numpy.typing as npt

from vision.detections import CLASS_NAMES


def reader_columns(path: Path) -> npt.NDArray[np.int64]:
    """Column of the model's output for each card class (`probs[:, columns]` is in class order).

    Models without usable `names` metadata are taken to be in class order already.
    """
    names = _metadata_names(path)
    identity = np.arange(len(CLASS_NAMES), dtype=np.int64)
    if names is None or sorted(names.values()) != sorted(CLASS_NAMES):
        return identity
    column = {name: index for index, name in names.items()}
    return np.array([column[name] for name in CLASS_NAMES], dtype=np.int64)


def _metadata_names(path: Path) -> dict[int, str] | None:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.log_severity_level = 3
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    text = session.get_modelmeta().custom_metadata_map.get("names")
    if not text:
        return None
    try:
        names = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return None
    if not isinstance(names, dict):
        return None
    return {int(k): str(v) for k, v in names.items()}
