"""An independent, deliberately naive show scorer used as a test oracle.

It shares no code with `scorer.show`: fifteens and pairs by brute force over subsets, runs by
checking every subset of 3+ cards for consecutive ranks and keeping the longest length only.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from scorer.cards import Card


def _value(card: Card) -> int:
    return min(card.rank, 10)


def reference_breakdown(hand: Sequence[Card], starter: Card, crib: bool) -> dict[str, int]:
    cards = [*hand, starter]
    fifteens = 2 * sum(
        1
        for size in range(2, 6)
        for combo in itertools.combinations(cards, size)
        if sum(_value(c) for c in combo) == 15
    )
    pairs = 2 * sum(1 for a, b in itertools.combinations(cards, 2) if a.rank == b.rank)
    runs = 0
    for size in (5, 4, 3):
        found = [
            combo
            for combo in itertools.combinations(cards, size)
            if sorted(c.rank for c in combo)
            == list(range(min(c.rank for c in combo), min(c.rank for c in combo) + size))
        ]
        if found:
            runs = size * len(found)
            break
    flush = 0
    if len({c.suit for c in hand}) == 1:
        if starter.suit == hand[0].suit:
            flush = len(hand) + 1
        elif not crib:
            flush = len(hand)
    nobs = sum(1 for c in hand if c.rank == 11 and c.suit == starter.suit)
    return {"fifteens": fifteens, "pairs": pairs, "runs": runs, "flush": flush, "nobs": nobs}
