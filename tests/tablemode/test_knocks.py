"""A knocked camera: the cards that all seem to move alike are put back where they lay; shake,
and a player moving a few cards, are left alone."""

from __future__ import annotations

import math

import numpy as np
import pytest

from scorer.cards import parse_card
from tablemode.knocks import KnockConfig, KnockFollower
from tests.tabletop import card_detections, table
from vision.table.cards import FrameCards, cards_from_detections

GLYPH = 20.0
LAID = {"5H": (200.0, 200.0), "JC": (400.0, 200.0), "7S": (300.0, 320.0),
        "2D": (200.0, 440.0), "KH": (420.0, 430.0)}  # fmt: skip


def seen(where: dict[str, tuple[float, float]]) -> FrameCards:
    return cards_from_detections(table(card_detections(c, at, GLYPH) for c, at in where.items()))


def moved(where: dict[str, tuple[float, float]], degrees: float, shift: tuple[float, float]
          ) -> dict[str, tuple[float, float]]:  # fmt: skip
    """Each card turned `degrees` about (320, 320) and shifted: the camera nudged."""
    turn = math.radians(degrees)
    cos, sin = math.cos(turn), math.sin(turn)
    out = {}
    for card, (x, y) in where.items():
        dx, dy = x - 320, y - 320
        out[card] = (320 + cos * dx - sin * dy + shift[0], 320 + sin * dx + cos * dy + shift[1])
    return out


def centres(frame: FrameCards) -> dict[str, tuple[float, float]]:
    return {str(s.card): s.centre for s in frame.cards}


def unmoved(frame: FrameCards, where: dict[str, tuple[float, float]]) -> bool:
    """Whether `frame`'s cards lie as seen in `where` (none moved back)."""
    now, expected = centres(frame), centres(seen(where))
    return now.keys() == expected.keys() and all(
        np.allclose(now[card], expected[card]) for card in now
    )


def follower_after(frames: int = 3) -> KnockFollower:
    follower = KnockFollower()
    for _ in range(frames):
        follower.steady(seen(LAID))
    return follower


def test_a_knock_puts_every_card_back_once_it_stays_and_the_next_frames_too() -> None:
    follower = follower_after()
    knocked = moved(LAID, 4.0, (35.0, -20.0))
    frames = KnockConfig().frames
    for _ in range(frames - 1):  # not yet known from a shake
        assert unmoved(follower.steady(seen(knocked)), knocked)
    for _ in range(3):  # the frame that tells, and those after it
        steady = centres(follower.steady(seen(knocked)))
        for card, (x, y) in LAID.items():
            assert steady[card] == pytest.approx((x, y), abs=2.0), card
    assert follower.knocks == 1


def test_a_card_laid_after_a_knock_lands_where_it_lies_on_the_table() -> None:
    follower = follower_after()
    for _ in range(KnockConfig().frames):
        follower.steady(seen(moved(LAID, 4.0, (35.0, -20.0))))
    laid = {**LAID, "9C": (320.0, 200.0)}
    steady = centres(follower.steady(seen(moved(laid, 4.0, (35.0, -20.0)))))
    assert steady["9C"] == pytest.approx((320.0, 200.0), abs=2.0)


def test_a_shaking_camera_is_no_knock() -> None:
    """Each frame moved otherwise, each time by more than `least_shift`: never one move."""
    follower = follower_after()
    for k in range(9):
        sign = 1 if k % 2 else -1
        shaken = moved(LAID, sign * 1.5, (sign * 30.0, 25.0 * ((k % 3) - 1)))
        assert unmoved(follower.steady(seen(shaken)), shaken)
    assert follower.knocks == 0


def test_shake_is_left_to_the_smoother() -> None:
    follower = follower_after()
    shaken = moved(LAID, 0.3, (5.0, 4.0))  # under `least_shift` index sizes
    assert unmoved(follower.steady(seen(shaken)), shaken)
    assert follower.knocks == 0
    assert np.array_equal(follower.correction, np.eye(3))


def test_a_player_moving_two_cards_is_no_knock() -> None:
    follower = follower_after()
    gathered = {**LAID, "2D": (150.0, 520.0), "KH": (200.0, 530.0)}
    assert unmoved(follower.steady(seen(gathered)), gathered)
    assert follower.knocks == 0


def test_too_few_cards_say_nothing() -> None:
    follower = KnockFollower(KnockConfig(least_cards=3))
    two = {c: LAID[c] for c in ("5H", "JC")}
    follower.steady(seen(two))
    knocked = moved(two, 5.0, (40.0, 0.0))
    assert unmoved(follower.steady(seen(knocked)), knocked)


def test_a_new_deal_forgets_where_the_cards_lay_but_not_the_knock() -> None:
    follower = follower_after()
    for _ in range(KnockConfig().frames):
        follower.steady(seen(moved(LAID, 0.0, (40.0, 0.0))))
    follower.forget()
    again = centres(follower.steady(seen(moved(LAID, 0.0, (40.0, 0.0)))))
    assert again[str(parse_card("5H"))] == pytest.approx(LAID["5H"], abs=2.0)
    assert follower.knocks == 1
