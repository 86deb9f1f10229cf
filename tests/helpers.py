"""Small helpers shared by the tests."""

from __future__ import annotations

from scorer.cards import Card, parse_card, parse_cards


def cards(text: str) -> list[Card]:
    """Parse space-separated card text: ``cards("5H 5D JC")``."""
    return parse_cards(text.split())


def card(text: str) -> Card:
    return parse_card(text)
