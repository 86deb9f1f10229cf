"""Scoring the show: a hand (or the crib) plus the starter, itemised.

Fifteens, pairs and runs depend only on the ranks of the five cards, so each distinct sorted
rank tuple (6,175 of them for five cards) is analysed once and cached as a list of scoring
*patterns* over card positions; a call then only sorts the cards, looks the pattern up and
checks flush and nobs. That keeps a single call in the low microseconds and lets the
exhaustive statistics (`scorer.stats`) reuse exactly the same rank analysis.
"""

from __future__ import annotations

import enum
import itertools
from collections.abc import Sequence
from functools import cache
from typing import NamedTuple, NoReturn

from scorer.cards import DECK, Card, Suit, ensure_distinct, format_cards
from scorer.errors import InvalidCardError, InvalidHandError
from scorer.spoken import Words, english, say


class ShowKind(enum.StrEnum):
    FIFTEEN = "fifteen"
    PAIR = "pair"
    RUN = "run"
    FLUSH = "flush"
    NOBS = "nobs"


class ShowItem(NamedTuple):
    """One scoring combination: what it is, the exact cards that make it, and its points."""

    kind: ShowKind
    cards: tuple[Card, ...]
    points: int

    @property
    def name(self) -> str:
        """Human name: 'fifteen', 'pair royal', 'run of 4', 'flush of 5', 'his nobs'."""
        if self.kind is ShowKind.PAIR:
            return _PAIR_NAMES[len(self.cards)]
        if self.kind is ShowKind.RUN:
            return f"run of {len(self.cards)}"
        if self.kind is ShowKind.FLUSH:
            return f"flush of {len(self.cards)}"
        if self.kind is ShowKind.NOBS:
            return "his nobs"
        return "fifteen"

    def __str__(self) -> str:
        return f"{self.name} {'+'.join(map(str, self.cards))} for {self.points}"


_PAIR_NAMES = {2: "pair", 3: "pair royal", 4: "double pair royal"}


class _ShowFields(NamedTuple):
    hand: tuple[Card, ...]
    starter: Card
    crib: bool
    total: int
    ranks: RankAnalysis  # fifteens, pairs and runs
    flush: int  # flush points
    nobs: tuple[Card, ...]  # the jack of the starter's suit, if held


class Show(_ShowFields):
    """The count of one hand or crib with the starter.

    `total` and `breakdown()` come straight from cached per-rank tables; the itemised `items`
    (which exact cards make each combination) are built when asked for, because bulk callers
    such as discard advice only need the numbers.
    """

    __slots__ = ()

    @property
    def items(self) -> tuple[ShowItem, ...]:
        """Every scoring combination in counting order: fifteens, pairs, runs, flush, nobs."""
        cards = sorted((*self.hand, self.starter))  # rank order, as the patterns index
        items = [
            ShowItem(kind, tuple(cards[i] for i in where), points)
            for kind, where, points in self.ranks.patterns
        ]
        if self.flush:
            with_starter = self.flush > len(self.hand)
            flush_cards = (*self.hand, self.starter) if with_starter else self.hand
            items.append(ShowItem(ShowKind.FLUSH, flush_cards, self.flush))
        items += [ShowItem(ShowKind.NOBS, (jack, self.starter), 1) for jack in self.nobs]
        return tuple(items)

    def __repr__(self) -> str:
        kind = "crib" if self.crib else "hand"
        return f"<Show {kind} {format_cards(self.hand)} + {self.starter} = {self.total}>"

    def breakdown(self) -> dict[str, int]:
        """Points per kind: ``{"fifteens": 16, "pairs": 12, "runs": 0, "flush": 0, "nobs": 1}``."""
        ranks = self.ranks
        return {
            "fifteens": ranks.fifteens,
            "pairs": ranks.pairs,
            "runs": ranks.runs,
            "flush": self.flush,
            "nobs": len(self.nobs),
        }

    def spoken(self, words: Words = english) -> str:
        """The count as players say it at the table; `words` gives another language's words
        (see `scorer.spoken`).

        >>> from scorer.cards import parse_cards, parse_card
        >>> score_show(parse_cards(["7H", "8C", "8D", "AS"]), parse_card("KD")).spoken()
        'fifteen two, fifteen four, and a pair is six'
        """
        return say(self.items, words)

    def __str__(self) -> str:
        label = "crib" if self.crib else "hand"
        lines = [f"{label} {format_cards(self.hand)} starter {self.starter}: {self.total}"]
        lines += [f"  {item}" for item in self.items]
        return "\n".join(lines)


# A pattern is (kind, positions in the rank-sorted cards, points).
Pattern = tuple[ShowKind, tuple[int, ...], int]


class RankAnalysis(NamedTuple):
    """What a sorted tuple of ranks scores in fifteens, pairs and runs, and where."""

    patterns: tuple[Pattern, ...]
    fifteens: int
    pairs: int
    runs: int

    @property
    def points(self) -> int:
        return self.fifteens + self.pairs + self.runs


@cache
def analyse_ranks(ranks: tuple[int, ...]) -> RankAnalysis:
    """Fifteens, pairs and runs of cards with these ranks, which must be sorted ascending.

    Positions index the sorted ranks, so the patterns apply to any cards with these ranks.
    """
    values = [min(r, 10) for r in ranks]
    positions = range(len(ranks))
    fifteens: list[Pattern] = [
        (ShowKind.FIFTEEN, combo, 2)
        for size in range(2, len(ranks) + 1)
        for combo in itertools.combinations(positions, size)
        if sum(values[i] for i in combo) == 15
    ]
    by_rank: dict[int, list[int]] = {}
    for i, rank in enumerate(ranks):
        by_rank.setdefault(rank, []).append(i)
    pairs: list[Pattern] = [
        (ShowKind.PAIR, tuple(group), len(group) * (len(group) - 1))
        for group in by_rank.values()
        if len(group) > 1
    ]
    runs = _run_patterns(by_rank)
    return RankAnalysis(
        tuple(fifteens + pairs + runs),
        sum(p for _, _, p in fifteens),
        sum(p for _, _, p in pairs),
        sum(p for _, _, p in runs),
    )


def _run_patterns(by_rank: dict[int, list[int]]) -> list[Pattern]:
    """Every distinct set of cards forming the longest run of 3+ consecutive ranks.

    With at most five cards there is at most one such stretch of ranks; a double run is one
    run per choice of the repeated card.
    """
    distinct = sorted(by_rank)
    best: list[int] = []
    stretch: list[int] = []
    for rank in distinct:
        stretch = [*stretch, rank] if stretch and rank == stretch[-1] + 1 else [rank]
        if len(stretch) > len(best):
            best = stretch
    if len(best) < 3:
        return []
    choices = itertools.product(*(by_rank[rank] for rank in best))
    return [(ShowKind.RUN, combo, len(best)) for combo in choices]


def score_show(hand: Sequence[Card], starter: Card, *, crib: bool = False) -> Show:
    """Count a 4-card hand or crib (a 3-card hand in five-card cribbage) with the starter.

    >>> from scorer.cards import parse_cards, parse_card
    >>> show = score_show(parse_cards(["5H", "5D", "5S", "JC"]), parse_card("5C"))
    >>> show.total, show.breakdown()
    (29, {'fifteens': 16, 'pairs': 12, 'runs': 0, 'flush': 0, 'nobs': 1})
    """
    hand = tuple(hand)
    size = len(hand)
    if size != 4 and (size != 3 or crib):
        _refuse_size(hand, crib)
    try:
        hand_weight = sum(map(_CARD_WEIGHT.__getitem__, hand))
        starter_weight = _CARD_WEIGHT[starter]
    except (KeyError, TypeError):
        _refuse_cards((*hand, starter))
    if len({*hand, starter}) != size + 1:
        _refuse_cards((*hand, starter))
    suit_counts = hand_weight >> _SUIT_SHIFT
    flush = 0
    if suit_counts in _ONE_SUIT:
        if suit_counts == size << _SUIT_BITS[starter[1]]:
            flush = size + 1
        elif not crib:
            flush = size
    jack = _JACKS[starter[1]]
    nobs = (jack,) if jack in hand else ()
    key = (hand_weight + starter_weight) & _RANK_MASK
    ranks = _RANKS_BY_KEY.get(key) or _analyse_key(key)
    return _new_show(
        Show, (hand, starter, crib, ranks.points + flush + len(nobs), ranks, flush, nobs)
    )


# Each card weighs one integer holding counts in 3-bit fields: its rank among the low 13
# fields, its suit in the 4 fields above. Summing weights counts ranks and suits with no sort.
_SUIT_SHIFT = 3 * 13
_RANK_MASK = (1 << _SUIT_SHIFT) - 1
_SUIT_BITS = {suit: 3 * i for i, suit in enumerate(Suit)}
_CARD_WEIGHT = {
    card: (1 << 3 * (card.rank - 1)) + (1 << _SUIT_SHIFT + _SUIT_BITS[card.suit]) for card in DECK
}
_ONE_SUIT = frozenset(size << bits for size in (3, 4) for bits in _SUIT_BITS.values())
_RANKS_BY_KEY: dict[int, RankAnalysis] = {}
_JACKS = {suit: Card(11, suit) for suit in Suit}
_new_show = tuple.__new__


def _analyse_key(key: int) -> RankAnalysis:
    """Analyse (and remember) the ranks whose counts `key` holds."""
    ranks = tuple(rank for rank in range(1, 14) for _ in range((key >> 3 * (rank - 1)) & 7))
    analysis = _RANKS_BY_KEY[key] = analyse_ranks(ranks)
    return analysis


def _refuse_size(hand: tuple[Card, ...], crib: bool) -> NoReturn:
    raise InvalidHandError("crib_size" if crib else "hand_size", given=len(hand), cards=hand)


def _refuse_cards(cards: tuple[object, ...]) -> NoReturn:
    for card in cards:
        if not isinstance(card, Card):
            raise InvalidCardError("not_a_card_object", value=repr(card))
    ensure_distinct(cards)  # type: ignore[arg-type]
    raise AssertionError("unreachable: the cards were refused for a reason")
