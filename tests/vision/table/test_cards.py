"""Pairing corner indices into cards, and identity conflicts."""

from __future__ import annotations

import numpy as np
import pytest

from scorer.cards import parse_card
from tests.tabletop import card_detections, row_detections, table, without_corners
from vision.detection.detections import FACING_UNKNOWN, Detections, class_of_card
from vision.frame_json import SMALL_INDEX_PX, frame_json
from vision.table.cards import PairingConfig, cards_from_detections


def test_two_corners_make_one_card_at_its_centre() -> None:
    seen = cards_from_detections(table([card_detections("7H", (300, 200), score=0.8)]))
    assert [str(c.card) for c in seen.cards] == ["7H"] and not seen.conflicts
    card = seen.cards[0]
    assert card.indices_seen == 2
    assert card.centre == pytest.approx((300, 200))
    assert card.confidence == pytest.approx(1 - 0.2 * 0.2)
    assert card.glyph_size == pytest.approx(20)
    x1, y1, x2, y2 = card.box
    assert x1 < 300 - 30 and x2 > 300 + 30 and y1 < 200 - 45 and y2 > 200 + 45


@pytest.mark.parametrize("rotation", [0, 1, 2, 3])
def test_pairs_at_any_rotation_and_scale(rotation: int) -> None:
    d = table([
        card_detections("AS", (200, 200), 12, rotation=rotation),
        card_detections("AD", (500, 300), 40, rotation=rotation),
    ])  # fmt: skip
    seen = cards_from_detections(d)
    assert {str(c.card): c.indices_seen for c in seen.cards} == {"AS": 2, "AD": 2}


@pytest.mark.parametrize("corners", ["tl tr bl br", "tl tr br", "tr bl"])
@pytest.mark.parametrize("orientation", [True, False])
def test_four_index_decks_make_one_card(corners: str, orientation: bool) -> None:
    d = table([card_detections("KS", (300, 200), rotation=2, corners=corners),
               card_detections("QH", (420, 200), corners="tl tr bl br")])  # fmt: skip
    seen = cards_from_detections(d if orientation else without_corners(d))
    assert {str(c.card): c.indices_seen for c in seen.cards} == {"KS": len(corners.split()),
                                                                 "QH": 4}  # fmt: skip
    assert not seen.conflicts
    assert seen.by_card()[parse_card("KS")].centre == pytest.approx((300, 200))


@pytest.mark.parametrize("rotation", [0, 1, 2, 3])
@pytest.mark.parametrize("corners", ["tl tr", "bl br"])
def test_one_ends_two_corners_place_the_card_along_them(corners: str, rotation: int) -> None:
    """A four-index card whose other end is covered (a hand withdrawing, a card over it): its
    centre lies along the card from the two corners, not between them."""
    d = card_detections("KS", (300, 200), rotation=rotation, corners=corners)
    (card,) = cards_from_detections(d).cards
    assert card.indices_seen == 2 and card.centre == pytest.approx((300, 200), abs=0.01)


def test_a_misread_fourth_corner_is_not_a_second_card() -> None:
    card = card_detections("KS", (300, 200), corners="tl tr bl br")
    misread = Detections(card.boxes, card.scores, [class_of_card(parse_card("KS"))] * 3
                         + [class_of_card(parse_card("AS"))])  # fmt: skip
    beside = card_detections("AS", (600, 400), corners="tl")  # a real lone AS elsewhere stays
    seen = cards_from_detections(table([misread]))
    assert [str(c.card) for c in seen.cards] == ["KS"] and not seen.conflicts
    seen = cards_from_detections(table([misread, beside]))
    assert sorted(str(c.card) for c in seen.cards) == ["AS", "KS"] and not seen.conflicts
    assert seen.by_card()[parse_card("AS")].centre == pytest.approx((600 - 33, 400 - 47))


def test_five_indices_are_not_one_card() -> None:
    # A fifth KS glyph in the middle of a four-index KS: within pairing reach of every corner.
    card = card_detections("KS", (300, 200), corners="tl tr bl br")
    middle = Detections([[294, 190, 306, 210]], [0.9], card.class_ids[:1])
    seen = cards_from_detections(Detections.concatenate([without_corners(card), middle]))
    assert len(seen.conflicts) == 1 and [str(c.card) for c in seen.cards] == ["KS"]


def test_fanned_hand_is_seen_by_one_corner_per_card() -> None:
    seen = cards_from_detections(table([row_detections(["2C", "3C", "4C", "5C"], (300, 400))]))
    assert [c.indices_seen for c in sorted(seen.cards, key=lambda c: c.card)] == [1, 1, 1, 2]
    assert not seen.conflicts


def test_orientation_places_a_lone_corner_at_the_card_centre() -> None:
    for rotation in range(4):
        d = card_detections("9S", (400, 300), rotation=rotation, corners="br")
        (card,) = cards_from_detections(d).cards
        assert card.centre == pytest.approx((400, 300), abs=0.01)
        (card,) = cards_from_detections(without_corners(d)).cards
        assert card.centre != pytest.approx((400, 300), abs=10)  # only the index centre


def test_same_card_far_apart_is_a_conflict_not_two_cards() -> None:
    d = table([card_detections("QH", (200, 200)), card_detections("QH", (800, 500))])
    seen = cards_from_detections(d)
    assert seen.cards == ()
    (conflict,) = seen.conflicts
    assert conflict.card == parse_card("QH") and len(conflict.places) == 2
    assert len(conflict.detections) == 4


def test_whole_card_wins_over_a_stray_index_but_is_reported() -> None:
    d = table([card_detections("QH", (200, 200)), card_detections("QH", (800, 500), corners="tl")])
    seen = cards_from_detections(d)
    assert [str(c.card) for c in seen.cards] == ["QH"]
    assert seen.cards[0].centre == pytest.approx((200, 200))
    assert len(seen.conflicts) == 1 and "whole card" in seen.conflicts[0].reason


@pytest.mark.parametrize(
    ("sure", "doubtful", "keep_at", "kept"),
    [
        (0.999, 0.86, 0.5, True),  # the sure one is the card with chance 999 / 1006.1 = 0.99
        (0.95, 0.9, 0.5, True),  # 19 / (1 + 19 + 9) = 0.66
        (0.95, 0.9, 0.7, False),
        (0.9, 0.9, 0.5, False),  # alike: 9 / 19, neither
    ],
)
def test_a_conflict_keeps_the_card_where_it_is_likelier_than_not(
    sure: float, doubtful: float, keep_at: float, kept: bool
) -> None:
    d = table([card_detections("KS", (200, 200), corners="tl", score=sure),
               card_detections("KS", (800, 500), corners="tl", score=doubtful)])  # fmt: skip
    seen = cards_from_detections(d, PairingConfig(min_score=0.5, conflict_keep=keep_at))
    (conflict,) = seen.conflicts
    assert len(conflict.places) == 2
    if kept:
        assert [(str(c.card), pytest.approx(c.confidence)) for c in seen.cards] == [("KS", sure)]
        assert seen.cards[0].box[0] < 400 and "kept the surest" in conflict.reason
    else:
        assert seen.cards == () and "kept" not in conflict.reason


def test_two_lone_indices_too_close_or_far_for_one_card_conflict() -> None:
    near = table([card_detections("8D", (200, 200), corners="tl"),
                  card_detections("8D", (220, 200), corners="tl")])  # fmt: skip
    assert len(cards_from_detections(near).conflicts) == 1
    assert cards_from_detections(near).cards == ()


@pytest.mark.parametrize("half_width", [24, 21])
def test_a_narrow_four_index_card_is_one_card(half_width: int) -> None:
    # Rendered Dondorf: 20-px indices whose left and right centres lie 2.4 index sizes apart,
    # 2.1 where a tilted camera foreshortens the card's width (the held-out 1280-px scenes).
    centres = [(x * half_width, y * 36) for y in (-1, 1) for x in (-1, 1)]
    boxes = [[100 + x - 4, 100 + y - 10, 100 + x + 4, 100 + y + 10] for x, y in centres]
    seen = cards_from_detections(Detections(boxes, [0.9, 0.85, 0.5, 0.45], [14] * 4))
    assert [(str(c.card), c.indices_seen) for c in seen.cards] == [("2D", 4)]
    assert not seen.conflicts


def test_duplicate_readings_of_one_glyph_are_merged() -> None:
    d = table([card_detections("6H", (300, 300), score=0.9)])
    misread = Detections(d.boxes[:1] + 1, [0.5], [d.class_ids[0] + 3])  # 9H at the same spot
    echo = Detections(d.boxes[:1] + 3, [0.6], d.class_ids[:1])  # same class, shifted box
    seen = cards_from_detections(Detections.concatenate([d, misread, echo]))
    assert [str(c.card) for c in seen.cards] == ["6H"] and not seen.conflicts
    assert seen.cards[0].indices_seen == 2


def test_low_scores_and_unknown_classes_are_set_aside() -> None:
    d = table([card_detections("6H", (300, 300), score=0.1)])
    assert cards_from_detections(d).cards == ()
    assert cards_from_detections(d, PairingConfig(min_score=0.05)).cards != ()
    unknown = card_detections("6H", (300, 300), class_id=-1)
    seen = cards_from_detections(unknown)
    assert seen.cards == () and len(seen.unread) == 2


def test_glyphs_of_very_different_size_are_not_one_card() -> None:
    small = card_detections("JC", (200, 200), 10, corners="tl")
    big = card_detections("JC", (200, 200), 40, corners="br")
    seen = cards_from_detections(table([small, big]))
    assert seen.cards == () and len(seen.conflicts) == 1


def test_empty_frame() -> None:
    seen = cards_from_detections(Detections.empty())
    assert seen.cards == () and seen.conflicts == () and seen.by_card() == {}
    assert seen.index_px is None
    answer = frame_json("empty.jpg", seen)
    assert answer["cards"] == [] and answer["index_px"] is None and not answer["small_indices"]
    assert answer["cut_at_edge"] is False


@pytest.mark.parametrize("g", [12.0, SMALL_INDEX_PX - 1.0, float(SMALL_INDEX_PX), 40.0])
def test_a_frame_tells_its_cards_median_index_size_and_whether_it_is_small(g: float) -> None:
    """A camera too far away, or of too low a resolution, gives indices few pixels."""
    hand = row_detections(["5H", "6C", "7D"], (300, 300), g)
    lone = card_detections("KS", (600, 300), 3 * g)  # one larger card moves no median
    seen = cards_from_detections(table([hand, lone]))
    assert len(seen.cards) == 4
    assert seen.index_px == pytest.approx(g)
    answer = frame_json("table.jpg", seen)
    assert answer["index_px"] == pytest.approx(g, abs=0.05)
    assert answer["small_indices"] is (g < SMALL_INDEX_PX)


def with_chances(d: Detections, rows: list[dict[str, float]]) -> Detections:
    """`d` with each index's class probabilities as given (card -> chance)."""
    chances = np.zeros((len(d), 52), np.float32)
    for i, row in enumerate(rows):
        for name, chance in row.items():
            chances[i, class_of_card(parse_card(name))] = chance
    return d.with_rows(probabilities=chances)


def test_a_card_carries_the_readers_next_choices_over_its_indices() -> None:
    d = with_chances(
        card_detections("5H", (300, 200)),
        [{"5H": 0.6, "5D": 0.3, "6H": 0.05}, {"5H": 0.8, "5D": 0.1, "3H": 0.0001}],
    )
    (card,) = cards_from_detections(d).cards
    choices = [(str(c), round(p, 3)) for c, p in card.choices]
    # the mean of both corners; below the floor is no choice
    assert choices == [("5H", 0.7), ("5D", 0.2), ("6H", 0.025)]


def test_at_most_the_configured_number_of_choices() -> None:
    row = {name: 0.1 for name in ("5H", "5D", "6H", "6D", "8H", "9H", "3S")} | {"5H": 0.3}
    d = with_chances(card_detections("5H", (300, 200), corners="tl"), [row])
    (card,) = cards_from_detections(d, PairingConfig(choices=3)).cards
    assert len(card.choices) == 3 and card.choices[0] == (parse_card("5H"), pytest.approx(0.3))
    assert sum(p for _, p in card.choices) <= 1


def test_without_probabilities_the_card_is_the_only_choice() -> None:
    (card,) = cards_from_detections(card_detections("7C", (300, 200), score=0.8)).cards
    assert card.choices == ((parse_card("7C"), pytest.approx(1 - 0.2 * 0.2)),)


def read_as(d: Detections, cards: list[str], rows: list[dict[str, float]]) -> Detections:
    """`d` (keeping which way each index faces) with each index read as `cards` and the reader's
    class probabilities as given (card -> chance)."""
    named = d.with_rows(class_ids=[class_of_card(parse_card(name)) for name in cards])
    return with_chances(named, rows)


def test_a_card_seen_at_both_corners_is_one_card_and_two_of_a_rank_side_by_side_are_two() -> None:
    """Issue #50: a 7H whose far corner is misread as the 7D (the 7H still the runner-up
    there) is one card, named from both corners; a 5H and a 5D side by side, each seen at the
    corner facing the other across the gap and each read surely, stay two cards."""
    seven = read_as(card_detections("7H", (200, 300), score=0.95), ["7H", "7D"],
                    [{"7H": 0.97, "7D": 0.02}, {"7D": 0.9, "7H": 0.09}])  # fmt: skip
    five_hearts = card_detections("5H", (500, 300), corners="br")
    five_diamonds = card_detections("5D", (500 + 4.4 * 20, 300), corners="tl")
    fives = read_as(Detections.concatenate([five_hearts, five_diamonds]), ["5H", "5D"],
                    [{"5H": 0.98, "5D": 0.02}, {"5D": 0.98, "5H": 0.02}])  # fmt: skip
    seen = cards_from_detections(Detections.concatenate([seven, fives]))
    assert sorted((str(c.card), c.indices_seen) for c in seen.cards) == [
        ("5D", 1), ("5H", 1), ("7H", 2)
    ]  # fmt: skip
    assert not seen.conflicts
    seven_seen = seen.by_card()[parse_card("7H")]
    assert seven_seen.centre == pytest.approx((200, 300))
    # the reader's choices stay the mean over both corners: the 7D is the close second
    assert [str(card) for card, _ in seven_seen.choices[:2]] == ["7H", "7D"]
    assert seven_seen.choices[1][1] == pytest.approx((0.02 + 0.9) / 2)


@pytest.mark.parametrize("rotation", [0, 1, 2, 3])
def test_corners_read_as_two_cards_join_only_where_they_face_each_other(rotation: int) -> None:
    """A card's two corners face opposite ways, each where the other's card lies; the same two
    readings a card's length apart facing the same way, or with which way either faces
    unknown, are two cards' (or one's seen twice: a conflict at most, never one card)."""
    card = card_detections("KS", (300, 300), rotation=rotation)
    rows = [{"KS": 0.9, "KC": 0.08}, {"KC": 0.85, "KS": 0.12}]
    (joined,) = cards_from_detections(read_as(card, ["KS", "KC"], rows)).cards
    assert (str(joined.card), joined.indices_seen) == ("KS", 2)
    # the KS's chance over both corners, times the surer corner's score (0.9)
    assert joined.confidence == pytest.approx(0.9 * 0.9 * 0.12 / (0.9 * 0.12 + 0.08 * 0.85),
                                              abs=0.01)  # fmt: skip
    same_way = card.with_rows(facing=[card.facing[0]] * 2)  # type: ignore[index]
    unknown = card.with_rows(facing=[card.facing[0], FACING_UNKNOWN])  # type: ignore[index]
    for apart in (same_way, unknown):
        seen = cards_from_detections(read_as(apart, ["KS", "KC"], rows))
        assert sorted(str(c.card) for c in seen.cards) == ["KC", "KS"]


def test_corners_whose_readings_rule_each_other_out_stay_two_cards() -> None:
    """Where neither reading gives the other's card any chance, two cards explain them better
    than one: ``52 Σ p1 p2 < 1 − Σ p1 p2``."""
    card = card_detections("QH", (300, 300))
    sure = read_as(card, ["QH", "QD"], [{"QH": 0.995, "QD": 0.004}, {"QD": 0.996, "QH": 0.003}])
    assert sorted(str(c.card) for c in cards_from_detections(sure).cards) == ["QD", "QH"]
    unsure = read_as(card, ["QH", "QD"], [{"QH": 0.95, "QD": 0.04}, {"QD": 0.9, "QH": 0.05}])
    assert [str(c.card) for c in cards_from_detections(unsure).cards] == ["QH"]


def test_a_four_index_card_whose_diagonals_read_as_two_cards_is_one() -> None:
    """Held-out Dondorf's JS on the pack (issue #50): one diagonal read JS, the other JC (the
    small-index reader's spade read as a club). Their diagonals meet at one centre and their
    readings leave each other's card a chance: one card, named from all four corners."""
    card = card_detections("JS", (300, 300), corners="tl br tr bl")
    rows = [{"JS": 0.9, "JC": 0.1}, {"JS": 0.85, "JC": 0.15},
            {"JC": 0.7, "JS": 0.3}, {"JC": 0.75, "JS": 0.25}]  # fmt: skip
    (one,) = cards_from_detections(read_as(card, ["JS", "JS", "JC", "JC"], rows)).cards
    assert (str(one.card), one.indices_seen) == ("JS", 4)
    assert one.centre == pytest.approx((300, 300))
    # at a card's corners, its diagonals are that card however surely they read otherwise
    sure = [{"JS": 0.999}, {"JS": 0.999}, {"QD": 0.998}, {"QD": 0.998}]
    (corners,) = cards_from_detections(read_as(card, ["JS", "JS", "QD", "QD"], sure)).cards
    assert (str(corners.card), corners.indices_seen) == ("JS", 4)
    # a pile: two cards stacked about one centre, the lower turned a little, each read surely,
    # stay two
    top = card_detections("JS", (300, 300))
    lower = top.with_rows(boxes=_turned_about(top.boxes, (300, 300), 12))
    pile = read_as(Detections.concatenate([top, lower]), ["JS", "JS", "QD", "QD"], sure)
    assert sorted(str(c.card) for c in cards_from_detections(pile).cards) == ["JS", "QD"]


def _turned_about(boxes: np.ndarray, centre: tuple[float, float], degrees: float) -> np.ndarray:
    """`boxes` moved as their centres turn `degrees` about `centre`, each keeping its size."""
    turn = np.radians(degrees)
    rotation = np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]])
    middles = (boxes[:, :2] + boxes[:, 2:]) / 2
    moved = (middles - centre) @ rotation.T + centre - middles
    return np.asarray(boxes + np.tile(moved, 2), np.float32)


@pytest.mark.parametrize("rotation", [0, 1])
@pytest.mark.parametrize("sides", [("tl bl", "tr br"), ("tl tr", "bl br")])
def test_a_four_index_card_whose_sides_read_as_two_cards_is_one(
    sides: tuple[str, str], rotation: int
) -> None:
    """A far seat's KD from a phone at the table's edge (issue #59): its left column read KH,
    its right column KD, two cards side by side that made a phantom KH play. Two pairs lying
    at one card's corners (its columns, or its ends) whose readings leave each other's card a
    chance are one card; two cards' columns in a row, each read surely, stay two."""
    first, second = (card_detections("KD", (300, 300), corners=c, rotation=rotation) for c in sides)
    doubtful = read_as(first, ["KH", "KH"], [{"KH": 0.8, "KD": 0.18}, {"KH": 0.7, "KD": 0.25}])
    sure = read_as(second, ["KD", "KD"], [{"KD": 0.95, "KH": 0.04}] * 2)
    (one,) = cards_from_detections(Detections.concatenate([doubtful, sure])).cards
    assert (str(one.card), one.indices_seen) == ("KD", 4)
    assert one.centre == pytest.approx((300, 300))
    unlike = read_as(first, ["KH", "KH"], [{"KH": 0.999}] * 2)
    two = cards_from_detections(Detections.concatenate([unlike, sure])).cards
    assert sorted(str(c.card) for c in two) == ["KD", "KH"]


def test_two_cards_sides_apart_along_a_row_are_not_one_card() -> None:
    """Two pairs a card's width apart but shifted along it (not a rectangle), or each end's
    indices facing apart, are two cards however alike they read."""
    left = card_detections("KD", (300, 300), corners="tl bl")
    shifted = card_detections("KD", (300, 340), corners="tr br")
    rows = [{"KH": 0.8, "KD": 0.18}, {"KH": 0.7, "KD": 0.25}]
    doubtful = read_as(left, ["KH", "KH"], rows)
    sure = read_as(shifted, ["KD", "KD"], [{"KD": 0.95, "KH": 0.04}] * 2)
    seen = cards_from_detections(Detections.concatenate([doubtful, sure])).cards
    assert sorted(str(c.card) for c in seen) == ["KD", "KH"]


def test_a_reading_under_the_card_threshold_joins_its_card_but_makes_none() -> None:
    """A corner boxed surely but read with moderate confidence adds its reading to the card
    it belongs to; alone, or beside another such reading, it is no card."""
    card = card_detections("9D", (300, 300))
    unsure = card.with_rows(scores=[0.97, 0.05], box_scores=[0.9, 0.8])
    joined = read_as(unsure, ["9D", "6D"], [{"9D": 0.98, "6D": 0.01}, {"6D": 0.6, "9D": 0.35}])
    (one,) = cards_from_detections(joined).cards
    assert (str(one.card), one.indices_seen) == ("9D", 2)
    both_unsure = card.with_rows(scores=[0.05, 0.05], box_scores=[0.9, 0.8])
    alike = read_as(both_unsure, ["9D", "9D"], [{"9D": 0.7, "6D": 0.3}] * 2)
    assert cards_from_detections(alike).cards == ()
    boxed_unsurely = card.with_rows(scores=[0.97, 0.05], box_scores=[0.9, 0.2])
    alone = read_as(boxed_unsurely, ["9D", "6D"], [{"9D": 0.98}, {"6D": 0.6, "9D": 0.35}])
    assert [(str(c.card), c.indices_seen) for c in cards_from_detections(alone).cards] == [
        ("9D", 1)
    ]
