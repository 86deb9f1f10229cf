"""Camera conditions for training: what they do to a photo, and the labelled copies they write."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from cribcam.cli import main
from cribtrain.data.conditions import CameraConditions, conditioned, write_conditioned

LABEL = "3 0.25 0.3 0.1 0.12\n40 0.7 0.6 0.1 0.12\n"


def _photo() -> np.ndarray:
    """A light card with a dark index on a mid-grey table: edges that blur can soften."""
    image = np.full((120, 160, 3), 110, np.uint8)
    cv2.rectangle(image, (30, 20), (130, 100), (235, 235, 235), -1)
    cv2.putText(image, "7", (36, 50), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (20, 20, 20), 2)
    return image


def _sharpness(image: np.ndarray) -> float:
    return float(cv2.Laplacian(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), cv2.CV_64F).var())


def test_only_blur_softens_the_photo() -> None:
    blur_only = CameraConditions(p_defocus=1.0, defocus_sigma=(2.0, 2.0), p_motion=0.0,
                                 p_dim=0.0, noise=(0.0, 0.0), p_glare=0.0,
                                 jpeg_quality=(95, 95))  # fmt: skip
    photo = _photo()
    out = conditioned(photo, np.random.default_rng(0), blur_only)
    assert out.shape == photo.shape and out.dtype == np.uint8
    assert _sharpness(out) < 0.5 * _sharpness(photo)
    assert abs(float(out.mean()) - float(photo.mean())) < 3  # no change of light


def test_dim_light_darkens_and_adds_noise() -> None:
    dim_only = CameraConditions(p_defocus=0.0, p_motion=0.0, p_dim=1.0, light=(0.3, 0.3),
                                noise=(4.0, 4.0), p_glare=0.0,
                                jpeg_quality=(95, 95))  # fmt: skip
    photo = _photo()
    out = conditioned(photo, np.random.default_rng(1), dim_only)
    assert abs(float(out.mean()) - 0.3 * float(photo.mean())) < 4
    table = out[2:15, 2:25].astype(np.float32)  # a flat patch: its spread is the noise
    assert float(table.std()) > 3.0


def test_the_same_seed_draws_the_same_conditions() -> None:
    photo = _photo()
    first = conditioned(photo, np.random.default_rng(7))
    again = conditioned(photo, np.random.default_rng(7))
    other = conditioned(photo, np.random.default_rng(8))
    assert np.array_equal(first, again)
    assert not np.array_equal(first, other)


def test_written_copies_keep_the_labels(tmp_path: Path) -> None:
    dataset = tmp_path / "real"
    (dataset / "images").mkdir(parents=True)
    (dataset / "labels").mkdir()
    for stem in ("a", "b"):
        cv2.imwrite(str(dataset / "images" / f"{stem}.jpg"), _photo())
        (dataset / "labels" / f"{stem}.txt").write_text(LABEL)
    relabel = tmp_path / "fixed"
    relabel.mkdir()
    (relabel / "b.txt").write_text("5 0.5 0.5 0.1 0.1\n")
    out = tmp_path / "out"

    split = write_conditioned(dataset, ["a.jpg", "b.jpg"], out, copies=2, seed=3,
                              relabel=relabel)  # fmt: skip

    assert sorted(split["train"]) == sorted(
        ["a.jpg", "a-c0.jpg", "a-c1.jpg", "b.jpg", "b-c0.jpg", "b-c1.jpg"]
    )
    assert json.loads((out / "split.json").read_text()) == split
    assert (out / "labels" / "a-c1.txt").read_text() == LABEL
    assert (out / "labels" / "b-c0.txt").read_text() == "5 0.5 0.5 0.1 0.1\n"
    for name in split["train"]:
        written = cv2.imread(str(out / "images" / name))
        assert written is not None and written.shape == (120, 160, 3)


def test_cribcam_train_conditions_writes_a_split_part(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dataset = tmp_path / "real"
    (dataset / "images").mkdir(parents=True)
    (dataset / "labels").mkdir()
    for stem in ("a", "b", "c"):
        cv2.imwrite(str(dataset / "images" / f"{stem}.jpg"), _photo())
        (dataset / "labels" / f"{stem}.txt").write_text(LABEL)
    split = tmp_path / "split.json"
    split.write_text(json.dumps({"train": ["a.jpg", "c.jpg"], "holdout": ["b.jpg"]}))
    out = tmp_path / "out"
    argv = ["train", "conditions", str(dataset), str(out), "--split", str(split), "--copies", "1"]
    assert main(argv) == 0
    assert "4 photos" in capsys.readouterr().out
    written = json.loads((out / "split.json").read_text())["train"]
    assert sorted(written) == ["a-c0.jpg", "a.jpg", "c-c0.jpg", "c.jpg"]  # never the held-out b
    assert main(["train", "conditions", str(tmp_path / "nowhere"), str(out)]) == 2
    assert "no images/" in capsys.readouterr().err
