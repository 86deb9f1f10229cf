"""Which way an index faces: the geometry behind the labels, and the shipped network."""

from __future__ import annotations

import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from cribtrain.data.synth import SynthConfig, generate
from cribtrain.fit.orientation_train import cut, scene_orientations, synthetic_samples, train
from scorer.cards import parse_card
from tests.helpers import FIXTURES
from tests.samples import SAMPLES, labelled, labelled_cards
from tests.tabletop import card_detections, without_corners
from vision.detection.crops import crop_index
from vision.detection.detections import FACING_UNKNOWN, Detections, class_of_card
from vision.detection.models import MODELS_DIR, load_model
from vision.detection.orientation import (
    ORIENTATION_FILE,
    OrientationReader,
    face_orientation,
    pair_orientations,
    turned_label,
)
from vision.reading import CardReader
from vision.table.cards import PairingConfig, cards_from_detections, reread_conflicts
from vision.table.sources import read_image


def _card_boxes(centre: tuple[float, float], degrees: float, g: float = 20.0) -> np.ndarray:
    """The two index boxes of a card turned `degrees` clockwise (top-left, bottom-right)."""
    turn = math.radians(degrees)
    boxes = []
    for sx, sy in ((-1, -1), (1, 1)):
        dx, dy = sx * 1.65 * g, sy * 2.35 * g
        x = centre[0] + dx * math.cos(turn) - dy * math.sin(turn)
        y = centre[1] + dx * math.sin(turn) + dy * math.cos(turn)
        boxes.append([x - g / 2, y - g / 2, x + g / 2, y + g / 2])
    return np.asarray(boxes)


@pytest.mark.parametrize("quarter", [0, 1, 2, 3])
def test_a_labelled_pair_tells_how_its_card_lies(quarter: int) -> None:
    boxes = _card_boxes((300, 300), 90 * quarter + 10)
    assert pair_orientations(boxes, np.array([7, 7])).tolist() == [quarter, (quarter + 2) % 4]


def test_a_card_near_45_degrees_or_a_lone_index_stays_unknown() -> None:
    boxes = np.concatenate([_card_boxes((300, 300), 45), _card_boxes((600, 300), 0)[:1]])
    assert pair_orientations(boxes, np.array([7, 7, 9])).tolist() == [FACING_UNKNOWN] * 3


def test_a_four_index_cards_side_by_side_pair_is_not_a_diagonal() -> None:
    boxes = np.array([[100, 100, 112, 120], [140, 100, 152, 120]], np.float64)  # 2.3 apart
    assert pair_orientations(boxes, np.array([3, 3])).tolist() == [FACING_UNKNOWN] * 2


@pytest.mark.parametrize("quarter", [0, 1, 2, 3])
def test_a_faces_corners_give_its_turn(quarter: int) -> None:
    corners = np.array([[0, 0], [63, 0], [63, 88], [0, 88]], np.float64) - (31.5, 44)
    clockwise = np.array([[0, -1], [1, 0]])  # a quarter turn clockwise, y pointing down
    turned = corners @ np.linalg.matrix_power(clockwise, quarter).T
    assert face_orientation(turned) == pytest.approx(90 * quarter)


def test_a_scene_label_takes_its_corner_and_its_face() -> None:
    """An index at the face's bottom corner faces the other way; a face turned near 45° or a
    box outside every face of its class gives no label."""
    face = [[100, 100], [163, 100], [163, 188], [100, 188]]
    boxes = np.array([[102, 102, 112, 120], [151, 168, 161, 186], [400, 400, 410, 418]], float)
    cards = [{"code": "AC", "corners": face}]
    assert scene_orientations(boxes, np.array([0, 0, 0]), cards).tolist() == [0, 2, -1]
    leaning = cv2.boxPoints(((131.5, 144), (63, 88), 44)).tolist()
    assert scene_orientations(boxes[:1], np.array([0]), [{"code": "AC", "corners": leaning}]
                              ).tolist() == [-1]  # fmt: skip


def _mark_facing(crop: np.ndarray) -> int:
    """Which way a dark mark lies from the crop's centre, as an orientation code."""
    ys, xs = np.nonzero(crop < 128)
    dy, dx = ys.mean() - (crop.shape[0] - 1) / 2, xs.mean() - (crop.shape[1] - 1) / 2
    if abs(dx) > abs(dy):
        return 1 if dx > 0 else 3
    return 2 if dy > 0 else 0


@pytest.mark.parametrize("quarter", [1, 2, 3])
def test_turning_a_crop_turns_its_label_as_crop_index_turns_it(quarter: int) -> None:
    """`turned_label` agrees with `crop_index`'s angle and with `np.rot90`, which training
    uses: a mark above the box's centre (an upright index's rank) moves as the label says."""
    image = np.full((200, 200), 255, np.uint8)
    cv2.rectangle(image, (95, 80), (105, 90), 0, -1)  # above the centre (100, 100)
    box = np.array([80, 80, 120, 120], np.float64)
    upright = crop_index(image, box, 32, margin=0.0)
    assert _mark_facing(upright) == 0
    assert _mark_facing(crop_index(image, box, 32, margin=0.0, angle=90 * quarter)) == (
        turned_label(0, quarter)
    )
    assert _mark_facing(np.rot90(upright, quarter)) == turned_label(0, quarter)


def test_indices_facing_the_same_way_a_card_apart_are_two_cards() -> None:
    """The webcam rows: a club above read as the spade below it, both indices upside down."""
    spade = card_detections("7S", (300, 400), rotation=2, corners="br")
    above = card_detections("7S", (300, 300), rotation=2, corners="br", score=0.6)
    d = Detections.concatenate([spade, above])
    with_orientation = cards_from_detections(d)
    assert [c.indices_seen for c in with_orientation.cards] == [1]
    assert [str(c.card) for c in with_orientation.conflicts] == ["7S"]
    assert [c.indices_seen for c in cards_from_detections(without_corners(d)).cards] == [2]


def test_opposite_indices_still_pair_when_one_faces_unknown() -> None:
    d = card_detections("9D", (300, 300))
    half_known = Detections(d.boxes, d.scores, d.class_ids, [0, FACING_UNKNOWN])
    assert [c.indices_seen for c in cards_from_detections(half_known).cards] == [2]


def test_the_shipped_network_reads_the_sample_indices_whose_orientation_is_known() -> None:
    reader = OrientationReader(load_model(MODELS_DIR / ORIENTATION_FILE, "auto").run)
    checked = 0
    for name in ("dev_0594.jpg", "syn_77_000013.jpg", "syn1280_77_000067.jpg"):
        photo = read_image(SAMPLES / "images" / name)
        truth = labelled(name, photo.shape[1], photo.shape[0])
        known = pair_orientations(truth.boxes.astype(np.float64), truth.class_ids)
        read = reader(photo, truth.boxes)
        sure = (known != FACING_UNKNOWN) & (read != FACING_UNKNOWN)
        assert np.array_equal(read[sure], known[sure]), name
        checked += int(sure.sum())
    assert checked >= 12


def _webcam_rows() -> tuple[Detections, Detections]:
    """A spade's index, and the club's above it read as that spade (second choice: the club);
    both upside down, a card's length apart."""
    spade = card_detections("7S", (300, 400), rotation=2, corners="br", score=0.99)
    club = card_detections("7S", (300, 300), rotation=2, corners="br", score=0.8)
    every = Detections.concatenate([spade, club])
    second = Detections(every.boxes, [0.3, 0.7], [class_of_card(parse_card(c)) for c in
                                                  ("7H", "7C")], every.facing)  # fmt: skip
    return every, second


def test_a_conflicts_weaker_sighting_is_read_as_its_second_choice() -> None:
    every, second = _webcam_rows()
    seen = cards_from_detections(every)
    assert [str(c.card) for c in seen.cards] == ["7S"] and len(seen.conflicts) == 1
    again = cards_from_detections(reread_conflicts(every, second, seen))
    assert sorted(str(c.card) for c in again.cards) == ["7C", "7S"] and not again.conflicts
    assert again.by_card()[parse_card("7S")].detections.scores.tolist() == pytest.approx([0.99])


def test_a_second_choice_already_seen_or_a_conflict_without_a_winner_stays() -> None:
    every, second = _webcam_rows()
    club = card_detections("7C", (700, 300))
    with_club = Detections.concatenate([every, club])
    seen = cards_from_detections(with_club)
    assert sorted(str(c.card) for c in seen.cards) == ["7C", "7S"]
    assert reread_conflicts(with_club, Detections.concatenate([second, club]), seen) == with_club
    even = Detections(every.boxes, [0.99, 0.99], every.class_ids, every.facing)
    tied = cards_from_detections(even)
    assert not tied.cards and reread_conflicts(even, second, tied) == even


def test_a_narrow_four_index_card_is_one_card_and_seen_twice_is_not_read_again() -> None:
    """Dondorf's 8D in a held-out 1280 x 720 frame: its side-by-side indices lie 1.4-1.5
    glyphs apart. Pairing joins all four; where it did not (`pair_min` 1.5, diagonals not
    joined) the card was two diagonal pairs, and the weaker pair's runner-up (8H) a card that
    is not there."""
    boxes = [[654, 294, 666, 346], [731, 287, 744, 339], [659, 481, 673, 543],
             [742, 474, 757, 532]]  # fmt: skip
    eight = class_of_card(parse_card("8D"))
    every = Detections(np.asarray(boxes, np.float32), [0.99, 0.99, 0.98, 0.99], [eight] * 4,
                       [0, 0, 2, 2])  # fmt: skip
    second = Detections(every.boxes, [0.0, 0.64, 0.99, 0.0],
                        [class_of_card(parse_card("8H"))] * 4, every.facing)  # fmt: skip
    whole = cards_from_detections(every)
    assert [c.indices_seen for c in whole.cards] == [4] and not whole.conflicts
    joined = cards_from_detections(every, PairingConfig(pair_min=1.5))  # diagonals meet
    assert [c.indices_seen for c in joined.cards] == [4] and not joined.conflicts
    split = PairingConfig(pair_min=1.5, same_centre=0.0)
    seen = cards_from_detections(every, split)
    assert [str(c.card) for c in seen.cards] == ["8D"] and len(seen.conflicts) == 1
    assert reread_conflicts(every, second, seen, split) == every


def test_a_four_index_card_seen_as_its_two_diagonals_is_one_card() -> None:
    """Dondorf's 8H lying sideways in a held-out 1280 x 720 frame: its side-by-side indices
    face the same way 3.6-3.9 glyphs apart, past `side_by_side_max`, so pairing makes its two
    diagonals; they meet at one centre, which two cards never share."""
    boxes = [[537, 227, 564, 243], [538, 333, 566, 351], [430, 347, 461, 366],
             [435, 239, 464, 258]]  # fmt: skip
    every = Detections(np.asarray(boxes, np.float32), [0.99] * 4,
                       [class_of_card(parse_card("8H"))] * 4, [1, 1, 3, 3])  # fmt: skip
    seen = cards_from_detections(every)
    assert [(str(c.card), c.indices_seen) for c in seen.cards] == [("8H", 4)]
    assert not seen.conflicts
    apart = cards_from_detections(every, PairingConfig(same_centre=0.0))
    assert not apart.cards and len(apart.conflicts) == 1  # two sure diagonals: neither wins


@pytest.mark.slow  # reads whole frames through the shipped models
def test_the_webcam_rows_read_more_clubs_with_orientation_and_second_choices() -> None:
    """dev_0588: clubs above spades, all upside down; by distance alone clubs misread as the
    spade below them are paired with it and lost."""
    frame = read_image(SAMPLES / "images" / "dev_0588.jpg")
    truth = labelled_cards("dev_0588.jpg", frame.shape[1], frame.shape[0])
    reader = CardReader()
    reading = reader.read(frame)
    now = {str(c.card) for c in reading.cards.cards}
    # by distance alone, a conflict's weaker sightings unread
    alone = cards_from_detections(without_corners(reading.indices), reader.pairing)
    before = {str(c.card) for c in alone.cards}
    assert now <= truth, f"read cards that are not there: {sorted(now - truth)}"
    assert before < now, f"before {sorted(before)}, now {sorted(now)}"


SYNTH_DECK = FIXTURES / "deck-standard"


@pytest.fixture(scope="module")
def scenes(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("scenes")
    generate(folder, 4, seed=5, deck_dirs=[SYNTH_DECK], cfg=SynthConfig(size=640),
             progress=False)  # fmt: skip
    return folder


@pytest.mark.slow  # reads whole frames through the shipped models
def test_the_shipped_network_agrees_with_a_scenes_geometry(scenes: Path) -> None:
    """The labels `cribcam train orientation` learns from, read back by the shipped network."""
    reader = OrientationReader(load_model(MODELS_DIR / ORIENTATION_FILE, "auto").run)
    known = agreed = 0
    for frame, boxes, truth in synthetic_samples(scenes):
        read = reader(frame, boxes)
        sure = (truth != FACING_UNKNOWN) & (read != FACING_UNKNOWN)
        known, agreed = known + int(sure.sum()), agreed + int((read[sure] == truth[sure]).sum())
    assert known >= 20 and agreed == known


@pytest.mark.slow  # reads many frames end to end: the full run covers it
def test_training_cuts_turned_crops_and_exports_a_network_the_app_loads(
    scenes: Path, tmp_path: Path
) -> None:
    crops, labels = cut(synthetic_samples(scenes), np.random.default_rng(0))
    assert crops.shape[1:] == (32, 32) and len(crops) == len(labels) > 20
    assert set(labels.tolist()) <= {0, 1, 2, 3}
    onnx = train((crops, labels), {"scenes": (crops, labels)}, tmp_path, minutes=0.02)
    assert (tmp_path / "orientation-results.csv").read_text().count("\n") >= 2
    p = OrientationReader(load_model(onnx, "onnxruntime").run).probabilities(crops[:5])
    assert p.shape == (5, 4) and np.allclose(p.sum(axis=1), 1, atol=1e-5)
