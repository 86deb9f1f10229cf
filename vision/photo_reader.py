"""`PhotoReader`: what the web app reads image bytes with, the models loaded on first use, and
its self-check: a small photo of three real cards read at start-up, so a server says it reads
cards only once it has read some."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vision.config import DEFAULT_READING, ReadingConfig
from vision.detection.models import DETECTOR_FILE, MODELS_DIR, READER_FILE, ModelMissingError
from vision.errors import ReaderFailedError
from vision.frame_json import frame_json
from vision.reading import CardReader
from vision.table.cards import FrameCards
from vision.table.sources import decode_image

#: The self-check's photo (cut from the demo table) and the cards in it.
SELF_CHECK_PHOTO = Path(__file__).resolve().parent / "self_check.jpg"
SELF_CHECK_CARDS = ("7H", "8C", "9H")


@dataclass(frozen=True)
class SelfCheck:
    """Whether the reader read the self-check photo right, and what it read or why not."""

    ok: bool
    detail: str


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
        self._failure: ReaderFailedError | None = None
        self._loading = threading.Lock()

    def card_reader(self) -> CardReader:
        """The loaded frame reader (loaded on first use, and again after `use_reader`), shared
        with the server camera, which asks for it on every frame."""
        with self._loading:
            if self._failure is not None:  # said once: every frame would fail the same way
                raise self._failure
            if self._reader is None:
                try:
                    self._reader = CardReader(
                        self.models_dir, reader_path=self.reader_path, config=self.config
                    )
                except (ImportError, OSError, RuntimeError, ValueError) as error:
                    self._failure = ReaderFailedError(
                        f"the card reader cannot run: {type(error).__name__}: {error}"
                    )
                    raise self._failure from error
            return self._reader

    def use_reader(self, reader_path: Path | None) -> None:
        """Read with another index reader (a deck profile's; None: the base) from the next
        frame on; the models load again on first use. A reader already handed out keeps the
        stage it was loaded with: callers ask `card_reader` again for each frame."""
        with self._loading:
            self.reader_path, self._reader, self._failure = reader_path, None, None

    def read_frame(self, image: bytes) -> tuple[FrameCards, tuple[int, int]]:
        """The physical cards in the image bytes, and the image's width and height."""
        frame = decode_image(image)
        height, width = frame.shape[:2]
        reader = self.card_reader()
        try:
            return reader.cards(frame), (width, height)
        except (ImportError, OSError, RuntimeError) as error:  # the engine, not the frame
            raise ReaderFailedError(
                f"the card reader failed: {type(error).__name__}: {error}"
            ) from error

    def detect(self, image: bytes, name: str) -> dict[str, Any]:
        return frame_json(name, self.read_frame(image)[0])

    def self_check(self) -> SelfCheck:
        """Read the self-check photo: right only when exactly its three cards are read."""
        start = time.perf_counter()
        try:
            cards, _ = self.read_frame(SELF_CHECK_PHOTO.read_bytes())
        except (ReaderFailedError, OSError) as error:
            return SelfCheck(False, str(error))
        read = sorted(str(seen.card) for seen in cards.cards)
        if tuple(read) != SELF_CHECK_CARDS:
            return SelfCheck(False, f"read {' '.join(read) or 'no card'} in the self-check "
                                    f"photo of {' '.join(SELF_CHECK_CARDS)}")  # fmt: skip
        ms = (time.perf_counter() - start) * 1000
        return SelfCheck(True, f"read {' '.join(read)} in {ms:.0f} ms, models loaded")


def load_photo_reader(config: ReadingConfig = DEFAULT_READING) -> PhotoReader:
    """The shipped models' reader reading as `config` says; `ModelMissingError` when they are
    not installed."""
    return PhotoReader(config=config)
