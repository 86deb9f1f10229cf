"""Decks: teaching cribcam a deck from the page, its profiles and the deck the app reads with."""
