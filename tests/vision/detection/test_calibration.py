"""Score calibration: the fit finds known weights, bad files are named, the CLI writes one."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from cribcam.cli import main
from cribtrain.measure.calibrate import PhotoReadings, edge_threshold, read_photos, wilson_upper
from tests.helpers import REPO
from vision.detection.calibration import (
    CALIBRATION_FILE,
    CalibrationError,
    ScoreCalibration,
    choose_threshold,
    fit_weights,
)
from vision.detection.detections import CLASS_NAMES, Detections
from vision.detection.models import MODELS_DIR
from vision.reading import CardReader
from vision.table.sources import read_image

SAMPLES = REPO / "datasets" / "samples"


def test_the_fit_recovers_the_weights_that_made_the_labels() -> None:
    rng = np.random.default_rng(3)
    box = rng.uniform(0.05, 1.0, 20000).astype(np.float32)
    read = rng.uniform(0.05, 1.0, 20000).astype(np.float32)
    made = ScoreCalibration(bias=1.5, box_weight=0.5, read_weight=4.0, card_threshold=0.8)
    right = rng.uniform(size=20000) < made.score(box, read)
    bias, box_weight, read_weight = fit_weights(box, read, right)
    assert (bias, box_weight, read_weight) == pytest.approx((1.5, 0.5, 4.0), abs=0.25)


def test_the_fit_needs_right_and_wrong_readings() -> None:
    ones = np.ones(5, np.float32)
    with pytest.raises(CalibrationError, match="5 right of 5"):
        fit_weights(ones, ones, np.ones(5, bool))


def test_scores_rise_with_either_stage() -> None:
    calibration = ScoreCalibration(2.9, 0.6, 4.5, 0.82)
    scores = calibration.score(
        np.array([0.1, 0.1, 0.5], np.float32), np.array([0.9, 0.99, 0.99], np.float32)
    )
    assert 0 < scores[0] < scores[1] < scores[2] < 1


def test_a_reading_ruled_out_scores_zero_without_overflow() -> None:
    """The shipped read weight (about 20) times ln 1e-6 is a logit near -270: exp overflowed
    and numpy warned on every frame that had such a reading."""
    calibration = ScoreCalibration(5.1, 1.4, 19.6, 0.88)
    with np.errstate(over="raise"):
        scores = calibration.score(np.array([0.5], np.float32), np.array([1e-9], np.float32))
    assert 0 <= scores[0] < 1e-30


def test_the_lowest_threshold_reaching_the_target_is_chosen() -> None:
    precision = {0.3: 0.90, 0.4: 0.97, 0.5: 0.99, 0.6: 0.985}
    assert choose_threshold(precision.__getitem__, 0.98, precision) == 0.5
    assert choose_threshold(precision.__getitem__, 0.999, precision) == 0.6


def test_a_reading_at_the_frames_edge_is_kept_only_from_the_edge_threshold() -> None:
    scores = np.array([0.5, 0.9, 0.97, 0.99], np.float32)
    at_edge = np.array([False, True, True, True])
    calibration = ScoreCalibration(1.0, 1.0, 10.0, card_threshold=0.84)
    assert calibration.kept(scores, at_edge).all()
    kept = replace(calibration, edge_threshold=0.97).kept(scores, at_edge)
    assert kept.tolist() == [True, False, True, True]


CALIBRATION = ScoreCalibration(bias=3.0, box_weight=1.0, read_weight=1.0, card_threshold=0.84)


def readings(scores: list[float], right: list[bool], at_edge: list[bool]) -> PhotoReadings:
    """A photo whose readings get these scores from `CALIBRATION` (box scores 1; first
    choices' chances, read weight 1)."""
    n = len(scores)
    logits = np.log(np.asarray(scores) / (1 - np.asarray(scores)))
    probabilities = np.zeros((n, len(CLASS_NAMES)), np.float32)
    probabilities[:, 0] = np.exp(logits - CALIBRATION.bias)
    boxes = np.tile(np.array([0, 0, 10, 10], np.float32), (n, 1))
    rows = Detections(boxes, np.ones(n), np.zeros(n),
                      box_scores=np.ones(n), probabilities=probabilities)  # fmt: skip
    return PhotoReadings(rows, np.asarray(right), np.asarray(at_edge), (100, 100), frozenset())


def test_the_edge_threshold_is_the_lowest_where_edge_readings_may_reach_the_target() -> None:
    whole = readings([0.95] * 3, [False] * 3, [False] * 3)  # not at the edge: not counted
    photo = readings([0.855, 0.875, 0.905, 0.925], [False, True, False, True], [True] * 4)
    assert CALIBRATION.score(photo.box_scores, photo.read_probabilities) == pytest.approx(
        [0.855, 0.875, 0.905, 0.925], abs=1e-4
    )
    # right from 0.84: 2 of 4 (95 % interval up to 0.85); from 0.86: 2 of 3 (0.94); from
    # 0.88: 1 of 2 (0.91); from 0.91: 1 of 1 (1)
    assert edge_threshold([whole, photo], CALIBRATION, 0.95) == (0.91, 4)
    assert edge_threshold([whole, photo], CALIBRATION, 0.9) == (0.86, 4)
    assert edge_threshold([whole, photo], CALIBRATION, 0.8) == (0.84, 4)
    assert edge_threshold([whole], CALIBRATION, 0.9) == (None, 0)


def test_many_edge_readings_under_the_target_are_set_aside_where_few_are_not() -> None:
    """96 % right passes a 98 % target on 25 readings (24 of them right) and fails it on 1,000."""
    few = readings([0.895] * 25, [True] * 24 + [False], [True] * 25)
    many = readings([0.895] * 1000, [True] * 960 + [False] * 40, [True] * 1000)
    assert edge_threshold([few], CALIBRATION, 0.98) == (0.84, 25)
    assert edge_threshold([many], CALIBRATION, 0.98) == (0.9, 1000)  # none above 0.9


def test_the_wilson_interval_matches_its_textbook_values() -> None:
    assert wilson_upper(0, 10) == pytest.approx(0.2775, abs=1e-4)
    assert wilson_upper(58, 60) == pytest.approx(0.9908, abs=1e-4)  # scipy's binomtest
    assert wilson_upper(10, 10) == wilson_upper(0, 0) == 1.0
    assert 0.96 < wilson_upper(960, 1000) < wilson_upper(96, 100) < wilson_upper(24, 25)


def test_a_calibration_round_trips_with_and_without_an_edge_threshold(tmp_path: Path) -> None:
    with_edge = ScoreCalibration(4.5, 1.1, 11.9, 0.84, edge_threshold=0.98)
    with_edge.save(tmp_path / CALIBRATION_FILE, photos=3)
    assert ScoreCalibration.load(tmp_path) == with_edge
    older = {"bias": 4.5, "box_weight": 1.1, "read_weight": 11.9, "card_threshold": 0.84}
    (tmp_path / CALIBRATION_FILE).write_text(json.dumps(older))
    loaded = ScoreCalibration.load(tmp_path)
    assert loaded is not None and loaded.edge_threshold is None


def test_a_folder_without_calibration_has_none(tmp_path: Path) -> None:
    assert ScoreCalibration.load(tmp_path) is None


def test_a_broken_calibration_file_is_named(tmp_path: Path) -> None:
    (tmp_path / CALIBRATION_FILE).write_text('{"bias": 1}')
    with pytest.raises(CalibrationError, match=str(tmp_path / CALIBRATION_FILE)):
        ScoreCalibration.load(tmp_path)


def test_the_shipped_models_read_at_their_calibrated_threshold() -> None:
    reader = CardReader()
    shipped = json.loads((MODELS_DIR / CALIBRATION_FILE).read_text())
    assert reader.calibration is not None
    assert reader.pairing.min_score == shipped["card_threshold"]


@pytest.mark.slow  # reads whole frames through the shipped models
def test_calibration_reads_the_cards_the_app_reads() -> None:
    """The thresholds are chosen on the cards the app would show, grouping and all."""
    reader = CardReader()
    assert reader.calibration is not None
    names = ["dev_0075.jpg", "dev_0594.jpg", "syn_77_000013.jpg"]  # in the order read
    photos = read_photos(reader, SAMPLES, names)
    for name, photo in zip(names, photos, strict=True):
        app = {
            str(card.card)
            for card in reader.read(read_image(SAMPLES / "images" / name)).cards.cards
        }
        assert app, name
        assert photo.cards(reader, reader.calibration) == app
        stricter = replace(reader.calibration, card_threshold=0.999)
        assert photo.cards(reader, stricter) < app


def _networks_only(tmp_path: Path) -> Path:
    """A models folder with the shipped networks and no calibration yet."""
    models = tmp_path / "models"
    models.mkdir()
    for name in ("corner-detector.onnx", "corner-reader.onnx"):
        shutil.copy(MODELS_DIR / name, models / name)
    return models


@pytest.mark.slow  # reads whole frames through the shipped models
def test_cribcam_calibrate_writes_the_models_calibration(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    models = _networks_only(tmp_path)
    split = tmp_path / "split.json"
    split.write_text(json.dumps({"train": ["dev_0594.jpg", "dev_0075.jpg", "syn_77_000013.jpg"]}))
    argv = ["calibrate", str(SAMPLES), "--split", str(split), "--models", str(models)]
    assert main([*argv, "--precision", "0.9"]) == 0
    written = json.loads((models / CALIBRATION_FILE).read_text())
    assert written["photos"] == 3
    assert written["card_precision"] >= 0.9
    assert written["read_weight"] > max(written["box_weight"], 0)
    assert CardReader(models).pairing.min_score == written["card_threshold"]
    assert json.loads(capsys.readouterr().out)["card_threshold"] == written["card_threshold"]


@pytest.mark.slow  # reads many frames end to end: the full run covers it
def test_cribcam_calibrate_pools_more_labelled_folders(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    models = _networks_only(tmp_path)
    split = tmp_path / "split.json"
    split.write_text(json.dumps({"train": ["dev_0594.jpg"]}))
    scenes = tmp_path / "scenes"
    for part in ("images", "labels"):
        (scenes / part).mkdir(parents=True)
    for name in ("dev_0075.jpg", "syn_77_000013.jpg"):
        shutil.copy(SAMPLES / "images" / name, scenes / "images" / name)
        label = Path(name).stem + ".txt"
        shutil.copy(SAMPLES / "labels" / label, scenes / "labels" / label)
    argv = ["calibrate", str(SAMPLES), "--split", str(split), "--models", str(models)]
    assert main([*argv, "--precision", "0.9", "--also", str(scenes)]) == 0
    written = json.loads((models / CALIBRATION_FILE).read_text())
    assert written["photos"] == 3
    assert written["also"] == [str(scenes)]
    empty = tmp_path / "empty"
    (empty / "images").mkdir(parents=True)
    assert main([*argv, "--also", str(empty)]) == 2
    assert f"no labelled photos to calibrate on in {empty}" in capsys.readouterr().err


def test_an_unknown_split_part_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    split = tmp_path / "split.json"
    split.write_text(json.dumps({"holdout": []}))
    argv = ["calibrate", str(SAMPLES), "--split", str(split), "--models", str(tmp_path)]
    assert main(argv) == 2
    assert "no part 'train'; it has holdout" in capsys.readouterr().err
