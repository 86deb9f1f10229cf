"""The enrolment bench's app-level count: what a player would see named on the table."""

from __future__ import annotations

import numpy as np
import pytest

from cribtrain.data.cardart import CLASSES
from cribtrain.data.synth import load_decks
from cribtrain.fit.tune_data import FIXTURE_DECK
from cribtrain.measure.enroll_bench import ReaderSetup, app_summary, game_accuracy, true_card
from vision.decks.enroll import Candidate
from vision.detection.models import MODELS_DIR, READER_FILE


def test_app_summary_counts_right_wrong_and_missed_cards() -> None:
    frames = [({"5H", "3D"}, {"5H", "2C"}), ({"AS"}, set())]  # (cards there, cards named)
    assert app_summary(frames) == {"precision": 0.5, "recall": 0.3333, "wrong": 1, "cards": 3}


@pytest.mark.slow  # reads many frames end to end: the full run covers it
def test_game_scenes_are_also_read_by_the_whole_app() -> None:
    deck = load_decks([FIXTURE_DECK])[0]
    readers = {"base": ReaderSetup(MODELS_DIR / READER_FILE)}
    result = game_accuracy(deck, MODELS_DIR, readers, scenes=2, seed=0)["base"]
    app = result["app"]
    assert app["cards"] == result["cards"]  # each face-up card with a labelled index, once
    assert app["precision"] >= 0.9 and app["recall"] >= 0.8


def test_the_simulated_player_knows_a_card_by_any_of_its_labelled_indices() -> None:
    """Glare washed the first index out of the labels; the second still names the card."""
    labelled = np.array([[100, 100, 112, 130]], np.float32)  # only the second index
    truth = [(np.zeros((1, 1, 3), np.uint8), labelled, [CLASSES.index("10S")])]
    found = np.array([[10, 10, 22, 40], [101, 99, 113, 131]], np.float32)
    card = Candidate(1, 0, found, [], "10S", 0.9, None)
    assert true_card(card, truth) == "10S"
    elsewhere = Candidate(2, 0, found[:1], [], "10S", 0.9, None)
    assert true_card(elsewhere, truth) is None
