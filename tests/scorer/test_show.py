from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorer.cards import DECK, Card
from scorer.errors import DuplicateCardError, InvalidCardError, InvalidHandError
from scorer.show import ShowKind, score_show
from tests.helpers import card, cards
from tests.scorer.reference import reference_breakdown


def total(hand: str, starter: str, crib: bool = False) -> int:
    return score_show(cards(hand), card(starter), crib=crib).total


@pytest.mark.parametrize(
    ("hand", "starter", "expected"),
    [
        ("5H 5D 5S JC", "5C", 29),  # the perfect hand
        ("5H 5D 5S 5C", "JD", 28),  # jack as starter: no nobs
        ("7H 7D 8S 9C", "8C", 24),  # double-double run: 16 + 4 fifteens × 2
        ("7H 7D 8S 9C", "KD", 12),  # double run of three (8) plus two fifteens
        ("7H 7D 7S 8C", "9D", 21),  # triple run (15) + 3 fifteens
        ("6H 7D 8S 8C", "9D", 16),  # double run of four (10) + 3 fifteens
        ("2H 4D 6S 8C", "KD", 0),  # nineteen
        ("AH 2D 3S 4C", "5D", 7),  # run of five and one fifteen
        ("QH KD AS 2C", "3D", 7),  # K-A does not wrap: only A-2-3, plus Q+2+3 and K+2+3
        ("AH 2D QS KC", "9D", 0),  # Q-K-A is no run; no fifteen
    ],
)
def test_known_hands(hand: str, starter: str, expected: int) -> None:
    assert total(hand, starter) == expected


def test_nobs_never_comes_from_the_starter_itself() -> None:
    assert score_show(cards("2H 4D 6S 8C"), card("JH")).breakdown()["nobs"] == 0
    assert score_show(cards("2H 4D 6S JC"), card("KC")).breakdown()["nobs"] == 1
    assert score_show(cards("2H 4D 6S JC"), card("KD")).breakdown()["nobs"] == 0


def test_hand_flush_counts_the_four_hand_cards_not_the_starter() -> None:
    assert score_show(cards("2H 4H 6H 8H"), card("KD")).breakdown()["flush"] == 4
    assert score_show(cards("2H 4H 6H 8H"), card("KH")).breakdown()["flush"] == 5
    # three hearts in hand plus a heart starter is no flush
    assert score_show(cards("2H 4H 6H 8C"), card("KH")).breakdown()["flush"] == 0


def test_crib_scores_only_a_five_card_flush() -> None:
    assert score_show(cards("2H 4H 6H 8H"), card("KD"), crib=True).breakdown()["flush"] == 0
    assert score_show(cards("2H 4H 6H 8H"), card("KH"), crib=True).breakdown()["flush"] == 5


def test_three_card_hand_of_five_card_cribbage() -> None:
    show = score_show(cards("2H 4H 9H"), card("KD"))
    assert show.breakdown()["flush"] == 3
    assert score_show(cards("2H 4H 9H"), card("KH")).breakdown()["flush"] == 4
    assert total("5H 5D JC", "5S") == 2 * 4 + 6 + 0  # 5+J three ways, 5+5+5: four fifteens


def test_runs_are_three_or_more_and_ace_is_low() -> None:
    assert score_show(cards("2H 3D 9S JC"), card("KD")).breakdown()["runs"] == 0
    assert score_show(cards("AH 2D 3S 9C"), card("KD")).breakdown()["runs"] == 3
    assert score_show(cards("JH QD KS 2C"), card("AD")).breakdown()["runs"] == 3


@pytest.mark.parametrize(
    ("hand", "starter", "runs", "pairs"),
    [
        ("7H 7D 8S 9C", "KD", 6, 2),  # double run: 2 × 3 + pair
        ("7H 7D 7S 8C", "9D", 9, 6),  # triple run: 3 × 3 + pair royal
        ("7H 7D 8S 8C", "9D", 12, 4),  # double-double run: 4 × 3 + two pairs
        ("6H 7D 8S 8C", "9D", 8, 2),  # double run of four: 2 × 4 + pair
    ],
)
def test_multiple_runs(hand: str, starter: str, runs: int, pairs: int) -> None:
    breakdown = score_show(cards(hand), card(starter)).breakdown()
    assert (breakdown["runs"], breakdown["pairs"]) == (runs, pairs)


def test_items_name_the_exact_cards() -> None:
    show = score_show(cards("7H 8C 9D KS"), card("AS"))
    described = [str(item) for item in show.items]
    assert described == ["fifteen 7H+8C for 2", "run of 3 7H+8C+9D for 3"]
    assert [item.kind for item in show.items] == [ShowKind.FIFTEEN, ShowKind.RUN]
    assert sum(item.points for item in show.items) == show.total


def test_spoken_cadence() -> None:
    show = score_show(cards("7H 8C 8D AS"), card("KD"))
    assert show.spoken() == "fifteen two, fifteen four, and a pair is six"
    assert score_show(cards("7H 8C 9D KS"), card("AS")).spoken() == (
        "fifteen two, and a run of three is five"
    )
    assert score_show(cards("2H 4D 6S 8C"), card("KD")).spoken().startswith("nineteen")


def test_bad_input_is_refused_with_the_offending_cards() -> None:
    with pytest.raises(DuplicateCardError, match="5H appears twice"):
        score_show(cards("5H 6D 7S 8C"), card("5H"))
    with pytest.raises(DuplicateCardError):
        score_show([card("5H"), card("5H"), card("7S"), card("8C")], card("9D"))
    with pytest.raises(InvalidHandError, match="got 5"):
        score_show(cards("5H 6D 7S 8C 9C"), card("KH"))
    with pytest.raises(InvalidHandError, match="crib"):
        score_show(cards("5H 6D 7S"), card("KH"), crib=True)
    with pytest.raises(InvalidCardError, match="'5H' is not a card"):
        score_show(["5H", "6D", "7S", "8C"], card("KH"))  # type: ignore[list-item]


def test_matches_the_naive_reference_on_random_deals() -> None:
    rng = random.Random(20261129)
    for _ in range(20_000):
        dealt = rng.sample(DECK, 5)
        hand, starter = dealt[:4], dealt[4]
        for crib in (False, True):
            assert score_show(hand, starter, crib=crib).breakdown() == reference_breakdown(
                hand, starter, crib
            ), (hand, starter, crib)
        three = hand[:3]
        assert score_show(three, starter).breakdown() == reference_breakdown(three, starter, False)


deals = st.lists(st.sampled_from(DECK), min_size=5, max_size=5, unique=True)


@settings(max_examples=400, deadline=None)
@given(deals, st.randoms())
def test_order_of_the_hand_does_not_matter(dealt: list[Card], rng: random.Random) -> None:
    hand, starter = dealt[:4], dealt[4]
    shuffled = hand[:]
    rng.shuffle(shuffled)
    assert score_show(hand, starter).total == score_show(shuffled, starter).total
    assert (
        score_show(hand, starter, crib=True).total == score_show(shuffled, starter, crib=True).total
    )


@settings(max_examples=400, deadline=None)
@given(deals)
def test_totals_are_possible_and_a_crib_never_beats_the_hand(dealt: list[Card]) -> None:
    hand, starter = dealt[:4], dealt[4]
    as_hand = score_show(hand, starter).total
    as_crib = score_show(hand, starter, crib=True).total
    for points in (as_hand, as_crib):
        assert 0 <= points <= 29
        assert points not in (19, 25, 26, 27)
    assert as_crib <= as_hand
    assert sum(item.points for item in score_show(hand, starter).items) == as_hand
