"""The perft of cribbage: every one of the 12,994,800 (hand, starter) deals, scored."""

from __future__ import annotations

import pytest

from scorer.stats import DEAL_COUNT, both_distributions

# S. Lumetta, "Amusing Cribbage Facts": how many (4-card hand, starter) deals score each total.
PUBLISHED_HAND_HISTOGRAM = {
    0: 1009008, 1: 99792, 2: 2813796, 3: 505008, 4: 2855676, 5: 697508, 6: 1800268,
    7: 751324, 8: 1137236, 9: 361224, 10: 388740, 11: 51680, 12: 317340, 13: 19656,
    14: 90100, 15: 9168, 16: 58248, 17: 11196, 18: 2708, 19: 0, 20: 8068, 21: 2496,
    22: 444, 23: 356, 24: 3680, 25: 0, 26: 0, 27: 0, 28: 76, 29: 4,
}  # fmt: skip


@pytest.fixture(scope="module")
def distributions() -> tuple[object, object]:
    return both_distributions()


def test_hand_distribution_equals_the_published_table(distributions) -> None:  # type: ignore[no-untyped-def]
    hands, _ = distributions
    assert hands.count == DEAL_COUNT == 12_994_800
    assert dict(enumerate(hands.histogram)) == PUBLISHED_HAND_HISTOGRAM
    assert round(hands.mean, 3) == 4.769


def test_crib_distribution(distributions) -> None:  # type: ignore[no-untyped-def]
    hands, cribs = distributions
    assert cribs.count == DEAL_COUNT
    assert cribs.histogram[0] == 1_022_208
    for impossible in (19, 25, 26, 27):
        assert cribs.histogram[impossible] == 0
    # Cribs lose only the 4-card flushes, so they never score more on average.
    assert cribs.mean < hands.mean
    # The 29 hand and the 28s have no flush: they are the same deals as cribs.
    assert cribs.histogram[28:] == hands.histogram[28:]
