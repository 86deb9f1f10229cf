"""Frames read on the table's own plane (`vision.table.plane`): the frames before the plane
settles are held, then read again turned to look straight down with the settled plane, all at
once (an unsettled plane would put the first cards laid in the wrong rows, and far small cards
read in the picture are misread); from then on each picture is turned and read there.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np
import numpy.typing as npt

from vision.table.cards import FrameCards
from vision.table.plane import TablePlane

Image = npt.NDArray[np.uint8]


class FrameReader(Protocol):
    """What a frame is read with (`vision.reading.CardReader`)."""

    def cards(self, frame: Image) -> FrameCards: ...


class PlaneReading:
    """Each frame's cards as the picture has them or, with a table plane, on the plane."""

    def __init__(self, reader: FrameReader, table: TablePlane | None) -> None:
        self.reader, self.table = reader, table
        #: The frames held, to be read again once the plane is known.
        self.held: list[Image] = []

    @property
    def size(self) -> tuple[int, int] | None:
        """The frame the cards are placed in: the canonical one on a plane, else the
        picture's own (None)."""
        return None if self.table is None else self.table.size

    def ready(self, frame: Image) -> list[FrameCards]:
        """The frames now ready for the smoother, oldest first: on a plane none until it
        settles, then every frame held."""
        table = self.table
        if table is None:
            return [self.reader.cards(frame)]
        if table.settled:
            cards = self.reader.cards(table.warp(frame))
            table.update(table.to_picture(cards))
            return [cards]
        cards = self.reader.cards(frame)
        table.update(cards)
        table.rectify(cards)  # measures the scale
        self.held.append(frame)
        if not table.settled:
            return []
        held, self.held = self.held, []
        # Every held frame read again: a far card the picture missed (the starter) may read
        # once turned, and its first frame says when it was turned.
        return [self.reader.cards(table.warp(f)) for f in held]
