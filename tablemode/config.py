"""Table mode's thresholds, in one place."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TableModeConfig:
    #: A reading is applied by itself when its likeliest card is possible and this likely;
    #: anything less asks the players, with the likeliest possible cards as buttons.
    sure_chance: float = 0.75
    #: How many of the reader's possible choices a question offers.
    choices_offered: int = 4
    #: The reader's choices tried against the deal before giving up on a reading.
    choices_tried: int = 8
    #: Views to wait before asking about a card laid out of turn: the card laid before it
    #: (two laid nearly together) may still reach the table's rows.
    order_patience: int = 4


DEFAULT_TABLE_MODE = TableModeConfig()
