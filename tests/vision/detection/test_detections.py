"""The validated `Detections` type and the class-id ↔ card mapping."""

from __future__ import annotations

import json

import numpy as np
import pytest

from scorer.cards import DECK, parse_card
from tests.helpers import REPO
from vision.detection.detections import (
    CLASS_NAMES,
    Detections,
    at_frame_edge,
    card_of_class,
    class_of_card,
    suppress_overlaps,
)
from vision.errors import InvalidDetectionsError


def test_class_names_follow_dev_real_order() -> None:
    assert len(CLASS_NAMES) == 52 and len(set(CLASS_NAMES)) == 52
    assert CLASS_NAMES[:3] == ("AC", "2C", "3C") and CLASS_NAMES[12:14] == ("KC", "AD")
    assert CLASS_NAMES[-1] == "KS" and CLASS_NAMES[35] == "10H"


def test_class_card_round_trip() -> None:
    for card in DECK:
        assert card_of_class(class_of_card(card)) == card
        assert CLASS_NAMES[class_of_card(card)] == str(card)
    for bad in (-1, 52, True, 3.0):
        with pytest.raises(InvalidDetectionsError):
            card_of_class(bad)  # type: ignore[arg-type]


def sample() -> Detections:
    return Detections(
        [[0, 0, 10, 20], [5, 5, 15, 30], [100, 50, 120, 60]], [0.9, 0.4, 0.7], [0, 51, -1]
    )


def test_arrays_are_typed_and_read_only() -> None:
    d = sample()
    assert d.boxes.dtype == np.float32 and d.boxes.shape == (3, 4)
    assert d.scores.dtype == np.float32 and d.class_ids.dtype == np.int64
    assert d.facing is None
    with pytest.raises(ValueError):
        d.boxes[0, 0] = 5
    assert d.centres.tolist() == [[5, 10], [10, 17.5], [110, 55]]
    assert d.sizes.tolist() == [20, 25, 20]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (([[0, 0, 10]], [0.5], [1]), "N×4"),
        (([[0, 0, 10, 10]], [0.5, 0.5], [1]), r"scores must have shape \(1,\)"),
        (([[0, 0, 10, 10]], [0.5], [1, 2]), r"class_ids must have shape \(1,\)"),
        (([[0, 0, 10, 10], [10, 0, 5, 10]], [0.5, 0.5], [1, 2]), r"boxes\[1\]"),
        (([[0, 0, 10, 0]], [0.5], [1]), r"boxes\[0\]"),
        (([[0, 0, np.nan, 10]], [0.5], [1]), "not finite"),
        (([[0, 0, 10, 10]], [1.5], [1]), r"scores\[0\] = 1.5"),
        (([[0, 0, 10, 10]], [0.5], [52]), r"class_ids\[0\] = 52"),
        (([[0, 0, 10, 10]], [0.5], [0.5]), "class_ids must be integers"),
        (([["a", 0, 10, 10]], [0.5], [1]), "boxes is not numeric"),
    ],
)
def test_constructor_names_the_bad_input(args: tuple[object, ...], message: str) -> None:
    with pytest.raises(InvalidDetectionsError, match=message):
        Detections(*args)  # type: ignore[arg-type]


def test_facing_is_validated() -> None:
    d = Detections([[0, 0, 10, 10]], [0.5], [1], facing=[2])
    assert d.facing is not None and d.facing.tolist() == [2]
    with pytest.raises(InvalidDetectionsError, match=r"facing\[0\] = 4"):
        Detections([[0, 0, 10, 10]], [0.5], [1], facing=[4])
    with pytest.raises(InvalidDetectionsError, match="facing must have shape"):
        Detections([[0, 0, 10, 10]], [0.5], [1], facing=[0, 1])


def test_the_stages_rows_are_validated_and_travel_with_the_detections() -> None:
    """Box scores and class probabilities, optional, are checked as the other rows are and
    kept through indexing, concatenation, shifts and replaced rows."""
    probabilities = np.zeros((2, 52), np.float32)
    probabilities[0, 3], probabilities[1, 51] = 0.9, 1.0
    d = Detections([[0, 0, 10, 10], [5, 5, 9, 9]], [0.5, 0.6], [-1, -1],
                   box_scores=[0.5, 0.6], probabilities=probabilities)  # fmt: skip
    assert d.box_scores is not None and not d.box_scores.flags.writeable
    assert d[1:].box_scores.tolist() == pytest.approx([0.6])  # type: ignore[union-attr]
    assert d[[1]].probabilities[0, 51] == 1.0  # type: ignore[index]
    both = Detections.concatenate([d, d.shifted(1, 1)])
    assert both.probabilities is not None and both.probabilities.shape == (4, 52)
    assert Detections.concatenate([d, Detections.empty()]).probabilities is None
    named = d.with_rows(class_ids=[3, 51], scores=[0.9, 0.8])
    assert named.class_ids.tolist() == [3, 51] and named.box_scores is not None
    assert named != d and d.with_rows() == d
    assert d != Detections(d.boxes, d.scores, d.class_ids)  # the stages' rows count
    with pytest.raises(InvalidDetectionsError, match=r"box_scores\[1\] = 1.5"):
        Detections(d.boxes, d.scores, d.class_ids, box_scores=[0.5, 1.5])
    with pytest.raises(InvalidDetectionsError, match=r"probabilities must have shape \(2, 52\)"):
        Detections(d.boxes, d.scores, d.class_ids, probabilities=np.zeros((2, 53)))
    with pytest.raises(InvalidDetectionsError, match="no such detection rows"):
        d.with_rows(colour=[1, 2])


def test_indexing_and_filtering() -> None:
    d = sample()
    assert len(d) == 3 and len(Detections.empty()) == 0
    assert d[0].cards() == [parse_card("AC")]
    assert d[-1].cards() == [None]
    assert d[1:].class_ids.tolist() == [51, -1]
    assert d[[2, 0]].class_ids.tolist() == [-1, 0]
    assert d[d.scores > 0.5].class_ids.tolist() == [0, -1]
    assert len(d[np.zeros(3, bool)]) == 0 and len(d[[]]) == 0
    with pytest.raises(IndexError):
        d[3]
    with pytest.raises(IndexError):
        d[np.array([True, False])]
    assert d.cards() == [parse_card("AC"), parse_card("KS"), None]
    assert d == sample() and d != d[:2]
    assert repr(d) == "Detections(3: AC KS ?)"


def test_shift_and_concatenate() -> None:
    d = sample()
    assert d.shifted(1, 2).boxes[0].tolist() == [1, 2, 11, 22]
    both = Detections.concatenate([d, d[:1]])
    assert both.class_ids.tolist() == [0, 51, -1, 0]
    assert len(Detections.concatenate([])) == 0


def test_from_yolo_labels() -> None:
    text = "4 0.5 0.25 0.1 0.2\n\n  51 0.1 0.1 0.05 0.1 0.75  \n"
    d = Detections.from_yolo_labels(text, 640, 480)
    assert d.cards() == [parse_card("5C"), parse_card("KS")]
    assert d.boxes[0].tolist() == pytest.approx([288, 72, 352, 168])
    assert d.scores.tolist() == pytest.approx([1.0, 0.75])
    assert len(Detections.from_yolo_labels("", 640, 480)) == 0
    with pytest.raises(InvalidDetectionsError, match=r"label line 2 '4 0\.5'"):
        Detections.from_yolo_labels("0 0.5 0.5 0.1 0.1\n4 0.5", 640, 480)
    with pytest.raises(InvalidDetectionsError, match="class_ids"):
        Detections.from_yolo_labels("60 0.5 0.5 0.1 0.1", 640, 480)
    with pytest.raises(InvalidDetectionsError, match="frame size"):
        Detections.from_yolo_labels("", 0, 480)


def test_dev_real_label_files_parse() -> None:

    labels = REPO / "datasets" / "samples" / "labels"
    files = sorted(labels.glob("*.txt"))
    lines = sum(len(p.read_text().split()) // 5 for p in files)
    boxes = sum(len(Detections.from_yolo_labels(p.read_text(), 640, 640)) for p in files)
    assert len(files) == 5 and boxes == lines > 20


def test_to_json() -> None:
    d = Detections([[1, 2, 3, 4]], [0.5], [37], facing=[0])
    assert json.loads(d.to_json()) == [
        {"box": [1.0, 2.0, 3.0, 4.0], "score": 0.5, "class_id": 37, "card": "QH", "facing": 0}
    ]
    assert sample().to_records()[2]["card"] is None


def test_overlapping_boxes_keep_the_best_scored_one() -> None:
    boxes = np.array([[0, 0, 10, 20], [1, 1, 11, 21], [30, 0, 40, 20], [0, 0, 10, 9]], np.float32)
    scores = np.array([0.3, 0.6, 0.2, 0.1], np.float32)
    # row 1 beats row 0 (IoU 0.77); row 3 overlaps row 1 by less than half: both kept
    assert suppress_overlaps(boxes, scores).tolist() == [1, 2, 3]
    assert suppress_overlaps(boxes[:0], scores[:0]).tolist() == []


@pytest.mark.parametrize(
    ("box", "at_edge"),
    [
        ([0.0, 10, 20, 40], True),  # left side on the edge
        ([1.0, 10, 20, 40], True),  # within the 1-px margin
        ([1.5, 10, 20, 40], False),
        ([30, 0.5, 50, 40], True),  # top
        ([80, 10, 99.0, 40], True),  # right (frame 100 wide)
        ([80, 10, 98.5, 40], False),
        ([30, 30, 50, 59.5], True),  # bottom (frame 60 high)
        ([30, 30, 50, 58.5], False),
    ],
)
def test_a_box_reaching_the_frames_edge_is_at_it(box: list[float], at_edge: bool) -> None:
    assert at_frame_edge(np.array([box], np.float32), 100, 60).tolist() == [at_edge]
    assert at_frame_edge(np.zeros((0, 4), np.float32), 100, 60).shape == (0,)
