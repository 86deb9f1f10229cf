"""The posed cameras: a real camera's projection of the table plane, the whole table in view."""

from __future__ import annotations

import numpy as np
import pytest

from cribtrain.data.clips import DEFAULT_CAMERA, FRAME, towards
from cribtrain.data.deal_clips import SEATINGS, DealScript, _states, deal_clip
from cribtrain.data.poses import FRAME_SIZES, POSES, TABLE_IN_VIEW, view
from cribtrain.data.synth import load_decks
from tablemode.seats import LAYOUTS
from tests.cribtrain.data.test_clips import TWO_DEAL
from tests.helpers import FIXTURES

NEAR, FAR = (FRAME / 2, FRAME - 60), (FRAME / 2, 60)  # the bottom seat's side, the top's
CENTRE = (FRAME / 2, FRAME / 2)


def _span(points: np.ndarray) -> float:
    return float(np.linalg.norm(points[1] - points[0]))


@pytest.mark.parametrize("size", sorted(FRAME_SIZES))
@pytest.mark.parametrize("pose", sorted(POSES))
def test_every_pose_sees_the_whole_table_and_aims_at_its_centre(pose: str, size: str) -> None:
    sight = view(POSES[pose], FRAME_SIZES[size])
    low, high = TABLE_IN_VIEW
    corners = sight.to_picture([[low, low], [high, low], [high, high], [low, high]])
    width, height = FRAME_SIZES[size]
    assert np.all((corners >= 0) & (corners <= [width, height]))
    np.testing.assert_allclose(sight.to_picture([CENTRE])[0], [width / 2, height / 2], atol=1e-6)


def test_overhead_sees_near_and_far_cards_alike_and_a_leaning_phone_does_not() -> None:
    """A card's width 70 table px wide, at the near and the far edge of the table."""
    ratios = {}
    corner_near, corner_far = (60.0, FRAME - 60.0), (FRAME - 60.0, 60.0)  # bottom-left, top-right
    for pose, (near, far) in {"overhead": (NEAR, FAR), "edge": (NEAR, FAR), "side": (NEAR, FAR),
                              "corner": (corner_near, corner_far)}.items():  # fmt: skip
        sight = view(POSES[pose], FRAME_SIZES["720p"])
        ratios[pose] = _span(sight.to_picture([near, (near[0] + 70, near[1])])) / _span(
            sight.to_picture([far, (far[0] + 70, far[1])])
        )
    assert ratios["overhead"] == pytest.approx(1.0, abs=1e-6)
    assert ratios["edge"] > 1.8  # propped at the near edge: the far cards are half as wide
    assert ratios["side"] == pytest.approx(1.0, abs=0.05)  # at the left: near and far are alike
    assert ratios["corner"] > 1.5


def test_the_near_seat_is_at_the_bottom_of_the_picture_from_the_edge() -> None:
    sight = view(POSES["edge"], FRAME_SIZES["720p"])
    near, far = sight.to_picture([NEAR, FAR])
    assert near[1] > far[1] and abs(near[0] - far[0]) < 1e-6


def test_a_deal_clip_from_a_pose_has_the_pose_s_frames_and_the_same_truth() -> None:
    deck = load_decks([FIXTURES / "deck-dondorf"])[0]
    sight = view(POSES["corner"], FRAME_SIZES["720p"])
    posed = deal_clip(deck, TWO_DEAL, seed=1, hold=1, sight=sight)
    overhead = deal_clip(deck, TWO_DEAL, seed=1, hold=1)
    assert {frame.shape for frame in posed.frames} == {(720, 1280, 3)}
    assert posed.plays == overhead.plays and posed.roles == overhead.roles
    assert posed.marks == overhead.marks


FOUR_DEAL = DealScript.of(
    SEATINGS[4], 3,
    {"bottom": ["QH", "9D", "3C", "AS"], "left": ["KS", "8H", "4D", "2C"],
     "top": ["JD", "7C", "5H", "6S"], "right": ["10H", "9C", "4S", "2H"]},
    ["KC", "QD", "8S", "AD"], "5C",
)  # fmt: skip


def test_the_clips_seat_players_in_the_engine_s_order_partners_facing() -> None:
    assert SEATINGS == LAYOUTS
    four = SEATINGS[4]
    assert {four[0], four[2]} == {"bottom", "top"} and {four[1], four[3]} == {"left", "right"}


@pytest.mark.parametrize("pose", sorted(POSES))
def test_a_four_player_deal_renders_from_every_pose_each_seat_s_cards_where_it_sits(
    pose: str,
) -> None:
    deck = load_decks([FIXTURES / "deck-dondorf"])[0]
    sight = view(POSES[pose], FRAME_SIZES["720p"])
    clip = deal_clip(deck, FOUR_DEAL, seed=3, hold=1, sight=sight)
    assert {frame.shape for frame in clip.frames} == {(720, 1280, 3)}
    assert {seat for seat, _ in clip.plays} == set(SEATINGS[4]) and len(clip.plays) == 16
    # Where each seat sits in the picture: the middle of its side of the table.
    sides = {seat: (FRAME / 2 + FRAME / 2 * tx, FRAME / 2 + FRAME / 2 * ty)
             for seat in SEATINGS[4] for tx, ty in [towards(seat)]}  # fmt: skip
    seats = dict(zip(sides, sight.to_picture(list(sides.values())), strict=True))
    show = _states(deck, FOUR_DEAL, DEFAULT_CAMERA.glyph)[-3].table  # the show: every row laid
    centres = {p.code: p.M @ np.array([*show.size, 2.0]) / 2 for p in show.placements}
    for seat, card in clip.plays:
        at = sight.to_picture([centres[str(card)]])[0]
        nearest = min(seats, key=lambda s: float(np.linalg.norm(seats[s] - at)))
        assert nearest == seat, f"{card} of {seat} lies nearest {nearest} from {pose}"
