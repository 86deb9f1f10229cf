"""Cribbage rules engine: cards, show and pegging scoring, statistics. Pure Python, no I/O."""
