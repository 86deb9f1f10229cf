"""The camera check before the first deal, on tables rendered through a posed camera: a good
picture is ready; a dark, blurred, far or cut-off one says so, with what to change."""

from __future__ import annotations

from dataclasses import replace

import cv2
import numpy as np
import pytest

from cribtrain.data.clips import PLAY_ROW
from tests.vision.table.check_scenes import CheckScene, check_scene, held_out_deck
from vision.detection.detections import Detections
from vision.table.camera_check import (
    CameraCheckConfig,
    CameraCheckError,
    check_camera,
    closer_cm,
)
from vision.table.cards import FrameCards, SeenCard

PLAYERS = 3


@pytest.fixture(scope="module")
def good() -> CheckScene:
    """Three cut cards in front of their players, seen from overhead at 1080p."""
    return check_scene(held_out_deck(), "overhead", "1080p", PLAYERS, row=PLAY_ROW)


def test_a_good_picture_is_ready(good: CheckScene) -> None:
    verdict = check_camera(good.frame, good.truth, PLAYERS)
    assert verdict.ready, verdict.to_json()
    assert verdict.codes == []
    measures = verdict.measures
    assert measures.cards == PLAYERS
    assert measures.index_px is not None and measures.index_px >= 24
    assert measures.blur_px is not None and measures.blur_px < 1.5
    assert measures.paper is not None and measures.paper > 200


def test_a_dark_picture_is_too_dark() -> None:
    dark = check_scene(held_out_deck(), "overhead", "1080p", PLAYERS, row=PLAY_ROW, gain=0.25)
    verdict = check_camera(dark.frame, dark.truth, PLAYERS)
    assert not verdict.ready
    assert verdict.codes == ["too_dark"]
    [finding] = verdict.findings
    assert float(finding.values["paper"]) < 90


def test_a_dark_room_without_cards_read_is_too_dark(good: CheckScene) -> None:
    night = (good.frame * 0.15).astype(np.uint8)
    assert check_camera(night, FrameCards(), PLAYERS).codes == ["no_cards", "too_dark"]


@pytest.mark.parametrize("sigma", [4.0, 6.0])
def test_a_blurred_picture_is_blurred(good: CheckScene, sigma: float) -> None:
    blurred = np.asarray(cv2.GaussianBlur(good.frame, (0, 0), sigma), np.uint8)
    verdict = check_camera(blurred, good.truth, PLAYERS)
    assert verdict.codes == ["blurred"]
    assert not verdict.ready
    # the index edges are spread about as far as the blur, on top of the camera's own
    assert verdict.measures.blur_px == pytest.approx(sigma, rel=0.25)


def test_a_picture_out_of_focus_where_no_card_is_read_is_blurred(good: CheckScene) -> None:
    """No index to measure by: the frame's own sharpest edges say it."""
    sharp = check_camera(good.frame, FrameCards(), PLAYERS)
    assert sharp.codes == ["no_cards"]
    blurred = np.asarray(cv2.GaussianBlur(good.frame, (0, 0), 4.0), np.uint8)
    assert check_camera(blurred, FrameCards(), PLAYERS).codes == ["no_cards", "blurred"]


def test_small_indices_are_too_far_with_how_much_closer() -> None:
    far = check_scene(held_out_deck(), "overhead", "1080p", PLAYERS, row=PLAY_ROW, scale=0.4)
    verdict = check_camera(far.frame, far.truth, PLAYERS)
    assert verdict.codes == ["too_far"]
    assert not verdict.ready
    [finding] = verdict.findings
    assert float(finding.values["index_px"]) < 16
    index_px = float(finding.values["index_px"])
    assert finding.values["ratio"] == pytest.approx(index_px / 24, abs=0.01)
    assert finding.values["closer_cm"] == closer_cm(index_px, far.frame.shape[1])
    assert int(finding.values["closer_cm"]) >= 20


def test_indices_between_read_and_read_surely_are_advice_not_a_block() -> None:
    near = check_scene(held_out_deck(), "overhead", "1080p", PLAYERS, row=PLAY_ROW, scale=0.6)
    verdict = check_camera(near.frame, near.truth, PLAYERS)
    assert verdict.codes == ["far"]
    assert verdict.ready


def test_how_much_closer_follows_the_pinhole() -> None:
    """1280 px across a 66-degree lens is a focal length of 985 px: a 15 mm index 12 px tall
    lies 1.23 m away, and is 24 px tall at half that, 62 cm closer."""
    assert closer_cm(12.0, 1280) == 60
    assert closer_cm(20.0, 1280) == 10
    assert closer_cm(24.0, 1280) == 0
    assert closer_cm(23.5, 1280) == 5  # never "0 cm closer"
    with pytest.raises(CameraCheckError, match="an index of 0"):
        closer_cm(0.0, 1280)


def test_a_card_at_the_pictures_edge_is_cut_off_on_that_side(good: CheckScene) -> None:
    """The picture cut just inside the left card's outer index: that side is out of view."""
    left = min(good.truth.cards, key=lambda card: card.centre[0])
    cut = int(left.detections.boxes[:, 0].min()) + 2
    frame = np.ascontiguousarray(good.frame[:, cut:])
    cards = FrameCards(tuple(_shifted(card, -cut) for card in good.truth.cards))
    verdict = check_camera(frame, cards, PLAYERS)
    assert verdict.codes == ["cut_off_left"]
    assert verdict.findings[0].blocking
    assert not verdict.ready


def test_a_card_near_the_edge_is_advice(good: CheckScene) -> None:
    """Half an index of room beyond the card: it is read, but rows beside it will not fit."""
    left = min(good.truth.cards, key=lambda card: card.centre[0])
    boxes = left.detections.boxes
    room = float((boxes[:, 2] - boxes[:, 0]).max()) * 0.5
    cut = int(boxes[:, 0].min() - room)
    frame = np.ascontiguousarray(good.frame[:, cut:])
    verdict = check_camera(frame, FrameCards(tuple(_shifted(c, -cut) for c in good.truth.cards)),
                           PLAYERS)  # fmt: skip
    assert verdict.codes == ["cut_off_left"]
    assert verdict.ready


def test_fewer_cards_than_players_is_not_ready(good: CheckScene) -> None:
    two = FrameCards(good.truth.cards[:2])
    verdict = check_camera(good.frame, two, PLAYERS)
    assert verdict.codes == ["few_cards"]
    assert verdict.findings[0].values == {"cards": 2, "players": PLAYERS}
    assert check_camera(good.frame, two, 2).ready


def test_no_cards_is_not_ready(good: CheckScene) -> None:
    verdict = check_camera(good.frame, FrameCards(), PLAYERS)
    assert not verdict.ready
    assert verdict.to_json()["findings"] == [{"code": "no_cards", "blocking": True,
                                              "players": PLAYERS}]  # fmt: skip
    assert verdict.measures.index_px is None


@pytest.mark.parametrize(("pose", "size", "codes"), [
    ("overhead", "1080p", []),
    ("overhead", "720p", ["far"]),
    ("side", "720p", []),
    ("edge", "720p", ["too_far"]),
])  # fmt: skip
def test_the_poses_read_as_their_farthest_indices_say(
    pose: str, size: str, codes: list[str]
) -> None:
    """A phone leant at the near edge sees the far player's card smallest: at 720p too small."""
    scene = check_scene(held_out_deck(), pose, size, 2, row=PLAY_ROW)
    assert check_camera(scene.frame, scene.truth, 2).codes == codes


def test_the_verdict_as_json(good: CheckScene) -> None:
    answer = check_camera(good.frame, good.truth, PLAYERS).to_json()
    assert answer["ready"] is True
    assert set(answer["measures"]) == {"size", "cards", "index_px", "median_index_px",
                                       "blur_px", "paper", "brightness"}  # fmt: skip
    assert answer["measures"]["size"] == [1920, 1080]
    assert (answer["least_index_px"], answer["good_index_px"]) == (16.0, 24.0)


def test_bad_inputs_are_named(good: CheckScene) -> None:
    with pytest.raises(CameraCheckError, match=r"shape \(4, 4, 4\)"):
        check_camera(np.zeros((4, 4, 4), np.uint8), good.truth)
    with pytest.raises(CameraCheckError, match="players must be at least 1, got 0"):
        check_camera(good.frame, good.truth, 0)
    with pytest.raises(CameraCheckError, match=r"least_index_px .* got 30"):
        CameraCheckConfig(least_index_px=30)
    with pytest.raises(CameraCheckError, match="fov must be 10 to 170 degrees, got 5"):
        CameraCheckConfig(fov=5)


def _shifted(card: SeenCard, dx: float) -> SeenCard:
    found = card.detections
    boxes = found.boxes + np.array([dx, 0, dx, 0], np.float32)
    x1, y1, x2, y2 = card.box
    moved = Detections(boxes, found.scores, found.class_ids)
    centre = (card.centre[0] + dx, card.centre[1])
    return replace(card, detections=moved, box=(x1 + dx, y1, x2 + dx, y2), centre=centre)
