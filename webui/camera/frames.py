"""Recent frames kept in memory, so that an applied action can keep a picture of its card.

A frame becomes a small JPEG thumbnail (at most `THUMB_SIDE` pixels) only when it is worth
keeping: camera frames when they show a play event, uploads when an action names them. Only
the newest frames are held (bounded in count and bytes): the server never grows with time.
"""

from __future__ import annotations

import itertools
import threading
from collections import OrderedDict

import cv2
import numpy as np
import numpy.typing as npt

from vision.table.sources import decode_image
from webui.games.store import Pictures

THUMB_SIDE = 320
Image = npt.NDArray[np.uint8]


def thumbnail(image: Image, side: int = THUMB_SIDE, quality: int = 80) -> bytes:
    """A JPEG of `image` scaled down so that its longer side is at most `side` pixels."""
    height, width = image.shape[:2]
    scale = min(1.0, side / max(height, width))
    if scale < 1.0:
        size = (max(1, round(width * scale)), max(1, round(height * scale)))
        image = np.asarray(cv2.resize(image, size, interpolation=cv2.INTER_AREA), np.uint8)
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    if not ok:
        raise ValueError("the frame could not be encoded as JPEG")
    return bytes(data.tobytes())


class FrameMemory:
    """Thread-safe: frame id → a thumbnail now, or the upload's bytes (thumbnailed on demand)."""

    def __init__(self, keep: int = 64, max_bytes: int = 48 * 1024 * 1024) -> None:
        self._keep, self._max_bytes = keep, max_bytes
        self._lock = threading.Lock()
        self._frames: OrderedDict[str, tuple[bool, bytes]] = OrderedDict()  # id → (thumb?, data)
        self._bytes = 0
        self._ids = itertools.count(1)

    def add_image(self, image: Image, prefix: str = "c") -> str:
        """Keep a thumbnail of a decoded frame; returns its id."""
        return self._add(prefix, True, thumbnail(image))

    def add_upload(self, data: bytes, prefix: str = "u") -> str:
        """Keep uploaded image bytes as they are; they are decoded only if an action uses them."""
        return self._add(prefix, False, data)

    def thumbnail(self, frame_id: str) -> bytes | None:
        """The frame's thumbnail, or None when the id is unknown or no longer held."""
        with self._lock:
            held = self._frames.get(frame_id)
        if held is None:
            return None
        is_thumb, data = held
        if is_thumb:
            return data
        small = thumbnail(decode_image(data))
        with self._lock:
            if frame_id in self._frames:
                self._bytes += len(small) - len(data)
                self._frames[frame_id] = (True, small)
        return small

    def _add(self, prefix: str, is_thumb: bool, data: bytes) -> str:
        with self._lock:
            frame_id = f"{prefix}{next(self._ids)}"
            self._frames[frame_id] = (is_thumb, data)
            self._bytes += len(data)
            while len(self._frames) > self._keep or (
                self._bytes > self._max_bytes and len(self._frames) > 1
            ):
                _, (_, old) = self._frames.popitem(last=False)
                self._bytes -= len(old)
            return frame_id


def held_picture(*memories: FrameMemory) -> Pictures:
    """The thumbnail of a frame id held by any of `memories` (None when none holds it)."""

    def picture(frame_id: str | None) -> bytes | None:
        if frame_id is None:
            return None
        return next((p for m in memories if (p := m.thumbnail(frame_id)) is not None), None)

    return picture
