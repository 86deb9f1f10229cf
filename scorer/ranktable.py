"""Fifteens, pairs and runs of every 5-rank multiset as one numpy table, for bulk scoring.

Both the exhaustive statistics and discard advice score millions of five-card sets; they look
the rank part up here, keyed by the sorted ranks as base-14 digits, and add flush and nobs.
"""

from __future__ import annotations

import itertools
from functools import cache

import numpy as np
import numpy.typing as npt

from scorer.show import analyse_ranks

#: Ranks 1..13 are the digits of a key in this base.
KEY_BASE = 14


@cache
def rank_points_by_sorted_key() -> npt.NDArray[np.int8]:
    """`table[key]` = rank points of 5 sorted ranks r1 <= ... <= r5, key = digits r1..r5."""
    table = np.zeros(KEY_BASE**5, dtype=np.int8)
    for ranks in itertools.combinations_with_replacement(range(1, 14), 5):
        if max(ranks.count(r) for r in ranks) <= 4:  # five of a kind does not exist
            table[sorted_key(ranks)] = analyse_ranks(ranks).points
    table.setflags(write=False)
    return table


def sorted_key(ranks: tuple[int, ...]) -> int:
    """The table key of ranks that are already sorted ascending."""
    key = 0
    for rank in ranks:
        key = key * KEY_BASE + rank
    return key
