"""The real-deck enrolment bench takes each card once, as an enrolment shot shows it."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from cribtrain.measure.enroll_bench import ReaderSetup
from cribtrain.measure.enroll_bench_real import enrolment_patches, read_photos
from scorer.cards import parse_card
from tests.samples import SAMPLES, labelled_cards
from vision.decks.enroll import cut_patch
from vision.detection.detections import class_of_card
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


def test_each_card_once_from_the_photo_showing_most_of_its_corners(tmp_path: Path) -> None:
    photo(tmp_path, "a.jpg", [("5H", (100, 100, 120, 130))], seed=1)
    b = photo(tmp_path, "b.jpg", [("5H", (300, 300, 320, 330)), ("2C", (50, 400, 70, 430)),
                                  ("5H", (400, 200, 420, 230))], seed=2)  # fmt: skip
    cards = dict(enrolment_patches(tmp_path, ["a.jpg", "b.jpg"]))
    assert sorted(cards) == ["2C", "5H"]
    assert [len(cards["5H"]), len(cards["2C"])] == [2, 1]
    expected = cut_patch(b, np.array([300, 300, 320, 330], np.float32))
    assert np.abs(cards["5H"][0].astype(int) - expected.astype(int)).mean() < 1.0
    other = cut_patch(b, np.array([100, 100, 120, 130], np.float32))
    assert np.abs(cards["5H"][0].astype(int) - other.astype(int)).mean() > 20


def test_enrolment_takes_the_corrected_labels(tmp_path: Path) -> None:
    """A corrected label file names the card its corner really shows."""
    photo(tmp_path, "a.jpg", [("2C", (50, 400, 70, 430))], seed=3)
    relabel = tmp_path / "relabel"
    relabel.mkdir()
    own = (tmp_path / "labels" / "a.txt").read_text()
    (relabel / "a.txt").write_text(own.replace(f"{class_of_card(parse_card('2C'))} ", "2 ", 1))
    assert [card for card, _ in enrolment_patches(tmp_path, ["a.jpg"])] == ["2C"]
    assert [card for card, _ in enrolment_patches(tmp_path, ["a.jpg"], relabel)] == ["3C"]


@pytest.mark.slow  # reads many frames end to end: the full run covers it
def test_the_held_out_photos_are_read_by_each_reader_and_by_the_whole_app() -> None:
    """The committed real photos, read by the base reader with and without the small-index
    reader: every labelled card counted once, most named by the app, corners mostly read."""
    photos = ["dev_0075.jpg", "dev_0594.jpg"]
    base = MODELS_DIR / READER_FILE
    readers = {"both": ReaderSetup(base), "main": ReaderSetup(base, small=False)}
    read = read_photos(SAMPLES, photos, MODELS_DIR, readers)
    labelled = sum(len(labelled_cards(name, 640, 640)) for name in photos)
    for reading in read.values():
        assert reading["cards"] == reading["app"]["cards"] == labelled
        assert reading["per_corner"] >= 0.8
        assert reading["app"]["precision"] >= 0.9 and reading["app"]["recall"] >= 0.8
