"""Test doubles for the server camera: a frame source and a card reader driven by the test."""

from __future__ import annotations

import threading
from dataclasses import replace
from typing import Any

import numpy as np

from scorer.cards import parse_card
from vision.detection.detections import Detections, class_of_card
from vision.table.cards import FrameCards, cards_from_detections
from vision.table.sources import Frame, FrameSource, SourceState, SourceStatus

WIDTH, HEIGHT = 640, 480
#: Where a lone corner index lands in each role of a 2-player table on a 640 × 480 frame.
PLAY_BOTTOM, PLAY_TOP, HAND_BOTTOM = (320.0, 336.0), (320.0, 144.0), (320.0, 440.0)


class Frames(FrameSource):
    """Grey frames as fast as asked; `count` of them then ENDED, or live with `state`."""

    def __init__(self, count: int | None = None, state: SourceState = SourceState.LIVE) -> None:
        self.count, self.sent, self.closed = count, 0, False
        self._status = SourceStatus(state, f"fake {state.value}")

    @property
    def status(self) -> SourceStatus:
        return self._status

    def read(self, timeout: float = 1.0) -> Frame | None:
        if self.closed or self._status.state is not SourceState.LIVE:
            threading.Event().wait(min(timeout, 0.01))
            return None
        if self.count is not None and self.sent >= self.count:
            self._status = SourceStatus(SourceState.ENDED, "fake ended")
            return None
        self.sent += 1
        image = np.full((HEIGHT, WIDTH, 3), 90, np.uint8)
        return Frame(image, self.sent / 10, self.sent - 1)

    def close(self) -> None:
        self.closed = True


class Reader:
    """A fake `CardReader`: each frame shows the cards in `table` (card, x, y); `fail` raises."""

    def __init__(self) -> None:
        self.table: list[tuple[str, tuple[float, float]]] = []
        self.fail = False
        self.calls = 0

    def read(self, frame: Any) -> Detections:
        self.calls += 1
        if self.fail:
            raise ValueError("the fake reader choked")
        table = list(self.table)
        if not table:
            return Detections.empty()
        boxes = [[x - 6, y - 10, x + 6, y + 10] for _, (x, y) in table]
        classes = [class_of_card(parse_card(card)) for card, _ in table]
        return Detections(boxes, [0.95] * len(table), classes)

    def cards(self, frame: Any) -> FrameCards:
        return cards_from_detections(self.read(frame))


class PhotoDetector:
    """A fake `PhotoReading` for the photo endpoints."""

    def detect(self, image: bytes, name: str) -> dict[str, Any]:
        return {"image": name, "cards": [{"card": "5H", "confidence": 0.9, "box": [1, 2, 3, 4]}]}


class TableDetector(PhotoDetector):
    """A fake frame reader (`webui.camera.photo_reading.FrameReading`): each frame shows
    `detections`."""

    def __init__(
        self,
        detections: Detections,
        size: tuple[int, int] = (1280, 720),
        *,
        cut_at_edge: bool = False,
    ) -> None:
        self.detections, self.size, self.cut_at_edge = detections, size, cut_at_edge

    def read_frame(self, image: bytes) -> tuple[FrameCards, tuple[int, int]]:
        seen = cards_from_detections(self.detections)
        return replace(seen, cut_at_edge=self.cut_at_edge), self.size
