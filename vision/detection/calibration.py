"""One score per corner reading: how likely it is to be right, from both stages' outputs.

The plain product of the detector's box score and the reader's class probability weighs the
detector far too much: on the real photos the detector gives many true indices 0.1–0.4 while
the reader is sure of them, so a threshold on the product threw away most correct readings.
A logistic fit on labelled photos, ``sigmoid(bias + a·ln box + b·ln read)``, learns the weights
(measured on real photos: the reader's log-probability weighs several times the log box
score), and the card threshold is chosen on the same photos for a target precision. An index
cut by the frame's edge is misread far more often at the same score (real training part, at the
card threshold: 85 % of such readings right against 98 % of whole ones), so it gets its own,
higher threshold. All live in ``models/calibration.json`` beside the weights they were fitted for.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from vision.errors import VisionError

CALIBRATION_FILE = "calibration.json"
FloatArray = npt.NDArray[np.float32]


class CalibrationError(VisionError, ValueError):
    """A calibration file that cannot be used, or labelled data too thin to fit one."""


@dataclass(frozen=True)
class ScoreCalibration:
    """``score = sigmoid(bias + box_weight·ln box_score + read_weight·ln read_probability)``."""

    bias: float
    box_weight: float
    read_weight: float
    #: Corner readings below this are ignored when cards are formed (`PairingConfig.min_score`).
    card_threshold: float
    #: A reading of an index at the frame's edge (`at_frame_edge`) is kept only from this
    #: score; None keeps every one.
    edge_threshold: float | None = None

    def score(self, box_scores: FloatArray, read_probabilities: FloatArray) -> FloatArray:
        logit = (
            self.bias
            + self.box_weight * np.log(np.clip(box_scores, 1e-6, 1.0))
            + self.read_weight * np.log(np.clip(read_probabilities, 1e-6, 1.0))
        )
        # Clipped: a reading the reader rules out (ln 1e-6 × read_weight) would overflow exp.
        return (1.0 / (1.0 + np.exp(-np.clip(logit, -80.0, 80.0)))).astype(np.float32)

    def kept(self, scores: FloatArray, at_edge: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
        """Which readings to keep: all but those at the frame's edge under `edge_threshold`."""
        if self.edge_threshold is None:
            return np.ones(len(scores), np.bool_)
        return np.asarray(~at_edge | (scores >= self.edge_threshold))

    def save(self, path: Path, **record: Any) -> None:
        """Write the calibration and what it was measured on, atomically."""
        staged = path.with_suffix(".tmp")
        staged.write_text(json.dumps({**asdict(self), **record}, indent=1) + "\n")
        staged.replace(path)

    @classmethod
    def load(cls, models_dir: Path) -> ScoreCalibration | None:
        """The calibration shipped with a models folder; None when it has none."""
        path = models_dir / CALIBRATION_FILE
        if not path.exists():
            return None
        try:
            data = json.loads(path.read_text())
            edge = data.get("edge_threshold")
            return cls(
                float(data["bias"]),
                float(data["box_weight"]),
                float(data["read_weight"]),
                float(data["card_threshold"]),
                None if edge is None else float(edge),
            )
        except (ValueError, KeyError, TypeError) as error:
            raise CalibrationError(f"{path}: not a score calibration ({error})") from error


def fit_weights(
    box_scores: FloatArray, read_probabilities: FloatArray, correct: npt.NDArray[np.bool_]
) -> tuple[float, float, float]:
    """Logistic regression (Newton's method) of `correct` on the two log scores: bias, a, b."""
    if correct.all() or not correct.any():
        raise CalibrationError(
            "need right and wrong readings to calibrate, "
            f"got {int(correct.sum())} right of {len(correct)}"
        )
    x = np.column_stack([
        np.ones(len(correct)),
        np.log(np.clip(box_scores, 1e-6, 1.0)),
        np.log(np.clip(read_probabilities, 1e-6, 1.0)),
    ]).astype(np.float64)  # fmt: skip
    y = correct.astype(np.float64)
    w = np.zeros(3)
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-(x @ w)))
        gradient = x.T @ (y - p) - 1e-3 * w  # a whisper of ridge keeps separable data finite
        hessian = (x * (p * (1 - p))[:, None]).T @ x + 1e-3 * np.eye(3)
        step = np.linalg.solve(hessian, gradient)
        w += step
        if np.abs(step).max() < 1e-8:
            break
    return float(w[0]), float(w[1]), float(w[2])


def choose_threshold(
    precision_at: Callable[[float], float], target: float, grid: Iterable[float]
) -> float:
    """The lowest threshold of `grid` whose card precision reaches `target` (else the highest)."""
    thresholds = sorted(grid)
    for threshold in thresholds:
        if precision_at(threshold) >= target:
            return threshold
    return thresholds[-1]
