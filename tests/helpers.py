"""Small helpers shared by the tests."""

from __future__ import annotations

import zlib
from pathlib import Path

from scorer.cards import Card, parse_card, parse_cards

REPO = Path(__file__).resolve().parents[1]
#: Small committed decks and card art, so tests need no apt or npm.
FIXTURES = REPO / "tests" / "fixtures"


def cards(text: str) -> list[Card]:
    """Parse space-separated card text: ``cards("5H 5D JC")``."""
    return parse_cards(text.split())


def card(text: str) -> Card:
    return parse_card(text)


def png_claiming(width: int, height: int) -> bytes:
    """A PNG that claims `width` x `height` pixels and holds none (a few dozen bytes)."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        crc = zlib.crc32(kind + body).to_bytes(4, "big")
        return len(body).to_bytes(4, "big") + kind + body + crc

    header = width.to_bytes(4, "big") + height.to_bytes(4, "big") + bytes([8, 0, 0, 0, 0])
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IEND", b"")
