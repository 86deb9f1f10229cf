"""The real-deck enrolment bench teaches a deck as a player does, from ordinary photos with cards
repeated across them (every corner of every card, repeats pooled), and counts what the base
and the taught deck name in the held-out photos."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from cribtrain.measure.enroll_bench import ReaderSetup
from cribtrain.measure.enroll_bench_real import (
    PhotoCards,
    card_summary,
    covering_photos,
    enrolment_patches,
    player_teaching,
    read_photos,
    table,
    teaching_photos,
)
from scorer.cards import parse_card
from tests.samples import SAMPLES, labelled_cards
from vision.decks.enroll import cut_patch
from vision.detection.detections import CLASS_NAMES, FACING_UNKNOWN, class_of_card
from vision.detection.models import MODELS_DIR, READER_FILE


def photo(root: Path, name: str, boxes: list[tuple[str, tuple[int, int, int, int]]],
          seed: int) -> np.ndarray:  # fmt: skip
    """A noise photo 640 px square and its YOLO labels (`card`, pixel box)."""
    pixels = np.random.default_rng(seed).integers(0, 256, (640, 640, 3), dtype=np.uint8)
    (root / "images").mkdir(exist_ok=True)
    (root / "labels").mkdir(exist_ok=True)
    cv2.imwrite(str(root / "images" / name), pixels, [cv2.IMWRITE_JPEG_QUALITY, 100])
    lines = [
        f"{class_of_card(parse_card(card))} {(x1 + x2) / 1280} {(y1 + y2) / 1280} "
        f"{(x2 - x1) / 640} {(y2 - y1) / 640}"
        for card, (x1, y1, x2, y2) in boxes
    ]
    (root / "labels" / (Path(name).stem + ".txt")).write_text("\n".join(lines) + "\n")
    return np.asarray(cv2.imread(str(root / "images" / name)), np.uint8)


def close(patch: np.ndarray, frame: np.ndarray, box: tuple[int, int, int, int]) -> bool:
    """Whether `patch` is the patch of `box` in `frame` (up to JPEG)."""
    expected = cut_patch(frame, np.array(box, np.float32))
    return bool(np.abs(patch.astype(int) - expected.astype(int)).mean() < 1.0)


def test_teaching_photos_show_the_most_new_cards_first_then_repeat_cards() -> None:
    cards = {
        "a.jpg": frozenset({1, 2}), "b.jpg": frozenset({1, 2, 3}), "c.jpg": frozenset({4}),
        "d.jpg": frozenset({1, 4}), "e.jpg": frozenset(), "f.jpg": frozenset({2, 3}),
    }  # fmt: skip
    # 3 new cards; then the one left, shown by c and d: d shows more cards
    assert teaching_photos(cards, 2) == ["b.jpg", "d.jpg"]
    # every card shown: photos showing the most cards follow (ties by name); none empty
    assert teaching_photos(cards) == ["b.jpg", "d.jpg", "a.jpg", "f.jpg", "c.jpg"]


def test_covering_photos_show_each_card_and_stop() -> None:
    cards = {
        "a.jpg": frozenset({1, 2}), "b.jpg": frozenset({1, 2, 3}), "c.jpg": frozenset({4}),
        "d.jpg": frozenset({1, 4}), "e.jpg": frozenset(), "f.jpg": frozenset({2, 3}),
    }  # fmt: skip
    assert covering_photos(cards) == ["b.jpg", "d.jpg"]  # no photo of shown cards only
    assert covering_photos({}) == []


class SureOfFiveHearts:
    """A reader that finds the boxes it is given, photo after photo, reads every index surely
    as the five of hearts and knows no index's facing."""

    def __init__(self, boxes: list[list[tuple[int, int, int, int]]]) -> None:
        self.boxes = iter(boxes)

    def index_boxes(self, frame: np.ndarray) -> np.ndarray:
        return np.array(next(self.boxes), np.float32)

    def classify(self, crops: np.ndarray) -> np.ndarray:
        out = np.zeros((len(crops), 52), np.float32)
        out[:, CLASS_NAMES.index("5H")] = 1.0
        return out

    def index_facing(self, frame: np.ndarray, boxes: np.ndarray) -> np.ndarray:
        return np.full(len(boxes), FACING_UNKNOWN, np.int8)


def test_the_player_corrects_each_wrong_proposal_and_mixed_cards_are_counted(
    tmp_path: Path,
) -> None:
    """Proposals are corrected to the card labelled at their corners, or to "not a card" (a box
    on no card); a proposal holding two cards' corners is counted, the second card unseen."""
    photo(tmp_path, "a.jpg", [("5H", (100, 100, 120, 130)), ("9C", (400, 400, 420, 430))], 1)
    photo(tmp_path, "b.jpg", [("5H", (500, 100, 520, 130)), ("2S", (100, 500, 120, 530)),
                              ("3S", (271, 500, 291, 530))], 2)  # fmt: skip
    reader = SureOfFiveHearts([
        [(100, 100, 120, 130), (400, 400, 420, 430), (500, 100, 520, 130)],  # the last: no card
        [(500, 100, 520, 130), (100, 500, 120, 530), (271, 500, 291, 530)],  # 2S, 3S: one apart
    ])  # fmt: skip
    taught = player_teaching(tmp_path, ["a.jpg", "b.jpg"], reader)  # type: ignore[arg-type]
    assert (taught.proposals, taught.corrections, taught.mixed, taught.unseen) == (5, 3, 1, 1)
    cards = [(c.shot, c.card) for c in taught.enrollment.candidates]
    assert sorted(cards, key=str) == sorted(
        [(0, "5H"), (0, "9C"), (0, None), (1, "5H"), (1, "2S")], key=str
    )


def test_every_corner_of_every_card_is_taught_and_repeats_are_pooled(tmp_path: Path) -> None:
    """A card in two photos is one card with all three of its corners, the photo showing two
    of them first (the tune holds each card's second patch back: its other corner)."""
    a = photo(tmp_path, "a.jpg", [("5H", (100, 100, 120, 130))], seed=1)
    b = photo(tmp_path, "b.jpg", [("5H", (300, 300, 320, 330)), ("2C", (50, 400, 70, 430)),
                                  ("5H", (400, 200, 420, 230))], seed=2)  # fmt: skip
    cards = dict(enrolment_patches(tmp_path, ["a.jpg", "b.jpg"]))
    assert list(cards) == ["2C", "5H"]  # card-class order
    assert [len(cards["5H"]), len(cards["2C"])] == [3, 1]
    assert close(cards["5H"][0], b, (300, 300, 320, 330))
    assert close(cards["5H"][1], b, (400, 200, 420, 230))
    assert close(cards["5H"][2], a, (100, 100, 120, 130))
    assert close(cards["2C"][0], b, (50, 400, 70, 430))


def test_enrolment_takes_the_corrected_labels(tmp_path: Path) -> None:
    """A corrected label file names the card its corner really shows."""
    photo(tmp_path, "a.jpg", [("2C", (50, 400, 70, 430))], seed=3)
    relabel = tmp_path / "relabel"
    relabel.mkdir()
    own = (tmp_path / "labels" / "a.txt").read_text()
    (relabel / "a.txt").write_text(own.replace(f"{class_of_card(parse_card('2C'))} ", "2 ", 1))
    assert [card for card, _ in enrolment_patches(tmp_path, ["a.jpg"])] == ["2C"]
    assert [card for card, _ in enrolment_patches(tmp_path, ["a.jpg"], relabel)] == ["3C"]


def test_the_cards_named_are_counted_per_card() -> None:
    photos = [
        PhotoCards(frozenset({"AC", "2C"}), frozenset({"AC", "2C"})),  # fully right
        PhotoCards(frozenset({"AC", "3C"}), frozenset({"AC", "4C"})),  # one wrong, one missed
        PhotoCards(frozenset({"5H"}), frozenset({"5H"}), frozenset({"5H"})),  # seen twice
        PhotoCards(frozenset({"KS"}), frozenset()),  # missed
    ]
    assert card_summary(photos) == {
        "precision": 80.0, "recall": round(100 * 4 / 6, 2), "wrong": 1, "double": 1,
        "fully_right": 1, "photos": 4, "cards": 6,
    }  # fmt: skip


def test_the_table_shows_each_reading_of_a_group() -> None:
    read = {"precision": 99.5, "recall": 97.25, "wrong": 1, "double": 0, "fully_right": 30,
            "photos": 34, "ms_per_photo": 88.4}  # fmt: skip
    result = {
        "group": "webcam", "teaching_photos": 20, "cards_taught": 52, "patches": 300,
        "test_photos": 34, "held_back_before": 0.9, "held_back_after": 0.95, "kept_base": False,
        "tune_seconds": 181.2, "read": {"base": read, "taught": {**read, "ms_per_photo": 90.0}},
    }  # fmt: skip
    lines = table(result)
    assert lines[0].startswith("webcam: taught from 20 photos (52 cards, 300 corners")
    assert "90.0 -> 95.0 %" in lines[0] and "34 held-out photos" in lines[0]
    assert lines[1].split() == ["reader", "precision", "%", "recall", "%", "wrong", "double",
                                "fully", "right", "ms/photo"]  # fmt: skip
    assert lines[2].split() == ["base", "99.5", "97.25", "1", "0", "30/34", "88.4"]
    assert lines[3].split()[0] == "taught" and lines[3].split()[-1] == "90.0"


@pytest.mark.slow  # reads many frames end to end: the full run covers it
def test_the_held_out_photos_are_read_by_each_reader_and_by_the_whole_app() -> None:
    """The committed real photos, read by the base reader with and without the small-index
    reader: every labelled card counted once, most named by the app, corners mostly read,
    each photo timed once a round."""
    photos = ["dev_0075.jpg", "dev_0594.jpg"]
    base = MODELS_DIR / READER_FILE
    readers = {"both": ReaderSetup(base), "main": ReaderSetup(base, small=False)}
    read = read_photos(SAMPLES, photos, MODELS_DIR, readers, rounds=2)
    labelled = sum(len(labelled_cards(name, 640, 640)) for name in photos)
    for reading in read.values():
        assert reading["cards"] == labelled and reading["photos"] == 2
        assert reading["per_corner"] >= 80
        assert reading["precision"] >= 90 and reading["recall"] >= 80
        assert reading["ms_per_photo"] > 0
