"""The tune's fit of a deck's own card threshold (`cribtrain.fit.tune._fit_threshold`): written
beside the deck's reader only where asked and given teaching photos; otherwise none is left."""

from __future__ import annotations

import shutil
from pathlib import Path

from cribtrain.fit.tune import TuneSettings, _fit_threshold
from tests.samples import SAMPLES, labelled_cards
from vision.decks.calibration import DeckCalibrationConfig, TeachingPhoto, deck_threshold, holding
from vision.detection.calibration import CALIBRATION_FILE, ScoreCalibration
from vision.detection.models import MODELS_DIR, READER_FILE
from vision.table.sources import read_image

ON = TuneSettings(calibration=DeckCalibrationConfig(enabled=True, floor=0.3, step=0.06,
                                                    min_cards=1))  # fmt: skip


def _staged(tmp_path: Path) -> Path:
    shutil.copyfile(MODELS_DIR / READER_FILE, tmp_path / READER_FILE)
    return tmp_path


def _photos() -> list[TeachingPhoto]:
    name = "dev_0075.jpg"
    frame = read_image(SAMPLES / "images" / name)
    cards = frozenset(labelled_cards(name, frame.shape[1], frame.shape[0]))
    return [TeachingPhoto(holding(frame), cards)]


def test_a_tune_given_teaching_photos_stores_the_decks_threshold(tmp_path: Path) -> None:
    staged = _staged(tmp_path)
    threshold = _fit_threshold(staged, MODELS_DIR, _photos(), ON, None)
    base = ScoreCalibration.load(MODELS_DIR)
    assert base is not None and threshold is not None
    assert 0.3 - 1e-6 <= threshold <= base.card_threshold
    assert deck_threshold(staged) == threshold


def test_no_threshold_is_kept_without_photos_or_when_off(tmp_path: Path) -> None:
    staged = _staged(tmp_path)
    (staged / CALIBRATION_FILE).write_text("{}")  # an earlier tune's, fitted for another reader
    assert _fit_threshold(staged, MODELS_DIR, None, ON, None) is None
    assert not (staged / CALIBRATION_FILE).exists()
    assert _fit_threshold(staged, MODELS_DIR, _photos(), TuneSettings(), None) is None
    assert deck_threshold(staged) is None
