"""`PhotoReader`: what the web app reads image bytes with, the models loaded on first use."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from vision.config import DEFAULT_READING, ReadingConfig
from vision.detection.models import DETECTOR_FILE, MODELS_DIR, READER_FILE, ModelMissingError
from vision.frame_json import frame_json
from vision.reading import CardReader
from vision.table.cards import FrameCards
from vision.table.sources import decode_image


class PhotoReader:
    """What the web app calls: image bytes in, one `cribcam detect --json` object out.

    The models load on first use, so starting the server stays quick.
    """

    def __init__(self, models_dir: Path = MODELS_DIR, config: ReadingConfig = DEFAULT_READING):
        for name in (DETECTOR_FILE, READER_FILE):
            if not (models_dir / name).exists():
                raise ModelMissingError(f"card model file not found: {models_dir / name}")
        self.models_dir = models_dir
        self.config = config
        #: The index reader in use: a deck profile's, or None for the base one.
        self.reader_path: Path | None = None
        self._reader: CardReader | None = None
        self._loading = threading.Lock()

    def card_reader(self) -> CardReader:
        """The loaded frame reader (loaded on first use, and again after `use_reader`), shared
        with the server camera, which asks for it on every frame."""
        with self._loading:
            if self._reader is None:
                self._reader = CardReader(
                    self.models_dir, reader_path=self.reader_path, config=self.config
                )
            return self._reader

    def use_reader(self, reader_path: Path | None) -> None:
        """Read with another index reader (a deck profile's; None: the base) from the next
        frame on; the models load again on first use. A reader already handed out keeps the
        stage it was loaded with: callers ask `card_reader` again for each frame."""
        with self._loading:
            self.reader_path, self._reader = reader_path, None

    def read_frame(self, image: bytes) -> tuple[FrameCards, tuple[int, int]]:
        """The physical cards in the image bytes, and the image's width and height."""
        frame = decode_image(image)
        height, width = frame.shape[:2]
        return self.card_reader().cards(frame), (width, height)

    def detect(self, image: bytes, name: str) -> dict[str, Any]:
        return frame_json(name, self.read_frame(image)[0])


def load_photo_reader(config: ReadingConfig = DEFAULT_READING) -> PhotoReader:
    """The shipped models' reader reading as `config` says; `ModelMissingError` when they are
    not installed."""
    return PhotoReader(config=config)
