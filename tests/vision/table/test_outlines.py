"""The table's tilt from the cards' outlines: a few cards bunched in the middle of the table, as
a deal's first cards lie, say how the camera stands, where their indices' sizes cannot."""

from __future__ import annotations

import math

import cv2
import numpy as np
import pytest

from cribtrain.data.clips import FRAME
from cribtrain.data.poses import FRAME_SIZES, POSES, View, view
from scorer.cards import parse_card
from vision.detection.detections import Detections
from vision.table.cards import FrameCards, SeenCard
from vision.table.outlines import card_quads, tilt_from_quads
from vision.table.plane import TablePlane, quad_angle

#: A card's height on the table plane, in the clips' table pixels (an index 16 tall).
HEIGHT = 100.0
#: Where the cards lie: the pack in the middle, a card before each of two players, and one
#: turned across (a crib card): all within a third of the table.
SPOTS = [(320.0, 320.0, 0.0), (300.0, 450.0, 0.0), (340.0, 190.0, 0.0), (470.0, 330.0, 90.0)]


def _corners(x: float, y: float, angle: float, aspect: float) -> np.ndarray:
    """A card's corners on the table plane, clockwise from its top left."""
    w, h = aspect * HEIGHT / 2, HEIGHT / 2
    c, s = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    local = np.array([[-w, -h], [w, -h], [w, h], [-w, h]])
    return np.asarray(local @ np.array([[c, s], [-s, c]]) + [x, y], np.float64)


def _picture(sight: View, aspect: float, spots: list[tuple[float, float, float]]) -> np.ndarray:
    """White cards with a dark border on a mottled green table, as the posed camera sees it."""
    width, height = sight.size
    rng = np.random.default_rng(0)
    picture = np.full((height, width, 3), (40, 45, 50), np.uint8)
    table = sight.to_picture([[0, 0], [FRAME, 0], [FRAME, FRAME], [0, FRAME]])
    cv2.fillPoly(picture, [np.round(table).astype(np.int32)], (40, 140, 40))
    for x, y, angle in spots:
        corners = sight.to_picture(_corners(x, y, angle, aspect))
        points = np.round(corners * 8).astype(np.int32)
        cv2.fillPoly(picture, [points], (250, 250, 250), lineType=cv2.LINE_AA, shift=3)
        cv2.polylines(picture, [points], True, (30, 30, 30), 1, lineType=cv2.LINE_AA, shift=3)
    noisy = picture.astype(np.float64) + rng.normal(0, 4, picture.shape)
    blurred = cv2.GaussianBlur(np.clip(noisy, 0, 255).astype(np.uint8), (0, 0), 0.8)
    return np.asarray(blurred, np.uint8)


def _seen(sight: View, aspect: float, spots: list[tuple[float, float, float]]) -> FrameCards:
    """Each card as the reader reports it: its centre and index size in the picture (its two
    corner indices, from the card's size there)."""
    seen = []
    for n, (x, y, angle) in enumerate(spots):
        corners = sight.to_picture(_corners(x, y, angle, aspect))
        cx, cy = sight.to_picture([[x, y]])[0]
        size = 0.16 * math.sqrt(cv2.contourArea(corners.astype(np.float32)) / aspect)
        ends = corners[[0, 2]] * 0.8 + [cx, cy] * np.array(0.2)
        boxes = np.array([[ex - size / 3, ey - size / 2, ex + size / 3, ey + size / 2]
                          for ex, ey in ends], np.float32)  # fmt: skip
        box = (*corners.min(axis=0).tolist(), *corners.max(axis=0).tolist())
        card = parse_card(["AC", "2D", "3H", "4S", "5C", "6D"][n])
        detections = Detections(boxes, [0.9, 0.9], [0, 0])
        seen.append(SeenCard(card, 0.9, box, (float(cx), float(cy)), size, detections))
    return FrameCards(tuple(seen))


@pytest.mark.parametrize("pose", ["edge", "side", "corner"])
@pytest.mark.parametrize("aspect", [0.64, 0.716])  # the Dondorf deck's, and poker's 63:88
def test_a_few_cards_outlines_say_the_tilt_from_the_first_frames(pose: str, aspect: float) -> None:
    """The index sizes of a few cards bunched in the middle say no horizon (the plane stayed
    flat with them); their outlines say it in the first frames, within a few degrees."""
    sight = view(POSES[pose], FRAME_SIZES["720p"])
    picture, frame = _picture(sight, aspect, SPOTS), _seen(sight, aspect, SPOTS)
    table = TablePlane(FRAME_SIZES["720p"])
    for _ in range(table.config.settle):
        table.update(frame, picture)
        table.rectify(frame)
    assert table.settled
    assert table.tilt == pytest.approx(POSES[pose].tilt, abs=3.0)
    truth = np.linalg.inv(sight.plane_to_picture).T @ [0.0, 0.0, 1.0]
    normal = table._camera().T @ (truth / truth[2])
    apart = math.degrees(math.acos(float(normal @ table._normal()) / np.linalg.norm(normal)))
    assert apart < 3.0  # the tilt's direction too
    # warped to the canonical frame, the cards are rectangles of their aspect
    placed = cv2.perspectiveTransform(
        sight.to_picture(_corners(*SPOTS[0], aspect)).reshape(-1, 1, 2), table.homography()
    ).reshape(4, 2)
    sides = np.linalg.norm(np.roll(placed, -1, axis=0) - placed, axis=1)
    assert (sides[0] + sides[2]) / (sides[1] + sides[3]) == pytest.approx(aspect, rel=0.08)


def test_the_index_sizes_alone_leave_the_plane_flat_there() -> None:
    """What the outlines add: the same cards' indices are spread too little to say a horizon."""
    sight = view(POSES["corner"], FRAME_SIZES["720p"])
    frame = _seen(sight, 0.64, SPOTS)
    table = TablePlane(FRAME_SIZES["720p"])
    for _ in range(10):
        table.update(frame)  # no picture: the index sizes only
    assert table.tilt == 0.0 and table.updates == 0


def test_each_card_s_outline_is_found_and_overlapping_cards_give_none() -> None:
    sight = view(POSES["corner"], FRAME_SIZES["720p"])
    overlapping = [*SPOTS, (150.0, 500.0, 0.0), (190.0, 500.0, 0.0)]  # a play row of two
    picture = _picture(sight, 0.64, overlapping)
    quads = card_quads(picture, list(_seen(sight, 0.64, overlapping).cards))
    assert len(quads) == len(SPOTS)  # the row of two is no card's outline
    for quad, (x, y, angle) in zip(quads, SPOTS, strict=True):
        truth = sight.to_picture(_corners(x, y, angle, 0.64))
        # the same corners, whichever the quad starts from, within the card's dark border (the
        # face inside it is outlined), a pixel in from each side: more along an acute corner
        error = min(np.abs(np.roll(quad, k, axis=0) - truth).max() for k in range(4))
        assert error < 4.0


def test_no_outline_says_no_tilt_and_the_steepest_is_not_taken_for_parallel_cards() -> None:
    """Cards lying parallel meet the right angle at the steepest tilt too (every side alike
    there): the aspect keeps the fit at the true one."""
    assert tilt_from_quads([], FRAME_SIZES["720p"], 66.0) is None
    sight = view(POSES["corner"], FRAME_SIZES["720p"])
    parallel = [spot for spot in SPOTS if spot[2] == 0.0]
    quads = [sight.to_picture(_corners(x, y, a, 0.67)) for x, y, a in parallel]
    normal = tilt_from_quads(quads, FRAME_SIZES["720p"], 66.0)
    assert normal is not None
    assert math.degrees(math.acos(normal[2])) == pytest.approx(POSES["corner"].tilt, abs=1.0)


def test_the_canonical_frame_is_levelled_by_one_card_s_outline() -> None:
    """From a corner, the plane settles on the first card (the starter on the pack): its
    outline alone turns the canonical frame so it lies level there."""
    sight = view(POSES["corner"], FRAME_SIZES["720p"])
    one = SPOTS[:1]
    picture, frame = _picture(sight, 0.64, one), _seen(sight, 0.64, one)
    table = TablePlane(FRAME_SIZES["720p"])
    for _ in range(table.config.settle):
        table.update(frame, picture)
        table.rectify(frame)
    assert table.settled and table.spin == 0.0
    table.level(picture, frame)
    assert abs(table.spin) > 30  # the card lay about 40 degrees turned
    placed = cv2.perspectiveTransform(
        sight.to_picture(_corners(*SPOTS[0], 0.64)).reshape(-1, 1, 2), table.homography()
    ).reshape(4, 2)
    angle, sureness = quad_angle(np.eye(3), [np.asarray(placed, np.float64)])
    assert abs(angle) < 2.0 and sureness > 0.9


@pytest.mark.parametrize("aspect", [0.64, 0.716])
def test_a_camera_over_the_table_is_not_taken_tilted_for_a_deck_s_aspect(aspect: float) -> None:
    """Straight above, one card of any deck says no tilt (a tilt would stretch it to the usual
    aspect as well), and cards spread apart say none by their areas alike."""
    sight = view(POSES["overhead"], FRAME_SIZES["720p"])
    for spots in (SPOTS[:1], [spot for spot in SPOTS if spot[2] == 0.0]):
        quads = [sight.to_picture(_corners(x, y, a, aspect)) for x, y, a in spots]
        normal = tilt_from_quads(quads, FRAME_SIZES["720p"], 66.0)
        assert normal is not None and math.degrees(math.acos(normal[2])) < 2.0
