"""The table's own plane from the sizes of the corner indices on it, and the cards seen from
straight above in index sizes, whatever the camera's angle."""

from __future__ import annotations

import numpy as np
import pytest

from cribtrain.data.clips import FRAME
from cribtrain.data.poses import FRAME_SIZES, POSES, view
from scorer.cards import parse_card
from vision.detection.detections import Detections
from vision.table.cards import FrameCards, SeenCard
from vision.table.plane import TablePlane, horizon

#: Index height on the table plane, in the clips' table pixels.
GLYPH = 16.0
#: Where cards lie on the table plane: a grid over the whole table.
SPOTS = [(x, y) for x in range(120, FRAME - 100, 100) for y in range(80, FRAME - 60, 120)]
CARDS = ["AC", "2C", "3C", "4C", "5C", "6C", "7C", "8C", "9C", "10C", "JC", "QC", "KC",
         "AD", "2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D", "10D", "JD", "QD", "KD"]  # fmt: skip


def _seen(card: str, spot: tuple[float, float], pose: str) -> SeenCard:
    """One index of `card` at `spot` on the table, as the posed camera's picture shows it."""
    sight = view(POSES[pose], FRAME_SIZES["720p"])
    x, y = spot
    corners = sight.to_picture([[x, y], [x + GLYPH * 0.6, y], [x + GLYPH * 0.6, y + GLYPH],
                                [x, y + GLYPH]])  # fmt: skip
    box = np.array([[*corners.min(axis=0), *corners.max(axis=0)]], np.float32)
    detections = Detections(box, [0.99], [0])
    centre = tuple(float(v) for v in sight.to_picture([[x + 4.8, y + 8]])[0])
    size = float((box[0, 2:] - box[0, :2]).max())
    return SeenCard(parse_card(card), 0.99, tuple(box[0].tolist()), centre, size, detections)  # type: ignore[arg-type]


def _table(pose: str) -> FrameCards:
    return FrameCards(
        tuple(_seen(card, spot, pose) for card, spot in zip(CARDS, SPOTS, strict=False))
    )


@pytest.mark.parametrize("pose", ["overhead", "edge", "side", "corner"])
def test_the_tilt_is_found_from_the_index_sizes(pose: str) -> None:
    plane = TablePlane(FRAME_SIZES["720p"])
    for _ in range(30):  # the estimate settles over frames
        plane.update(_table(pose))
    assert plane.tilt == pytest.approx(POSES[pose].tilt, abs=4.0)


@pytest.mark.parametrize("pose", ["edge", "side", "corner"])
def test_cards_from_a_leaning_camera_lie_as_on_the_table(pose: str) -> None:
    """Distances between cards in the canonical frame are the table's, near or far: the
    table plane's grid comes back evenly spaced, however small its far row looked."""
    plane = TablePlane(FRAME_SIZES["720p"])
    table = _table(pose)
    for _ in range(30):
        plane.update(table)
    placed = np.array([seen.centre for seen in plane.rectify(table).cards])
    truth = np.array([(x + 4.8, y + 8) for x, y in SPOTS[: len(placed)]])
    picture = np.array([seen.centre for seen in table.cards])
    # after a similarity (scale, turn, shift) the placed grid is the table's within 4 %
    for points, most in ((placed, 0.04), (picture, None)):
        error = _after_similarity(points, truth)
        if most is None:
            assert error > 0.08  # the picture itself is no similarity of the table
        else:
            assert error < most
    sizes = [seen.glyph_size for seen in plane.rectify(table).cards]
    # near and far indices alike, as seen from above, within what the picture's upright boxes
    # around foreshortened indices allow (the picture: twice as large near as far, edge on)
    assert max(sizes) / min(sizes) < 1.4


def _after_similarity(points: np.ndarray, truth: np.ndarray) -> float:
    """The largest distance left after the best similarity from `points` to `truth`, as a
    share of the table's size (Umeyama)."""
    a, b = points - points.mean(0), truth - truth.mean(0)
    u, s, vt = np.linalg.svd(b.T @ a)
    rotation = u @ vt
    scale = s.sum() / (a**2).sum()
    fitted = scale * a @ rotation.T
    return float(np.linalg.norm(fitted - b, axis=1).max() / np.ptp(truth, axis=0).max())


def test_a_camera_straight_above_keeps_the_picture_s_shape() -> None:
    plane = TablePlane(FRAME_SIZES["720p"])
    table = _table("overhead")
    plane.update(table)
    assert plane.line.tolist() == [0.0, 0.0, 1.0] and plane.tilt == 0.0
    placed = np.array([seen.centre for seen in plane.rectify(table).cards])
    picture = np.array([seen.centre for seen in table.cards])
    assert _after_similarity(placed, picture) < 1e-6


def test_too_few_indices_or_too_little_spread_leave_the_plane_as_it_was() -> None:
    plane = TablePlane(FRAME_SIZES["720p"])
    few = FrameCards(_table("edge").cards[:3])
    plane.update(few)
    assert plane.line.tolist() == [0.0, 0.0, 1.0]
    assert horizon(Detections.concatenate([s.detections for s in few.cards])) is None
    assert plane.rectify(FrameCards()) == FrameCards()  # no card yet: nothing to place


def test_cards_read_in_the_turned_picture_go_back_to_where_the_picture_has_them() -> None:
    """`warp` turns the picture to the canonical frame; cards read there are placed back in
    the picture (`to_picture`) where they lie, for the next frame's horizon."""
    plane = TablePlane(FRAME_SIZES["720p"])
    table = _table("edge")
    for _ in range(10):
        plane.update(table)
    canonical = plane.rectify(table)
    assert plane.settled
    back = plane.to_picture(canonical)
    for seen, again in zip(table.cards, back.cards, strict=True):
        assert np.allclose(seen.centre, again.centre, atol=0.5)
    picture = np.zeros((720, 1280, 3), np.uint8)
    assert plane.warp(picture).shape == (640, 640, 3)
