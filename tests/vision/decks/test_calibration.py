"""A taught deck's own card threshold: fitted on its teaching photos, read at by its reader."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from tests.samples import SAMPLES, labelled_cards
from vision.config import ReadingConfig
from vision.decks.calibration import (
    DeckCalibrationConfig,
    TeachingPhoto,
    deck_threshold,
    fit_deck_threshold,
    fit_threshold,
    holding,
    save_deck_calibration,
    teaching_photos,
)
from vision.decks.enroll import Candidate, Enrollment
from vision.detection.calibration import ScoreCalibration
from vision.detection.detections import CLASS_NAMES
from vision.detection.models import MODELS_DIR, READER_FILE
from vision.reading import CardReader
from vision.table.sources import read_image

GRID = [0.42, 0.38, 0.34, 0.30]


def test_the_threshold_goes_down_while_it_gains_cards_and_names_no_false_one() -> None:
    truth = [frozenset({"AC", "2C"}), frozenset({"3H"})]
    named = [
        [frozenset({"AC"}), frozenset({"AC", "2C"}), frozenset({"AC", "2C"}),
         frozenset({"AC", "2C", "KS"})],
        [frozenset(), frozenset(), frozenset({"3H"}), frozenset({"3H"})],
    ]  # fmt: skip
    chosen, counts = fit_threshold(named, truth, GRID)
    assert GRID[chosen] == 0.34  # 0.30 names KS, which no photo holds
    assert counts == [(1, 0), (2, 0), (3, 0), (3, 1)]


def test_a_false_card_stops_the_descent_though_a_lower_value_gains_more() -> None:
    truth = [frozenset({"AC", "2C", "3C"})]
    named = [[frozenset({"AC"}), frozenset({"AC", "KS"}), frozenset({"AC", "2C", "3C"}),
              frozenset({"AC", "2C", "3C"})]]  # fmt: skip
    assert fit_threshold(named, truth, GRID)[0] == 0


def test_no_gain_keeps_the_base_threshold() -> None:
    truth = [frozenset({"AC"})]
    named = [[frozenset({"AC"})] * len(GRID)]
    assert fit_threshold(named, truth, GRID)[0] == 0


def _candidate(number: int, shot: int, card: str, **kwargs: object) -> Candidate:
    box = np.zeros((1, 4), np.float32)
    return Candidate(number, shot, box, [], card, 0.9, None, **kwargs)  # type: ignore[arg-type]


def test_a_teaching_photo_holds_the_cards_confirmed_in_it_and_no_others() -> None:
    enrollment = Enrollment(
        [_candidate(1, 0, "AC"), _candidate(2, 0, "2C", confirmed="3C"),
         _candidate(3, 0, "4C", skipped=True), _candidate(4, 1, "5C", doubtful=True)],
        CLASS_NAMES,
    )  # fmt: skip
    image = np.zeros((4, 4, 3), np.uint8)
    photos = teaching_photos(enrollment, [holding(image)] * 2)
    assert [p.cards for p in photos] == [frozenset({"AC", "3C"}), frozenset()]


@pytest.fixture(scope="module")
def deck_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("decks") / "home"
    folder.mkdir()
    shutil.copyfile(MODELS_DIR / READER_FILE, folder / READER_FILE)
    return folder


def test_a_deck_is_read_at_its_own_threshold_only_when_asked(deck_folder: Path) -> None:
    base = ScoreCalibration.load(MODELS_DIR)
    assert base is not None
    assert deck_threshold(deck_folder) is None
    (deck_folder / "calibration.json").write_text(
        '{"bias": 0, "box_weight": 1, "read_weight": 1, "card_threshold": 0.3}'
    )
    try:
        assert deck_threshold(deck_folder) == 0.3
        reader = deck_folder / READER_FILE
        on = CardReader(reader_path=reader, config=ReadingConfig(deck_threshold=True))
        off = CardReader(reader_path=reader)
        assert on.pairing.min_score == 0.3
        # the scoring weights stay the models' own: only the threshold is the deck's
        assert on.calibration is not None and on.calibration.bias == base.bias
        assert off.pairing.min_score == base.card_threshold
    finally:
        (deck_folder / "calibration.json").unlink()


def test_the_fit_on_a_labelled_photo_names_no_false_card_the_base_threshold_did_not(
    deck_folder: Path,
) -> None:
    name = "dev_0594.jpg"
    frame = read_image(SAMPLES / "images" / name)
    truth = frozenset(labelled_cards(name, frame.shape[1], frame.shape[0]))
    reader = CardReader(reader_path=deck_folder / READER_FILE)
    config = DeckCalibrationConfig(floor=0.3, step=0.04, min_cards=1)
    fit = fit_deck_threshold(reader, [TeachingPhoto(holding(frame), truth)], config)
    assert 0.3 - 1e-6 <= fit.card_threshold <= fit.base_threshold
    assert fit.false <= fit.false_at_base
    assert fit.named >= fit.named_at_base
    assert reader.calibration is not None
    save_deck_calibration(deck_folder, reader.calibration, fit)
    try:
        assert deck_threshold(deck_folder) == fit.card_threshold
    finally:
        (deck_folder / "calibration.json").unlink()


def test_too_few_confirmed_cards_keep_the_base_threshold(deck_folder: Path) -> None:
    reader = CardReader(reader_path=deck_folder / READER_FILE)
    photo = TeachingPhoto(holding(np.zeros((64, 64, 3), np.uint8)), frozenset({"AC"}))
    fit = fit_deck_threshold(reader, [photo])
    assert fit.card_threshold == fit.base_threshold
