"""Deck enrolment end to end on the small committed deck: shots rendered with
`cribtrain.data.synth`.

The flow tests read with a template matcher (clean upright renders), so they need no model;
the tune itself is tested in test_tune.py (base reader from `models/` or `CRIBCAM_TEST_MODELS`).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import re
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from cribtrain.data.synth import (
    Deck,
    Placement,
    SynthConfig,
    _affine,
    load_decks,
    make_scene,
    scene_rng,
)
from cribtrain.fit import tune
from cribtrain.fit.tune import TuneError, TuneSettings
from tests.helpers import FIXTURES, REPO
from vision.decks.enroll import (
    EnrollmentError,
    Shot,
    crop_from_patch,
    cut_patch,
    propose,
)
from vision.decks.layout import RANKS, align_suit, group_indices, reading_order
from vision.decks.profiles import ProfileError, ProfileStore
from vision.detection.detections import CLASS_NAMES, FACING_DOWN, FACING_UNKNOWN, FACING_UP
from vision.detection.models import READER_FILE

FIXTURE = FIXTURES / "deck-standard"
MODELS = Path(os.environ.get("CRIBCAM_TEST_MODELS", REPO / "models"))
CLEAN = SynthConfig(size=640, effects=False, perspective=False, board=0.0)
Image = npt.NDArray[np.uint8]


@pytest.fixture(scope="module")
def decks() -> list[Deck]:
    return load_decks([FIXTURE])


def layout(
    decks: list[Deck], codes: list[str], seed: int = 3, touching: bool = False
) -> tuple[Image, np.ndarray]:
    """A shot of `codes` laid out upright, 5 to a row, in order; (BGR image, index boxes).
    `touching` pushes the second card against the first."""
    size = decks[0].size
    centres = [(75.0 + 120 * (k % 5), 90.0 + 160 * (k // 5)) for k in range(len(codes))]
    if touching:
        centres[1] = (centres[0][0] + 86, centres[0][1] + 4)
    places = [
        Placement(0, code, True, _affine(size, centre, 120, 0))
        for code, centre in zip(codes, centres, strict=True)
    ]
    scene = make_scene(decks, scene_rng(seed, 0), CLEAN, placements=places)
    s = CLEAN.size
    boxes = np.array(
        [[(x - w / 2) * s, (y - h / 2) * s, (x + w / 2) * s, (y + h / 2) * s]
         for _, x, y, w, h in scene.labels],
        np.float32,
    )  # fmt: skip
    return np.ascontiguousarray(scene.image[..., ::-1]), boxes


class Templates:
    """A stand-in reader for clean upright renders: the nearest index crop of the deck."""

    def __init__(self, decks: list[Deck]) -> None:
        rows, labels = [], []
        for suit in "CDHS":
            cards = [rank + suit for rank in RANKS]
            image, boxes = layout(decks, cards, seed=11)
            for k, box in enumerate(boxes):  # two indices per card, in card order
                rows.append(self._vector(crop_from_patch(cut_patch(image, box))))
                labels.append(CLASS_NAMES.index(cards[k // 2]))
        self.rows, self.labels = np.stack(rows), np.array(labels)

    @staticmethod
    def _vector(crop: Image) -> np.ndarray:
        grey = crop.astype(np.float32).mean(axis=2)
        grey -= grey.mean()
        return (grey / (np.linalg.norm(grey) + 1e-6)).ravel()

    def __call__(self, crops: Image) -> npt.NDArray[np.float32]:
        out = np.full((len(crops), 52), 1e-4, np.float32)
        for k, crop in enumerate(crops):
            similarity = self.rows @ self._vector(crop)
            out[k, self.labels[int(similarity.argmax())]] = 1.0
        return out / out.sum(axis=1, keepdims=True)


def uniform(crops: Image) -> npt.NDArray[np.float32]:
    return np.full((len(crops), 52), 1 / 52, np.float32)


def fixed(boxes: np.ndarray):  # type: ignore[no-untyped-def]
    return lambda frame: boxes


CLUBS = [rank + "C" for rank in RANKS]


def test_reading_order_rows_then_columns() -> None:
    centres = [(300.0, 12.0), (10.0, 205.0), (100.0, 8.0), (200.0, 195.0), (5.0, 0.0)]
    assert reading_order(centres, row_gap=50) == [4, 2, 0, 1, 3]


def test_alignment_lets_the_model_place_a_missing_card() -> None:
    found = [c for c in CLUBS if c != "7C"]
    sure = np.full((12, 52), 0.001, np.float32)
    for k, card in enumerate(found):
        sure[k, CLASS_NAMES.index(card)] = 0.95
    assert align_suit(sure, "C") == found
    assert align_suit(np.full((13, 52), 1 / 52), "C") == CLUBS  # no reading: the layout decides


def test_enrolment_proposes_from_layout_and_model(decks: list[Deck]) -> None:
    image, boxes = layout(decks, CLUBS)
    enrollment = propose([Shot(image, "C")], fixed(boxes), Templates(decks))
    assert [c.proposed for c in enrollment.candidates] == CLUBS
    assert all(len(c.patches) == 2 and not c.flagged for c in enrollment.candidates)
    assert enrollment.problems().ok and enrollment.expected == tuple(CLUBS)

    guess = propose([Shot(image, "C")], fixed(boxes), uniform)  # unreadable deck: layout only
    assert [c.proposed for c in guess.candidates] == CLUBS
    assert all(c.flagged for c in guess.candidates)  # the player is asked to look at each


def test_any_arrangement_uses_the_model_and_flags_unsure_cards(decks: list[Deck]) -> None:
    cards = ["QH", "3S", "10D", "AC"]
    image, boxes = layout(decks, cards)
    enrollment = propose([Shot(image)], fixed(boxes), Templates(decks))
    assert [c.proposed for c in enrollment.candidates] == cards
    assert not any(c.flagged for c in enrollment.candidates)
    assert len(enrollment.problems().missing) == 48
    unread = propose([Shot(image)], fixed(boxes), uniform)
    assert [c.flagged for c in unread.candidates] == [True] * 4


def test_missing_card_is_pointed_out(decks: list[Deck]) -> None:
    image, boxes = layout(decks, [c for c in CLUBS if c != "7C"])
    enrollment = propose([Shot(image, "C")], fixed(boxes), Templates(decks))
    assert enrollment.problems().missing == ("7C",)
    assert [c.proposed for c in enrollment.candidates] == [c for c in CLUBS if c != "7C"]
    assert len(enrollment.labelled()) == 12  # a lost card does not stop the tune


def test_duplicate_is_pointed_out_and_must_be_resolved(decks: list[Deck]) -> None:
    image, boxes = layout(decks, CLUBS)
    enrollment = propose([Shot(image, "C")], fixed(boxes), Templates(decks))
    enrollment.correct(2, "ac")
    problems = enrollment.problems()
    assert problems.duplicates == {"AC": (1, 2)} and problems.missing == ("2C",)
    assert problems.errors() == [
        "AC is in one photo 2 times (cards 1, 2): one deck holds it once, so correct the wrong one"
    ]
    with pytest.raises(EnrollmentError, match=re.escape("AC is in one photo 2 times (cards 1, 2)")):
        enrollment.labelled()
    enrollment.correct(2, "2C")
    enrollment.correct(13, None)  # "not a card"
    assert enrollment.problems().missing == ("KC",)
    with pytest.raises(EnrollmentError):
        enrollment.correct(1, "ZZ")


def test_a_card_in_several_photos_is_more_examples_of_it(decks: list[Deck]) -> None:
    """Ordinary photos of a deck repeat cards: every patch of a repeated card goes to the tune,
    under one entry, so the tune holds back one of them (its second) to measure itself, and
    that one is the other index of a sighting where the card shows both."""
    first, first_boxes = layout(decks, ["QH", "3S", "AC"])
    second, second_boxes = layout(decks, ["AC", "5H", "QH"], seed=4)
    shots = {id(first): first_boxes[:5], id(second): second_boxes}  # AC's 2nd index hidden

    def find(image: Image) -> np.ndarray:
        return shots[id(image)]

    enrollment = propose([Shot(first), Shot(second)], find, Templates(decks))
    assert [c.card for c in enrollment.candidates] == ["QH", "3S", "AC", "AC", "5H", "QH"]
    assert [len(c.patches) for c in enrollment.candidates] == [2, 2, 1, 2, 2, 2]
    problems = enrollment.problems()
    assert problems.errors() == [] and problems.duplicates == {}
    assert problems.repeated == {"QH": (1, 6), "AC": (3, 4)}
    assert problems.notes() == [
        "not seen: " + " ".join(c for c in CLASS_NAMES if c not in {"QH", "3S", "AC", "5H"})
    ]
    assert len(enrollment.labelled()) == 4  # one entry a card
    labelled = dict(enrollment.labelled())
    assert [len(labelled[card]) for card in ("QH", "3S", "AC", "5H")] == [4, 2, 3, 2]
    ace = [cut_patch(second, second_boxes[0]), cut_patch(second, second_boxes[1]),
           cut_patch(first, first_boxes[4])]  # fmt: skip
    assert all(np.array_equal(got, want) for got, want in zip(labelled["AC"], ace, strict=True))


def test_a_card_twice_in_one_photo_is_a_problem_but_across_photos_is_not(
    decks: list[Deck],
) -> None:
    image, boxes = layout(decks, ["QH", "3S", "10D"])
    other, other_boxes = layout(decks, ["3S", "9C"], seed=5)
    found = {id(image): boxes, id(other): other_boxes}
    enrollment = propose([Shot(image), Shot(other)], lambda im: found[id(im)], Templates(decks))
    assert enrollment.problems().repeated == {"3S": (2, 4)}
    enrollment.correct(3, "QH")  # the 10D misread as a second QH, in the same photo
    problems = enrollment.problems()
    assert problems.duplicates == {"QH": (1, 3)} and problems.repeated == {"3S": (2, 4)}
    with pytest.raises(EnrollmentError, match=re.escape("QH is in one photo 2 times (cards 1, 3)")):
        enrollment.labelled()
    enrollment.correct(3, "10D")
    assert [card for card, _ in enrollment.labelled()] == ["QH", "3S", "10D", "9C"]


def test_missing_cards_do_not_block_a_tune_but_nothing_confirmed_does(decks: list[Deck]) -> None:
    image, boxes = layout(decks, ["QH", "3S"])
    enrollment = propose([Shot(image)], fixed(boxes), Templates(decks))
    assert len(enrollment.problems().missing) == 50 and enrollment.problems().errors() == []
    assert [card for card, _ in enrollment.labelled()] == ["QH", "3S"]
    enrollment.correct(1, None)
    enrollment.correct(2, None)
    with pytest.raises(EnrollmentError, match="no confirmed cards to tune on"):
        enrollment.labelled()


def upright(frame: Image, boxes: np.ndarray) -> npt.NDArray[np.int8]:
    """The facing of `layout`'s indices, each card's top-left one upright, its other turned."""
    return np.array([FACING_UP, FACING_DOWN] * (len(boxes) // 2), np.int8)


def test_grouping_without_card_outlines_pairs_by_distance(decks: list[Deck]) -> None:
    """On a white table no outline shows: indices pair at the distance learnt from the ones the
    model reads alike. The stand-in reader reads one corner of the 6C surely as the 8C: its
    two ends, facing each other, still make one card."""
    image, boxes = layout(decks, CLUBS[:10])
    grey = image.astype(int)
    wood = (grey.max(axis=2) - grey.min(axis=2) > 40) & (grey.min(axis=2) < 120)
    image[wood] = 255  # the table turned white: the cards' outlines vanish
    enrollment = propose([Shot(image, "C")], fixed(boxes), Templates(decks), upright)
    assert [len(c.boxes) for c in enrollment.candidates] == [2] * 10


def row_of_corners(count: int, glyph: float = 20.0) -> np.ndarray:
    """`count` index boxes in a row on no outline, each a card's corner-to-corner distance
    (`PairingConfig.pair_nominal`) from the next: a fanned row's corners, or cards' ends."""
    step = 5.7 * glyph
    return np.array([[40 + k * step, 200, 40 + k * step + glyph * 0.6, 200 + glyph]
                     for k in range(count)], np.float32)  # fmt: skip


def test_a_fanned_rows_corners_facing_one_way_are_each_their_own_card() -> None:
    """A fan shows each card's one corner, all facing one way, a card's corner-to-corner
    distance apart: by geometry alone they pair into cards of two; facing, they are one card
    each, and a card's two ends (facing opposite ways) still pair."""
    dark = np.zeros((480, 800, 3), np.uint8)  # no outline: pairing by distance alone
    boxes = row_of_corners(4)
    assert sorted(len(g.indices) for g in group_indices(dark, boxes)) == [2, 2]
    fan = group_indices(dark, boxes, facing=[FACING_DOWN] * 4)
    assert sorted(g.indices for g in fan) == [(0,), (1,), (2,), (3,)]
    ends = group_indices(dark, boxes, facing=[FACING_UP, FACING_DOWN, FACING_UP, FACING_DOWN])
    assert sorted(g.indices for g in ends) == [(0, 1), (2, 3)]
    unsure = group_indices(dark, boxes, facing=[FACING_UNKNOWN, FACING_DOWN] * 2)
    assert sorted(len(g.indices) for g in unsure) == [2, 2]


def test_corners_read_surely_as_two_cards_are_not_paired_by_distance() -> None:
    """Two lone corners at a card's corner-to-corner distance that the model reads surely as
    cards of different ranks or colours are two cards; read as one, or unsurely, they pair."""
    dark = np.zeros((480, 800, 3), np.uint8)
    boxes = row_of_corners(2)
    five, six = CLASS_NAMES.index("5D"), CLASS_NAMES.index("6S")
    assert len(group_indices(dark, boxes, distinct=[five, six])) == 2
    assert len(group_indices(dark, boxes, distinct=[five, five])) == 1
    assert len(group_indices(dark, boxes, distinct=[five, -1])) == 1
    # a spade read as a club (or a heart as a diamond) is a slip one card's corner may show
    three_c, three_s = CLASS_NAMES.index("3C"), CLASS_NAMES.index("3S")
    assert len(group_indices(dark, boxes, distinct=[three_c, three_s])) == 1
    assert len(group_indices(dark, boxes, distinct=[three_c, CLASS_NAMES.index("3H")])) == 2
    # a card's two ends facing each other pair however they are read
    ends = [FACING_UP, FACING_DOWN]
    assert len(group_indices(dark, boxes, facing=ends, distinct=[five, six])) == 1


def test_a_pool_of_light_over_two_cards_is_not_one_card(decks: list[Deck]) -> None:
    """A lamp lights the cloth around the last two cards of a column and the rest lies in
    shade: the one bright blob holds four indices, but it is no card's shape."""
    image, boxes = layout(decks, CLUBS[:10])
    grey = image.astype(int)
    wood = (grey.max(axis=2) - grey.min(axis=2) > 40) & (grey.min(axis=2) < 120)
    pool = np.zeros(image.shape[:2], np.uint8)
    cv2.ellipse(pool, (555, 170), (75, 190), 0, 0, 360, 1, -1)
    lit = pool.astype(bool)
    image[~lit] = (image[~lit] * 0.35).astype(np.uint8)
    image[lit & wood] = 235
    # facing known, as the app's reader knows it: the stand-in reader misreads some corners
    enrollment = propose([Shot(image, "C")], fixed(boxes), Templates(decks), upright)
    assert [len(c.boxes) for c in enrollment.candidates] == [2] * 10
    assert [c.proposed for c in enrollment.candidates] == CLUBS[:10]


def test_touching_cards_are_not_taken_for_one(decks: list[Deck]) -> None:
    image, boxes = layout(decks, CLUBS[:7], touching=True)
    enrollment = propose([Shot(image, "C")], fixed(boxes), uniform)
    assert [len(c.boxes) for c in enrollment.candidates] == [2] * 7
    assert [c.proposed for c in enrollment.candidates] == CLUBS[:7]


def test_two_cards_on_a_pale_mat_are_not_one_card_when_few_outlines_show(
    decks: list[Deck],
) -> None:
    """Three cards, the last two on a pale mat as bright as they are: the mat's blob holds
    four indices and has a card's shape. With so few outlines the lone card, not the median
    of all blobs, must set the size a card has."""
    image, boxes = layout(decks, CLUBS[:3])
    grey = image.astype(int)
    wood = (grey.max(axis=2) - grey.min(axis=2) > 40) & (grey.min(axis=2) < 120)
    mat = np.zeros(wood.shape, bool)
    mat[26:154, 148:362] = True
    image[wood & mat] = 250
    enrollment = propose([Shot(image, "C")], fixed(boxes), uniform)
    assert [len(c.boxes) for c in enrollment.candidates] == [2] * 3


def test_a_deck_printing_four_corners_on_a_pale_table_makes_one_card_of_each(
    decks: list[Deck],
) -> None:
    """No outline shows, and pairing alone joins two corners of a card and then the other two:
    both pairs read as the same card and span one card, so they are one card of four indices."""
    image, boxes = layout(decks, CLUBS[:5])
    grey = image.astype(int)
    wood = (grey.max(axis=2) - grey.min(axis=2) > 40) & (grey.min(axis=2) < 120)
    image[wood] = 255
    four = []
    for top, bottom in boxes.reshape(-1, 2, 4):  # each card's two printed corners...
        cx = (top[0] + bottom[2]) / 2
        mirrored = [[2 * cx - b[2], b[1], 2 * cx - b[0], b[3]] for b in (top, bottom)]
        four += [top, bottom, *mirrored]  # ...and the two a four-corner deck adds
    corners = np.array(four, np.float32)
    cards = [CLASS_NAMES.index(card) for card in CLUBS[:5] for _ in range(4)]

    def read(crops: Image) -> npt.NDArray[np.float32]:
        out = np.full((len(crops), 52), 1e-4, np.float32)
        out[np.arange(len(crops)), cards] = 1.0
        return out

    enrollment = propose([Shot(image, "C")], fixed(corners), read)
    assert [len(c.boxes) for c in enrollment.candidates] == [4] * 5
    assert [c.proposed for c in enrollment.candidates] == CLUBS[:5]


def four_corners(boxes: np.ndarray) -> np.ndarray:
    """Each card's two printed corners (`layout`'s boxes) and the two a four-corner deck adds."""
    four = []
    for top, bottom in boxes.reshape(-1, 2, 4):
        cx = (top[0] + bottom[2]) / 2
        mirrored = [[2 * cx - b[2], b[1], 2 * cx - b[0], b[3]] for b in (top, bottom)]
        four += [top, bottom, *mirrored]
    return np.array(four, np.float32)


def pale(image: Image) -> Image:
    """The shot on a white table: no card outline shows."""
    grey = image.astype(int)
    wood = (grey.max(axis=2) - grey.min(axis=2) > 40) & (grey.min(axis=2) < 120)
    image = image.copy()
    image[wood] = 255
    return image


def test_a_four_corner_card_read_unsurely_at_one_corner_is_proposed_once(
    decks: list[Deck],
) -> None:
    """One corner of each four-index card read unsurely: pairing makes two groups of each card
    (the unsure corner keeps them from joining as read alike) and both propose the same card.
    Geometry says they are one card: one proposal each, all four corners, nothing to correct."""
    cards = ["QH", "3S", "10D", "AC"]
    image, boxes = layout(decks, cards)
    corners = four_corners(boxes)
    classes = [CLASS_NAMES.index(card) for card in cards for _ in range(4)]

    def read(crops: Image) -> npt.NDArray[np.float32]:
        out = np.full((len(crops), 52), 1e-4, np.float32)
        out[np.arange(len(crops)), classes] = 1.0
        out[2::4] = 1 / 52  # each card's third corner: no reading at all
        return out

    enrollment = propose([Shot(pale(image))], fixed(corners), read)
    assert [c.proposed for c in enrollment.candidates] == cards
    assert [len(c.boxes) for c in enrollment.candidates] == [4] * 4
    assert enrollment.problems().twice == ()
    assert [len(patches) for _, patches in enrollment.labelled()] == [4] * 4


def test_a_card_read_twice_at_places_that_cannot_be_one_card_still_reaches_the_player(
    decks: list[Deck],
) -> None:
    """Two cards of a row read as one identity lie a card's width apart, no two indices side by
    side as one card's: a genuine conflict, left to the player."""
    image, boxes = layout(decks, ["QH", "3S"])
    queen = CLASS_NAMES.index("QH")

    def read(crops: Image) -> npt.NDArray[np.float32]:
        out = np.full((len(crops), 52), 1e-4, np.float32)
        out[:, queen] = 1.0  # the 3S misread as a second QH
        return out

    enrollment = propose([Shot(pale(image))], fixed(boxes), read)
    assert [c.proposed for c in enrollment.candidates] == ["QH", "QH"]
    assert enrollment.problems().duplicates == {"QH": (1, 2)}


def test_an_unsure_second_sighting_of_a_sure_card_is_proposed_as_its_next_choice(
    decks: list[Deck],
) -> None:
    """A photo's QH read surely, and apart from it (not one card's corners) a lone corner read
    unsurely as QH, a little less as 9C: it is proposed as 9C, still flagged, and the photo no
    longer holds a card twice."""
    image, boxes = layout(decks, ["QH", "3S"])
    queen, nine = CLASS_NAMES.index("QH"), CLASS_NAMES.index("9C")

    def read(crops: Image) -> npt.NDArray[np.float32]:
        out = np.full((len(crops), 52), 1e-4, np.float32)
        out[:2, queen] = 1.0
        out[2:] = 0.001  # the 3S's corner, badly read: QH 48 %, 9C 46 %
        out[2:, queen], out[2:, nine] = 0.49, 0.46
        return out / out.sum(axis=1, keepdims=True)

    enrollment = propose([Shot(pale(image))], fixed(boxes[:3]), read)
    assert [c.proposed for c in enrollment.candidates] == ["QH", "9C"]
    assert [c.flagged for c in enrollment.candidates] == [False, True]
    assert enrollment.problems().twice == ()
    both_unsure = propose([Shot(pale(image))], fixed(boxes[2:3]), read)
    assert [c.proposed for c in both_unsure.candidates] == ["QH"]  # nothing to prefer it to


def test_a_lone_corner_read_too_unsurely_is_proposed_as_not_a_card(decks: list[Deck]) -> None:
    """A corner seen alone and read under `NOT_A_CARD` (the face's art boxed as a corner, in
    real photos) is proposed as not a card: nothing for the player to do, and nothing to learn
    from unless the player names it; a card's two corners read as unsurely stay a card, flagged."""
    image, boxes = layout(decks, ["QH", "3S"])
    queen = CLASS_NAMES.index("QH")

    def read(crops: Image) -> npt.NDArray[np.float32]:
        out = np.full((len(crops), 52), 0.01, np.float32)
        out[:, queen] = 0.4  # every corner: QH at 40 %
        return out / out.sum(axis=1, keepdims=True)

    lone = propose([Shot(pale(image))], fixed(boxes[2:3]), read)
    (candidate,) = lone.candidates
    assert candidate.doubtful and candidate.card is None and not candidate.flagged
    assert candidate.proposed == "QH" and lone.problems().missing == CLASS_NAMES
    lone.correct(1, "3S")  # the player names it: it is taught
    assert candidate.card == "3S" and [card for card, _ in lone.labelled()] == ["3S"]
    pair = propose([Shot(image)], fixed(boxes[2:4]), read)  # its outline makes them one card
    assert [(c.card, c.flagged, c.doubtful) for c in pair.candidates] == [("QH", True, False)]


def test_each_proposal_knows_where_its_whole_card_lies(decks: list[Deck]) -> None:
    """The card box holds all the card's corners and is card-sized, not a corner's size: from
    the outline on a dark cloth, from the corners on a white table."""
    image, boxes = layout(decks, ["QH", "3S", "10D"])
    for shot in (image, pale(image)):
        enrollment = propose([Shot(shot)], fixed(boxes), Templates(decks))
        for candidate in enrollment.candidates:
            x1, y1, x2, y2 = candidate.where
            corners = candidate.boxes
            assert x1 <= corners[:, 0].min() and y1 <= corners[:, 1].min()
            assert x2 >= corners[:, 2].max() and y2 >= corners[:, 3].max()
            index = float((corners[:, 3] - corners[:, 1]).max())
            assert y2 - y1 > 3 * index and x2 - x1 > 1.5 * index
            assert x1 >= 0 and y1 >= 0 and x2 <= shot.shape[1] and y2 <= shot.shape[0]


def test_profile_store_lists_chooses_renames_deletes(tmp_path: Path) -> None:
    store = ProfileStore(tmp_path)
    staged = store.staging("kitchen", copy_current=False)
    store.commit(staged, {"name": "kitchen", "crops": []})
    assert store.names() == ["kitchen"] and store.active() is None
    store.use("kitchen")
    assert store.active() == "kitchen"
    store.rename("kitchen", "Kitchen deck")
    assert store.names() == ["Kitchen deck"] and store.active() == "Kitchen deck"
    patch = np.zeros((160, 160, 3), np.uint8)
    relative = store.add_correction("Kitchen deck", patch, "QH")
    assert (tmp_path / "Kitchen deck" / relative).exists()
    assert store.get("Kitchen deck").crops()[-1]["source"] == "game"
    with pytest.raises(ProfileError):
        store.reader_for("Kitchen deck")  # never tuned
    for bad in ("", "../x", "base", " pad"):
        with pytest.raises(ProfileError):
            store.staging(bad, copy_current=False)
    store.delete("Kitchen deck")
    assert store.names() == [] and store.active() is None
    assert [p.name for p in tmp_path.iterdir()] == []


def test_staging_and_retired_folders_are_not_decks(tmp_path: Path) -> None:
    """A tune's staging copy and a replaced profile not yet removed (a crash leaves them) hold a
    profile.json, but they are no decks: not listed, and `cribcam deck list` still works."""
    store = ProfileStore(tmp_path)
    store.commit(store.staging("pub", copy_current=False), {"name": "pub", "crops": []})
    staged = store.staging("pub", copy_current=True)  # a tune in progress, or one that crashed
    retired = tmp_path / ".retired-pub-1"
    shutil.copytree(tmp_path / "pub", retired)
    assert (staged / "profile.json").exists() and (retired / "profile.json").exists()
    assert store.names() == ["pub"]
    listed = deck_cli(tmp_path)("deck", "list")
    assert listed.startswith("  pub  (tuned ?") and "staging" not in listed
    assert "retired" not in listed and "* base model" in listed


def test_the_active_marker_cannot_name_a_deck(tmp_path: Path) -> None:
    store = ProfileStore(tmp_path)
    store.commit(store.staging("pub", copy_current=False), {"name": "pub", "crops": []})
    store.use("pub")
    for name in ("active", "Active"):  # a case-insensitive disk makes them one
        with pytest.raises(ProfileError, match=f"{name!r} cannot name a deck: .* 'active'"):
            store.staging(name, copy_current=False)
        with pytest.raises(ProfileError, match="cannot name a deck"):
            store.rename("pub", name)
        with pytest.raises(ProfileError, match="cannot name a deck"):
            store.exists(name)
    assert store.names() == ["pub"] and store.active() == "pub"
    assert (tmp_path / "active").read_text() == "pub\n"


def test_tuning_without_the_train_extra_says_how_to_install_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "cribtrain.fit.train", None)  # its import fails, as without it
    with pytest.raises(
        TuneError, match=re.escape('needs the train extra: pip install -e ".[train]"')
    ):
        tune._train(tmp_path, tmp_path / "reader.pt", 1.0, TuneSettings(), None, None)


def deck_cli(root: Path) -> Callable[..., str]:
    """`cribcam deck ...` on the decks in `root`: what it printed (it must succeed)."""
    from cribcam.commands import decks as enroll_cli

    parser = argparse.ArgumentParser()
    enroll_cli.register(parser.add_subparsers(dest="command"))

    def run(*argv: str) -> str:
        args = parser.parse_args([*argv, "--decks", str(root)])
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert args.run(args) == 0
        return out.getvalue()

    return run


def test_deck_cli_lists_and_chooses(tmp_path: Path) -> None:
    store = ProfileStore(tmp_path)
    store.commit(store.staging("pub", copy_current=False), {"name": "pub", "crops": []})
    run = deck_cli(tmp_path)

    assert "* base model" in run("deck", "list")
    run("deck", "use", "pub")
    assert run("deck", "list").startswith("* pub")
    photo = tmp_path / "photo.png"
    cv2.imwrite(str(photo), np.full((200, 200, 3), 200, np.uint8))
    assert "folds it in" in run(
        "deck", "correct", str(photo), "qh", "--box", "10", "10", "22", "40"
    )
    assert [c["card"] for c in store.get("pub").crops()] == ["QH"]
    run("deck", "rename", "pub", "club")
    run("deck", "use", "--base")
    run("deck", "delete", "club")
    assert store.names() == []


def test_a_tune_budget_under_a_minute_is_refused_as_the_command_line_is_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from cribcam.cli import build_parser

    for argv in (["deck", "tune", "pub"], ["enroll", "pub", str(tmp_path / "shot.png")]):
        with pytest.raises(SystemExit):
            build_parser().parse_args([*argv, "--budget", "10"])
        assert "--budget: 10.0 is under 60" in capsys.readouterr().err
    assert build_parser().parse_args(["deck", "tune", "pub", "--budget", "90.5"]).budget == 90.5


def test_enroll_cli_takes_photos_where_cards_repeat(
    decks: list[Deck], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`cribcam enroll NAME a.png b.png --yes` with a card in both photos tunes on every patch
    of it; a card twice in one photo stops it with the card and its numbers named."""
    from cribcam.commands import decks as enroll_cli

    photos = {"a": layout(decks, ["QH", "3S"]), "b": layout(decks, ["3S", "9C"], seed=5)}
    boxes = {}
    for name, (image, found) in photos.items():
        cv2.imwrite(str(tmp_path / f"{name}.png"), image)
        boxes[cv2.imread(str(tmp_path / f"{name}.png")).tobytes()] = found
    templates = Templates(decks)

    class Reader:
        """Finds the boxes a photo was rendered with; reads them with the template matcher."""

        def __init__(self, models: Path, reader_path: Path | None = None) -> None:
            self.classify = templates

        def index_boxes(self, frame: Image) -> np.ndarray:
            return boxes[frame.tobytes()]

        def index_facing(self, frame: Image, found: np.ndarray) -> npt.NDArray[np.int8]:
            return np.full(len(found), FACING_UNKNOWN, np.int8)

    tuned: list[list[tuple[str, list[Image]]]] = []

    def fake_tune(args: argparse.Namespace, store: ProfileStore, name: str, cards: Any) -> int:
        tuned.append(cards)
        return 0

    monkeypatch.setattr(enroll_cli, "CardReader", Reader)
    monkeypatch.setattr(enroll_cli, "_tune", fake_tune)
    parser = argparse.ArgumentParser()
    enroll_cli.register(parser.add_subparsers(dest="command"))
    shots = [str(tmp_path / "a.png"), str(tmp_path / "b.png")]

    def enroll(*extra: str) -> str:
        argv = ["enroll", "pub", *shots, "--yes", "--grid", str(tmp_path / "grid.jpg"),
                "--decks", str(tmp_path / "decks"), *extra]  # fmt: skip
        args = parser.parse_args(argv)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            assert args.run(args) == 0
        return out.getvalue()

    printed = enroll()
    counts = [(card, len(patches)) for card, patches in tuned[-1]]
    assert counts == [("QH", 2), ("3S", 4), ("9C", 2)]
    assert "note: not seen: AC 2C" in printed and "note: 1 card in more than one photo" in printed
    assert "3 cards, 8 corners to learn from" in printed
    with pytest.raises(EnrollmentError, match=re.escape("QH is in one photo 2 times (cards 1, 2)")):
        enroll("--fix", "2=QH")
    assert len(tuned) == 1


@pytest.fixture
def enroll_cli(
    decks: list[Deck], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Callable[..., tuple[int, str]]:
    """`cribcam enroll pub a.png b.png ...` without a terminal, run in an empty current folder,
    reading with the boxes the photos were rendered with and the template matcher (its 3S made
    unsure); the tune is a stand-in that records what it was given (`.tuned`)."""
    from cribcam.commands import decks as cli

    photos = {"a": layout(decks, ["QH", "3S"]), "b": layout(decks, ["3S", "9C"], seed=5)}
    boxes = {}
    for name, (image, found) in photos.items():
        cv2.imwrite(str(tmp_path / f"{name}.png"), image)
        saved = cv2.imread(str(tmp_path / f"{name}.png"))
        assert saved is not None
        boxes[saved.tobytes()] = found
    templates = Templates(decks)
    spade = CLASS_NAMES.index("3S")

    class Reader:
        def __init__(self, models: Path, reader_path: Path | None = None) -> None:
            readers.append(reader_path)

        def index_boxes(self, frame: Image) -> np.ndarray:
            return boxes[frame.tobytes()]

        def index_facing(self, frame: Image, found: np.ndarray) -> npt.NDArray[np.int8]:
            return np.full(len(found), FACING_UNKNOWN, np.int8)

        def classify(self, crops: Image) -> npt.NDArray[np.float32]:
            out = templates(crops)
            out[out[:, spade] > 0.5] = 1 / 52  # the 3S: no sure reading
            return out

    readers: list[Path | None] = []
    tuned: list[Any] = []

    def fake_tune(args: argparse.Namespace, store: ProfileStore, name: str, cards: Any) -> int:
        tuned.append(cards)
        return 0

    monkeypatch.setattr(cli, "CardReader", Reader)
    monkeypatch.setattr(cli, "_tune", fake_tune)
    monkeypatch.setattr(sys, "stdin", io.StringIO())  # no terminal
    here = tmp_path / "here"
    here.mkdir()
    monkeypatch.chdir(here)
    parser = argparse.ArgumentParser()
    cli.register(parser.add_subparsers(dest="command"))

    def run(*extra: str) -> tuple[int, str]:
        argv = ["enroll", "pub", str(tmp_path / "a.png"), str(tmp_path / "b.png"),
                "--decks", str(tmp_path / "decks"), *extra]  # fmt: skip
        args = parser.parse_args(argv)
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = args.run(args)
        return code, out.getvalue()

    run.tuned = tuned  # type: ignore[attr-defined]
    run.readers = readers  # type: ignore[attr-defined]
    return run


def test_enroll_list_says_number_photo_card_and_sureness_and_stops(
    enroll_cli: Callable[..., tuple[int, str]], tmp_path: Path
) -> None:
    code, printed = enroll_cli("--list")
    assert code == 0 and enroll_cli.tuned == []  # type: ignore[attr-defined]
    lines = {int(line.split()[0]): line.split() for line in printed.splitlines()
             if line.strip()[:1].isdigit()}  # fmt: skip
    assert lines[1][:5] == ["1", "1", "a.png", "QH", "sure"]
    assert lines[2][:5] == ["2", "1", "a.png", "AC", "unsure"]  # the unread 3S
    assert lines[4][:5] == ["4", "2", "b.png", "9C", "sure"]
    assert "unsure: 2 3" in printed
    assert list((tmp_path / "here").iterdir()) == []  # nothing in the current folder
    drawn = sorted(p.name for p in (tmp_path / "decks" / ".enroll-pub").iterdir())
    assert drawn == ["corners.jpg", "photo-01.jpg", "photo-02.jpg", "review.txt"]
    assert ProfileStore(tmp_path / "decks").names() == []


def test_enroll_without_a_terminal_does_not_tune_unsure_cards_as_they_stand(
    enroll_cli: Callable[..., tuple[int, str]], tmp_path: Path
) -> None:
    with pytest.raises(EnrollmentError, match="cards 2, 3 are unsure: confirm or correct them"):
        enroll_cli()
    assert enroll_cli.tuned == []  # type: ignore[attr-defined]
    fixes = tmp_path / "fixes.txt"
    fixes.write_text("3=3s  # the second photo's\n")
    code, printed = enroll_cli("--fix", "2=3S", "--fixes", str(fixes))
    assert code == 0
    (cards,) = enroll_cli.tuned  # type: ignore[attr-defined]
    assert [(card, len(patches)) for card, patches in cards] == [("QH", 2), ("3S", 4), ("9C", 2)]
    assert "confirmed" in printed and "proposing with the shipped reader" in printed
    assert enroll_cli("--yes")[0] == 0  # an explicit go-ahead tunes them as proposed
    assert list((tmp_path / "here").iterdir()) == []


def test_the_review_file_is_corrected_by_card_name_and_taken_back_to_tune(
    enroll_cli: Callable[..., tuple[int, str]], tmp_path: Path
) -> None:
    """Without a terminal: `--list` writes the proposals as a corrections file (an unsure one
    ending in '?'); the player writes the right names in it and runs again with it."""
    assert enroll_cli("--list")[0] == 0
    review = tmp_path / "decks" / ".enroll-pub" / "review.txt"
    words = [line.split()[0] for line in review.read_text().splitlines()
             if line[:1].isdigit()]  # fmt: skip
    assert words == ["1=QH", "2=AC?", "3=AC?", "4=9C"]  # 2 and 3: the unread 3S
    assert "photo 1 a.png: unsure (likeliest AC 2%" in review.read_text()
    review.write_text(review.read_text().replace("2=AC?", "2=3s"))
    with pytest.raises(EnrollmentError, match=r"cards 3 are unsure: .*review\.txt"):
        enroll_cli("--fixes", str(review))  # card 3 is left as proposed: still unsure
    assert enroll_cli.tuned == []  # type: ignore[attr-defined]
    assert "2=3S " in review.read_text() and "3=AC?" in review.read_text()  # rewritten as is
    review.write_text(review.read_text().replace("3=AC?", "3=3S?"))  # a name changed is a word
    code, printed = enroll_cli("--fixes", str(review))
    assert code == 0
    (cards,) = enroll_cli.tuned  # type: ignore[attr-defined]
    assert [(card, len(patches)) for card, patches in cards] == [("QH", 2), ("3S", 4), ("9C", 2)]
    # quiet: only the cards not sure as proposed are listed (the corrected two), not 1 and 4
    listed = [line.split()[0] for line in printed.splitlines() if line[:4].strip().isdigit()]
    assert listed == ["2", "3"] and "4 cards proposed, 2 of them sure" in printed
    assert list((tmp_path / "here").iterdir()) == []


def test_enroll_proposes_with_the_reader_the_table_reads_with(
    enroll_cli: Callable[..., tuple[int, str]], tmp_path: Path
) -> None:
    """As the teaching page: the deck in use's tuned reader, else the shipped one."""
    store = ProfileStore(tmp_path / "decks")
    staged = store.staging("pub", copy_current=False)
    (staged / READER_FILE).write_bytes(b"tuned")
    store.commit(staged, {"name": "pub", "crops": [], "tuned": "2026-01-01T00:00:00+00:00"})
    store.use("pub")
    assert enroll_cli("--list")[0] == 0
    printed = enroll_cli("--list")[1]
    assert enroll_cli.readers[-1:] == [store.reader_in_use()] != [None]  # type: ignore[attr-defined]
    assert "proposing with the reader of deck 'pub' (the deck in use)" in printed


def test_deck_delete_says_what_it_deleted_and_which_deck_is_in_use(tmp_path: Path) -> None:
    store = ProfileStore(tmp_path)
    for name in ("pub", "club"):
        staged = store.staging(name, copy_current=False)
        store.commit(staged, {"name": name, "crops": [{"card": "QH"}, {"card": "3S"}]})
    store.use("pub")
    run = deck_cli(tmp_path)
    printed = run("deck", "delete", "club")
    assert "deleted deck 'club' (2 cards, no tuned reader)" in printed
    assert "deck in use: pub" in printed and "was in use" not in printed
    printed = run("deck", "delete", "pub")
    assert "deleted deck 'pub'" in printed
    assert "deck in use: base model ('pub' was in use)" in printed
