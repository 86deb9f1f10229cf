"""The pip reader on the committed Dondorf faces, drawn as the poor webcam sees them (a 16 px
index, blurred, noisy), and its reading fused into a smoothed card's evidence."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from scorer.cards import parse_card
from vision.config import ReadingConfig
from vision.detection.detections import Detections, class_of_card
from vision.detection.pips import (
    FaceCut,
    PipConfig,
    PipCount,
    count_pips,
    cut_face,
    pip_chances,
    read_pips,
    with_faces,
)
from vision.table.cards import FrameCards, SeenCard
from vision.table.roles import TableLayout
from vision.table.smoothing import SmoothingConfig, TableSmoother

DECK = Path(__file__).resolve().parents[2] / "fixtures" / "deck-dondorf"
#: The Dondorf card's top-left and bottom-right index boxes in its own 96 x 150 pixels.
INDICES = np.array([[4, 5, 16, 35], [80, 114, 92, 144]], np.float64)
#: The index's size (its box's longer side) on the table: the poor webcam's.
INDEX_PX = 16.0
Image = npt.NDArray[np.uint8]


def _class(card: str) -> int:
    return class_of_card(parse_card(card))


def table(card: str, *, lying: bool = False, seed: int = 0) -> tuple[Image, Detections]:
    """`card` on green felt, its index `INDEX_PX` tall, blurred and noisy as the poor webcam
    gives it, standing (or lying: a quarter turn); and the boxes of its two diagonal indices."""
    art = cv2.imread(str(DECK / f"{card}.png"), cv2.IMREAD_UNCHANGED)
    assert art is not None
    scale = INDEX_PX / 30.0
    face = cv2.resize(art, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
    boxes = INDICES * scale
    facing = [0, 2]
    if lying:  # turned a quarter clockwise: (x, y) -> (h - 1 - y, x)
        face = cv2.rotate(face, cv2.ROTATE_90_CLOCKWISE)
        h = face.shape[1]
        boxes = np.array([[h - y2, x1, h - y1, x2] for x1, y1, x2, y2 in boxes])
        facing = [1, 3]
    picture = np.zeros((200, 200, 3), np.float64)
    picture[:] = (60, 150, 40)
    top, left = 37, 53
    rows, cols = face.shape[:2]
    alpha = face[..., 3:4] / 255.0
    spot = picture[top : top + rows, left : left + cols]
    spot[:] = alpha * face[..., :3] + (1 - alpha) * spot
    noise = np.random.default_rng(seed).normal(0, 5, picture.shape)
    seen = np.asarray(cv2.GaussianBlur(picture, (0, 0), 1.2), np.float64) + noise
    boxes = boxes + np.array([left, top, left, top])
    detections = Detections(boxes, [0.9, 0.9], [_class(card)] * 2, facing=facing)
    return np.clip(seen, 0, 255).astype(np.uint8), detections


@pytest.mark.parametrize("rank", ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10"])
@pytest.mark.parametrize("suit", ["C", "D", "H", "S"])
def test_a_number_cards_pips_are_counted_and_its_colour_told(rank: str, suit: str) -> None:
    picture, indices = table(rank + suit)
    cut = cut_face(picture, indices)
    assert cut is not None
    count = count_pips(cut)
    assert count is not None
    assert count.pips == parse_card(rank + suit).rank
    assert count.red in (suit in "DH", None)


@pytest.mark.parametrize("card", ["7C", "10H", "3D"])
def test_a_lying_card_reads_as_a_standing_one(card: str) -> None:
    picture, indices = table(card, lying=True)
    cut = cut_face(picture, indices)
    assert cut is not None
    count = count_pips(cut)
    assert count is not None and count.pips == parse_card(card).rank


@pytest.mark.parametrize("card", ["JC", "QH", "KS"])
def test_a_court_figure_says_court_card(card: str) -> None:
    picture, indices = table(card)
    chances = read_pips(picture, indices)
    assert chances is not None
    ranks = chances.reshape(4, 13).sum(axis=0)
    assert ranks[10:].sum() > 0.8  # the rest: a pictured ace


def test_the_count_makes_that_rank_likeliest_and_the_colour_its_suits() -> None:
    chances = pip_chances(count_pips(cut_face(*table("6H"))))  # type: ignore[arg-type]
    best = np.argsort(-chances)[:2]
    assert {int(i) for i in best} == {_class("6H"), _class("6D")}
    assert chances[_class("3S")] < 0.01


def test_a_card_seen_by_one_index_column_gives_no_face() -> None:
    picture, indices = table("8S")
    column = Detections(indices.boxes[[0, 0]] + [[0, 0, 0, 0], [0, 60, 0, 60]], [0.9, 0.9],
                        indices.class_ids, facing=[0, 2])  # fmt: skip
    assert cut_face(picture, column) is None
    assert read_pips(picture, indices[[0]]) is None


def test_a_blank_face_gives_no_reading() -> None:
    picture, indices = table("5S")
    picture[:] = 200  # all card, no ink: nothing to count
    assert read_pips(picture, indices) is None


def test_the_reading_path_reads_faces_only_where_asked() -> None:
    picture, indices = table("9D")
    seen = FrameCards((SeenCard(parse_card("9D"), 0.9, (0, 0, 1, 1), (0, 0), INDEX_PX, indices),))
    faced = with_faces(picture, seen, PipConfig(enabled=True))
    assert faced.cards[0].face is not None
    assert int(faced.cards[0].face.argmax()) in {_class(c) for c in ("9D", "9H")}
    assert ReadingConfig(pips=PipConfig(enabled=True)).pips.enabled


def _sighting(face: npt.NDArray[np.float64] | None) -> SeenCard:
    """A card read 3S a little surer than 6H by both its corners, alike in every frame (a small
    blurred index), with the face reading `face`."""
    rows = np.full((2, 52), 0.001, np.float32)
    rows[:, _class("3S")] = 0.55
    rows[:, _class("6H")] = 0.40
    rows /= rows.sum(axis=1, keepdims=True)
    detections = Detections([[100, 300, 106, 316], [140, 360, 146, 376]], [0.9, 0.9],
                            [_class("3S")] * 2, facing=[0, 2],
                            probabilities=rows, box_scores=[0.9, 0.9])  # fmt: skip
    return SeenCard(parse_card("3S"), 0.55, (100, 300, 146, 376), (123, 338), 16, detections,
                    face=face)  # fmt: skip


@pytest.mark.parametrize("heard", [True, False])
def test_the_face_outweighs_corners_misread_alike_in_every_frame(heard: bool) -> None:
    picture, indices = table("6H")
    face = read_pips(picture, indices)
    assert face is not None
    config = SmoothingConfig(face_weight=0.5 if heard else 0.0)
    smoother = TableSmoother(TableLayout(("bottom", "top")), config=config)
    for _ in range(10):
        smoothed = smoother.update(FrameCards((_sighting(face),)), (640, 640))
    seen = set(smoothed.state.roles())
    assert seen == ({parse_card("6H")} if heard else {parse_card("3S")})


def test_a_card_with_its_neighbours_index_among_its_own_gives_no_face() -> None:
    """An index of the card beside it grouped with a card's own (too wide for one card): its
    cut would count the neighbour's pips too."""
    picture, indices = table("6D")
    beside = indices.boxes[[1]] + [[40, 0, 40, 0]]
    wide = Detections(np.concatenate([indices.boxes, beside]), [0.9] * 3,
                      [_class("6D")] * 3, facing=[0, 2, 2])  # fmt: skip
    assert cut_face(picture, indices) is not None
    assert cut_face(picture, wide) is None


def test_blobs_of_both_colours_are_no_number_card() -> None:
    """A court figure drawn in black beside its red suit (the penguins deck's JH), with pips'
    sizes and a half turn's symmetry, is no count."""
    picture, indices = table("4H")
    cut = cut_face(picture, indices)
    assert cut is not None and count_pips(cut) is not None
    face = cut.face.copy()
    top = face[: face.shape[0] // 2]
    ink = top.astype(np.int16)
    top[ink[..., 2] > ink[..., 1] + 60] = (20, 20, 20)  # the upper pips drawn black
    assert count_pips(FaceCut(face, cut.index)) is None


def test_a_figure_may_be_an_ace() -> None:
    chances = pip_chances(PipCount(0, red=False)).reshape(4, 13)
    assert chances[:, 10:].sum() > 0.5
    assert chances[[0, 3], 0].sum() > 0.1  # a pictured ace of clubs or spades


def test_a_face_in_other_colours_than_red_and_black_is_a_figure() -> None:
    """A figure drawn in yellow and blue as well (the penguins deck's courts), whatever its
    blobs: never a count of pips."""
    picture, indices = table("8S")
    cut = cut_face(picture, indices)
    assert cut is not None
    face = cut.face.copy()
    middle = face.shape[0] // 2
    face[middle - 6 : middle + 6, 4:-4] = (0, 210, 240)  # a yellow beak between the pips
    assert count_pips(FaceCut(face, cut.index)) == PipCount(0, None)
