"""Frames read on the table's own plane (`vision.table.plane`): the frames before the plane
settles are held, then read again turned to look straight down with the settled plane, all at
once (an unsettled plane would put the first cards laid in the wrong rows, and far small cards
read in the picture are misread); from then on each picture is turned and read there.

From a corner of the table the cards lie diagonally in the picture, where the reader finds few
of their indices: while the picture itself shows too few to say where the horizon is, it is
also read turned (`PlaneConfig.turns`), the indices found there placed back in the picture. Once
the plane settles the canonical frame is turned so the cards lie level in it (`TablePlane.level`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Protocol

import cv2
import numpy as np
import numpy.typing as npt

from vision.table.cards import FrameCards, SeenCard
from vision.table.plane import TablePlane, edge_angle

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
        #: The picture's turns to try while it reads too few indices, the last that read the
        #: most first (it is likeliest to read the next frame too).
        self.turns: list[float] = [] if table is None else list(table.config.turns)

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
            table.update(table.to_picture(cards), frame)
            return [cards]
        cards = self._for_horizon(frame, table)
        table.update(cards, frame)
        table.rectify(cards)  # measures the scale
        self.held.append(frame)
        if not table.settled:
            return []
        table.level(frame, cards)
        held, self.held = self.held, []
        # Every held frame read again: a far card the picture missed (the starter) may read
        # once turned, and its first frame says when it was turned.
        return [self.reader.cards(table.warp(f)) for f in held]

    def _for_horizon(self, frame: Image, table: TablePlane) -> FrameCards:
        """The frame's cards in the picture, for the horizon: as the picture reads them or,
        where it reads too few indices, as the picture turned reads them (the turns tried in
        order until one reads enough; the most indices of those read). The cards found turned
        say by their edges how far to turn the next frame to see them level, boxed tightest."""
        config = table.config
        cards = self.reader.cards(frame)
        if _indices(cards) >= config.least_indices or not self.turns:
            return cards
        read: list[tuple[int, float, FrameCards]] = []
        for turn in self.turns:
            turned = read_turned(self.reader, frame, turn)
            read.append((_indices(turned), turn, turned))
            if read[-1][0] >= config.least_indices:
                break
        count, turn, best = max(read, key=lambda r: r[0])
        if count <= _indices(cards):
            return cards
        seen = [s for s in best.cards if s.in_frame]
        reach = config.level_reach * float(np.median([s.glyph_size for s in seen]))
        angle, sureness = edge_angle(frame, [s.centre for s in seen], reach)
        if sureness >= config.level_sure and abs(angle) >= config.level_least:
            turn = angle  # the cards' own angle: turned by it they lie level
        self.turns = [turn, *(t for t in self.turns if t != turn and t in config.turns)]
        return best


def read_turned(reader: FrameReader, picture: Image, degrees: float) -> FrameCards:
    """`picture` turned `degrees` about its middle (counter-clockwise as shown; the same size,
    its corners cut), read, and its cards placed back in the picture. Each index keeps the box
    size it was read at: turned level it is boxed tight, and its box turned back would grow
    with the turn (by a third at 45 degrees), as the horizon must not see."""
    height, width = picture.shape[:2]
    turn = cv2.getRotationMatrix2D((width / 2, height / 2), degrees, 1.0)
    turned = cv2.warpAffine(picture, turn, (width, height), flags=cv2.INTER_LINEAR,
                            borderMode=cv2.BORDER_REPLICATE)  # fmt: skip
    back = np.asarray(cv2.invertAffineTransform(turn), np.float64)
    read = reader.cards(np.asarray(turned, np.uint8))
    return FrameCards(tuple(_turned_back(back, seen) for seen in read.cards))


def _turned_back(back: npt.NDArray[np.float64], seen: SeenCard) -> SeenCard:
    """`seen`, read in a turned picture, in the picture: each box's centre turned back, its
    size kept."""
    boxes = seen.detections.boxes.astype(np.float64)
    centres = (boxes[:, :2] + boxes[:, 2:]) / 2 @ back[:, :2].T + back[:, 2]
    halves = (boxes[:, 2:] - boxes[:, :2]) / 2
    placed = np.concatenate([centres - halves, centres + halves], axis=1).astype(np.float32)
    cx, cy = np.asarray(seen.centre, np.float64) @ back[:, :2].T + back[:, 2]
    x1, y1 = (float(v) for v in placed[:, :2].min(axis=0)) if len(placed) else (cx, cy)
    x2, y2 = (float(v) for v in placed[:, 2:].max(axis=0)) if len(placed) else (cx, cy)
    return replace(seen, box=(x1, y1, x2, y2), centre=(float(cx), float(cy)),
                   detections=seen.detections.with_rows(boxes=placed))  # fmt: skip


def _indices(frame: FrameCards) -> int:
    return sum(len(seen.detections) for seen in frame.cards if seen.in_frame)
