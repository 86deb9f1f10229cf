"""Time discard advice: the two-player six-card case (target: under 1 s), and the others.

Run from the repository root: ``python benchmarks/bench_advice.py``. The first call in a fresh
process also builds the 13^5 rank table and the combination index, so it is reported apart
("cold"); the figure that matters at the table is the median of the warm runs.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from scorer.advice import Role, advise
from scorer.settings import Settings, Variant

RUNS = 7
CASES = [
    ("two players, six-card", "5H 5D JC 6S 9H QD", Settings()),
    ("two players, five-card", "5H 5D JC 6S 9H", Settings(variant=Variant.FIVE_CARD)),
    ("three players", "5H 5D JC 6S 9H", Settings(players=3)),
    ("four players", "5H 5D JC 6S 9H", Settings(players=4)),
]


def seconds(cards: list[str], settings: Settings) -> float:
    start = time.perf_counter()
    advise(cards, role=Role.DEALER, settings=settings)
    return time.perf_counter() - start


def main() -> None:
    for name, text, settings in CASES:
        cards = text.split()
        cold = seconds(cards, settings)
        warm = statistics.median(seconds(cards, settings) for _ in range(RUNS))
        advice = advise(cards, settings=settings)
        print(
            f"{name:<24} {text:<18} {len(advice.options):2d} discards x "
            f"{advice.crib_deals:>7,} crib deals: median {warm * 1000:7.1f} ms "
            f"(first call {cold * 1000:6.1f} ms)"
        )


if __name__ == "__main__":
    main()
