from __future__ import annotations

import pytest

from scorer.cards import DECK, Card, Suit, ensure_distinct, parse_card
from scorer.errors import DuplicateCardError, InvalidCardError


@pytest.mark.parametrize(
    ("text", "rank", "suit"),
    [
        ("5H", 5, Suit.HEARTS),
        ("10D", 10, Suit.DIAMONDS),
        ("TD", 10, Suit.DIAMONDS),
        ("td", 10, Suit.DIAMONDS),
        ("J♠", 11, Suit.SPADES),
        ("5♥", 5, Suit.HEARTS),
        ("q♤", 12, Suit.SPADES),
        ("K♡", 13, Suit.HEARTS),
        ("A♢", 1, Suit.DIAMONDS),
        ("2♧", 2, Suit.CLUBS),
        ("ac", 1, Suit.CLUBS),
        (" 7s ", 7, Suit.SPADES),
    ],
)
def test_parse_accepts_every_notation(text: str, rank: int, suit: Suit) -> None:
    assert parse_card(text) == Card(rank, suit)


@pytest.mark.parametrize("text", ["1X", "", "H", "11H", "1H", "0S", "5", "ZZ", "10", "5HH", "♥5"])
def test_parse_rejects_non_cards_naming_the_input(text: str) -> None:
    with pytest.raises(InvalidCardError, match=f"'{text}' is not a card"):
        parse_card(text)


def test_parse_rejects_non_text() -> None:
    with pytest.raises(InvalidCardError):
        parse_card(5)  # type: ignore[arg-type]


def test_canonical_text_round_trips_for_the_whole_deck() -> None:
    assert len(set(DECK)) == 52
    for card in DECK:
        assert parse_card(str(card)) == card
        assert DECK[card.deck_index] is card
    assert [str(parse_card(t)) for t in ("10D", "AS", "tc", "j♦")] == ["10D", "AS", "10C", "JD"]


def test_value_ordering_and_hashing() -> None:
    assert [Card(r, "S").value for r in range(1, 14)] == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10]
    assert Card(1, "S") < Card(2, "C") < Card(2, "D") < Card(13, "C")
    assert {Card(5, "H"), parse_card("5h")} == {parse_card("5H")}


def test_card_is_immutable_and_validated() -> None:
    card = Card(5, "H")
    with pytest.raises(AttributeError):
        card.rank = 6  # type: ignore[misc]
    with pytest.raises(InvalidCardError, match="rank 14"):
        Card(14, "H")
    with pytest.raises(InvalidCardError, match="suit 'X'"):
        Card(5, "X")


def test_duplicates_are_named() -> None:
    with pytest.raises(DuplicateCardError, match="5H appears twice"):
        ensure_distinct([parse_card("5H"), parse_card("6H"), parse_card("5h")])
