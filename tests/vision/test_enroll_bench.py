"""The enrolment bench's app-level count: what a player would see named on the table."""

from __future__ import annotations

from vision.detector import MODELS_DIR, READER_FILE
from vision.enroll_bench import app_summary, game_accuracy
from vision.synth import load_decks
from vision.tune_data import FIXTURE_DECK


def test_app_summary_counts_right_wrong_and_missed_cards() -> None:
    frames = [({"5H", "3D"}, {"5H", "2C"}), ({"AS"}, set())]  # (cards there, cards named)
    assert app_summary(frames) == {"precision": 0.5, "recall": 0.3333, "wrong": 1, "cards": 3}


def test_game_scenes_are_also_read_by_the_whole_app() -> None:
    deck = load_decks([FIXTURE_DECK])[0]
    readers = {"base": MODELS_DIR / READER_FILE}
    result = game_accuracy(deck, MODELS_DIR, readers, scenes=2, seed=0)["base"]
    app = result["app"]
    assert app["cards"] == result["cards"]  # each face-up card with a labelled index, once
    assert app["precision"] >= 0.9 and app["recall"] >= 0.8
