"""cribcam: a companion for a real cribbage table."""

__version__ = "0.1.0"
