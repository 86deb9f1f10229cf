"""Discard advice: rank every possible discard by its exact expected points.

For each way to lay cards away, the kept hand is scored against every possible starter (each
unseen card equally likely) and the crib against every possible set of unknown crib cards
together with every starter, all drawn uniformly from the cards the player has not seen. This is
exact, and unlike the usual precomputed crib tables it accounts for suits and for the cards the
player holds (they can be neither in the crib nor the starter).

The crib enumeration is vectorised: fifteens, pairs and runs depend only on the five ranks, so
the (unknown cards, starter) deals are counted once per rank tuple in a histogram, and the rank
points of each discard are a dot product of that histogram with a slice of a table of all
13^5 rank tuples (built from the same `analyse_ranks` that `score_show` uses). The 5-card
flush and nobs, the only suit-dependent crib points, are counted separately.

>>> from scorer.cards import format_cards, parse_cards
>>> advice = advise(parse_cards("5H 5D JC 6S 9H QD".split()), role=Role.DEALER)
>>> best = advice.best
>>> format_cards(best.discard), format_cards(best.keep), best.hand_min, best.hand_max
('6S 9H', '5H 5D JC QD', 10, 21)
>>> len(advice.options), advice.starters, advice.crib_deals
(15, 46, 45540)
"""

from __future__ import annotations

import enum
import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np
import numpy.typing as npt

from scorer.cards import DECK, Card, parse_cards
from scorer.errors import CribbageError, InvalidHandError
from scorer.ranktable import KEY_BASE, rank_points_by_sorted_key
from scorer.settings import Settings, Variant
from scorer.show import score_show

__all__ = [
    "Advice",
    "DiscardOption",
    "Role",
    "advise",
    "describe_game",
]

_IntArray = npt.NDArray[np.int64]
_RANKS = 13
_JACK = 11
_FLUSH_POINTS = 5  # a crib flush counts only with all five cards one suit


class Role(enum.StrEnum):
    """Whose crib it is, from the advised player's seat; this decides the crib's sign."""

    DEALER = "dealer"
    PARTNER = "partner"  # four players: the advised player's partner deals
    PONE = "pone"  # an opponent deals


def describe_game(settings: Settings) -> str:
    """'two players, six-card cribbage', 'three players', ..."""
    if settings.players == 2:
        return f"two players, {settings.variant.value} cribbage"
    return f"{'three' if settings.players == 3 else 'four'} players"


def unknown_crib_cards(settings: Settings) -> int:
    """Crib cards the advised player does not know: the crib holds 4, they lay some away."""
    return 4 - settings.discards_per_player


@dataclass(frozen=True)
class DiscardOption:
    """One way to lay away: what it keeps, what the hand and crib are worth on average.

    `net` is the hand mean plus the expected crib when the player's side owns the crib, minus it
    when an opponent does: the figure the options are ranked by.
    """

    discard: tuple[Card, ...]
    keep: tuple[Card, ...]
    hand_mean: float
    hand_min: int
    hand_max: int
    crib_mean: float
    net: float

    def to_json(self) -> dict[str, object]:
        return {
            "discard": [str(c) for c in self.discard],
            "keep": [str(c) for c in self.keep],
            "hand": {"mean": self.hand_mean, "min": self.hand_min, "max": self.hand_max},
            "crib": self.crib_mean,
            "net": self.net,
        }


@dataclass(frozen=True)
class Advice:
    """Every discard of a dealt hand, best net first, with what was enumerated to get there."""

    dealt: tuple[Card, ...]
    settings: Settings
    role: Role
    options: tuple[DiscardOption, ...]
    starters: int  # possible starters, for the hand
    crib_deals: int  # (unknown crib cards, starter) deals per discard

    @property
    def crib_sign(self) -> int:
        """+1 when the player's side owns the crib (dealer, or the dealer's partner), else -1."""
        return 1 if self.role is not Role.PONE else -1

    @property
    def best(self) -> DiscardOption:
        return self.options[0]

    def to_json(self) -> dict[str, object]:
        return {
            "dealt": [str(c) for c in self.dealt],
            "players": self.settings.players,
            "variant": self.settings.variant.value,
            "role": self.role.value,
            "crib_sign": self.crib_sign,
            "starters": self.starters,
            "crib_deals": self.crib_deals,
            "options": [
                {"rank": i, **option.to_json()} for i, option in enumerate(self.options, 1)
            ],
        }


def advise(
    dealt: Sequence[Card | str],
    *,
    role: Role = Role.DEALER,
    settings: Settings | None = None,
) -> Advice:
    """Rank every discard of `dealt` by net expected points (hand ± crib), best first.

    Ties in net are broken by the higher hand mean, then by deal order, so the result is stable.
    Raises a `CribbageError` for text that is not a card, a card given twice, a hand of the
    wrong size for the game, or a role the game does not have.
    """
    settings = settings or Settings()
    cards = tuple(parse_cards(dealt))
    _check(cards, settings, role)
    sign = -1 if role is Role.PONE else 1

    held = {card.deck_index for card in cards}
    unseen = np.array([i for i in range(52) if i not in held], dtype=np.int64)
    deals = _CribDeals(unseen, unknown_crib_cards(settings))
    starters = [DECK[i] for i in unseen.tolist()]

    scored: list[tuple[float, float, int, DiscardOption]] = []
    for order, discard_at in enumerate(
        itertools.combinations(range(len(cards)), settings.discards_per_player)
    ):
        discard = tuple(cards[i] for i in discard_at)
        keep = tuple(card for i, card in enumerate(cards) if i not in discard_at)
        hand = [score_show(keep, starter).total for starter in starters]
        hand_mean = sum(hand) / len(hand)
        crib_mean = deals.crib_total(discard) / deals.count
        net = hand_mean + sign * crib_mean
        option = DiscardOption(discard, keep, hand_mean, min(hand), max(hand), crib_mean, net)
        scored.append((-net, -hand_mean, order, option))
    scored.sort(key=lambda entry: entry[:3])
    return Advice(
        dealt=cards,
        settings=settings,
        role=role,
        options=tuple(entry[3] for entry in scored),
        starters=len(starters),
        crib_deals=deals.count,
    )


def _check(cards: tuple[Card, ...], settings: Settings, role: Role) -> None:
    if len(cards) != settings.dealt_per_player:
        raise _wrong_deal_size(cards, settings)
    if role is Role.PARTNER and settings.players != 4:
        raise CribbageError("no_partners")


def _wrong_deal_size(cards: tuple[Card, ...], settings: Settings) -> InvalidHandError:
    """Too many or too few cards dealt, naming the game as `describe_game` does."""
    counts = {"wanted": settings.dealt_per_player, "given": len(cards), "cards": cards}
    if settings.players > 2:
        code = "advice_three_players" if settings.players == 3 else "advice_four_players"
        return InvalidHandError(code, **counts)
    if settings.variant is Variant.SIX_CARD and len(cards) == 5:
        return InvalidHandError("advice_five_cards", **counts)
    return InvalidHandError("advice_two_players", variant=settings.variant.value, **counts)


class _CribDeals:
    """Every (unknown crib cards, starter) deal from the unseen cards, summarised for scoring.

    A deal is a set of `unknown + 1` unseen cards with one of them chosen as the starter, so
    each deal is enumerated exactly once. Only aggregates are kept: a histogram of the unknown
    cards' ranks with the starter's rank last (for the rank table), how many deals are a
    one-suit crib in each suit, how many have nobs among the unknown cards, and how many have a
    starter of each suit.
    """

    def __init__(self, unseen: _IntArray, unknown: int) -> None:
        sets = unseen[_combinations(len(unseen), unknown + 1)]
        width = unknown + 1
        # Row-major: every set `width` times, each of its cards once as the starter.
        starter = sets.reshape(-1)
        others = np.stack(
            [np.delete(sets, column, axis=1) for column in range(width)], axis=1
        ).reshape(-1, unknown)
        self.count = len(starter)

        starter_rank, starter_suit = starter // 4, starter % 4
        other_rank, other_suit = others // 4, others % 4
        key = np.zeros(self.count, dtype=np.int64)
        for column in range(unknown):
            key = key * _RANKS + other_rank[:, column]
        key = key * _RANKS + starter_rank
        self.rank_histogram = np.bincount(key, minlength=_RANKS ** (unknown + 1))
        self.key_span = _RANKS ** (unknown + 1)

        one_suit = (other_suit == starter_suit[:, None]).all(axis=1)
        self.suited_by_suit = np.bincount(starter_suit[one_suit], minlength=4)
        self.starters_by_suit = np.bincount(starter_suit, minlength=4)
        nobs = (other_rank == _JACK - 1) & (other_suit == starter_suit[:, None])
        self.unknown_nobs = int(nobs.any(axis=1).sum())

    def crib_total(self, discard: Sequence[Card]) -> int:
        """Sum of the crib's points over every deal, for the player's `discard`."""
        prefix = 0
        for card in discard:
            prefix = prefix * _RANKS + card.rank - 1
        table = _rank_points_table()
        block = table[prefix * self.key_span : (prefix + 1) * self.key_span]
        total = int(np.dot(block, self.rank_histogram))

        suits = {card.deck_index % 4 for card in discard}
        if len(suits) == 1:
            total += _FLUSH_POINTS * int(self.suited_by_suit[suits.pop()])
        total += self.unknown_nobs
        for card in discard:
            if card.rank == _JACK:  # his nobs when the starter turns up in the jack's suit
                total += int(self.starters_by_suit[card.deck_index % 4])
        return total


@cache
def _combinations(n: int, k: int) -> _IntArray:
    """Every k-subset of range(n) as rows of positions, ascending (cached: n is 46 or 47)."""
    flat = itertools.chain.from_iterable(itertools.combinations(range(n), k))
    return np.fromiter(flat, dtype=np.int64, count=math.comb(n, k) * k).reshape(-1, k)


@cache
def _rank_points_table() -> npt.NDArray[np.int8]:
    """Fifteens, pairs and runs of five ranks in any order, indexed by ranks 0..12 base 13.

    Indexing unsorted tuples lets the player's discard be the leading digits, so all deals for
    one discard are one contiguous slice of the table.
    """
    every = np.indices((_RANKS,) * 5).reshape(5, -1).T + 1  # all 13^5 tuples, base-13 order
    every.sort(axis=1)
    sorted_key = np.zeros(len(every), dtype=np.int64)
    for column in range(5):
        sorted_key = sorted_key * KEY_BASE + every[:, column]
    table: npt.NDArray[np.int8] = rank_points_by_sorted_key()[sorted_key]
    return table
