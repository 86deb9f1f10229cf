"""Claims: what a player says they scored, set beside the engine's exact count.

A claim is exact, short (the player missed points: with muggins an opponent may take them) or
over (flagged and corrected). The missed items are named so the table can see *what* was
missed, e.g. ``missed: fifteen 7H+8C for 2``.
"""

from __future__ import annotations

import enum
import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol


class ScoringItem(Protocol):
    """A show item or a pegging item: anything with points and a printable description."""

    @property
    def points(self) -> int: ...


class ClaimOutcome(enum.StrEnum):
    EXACT = "exact"
    SHORT = "short"
    OVER = "over"


@dataclass(frozen=True)
class ClaimCheck:
    """A claim compared with the engine's count."""

    claimed: int
    actual: int
    missed_items: tuple[str, ...]  # best account of the shortfall (empty unless short)

    @property
    def outcome(self) -> ClaimOutcome:
        if self.claimed < self.actual:
            return ClaimOutcome.SHORT
        if self.claimed > self.actual:
            return ClaimOutcome.OVER
        return ClaimOutcome.EXACT

    @property
    def missed(self) -> int:
        return max(self.actual - self.claimed, 0)

    @property
    def over(self) -> int:
        return max(self.claimed - self.actual, 0)

    def describe(self) -> str:
        """One line for the page: ``claimed 6 of 8: missed: fifteen 7H+8C for 2``."""
        if self.outcome is ClaimOutcome.EXACT:
            return f"claimed {self.claimed}: exact"
        if self.outcome is ClaimOutcome.OVER:
            return f"claimed {self.claimed} but the count is {self.actual}: over by {self.over}"
        return f"claimed {self.claimed} of {self.actual}: missed: " + ", ".join(self.missed_items)

    def to_json(self) -> dict[str, object]:
        return {
            "claimed": self.claimed,
            "actual": self.actual,
            "outcome": self.outcome.value,
            "missed": self.missed,
            "missed_items": list(self.missed_items),
            "description": self.describe(),
        }


def check_claim(claimed: int, items: Sequence[ScoringItem]) -> ClaimCheck:
    """Compare `claimed` with the items' total; name the items most likely missed.

    The shortfall is explained by the fewest items whose points make it exactly, preferring
    items counted last (nobs, flush and runs are the usual misses); when no set of items
    makes it exactly, every item is listed.

    >>> from scorer.cards import parse_cards, parse_card
    >>> from scorer.show import score_show
    >>> show = score_show(parse_cards(["7H", "8C", "8D", "JS"]), parse_card("KS"))
    >>> check_claim(4, show.items).describe()
    'claimed 4 of 7: missed: pair 8C+8D for 2, his nobs JS+KS for 1'
    """
    actual = sum(item.points for item in items)
    if claimed >= actual:
        return ClaimCheck(claimed, actual, ())
    return ClaimCheck(claimed, actual, tuple(str(i) for i in _explain(actual - claimed, items)))


def _explain(shortfall: int, items: Sequence[ScoringItem]) -> Sequence[ScoringItem]:
    positions = range(len(items) - 1, -1, -1)  # latest first
    for size in range(1, len(items) + 1):
        for chosen in itertools.combinations(positions, size):
            if sum(items[i].points for i in chosen) == shortfall:
                return [items[i] for i in sorted(chosen)]
    return list(items)
