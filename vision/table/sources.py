"""Frame sources: camera, video file, images, MJPEG/HTTP stream, and frames pushed by the page.

All sources share one small interface (`FrameSource`): ``read(timeout)`` returns the next
`Frame` (a BGR numpy image with a timestamp) or None when none arrived in time, ``status``
says what the source is doing as a typed `SourceStatus`, iteration yields frames until the
source ends, and ``close()`` stops it. The app therefore never blocks on a device: live sources
(camera, stream) read in a background thread, keep only the newest frame (a 2-core CPU
cannot detect on every frame anyway) and reconnect with exponential backoff when the camera
is unplugged or the stream drops, reporting each step in ``status``.
"""

from __future__ import annotations

import enum
import http.client
import io
import struct
import threading
import time
import urllib.request
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from types import TracebackType
from typing import Protocol, cast

import cv2
import numpy as np
import numpy.typing as npt
import PIL.ImageFile
import PIL.JpegImagePlugin
import PIL.PngImagePlugin
import PIL.WebPImagePlugin

from vision.errors import BadImageError, SourceError, SourceOpenError

Image = npt.NDArray[np.uint8]

IMAGE_SUFFIXES = frozenset({".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff"})
#: The most pixels an image may decode to: a 108-megapixel phone photo and an 8K frame fit. A
#: few hundred kB of PNG can claim 400 megapixels (1.2 GB to decode, 6 s here); such an image is
#: refused from its header, before decoding.
MAX_IMAGE_PIXELS = 150_000_000
#: Header readers by the bytes a file starts with. Called directly, not through `PIL.Image.open`,
#: which ultralytics replaces once imported (a deck tune imports it) with one that tries to
#: install a HEIF plugin when it meets bytes it cannot identify.
_HEADER_READERS: tuple[tuple[bytes, type[PIL.ImageFile.ImageFile]], ...] = (
    (b"\xff\xd8\xff", PIL.JpegImagePlugin.JpegImageFile),
    (b"\x89PNG", PIL.PngImagePlugin.PngImageFile),
    (b"RIFF", PIL.WebPImagePlugin.WebPImageFile),
)


@dataclass(frozen=True, eq=False)
class Frame:
    """One picture: ``image`` is H×W×3 BGR uint8; ``timestamp`` in seconds (media time for
    files, the monotonic clock for live sources); ``index`` counts frames from 0."""

    image: Image
    timestamp: float
    index: int

    @property
    def size(self) -> tuple[int, int]:
        """``width, height``, as `vision.table.roles.assign_roles` wants it."""
        return int(self.image.shape[1]), int(self.image.shape[0])


class SourceState(enum.StrEnum):
    CONNECTING = "connecting"
    LIVE = "live"
    #: Live, but no frame for a while (a frozen camera driver or a silent stream).
    STALLED = "stalled"
    RECONNECTING = "reconnecting"
    #: A file source delivered its last frame.
    ENDED = "ended"
    #: Gave up reconnecting (``Backoff.max_attempts``).
    FAILED = "failed"
    CLOSED = "closed"


TERMINAL = frozenset({SourceState.ENDED, SourceState.FAILED, SourceState.CLOSED})


@dataclass(frozen=True)
class SourceStatus:
    state: SourceState
    #: What happened last, for the page: "camera 0 gave no frame", "skipped bad.jpg".
    detail: str = ""
    reconnects: int = 0
    frames: int = 0
    #: Frames a live source replaced by a newer one before anyone read them.
    dropped: int = 0
    error: Exception | None = None


@dataclass(frozen=True)
class Backoff:
    """Reconnection delays: ``initial * factor**attempt``, capped at ``maximum`` seconds."""

    initial: float = 0.5
    factor: float = 2.0
    maximum: float = 10.0
    #: Give up (state FAILED) after this many failed attempts in a row; None: never.
    max_attempts: int | None = None

    def delay(self, attempt: int) -> float:
        return float(min(self.maximum, self.initial * self.factor**attempt))


def decode_image(data: bytes) -> Image:
    """Decode JPEG/PNG bytes into a BGR image; raise `BadImageError` if they are not one, or
    one of more than `MAX_IMAGE_PIXELS`."""
    if not isinstance(data, bytes | bytearray | memoryview) or len(data) == 0:
        raise BadImageError("no image bytes")
    _refuse_huge(data)
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if image is None or image.size == 0:
        head = bytes(data[:8]).hex(" ")
        raise BadImageError(f"{len(data)} bytes (starting {head}) are not a decodable image")
    return np.asarray(image, dtype=np.uint8)


def _refuse_huge(data: bytes) -> None:
    """Refuse an image of more than `MAX_IMAGE_PIXELS` from its header, without decoding it; a
    header that does not tell (another format, a broken header) is left to the decoder."""
    header = bytes(data[:4])
    for start, reader in _HEADER_READERS:
        if header.startswith(start):
            try:
                width, height = reader(io.BytesIO(data)).size
            except (OSError, ValueError, SyntaxError, EOFError, struct.error):
                return
            if width * height > MAX_IMAGE_PIXELS:
                raise BadImageError(
                    f"a {width} x {height} image is more than "
                    f"{MAX_IMAGE_PIXELS // 10**6} megapixels"
                )
            return


def read_image(path: Path) -> Image:
    """Read an image file (any path characters) or raise `BadImageError` naming it."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise BadImageError(f"cannot read {path}: {exc.strerror}") from None
    try:
        return decode_image(data)
    except BadImageError as exc:
        raise BadImageError(f"{path}: {exc}") from None


class FrameSource(ABC):
    """Frames from somewhere. Use ``read(timeout)`` in a loop, or iterate; always ``close()``."""

    #: Iteration waits for frames in slices of this many seconds, re-checking the state.
    poll: float = 0.25

    @abstractmethod
    def read(self, timeout: float = 1.0) -> Frame | None:
        """The next frame, or None if none arrived within ``timeout`` seconds (see status)."""

    @property
    @abstractmethod
    def status(self) -> SourceStatus: ...

    @abstractmethod
    def close(self) -> None:
        """Stop the source and release its device; further reads return None."""

    def __iter__(self) -> Iterator[Frame]:
        while True:
            frame = self.read(self.poll)
            if frame is not None:
                yield frame
            elif self.status.state in TERMINAL:
                return

    def __enter__(self) -> FrameSource:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class ImageSource(FrameSource):
    """One image file, or every image in a folder (sorted by name), ``fps`` apart in time.

    An unreadable image in a folder is skipped and named in ``status``; a missing path or a
    folder without images raises `SourceOpenError`.
    """

    def __init__(self, path: str | Path, *, fps: float = 10.0) -> None:
        self.path = Path(path)
        if self.path.is_dir():
            self._files = sorted(
                p for p in self.path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES
            )
            if not self._files:
                raise SourceOpenError(f"folder {self.path} holds no images")
        elif self.path.is_file():
            self._files = [self.path]
        else:
            raise SourceOpenError(f"no image file or folder at {self.path}")
        self._fps = fps
        self._next = 0
        self._status = SourceStatus(SourceState.LIVE)

    @property
    def status(self) -> SourceStatus:
        return self._status

    def read(self, timeout: float = 1.0) -> Frame | None:
        while self._status.state not in TERMINAL and self._next < len(self._files):
            path = self._files[self._next]
            self._next += 1
            try:
                image = read_image(path)
            except BadImageError as exc:
                if len(self._files) == 1:
                    raise
                self._status = replace(self._status, detail=f"skipped {path.name}", error=exc)
                continue
            index = self._status.frames
            self._status = replace(self._status, frames=index + 1)
            return Frame(image, index / self._fps, index)
        if self._status.state not in TERMINAL:
            self._status = replace(self._status, state=SourceState.ENDED)
        return None

    def close(self) -> None:
        self._status = replace(self._status, state=SourceState.CLOSED)


class VideoFileSource(FrameSource):
    """Every frame of a video file, timestamped by its frame rate."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise SourceOpenError(f"no video file at {self.path}")
        self._capture = cv2.VideoCapture(str(self.path))
        if not self._capture.isOpened():
            self._capture.release()
            raise SourceOpenError(f"{self.path} is not a video OpenCV can read")
        fps = float(self._capture.get(cv2.CAP_PROP_FPS))
        self._fps = fps if fps > 0 else 30.0
        self._status = SourceStatus(SourceState.LIVE)

    @property
    def status(self) -> SourceStatus:
        return self._status

    def read(self, timeout: float = 1.0) -> Frame | None:
        if self._status.state in TERMINAL:
            return None
        ok, image = self._capture.read()
        if not ok or image is None:
            self._capture.release()
            self._status = replace(self._status, state=SourceState.ENDED)
            return None
        index = self._status.frames
        self._status = replace(self._status, frames=index + 1)
        return Frame(np.asarray(image, dtype=np.uint8), index / self._fps, index)

    def close(self) -> None:
        self._capture.release()
        self._status = replace(self._status, state=SourceState.CLOSED)


class _LatestFrame:
    """A thread-safe slot holding the newest unread frame(s); readers wait with a timeout."""

    def __init__(self, status: SourceStatus, keep: int = 1) -> None:
        self.cond = threading.Condition()
        self.frames: deque[Frame] = deque()
        self.keep = keep
        self.status = status
        self.last_frame_at = time.monotonic()

    def publish(self, image: Image) -> None:
        with self.cond:
            if self.status.state is SourceState.CLOSED:
                return  # a device thread finishing its last read after close()
            index = self.status.frames
            dropped = self.status.dropped + (1 if len(self.frames) >= self.keep else 0)
            self.frames.append(Frame(image, time.monotonic(), index))
            while len(self.frames) > self.keep:
                self.frames.popleft()
            self.status = replace(
                self.status, state=SourceState.LIVE, frames=index + 1, dropped=dropped
            )
            self.last_frame_at = time.monotonic()
            self.cond.notify_all()

    def set(self, **changes: object) -> None:
        with self.cond:
            if self.status.state is SourceState.CLOSED:
                return
            self.status = replace(self.status, **changes)  # type: ignore[arg-type]
            self.cond.notify_all()

    def take(self, timeout: float) -> Frame | None:
        deadline = time.monotonic() + max(0.0, timeout)
        with self.cond:
            while not self.frames:
                left = deadline - time.monotonic()
                if left <= 0 or self.status.state in TERMINAL:
                    return None
                self.cond.wait(left)
            return self.frames.popleft()


class _LiveSource(FrameSource):
    """A device read by a background thread that reconnects with backoff."""

    def __init__(self, name: str, backoff: Backoff, stall_after: float) -> None:
        self.name = name
        self._backoff = backoff
        self._stall_after = stall_after
        self._slot = _LatestFrame(SourceStatus(SourceState.CONNECTING, f"opening {name}"))
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name=f"source {name}", daemon=True)
        self._thread.start()

    @abstractmethod
    def _connect(self) -> None: ...

    @abstractmethod
    def _grab(self) -> Image:
        """The next image; raise `SourceError` when the device stops delivering."""

    @abstractmethod
    def _disconnect(self) -> None: ...

    @property
    def status(self) -> SourceStatus:
        status = self._slot.status
        silent = time.monotonic() - self._slot.last_frame_at
        if status.state is SourceState.LIVE and silent > self._stall_after:
            return replace(status, state=SourceState.STALLED, detail=f"no frame for {silent:.1f} s")
        return status

    def read(self, timeout: float = 1.0) -> Frame | None:
        return self._slot.take(timeout)

    def wait_for_status(self, done: Callable[[SourceStatus], bool], timeout: float) -> bool:
        """Wait until ``done(status)`` holds; whether it did within ``timeout`` seconds."""
        # Each status change notifies the slot: callers (tests) wait on it instead of polling.
        with self._slot.cond:
            return self._slot.cond.wait_for(lambda: done(self.status), timeout)

    def close(self) -> None:
        self._stop.set()
        self._slot.set(state=SourceState.CLOSED, detail="closed")
        self._thread.join(timeout=2.0)

    def _run(self) -> None:
        attempt = 0
        while not self._stop.is_set():
            try:
                self._connect()
                self._slot.set(detail=f"{self.name} connected")
                while not self._stop.is_set():
                    image = self._grab()
                    attempt = 0
                    self._slot.publish(image)
            except Exception as exc:  # any failure of the device thread becomes a status
                error = exc if isinstance(exc, SourceError) else SourceError(f"{self.name}: {exc}")
                attempt += 1
            finally:
                self._disconnect()
            if self._stop.is_set():
                return
            limit = self._backoff.max_attempts
            if limit is not None and attempt >= limit:
                detail = f"gave up on {self.name} after {attempt} failed attempts: {error}"
                self._slot.set(state=SourceState.FAILED, detail=detail, error=error)
                return
            self._slot.set(
                state=SourceState.RECONNECTING,
                detail=str(error),
                error=error,
                reconnects=self._slot.status.reconnects + 1,
            )
            self._stop.wait(self._backoff.delay(attempt - 1))


class Capture(Protocol):
    """The part of ``cv2.VideoCapture`` a camera source uses (a seam for tests)."""

    def isOpened(self) -> bool: ...

    def read(self) -> tuple[bool, npt.NDArray[np.uint8] | None]: ...

    def release(self) -> None: ...


#: The frame size a local camera is asked for (it delivers the nearest it has). Opened without
#: asking, most webcams deliver 640 × 480, and an index's pixels decide its reading: the
#: held-out designs' views read at 640, 853 and 1280 px gave card recall 90.8, 92.8 and 94.1 %
#: (MODEL_CARD.md). The detector's cost does not grow with the frame (`vision.reading.letterbox`
#: reads any frame at up to a square's pixels); only the reader's crops gain.
CAMERA_SIZE = (1920, 1080)


def _open_camera(index: int, size: tuple[int, int]) -> Capture:
    capture = cv2.VideoCapture(index)
    capture.set(cv2.CAP_PROP_FRAME_WIDTH, size[0])
    capture.set(cv2.CAP_PROP_FRAME_HEIGHT, size[1])
    return cast(Capture, capture)


class CameraSource(_LiveSource):
    """A local camera by index (``/dev/videoN``, a USB webcam), asked for frames of `size`
    (`CAMERA_SIZE`); reopens it when unplugged."""

    def __init__(
        self,
        index: int = 0,
        *,
        size: tuple[int, int] = CAMERA_SIZE,
        backoff: Backoff = Backoff(),
        stall_after: float = 3.0,
        opener: Callable[[], Capture] | None = None,
    ) -> None:
        self.index = index
        self._opener = opener or partial(_open_camera, index, size)
        self._capture: Capture | None = None
        super().__init__(f"camera {index}", backoff, stall_after)

    def _connect(self) -> None:
        capture = self._opener()
        if not capture.isOpened():
            capture.release()
            raise SourceError(f"camera {self.index} cannot be opened")
        self._capture = capture

    def _grab(self) -> Image:
        assert self._capture is not None
        ok, image = self._capture.read()
        if not ok or image is None:
            raise SourceError(f"camera {self.index} gave no frame")
        return np.asarray(image, dtype=np.uint8)

    def _disconnect(self) -> None:
        if self._capture is not None:
            self._capture.release()
            self._capture = None


class MjpegStreamSource(_LiveSource):
    """An HTTP camera: an MJPEG stream (``multipart/x-mixed-replace``, e.g. a phone IP-webcam
    app's ``/video``) or a snapshot URL answering one JPEG per request (``/shot.jpg``).

    Frames are cut out of the byte stream at the JPEG start/end markers, which works whatever
    the multipart boundary or headers; every socket read has ``timeout``, so a silent stream
    turns into a reconnect instead of a hang.
    """

    #: A stream that sends this many bytes without a complete JPEG is not an MJPEG stream.
    max_frame_bytes = 16 * 1024 * 1024

    def __init__(
        self,
        url: str,
        *,
        timeout: float = 5.0,
        backoff: Backoff = Backoff(),
        stall_after: float = 3.0,
        snapshot_interval: float = 0.1,
    ) -> None:
        if not url.startswith(("http://", "https://")):
            raise SourceOpenError(f"{url!r} is not an http(s) URL")
        self.url = url
        self._timeout = timeout
        self._snapshot_interval = snapshot_interval
        self._response: http.client.HTTPResponse | None = None
        self._buffer = bytearray()
        self._snapshot: Image | None = None
        super().__init__(url, backoff, stall_after)

    def _connect(self) -> None:
        self._buffer.clear()
        self._snapshot = None
        response = cast(
            http.client.HTTPResponse, urllib.request.urlopen(self.url, timeout=self._timeout)
        )
        kind = response.headers.get_content_type()
        if kind.startswith("image/"):
            self._snapshot = decode_image(response.read())
            response.close()
        elif not kind.startswith("multipart/"):
            response.close()
            raise SourceError(f"{self.url} sends {kind}, not an MJPEG stream or an image")
        else:
            self._response = response

    def _grab(self) -> Image:
        if self._snapshot is not None:
            image, self._snapshot = self._snapshot, None
            return image
        if self._response is None:  # snapshot mode: ask again
            self._stop.wait(self._snapshot_interval)
            self._connect()
            return self._grab()
        while True:
            start = self._buffer.find(b"\xff\xd8")
            end = self._buffer.find(b"\xff\xd9", start + 2) if start >= 0 else -1
            if end >= 0:
                data = bytes(self._buffer[start : end + 2])
                del self._buffer[: end + 2]
                try:
                    return decode_image(data)
                except BadImageError:
                    continue  # a corrupt frame in a healthy stream: wait for the next one
            if start > 0:
                del self._buffer[:start]
            if len(self._buffer) > self.max_frame_bytes:
                raise SourceError(f"{self.url}: {len(self._buffer)} bytes without a JPEG frame")
            chunk = self._response.read1(65536)
            if not chunk:
                raise SourceError(f"{self.url}: stream ended")
            self._buffer += chunk

    def _disconnect(self) -> None:
        if self._response is not None:
            self._response.close()
            self._response = None


class PushSource(FrameSource):
    """Frames the web page uploads (``push(jpeg_bytes)``), e.g. from the phone's browser camera.

    ``push`` decodes at once, so the uploader learns about bad bytes (`BadImageError`) in its
    own request; only the newest ``keep`` frames wait to be read.
    """

    def __init__(self, *, keep: int = 1, stall_after: float = 3.0) -> None:
        self._slot = _LatestFrame(SourceStatus(SourceState.CONNECTING, "waiting for frames"), keep)
        self._stall_after = stall_after
        self._pushed = False

    def push(self, data: bytes) -> None:
        if self._slot.status.state is SourceState.CLOSED:
            raise SourceError("push to a closed source")
        self._slot.publish(decode_image(data))
        self._pushed = True

    @property
    def status(self) -> SourceStatus:
        status = self._slot.status
        silent = time.monotonic() - self._slot.last_frame_at
        if self._pushed and status.state is SourceState.LIVE and silent > self._stall_after:
            return replace(status, state=SourceState.STALLED, detail=f"no frame for {silent:.1f} s")
        return status

    def read(self, timeout: float = 1.0) -> Frame | None:
        return self._slot.take(timeout)

    def close(self) -> None:
        self._slot.set(state=SourceState.CLOSED, detail="closed")


def open_source(spec: str | int, **options: object) -> FrameSource:
    """A source from a command-line spec: a camera index, an http(s) URL, an image file or
    folder, or a video file. ``options`` go to the source's constructor."""
    if isinstance(spec, int) or spec.isdigit():
        return CameraSource(int(spec), **options)  # type: ignore[arg-type]
    if spec.startswith(("http://", "https://")):
        return MjpegStreamSource(spec, **options)  # type: ignore[arg-type]
    path = Path(spec)
    if path.is_dir() or path.suffix.lower() in IMAGE_SUFFIXES:
        return ImageSource(path, **options)  # type: ignore[arg-type]
    return VideoFileSource(path)
