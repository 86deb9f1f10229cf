"""Rules-engine speed: one show through the public API against a PyPI scorer, and the
exhaustive 12,994,800 × (hand + crib) enumeration.

Run from the repository root after ``pip install -e '.[bench]'``:
``python benchmarks/bench_scorer.py``. Figures are printed, never asserted.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cribbage_scorer import cribbage_scorer  # benchmark-only dependency, extra "bench"

from scorer.cards import DECK
from scorer.show import score_show
from scorer.stats import both_distributions

DEALS = 20_000
REPEATS = 5


def per_call_microseconds(call: Callable[[int], object]) -> float:
    """Median over REPEATS passes of the mean time per call over all the deals."""
    passes = []
    for _ in range(REPEATS):
        start = time.perf_counter()
        for i in range(DEALS):
            call(i)
        passes.append((time.perf_counter() - start) / DEALS * 1e6)
    return statistics.median(passes)


def main() -> None:
    rng = random.Random(1)
    deals = [rng.sample(DECK, 5) for _ in range(DEALS)]
    ours = [(d[:4], d[4]) for d in deals]
    theirs = [([(c.rank, c.suit.value) for c in d[:4]], (d[4].rank, d[4].suit.value))
              for d in deals]  # fmt: skip

    # Same totals first: a fast wrong scorer would be worthless.
    mismatches = sum(
        score_show(h, s).total != cribbage_scorer.show_calc_score(ts, th)[0]
        for (h, s), (th, ts) in zip(ours[:2000], theirs[:2000], strict=True)
    )
    print(f"agreement on 2,000 random deals: {2000 - mismatches}/2000")

    ours_total = per_call_microseconds(lambda i: score_show(*ours[i]).total)
    ours_items = per_call_microseconds(lambda i: score_show(*ours[i]).items)
    theirs_us = per_call_microseconds(lambda i: cribbage_scorer.show_calc_score(*theirs[i][::-1]))
    print(f"cribbage-scorer 0.2.5 show_calc_score : {theirs_us:7.2f} µs/call")
    print(f"cribcam score_show(...).total        : {ours_total:7.2f} µs/call "
          f"(×{theirs_us / ours_total:.1f} faster)")  # fmt: skip
    print(f"cribcam score_show(...).items        : {ours_items:7.2f} µs/call "
          f"(×{theirs_us / ours_items:.1f} faster, itemised breakdown built)")  # fmt: skip

    start = time.perf_counter()
    hands, cribs = both_distributions()
    elapsed = time.perf_counter() - start
    print(f"exhaustive enumeration, {hands.count:,} deals × (hand + crib): {elapsed:.2f} s "
          f"(hand mean {hands.mean:.4f}, crib zeros {cribs.histogram[0]:,})")  # fmt: skip


if __name__ == "__main__":
    main()
