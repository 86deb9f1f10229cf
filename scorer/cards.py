"""Playing cards: the immutable `Card` type, its parser and the deck.

A card is a `(rank, suit)` named tuple so that sorting, hashing and comparison run at C
speed in the scoring hot paths; the constructor validates its fields, so an impossible card
can never exist.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from typing import NamedTuple

from scorer.errors import DuplicateCardError, InvalidCardError


class Suit(enum.StrEnum):
    """The four suits, ordered alphabetically as in bridge: clubs < diamonds < hearts < spades."""

    CLUBS = "C"
    DIAMONDS = "D"
    HEARTS = "H"
    SPADES = "S"

    @property
    def symbol(self) -> str:
        return _SUIT_SYMBOLS[self]


_SUIT_SYMBOLS = {Suit.CLUBS: "♣", Suit.DIAMONDS: "♦", Suit.HEARTS: "♥", Suit.SPADES: "♠"}

#: Rank names as printed in canonical card text: ``AS``, ``10D``, ``QH``.
RANK_NAMES = {1: "A", 11: "J", 12: "Q", 13: "K"} | {r: str(r) for r in range(2, 11)}

_RANK_ALIASES = {name: rank for rank, name in RANK_NAMES.items()} | {"T": 10}
_SUIT_ALIASES = {
    "C": Suit.CLUBS, "♣": Suit.CLUBS, "♧": Suit.CLUBS,
    "D": Suit.DIAMONDS, "♦": Suit.DIAMONDS, "♢": Suit.DIAMONDS,
    "H": Suit.HEARTS, "♥": Suit.HEARTS, "♡": Suit.HEARTS,
    "S": Suit.SPADES, "♠": Suit.SPADES, "♤": Suit.SPADES,
}  # fmt: skip


class _CardFields(NamedTuple):
    rank: int
    suit: Suit


class Card(_CardFields):
    """One card of the 52-card deck. Ace is low (rank 1); J, Q, K are 11, 12, 13.

    >>> Card(12, Suit.HEARTS)
    Card('QH')
    >>> str(Card(10, Suit.DIAMONDS)), Card(13, Suit.SPADES).value
    ('10D', 10)
    >>> sorted([parse_card("KS"), parse_card("AH"), parse_card("AC")])
    [Card('AC'), Card('AH'), Card('KS')]
    """

    __slots__ = ()

    def __new__(cls, rank: int, suit: Suit | str) -> Card:
        if type(rank) is not int or not 1 <= rank <= 13:
            raise InvalidCardError("bad_rank", value=repr(rank))
        try:
            suit = Suit(suit)
        except ValueError:
            raise InvalidCardError("bad_suit", value=repr(suit)) from None
        return super().__new__(cls, rank, suit)

    @property
    def value(self) -> int:
        """Counting value: ace 1, pip cards their number, court cards 10."""
        return self.rank if self.rank < 10 else 10

    @property
    def deck_index(self) -> int:
        """Position 0..51 in a deck sorted by rank, then suit."""
        return (self.rank - 1) * 4 + _SUIT_ORDER[self.suit]

    def __str__(self) -> str:
        return RANK_NAMES[self.rank] + self.suit.value

    def __repr__(self) -> str:
        return f"Card({str(self)!r})"


_SUIT_ORDER = {suit: i for i, suit in enumerate(Suit)}

#: The 52 cards, sorted; ``DECK[card.deck_index] == card``.
DECK: tuple[Card, ...] = tuple(Card(rank, suit) for rank in range(1, 14) for suit in Suit)


def parse_card(text: str) -> Card:
    """Read a card written as rank then suit: ``5H``, ``10D``, ``TD``, ``td``, ``J♠``, ``5♡``.

    >>> parse_card("td"), parse_card("J♠"), parse_card(" 5♡ ")
    (Card('10D'), Card('JS'), Card('5H'))
    >>> parse_card("1X")
    Traceback (most recent call last):
    ...
    scorer.errors.InvalidCardError: '1X' is not a card
    """
    if not isinstance(text, str):
        raise InvalidCardError("not_a_card", value=repr(text))
    cleaned = text.strip().upper()
    rank = _RANK_ALIASES.get(cleaned[:-1])
    suit = _SUIT_ALIASES.get(cleaned[-1:])
    if rank is None or suit is None:
        raise InvalidCardError("not_a_card", value=repr(text))
    return DECK[(rank - 1) * 4 + _SUIT_ORDER[suit]]


def parse_cards(texts: Iterable[str | Card]) -> list[Card]:
    """Parse several cards, refusing any card given twice."""
    cards = [parse_card(t) if isinstance(t, str) else _checked(t) for t in texts]
    ensure_distinct(cards)
    return cards


def _checked(card: object) -> Card:
    if not isinstance(card, Card):
        raise InvalidCardError("not_a_card", value=repr(card))
    return card


def ensure_distinct(cards: Iterable[Card]) -> None:
    """Raise `DuplicateCardError` naming the first card given twice: a deck holds one of each."""
    seen: set[Card] = set()
    for card in cards:
        if card in seen:
            raise DuplicateCardError("duplicate_card", card=card)
        seen.add(card)


def format_cards(cards: Iterable[Card]) -> str:
    """Cards as canonical text joined by spaces: ``'5H 5D JC'``."""
    return " ".join(str(c) for c in cards)
