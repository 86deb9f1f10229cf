"""The photo reader as the web app sees it: any object with `detect(image, name)`.

The app takes one from its config (``PHOTO_READER``); `cribcam serve` passes the installed
models' `vision.photo_reader.PhotoReader` when there is one. With none, the endpoints that read
photos answer 503 rather than guess.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt
from flask import current_app

from vision.errors import ReaderFailedError
from vision.table.cards import FrameCards
from vision.table.plane_reading import FrameReader
from vision.table.sources import decode_image
from webui.errors import ApiError, NoCardModelError


@runtime_checkable
class PhotoReading(Protocol):
    def detect(self, image: bytes, name: str) -> dict[str, Any]:
        """One `cribcam detect --json` object for the image bytes:
        ``{"image": name, "cards": [{"card": "5H", "confidence": 0.97, "box": [x1, y1, x2, y2]}]}``
        """
        ...


@runtime_checkable
class FrameReading(PhotoReading, Protocol):
    def read_frame(self, image: bytes) -> tuple[FrameCards, tuple[int, int]]:
        """The physical cards in the image bytes, and the image's width and height."""
        ...


@runtime_checkable
class ImageReading(FrameReading, Protocol):
    def card_reader(self) -> FrameReader:
        """The reader of decoded frames (`PhotoReader.card_reader`): a frame turned to look
        straight down at the table is read with it."""
        ...


Image = npt.NDArray[np.uint8]


@dataclass(frozen=True)
class PageFrame:
    """A page's frame to track: the picture, the reader to read it (and it turned) with, the
    size its cards are placed in, and whether it can be read turned onto the table's plane (a
    reader of bytes alone cannot)."""

    image: Image
    reader: FrameReader
    size: tuple[int, int]
    plane: bool


def page_frame(image: bytes) -> PageFrame | None:
    """The page's frame decoded with its reader, or None when the detector only answers JSON.
    A reader failing on it raises as `read_frame` does (call it within `reading()`)."""
    detector = current_photo_reader()
    if isinstance(detector, ImageReading):
        picture = decode_image(image)
        height, width = picture.shape[:2]
        return PageFrame(picture, _Guarded(detector.card_reader()), (width, height), plane=True)
    if not isinstance(detector, FrameReading):
        return None
    seen, size = detector.read_frame(image)  # bytes in, cards out: it reads no other picture
    return PageFrame(decode_image(image), _Fixed(seen), size, plane=False)


@dataclass(frozen=True)
class _Guarded:
    """A frame reader whose engine failing is the server's (`ReaderFailedError`), not the
    frame's, as `PhotoReader.read_frame` says."""

    reader: FrameReader

    def cards(self, frame: Image) -> FrameCards:
        try:
            return self.reader.cards(frame)
        except (ImportError, OSError, RuntimeError) as error:
            raise ReaderFailedError(
                f"the card reader failed: {type(error).__name__}: {error}"
            ) from error


@dataclass(frozen=True)
class _Fixed:
    """The cards a bytes-only reader read, whatever picture is asked."""

    seen: FrameCards

    def cards(self, frame: Image) -> FrameCards:
        return self.seen


def read_photo(image: bytes, name: str) -> dict[str, Any]:
    """Detect with the configured detector; an image it cannot decode is the client's fault."""
    detector = current_photo_reader()
    with reading():
        return detector.detect(image, name)


def read_frame(image: bytes) -> tuple[FrameCards, tuple[int, int]] | None:
    """The cards of a camera frame for smoothing, or None when the detector only answers JSON."""
    detector = current_photo_reader()
    if not isinstance(detector, FrameReading):
        return None
    with reading():
        return detector.read_frame(image)


@contextmanager
def reading() -> Iterator[None]:
    """A frame that does not decode is the client's (400); a reader that cannot run is the
    server's (503, logged once by the reader's health), never a traceback a frame."""
    try:
        yield
    except ReaderFailedError as error:
        current_app.extensions["cribcam.reader_health"].failed(str(error))
        raise NoCardModelError(
            f"{error}: this server cannot read cards now (see its log); enter them by hand"
        ) from None
    except ValueError as error:  # the vision package's bad-image errors are ValueErrors
        raise ApiError.coded("unreadable_image", text=str(error)) from None


def current_photo_reader() -> PhotoReading:
    detector = current_app.config.get("PHOTO_READER")
    if detector is None:
        raise NoCardModelError.coded("no_card_model")
    if not isinstance(detector, PhotoReading):
        raise TypeError(f"PHOTO_READER {detector!r} has no detect(image, name) method")
    return detector
