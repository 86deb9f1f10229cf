"""Exact distribution of show scores over every (4 cards, starter) deal: 12,994,800 of them.

The enumeration is vectorised with numpy: every 5-card set is scored five times (each card
once as the starter). Fifteens, pairs and runs come from the same cached rank analysis that
`score_show` uses, indexed by the sorted ranks; flush and nobs are computed per starter.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from scorer.ranktable import KEY_BASE, rank_points_by_sorted_key

MAX_SHOW = 29
#: Number of (hand of 4, starter) deals: C(52, 4) × 48.
DEAL_COUNT = math.comb(52, 4) * 48


@dataclass(frozen=True)
class Distribution:
    """How many deals score each total, 0 to 29."""

    crib: bool
    histogram: tuple[int, ...]

    @property
    def count(self) -> int:
        return sum(self.histogram)

    @property
    def mean(self) -> float:
        return sum(points * n for points, n in enumerate(self.histogram)) / self.count

    def to_json(self) -> dict[str, object]:
        return {
            "crib": self.crib,
            "count": self.count,
            "mean": self.mean,
            "histogram": {str(points): n for points, n in enumerate(self.histogram)},
        }


def _all_five_card_sets() -> np.ndarray:
    """Every 5-card set as card indices 0..51 (rank-major), each row ascending."""
    flat = itertools.chain.from_iterable(itertools.combinations(range(52), 5))
    return np.fromiter(flat, dtype=np.int8, count=math.comb(52, 5) * 5).reshape(-1, 5)


def show_distribution(*, crib: bool = False) -> Distribution:
    """Score all 12,994,800 deals as hands (or as cribs) and count each total."""
    return both_distributions()[1 if crib else 0]


def both_distributions() -> tuple[Distribution, Distribution]:
    """The hand and the crib distributions from one pass over the deals."""
    sets = _all_five_card_sets()
    ranks = sets // 4 + 1
    suits = sets % 4
    keys = np.zeros(len(sets), dtype=np.int32)
    for column in range(5):
        keys = keys * KEY_BASE + ranks[:, column]
    base_points = rank_points_by_sorted_key()[keys]
    five_suited = (suits == suits[:, :1]).all(axis=1)

    hand_counts = np.zeros(MAX_SHOW + 1, dtype=np.int64)
    crib_counts = np.zeros(MAX_SHOW + 1, dtype=np.int64)
    for starter in range(5):
        others = [c for c in range(5) if c != starter]
        starter_suit = suits[:, starter]
        hand_suits = suits[:, others]
        four_suited = (hand_suits == hand_suits[:, :1]).all(axis=1)
        nobs = ((ranks[:, others] == 11) & (hand_suits == starter_suit[:, None])).any(axis=1)
        common = base_points + nobs
        hand_flush = np.where(five_suited, 5, np.where(four_suited, 4, 0))
        hand_counts += np.bincount(common + hand_flush, minlength=MAX_SHOW + 1)
        crib_counts += np.bincount(common + np.where(five_suited, 5, 0), minlength=MAX_SHOW + 1)
    return (
        Distribution(False, tuple(int(n) for n in hand_counts)),
        Distribution(True, tuple(int(n) for n in crib_counts)),
    )
