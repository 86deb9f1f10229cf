"""Frame sources: files, folders, video, pushed JPEGs, an HTTP MJPEG stream, and failures."""

from __future__ import annotations

import queue
import socket
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import cv2
import numpy as np
import numpy.typing as npt
import pytest

from tests.helpers import png_claiming
from vision.errors import BadImageError, SourceError, SourceOpenError
from vision.table.sources import (
    MAX_IMAGE_PIXELS,
    Backoff,
    CameraSource,
    Frame,
    ImageSource,
    MjpegStreamSource,
    PushSource,
    SourceState,
    SourceStatus,
    VideoFileSource,
    decode_image,
    open_source,
)

FAST = Backoff(initial=0.01, factor=2.0, maximum=0.05)


def picture(shade: int, size: tuple[int, int] = (64, 48)) -> npt.NDArray[np.uint8]:
    """A flat image whose grey level identifies it after lossy compression."""
    return np.full((size[1], size[0], 3), shade, np.uint8)


def jpeg(shade: int) -> bytes:
    ok, data = cv2.imencode(".jpg", picture(shade))
    assert ok
    return data.tobytes()


def shade_of(image: npt.NDArray[np.uint8]) -> int:
    return round(float(image.mean()))


def wait_status(
    source: CameraSource | MjpegStreamSource, done: Callable[[SourceStatus], bool]
) -> None:
    """Wait on the source's status changes (no polling) until ``done(status)``; the bound
    only keeps a broken source from hanging the test."""
    assert source.wait_for_status(done, 10.0), f"the source never got there: {source.status}"


def test_image_file_and_folder(tmp_path: Path) -> None:
    for name, shade in [("b.png", 100), ("a.png", 50), ("c.jpg", 150)]:
        cv2.imwrite(str(tmp_path / name), picture(shade))
    (tmp_path / "notes.txt").write_text("not an image")
    with ImageSource(tmp_path / "a.png") as one:
        frames = list(one)
    assert [shade_of(f.image) for f in frames] == [50]
    assert frames[0].size == (64, 48)
    assert one.status.state is SourceState.CLOSED
    folder = ImageSource(tmp_path, fps=5)
    frames = list(folder)
    assert [shade_of(f.image) for f in frames] == [50, 100, 150]
    assert [f.timestamp for f in frames] == [0.0, 0.2, 0.4]
    assert folder.status.state is SourceState.ENDED and folder.status.frames == 3
    assert folder.read(0) is None


def test_folder_skips_unreadable_image_and_says_so(tmp_path: Path) -> None:
    cv2.imwrite(str(tmp_path / "a.png"), picture(50))
    (tmp_path / "b.jpg").write_bytes(b"\xff\xd8 truncated")
    cv2.imwrite(str(tmp_path / "c.png"), picture(150))
    source = ImageSource(tmp_path)
    assert [shade_of(f.image) for f in source] == [50, 150]
    assert "b.jpg" in source.status.detail
    assert isinstance(source.status.error, BadImageError)


def test_missing_paths_raise_open_errors(tmp_path: Path) -> None:
    with pytest.raises(SourceOpenError, match=r"nothing\.png"):
        ImageSource(tmp_path / "nothing.png")
    with pytest.raises(SourceOpenError, match="holds no images"):
        ImageSource(tmp_path)
    with pytest.raises(SourceOpenError, match=r"gone\.avi"):
        VideoFileSource(tmp_path / "gone.avi")
    (tmp_path / "fake.avi").write_bytes(b"not a video")
    with pytest.raises(SourceOpenError, match=r"fake\.avi"):
        VideoFileSource(tmp_path / "fake.avi")
    (tmp_path / "bad.jpg").write_bytes(b"nope")
    with pytest.raises(BadImageError, match=r"bad\.jpg"):
        ImageSource(tmp_path / "bad.jpg").read()


def test_video_file(tmp_path: Path) -> None:
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 10.0, (64, 48))
    assert writer.isOpened()
    for shade in (40, 80, 120, 160, 200):
        writer.write(picture(shade))
    writer.release()
    source = open_source(str(path))
    assert isinstance(source, VideoFileSource)
    frames = list(source)
    assert [shade_of(f.image) for f in frames] == pytest.approx([40, 80, 120, 160, 200], abs=3)
    assert [f.timestamp for f in frames] == pytest.approx([0.0, 0.1, 0.2, 0.3, 0.4])
    assert source.status.state is SourceState.ENDED


def test_decode_rejects_bad_bytes() -> None:
    assert decode_image(jpeg(90)).shape == (48, 64, 3)
    for bad in (b"", b"hello", jpeg(90)[:20]):
        with pytest.raises(BadImageError):
            decode_image(bad)


@pytest.mark.parametrize(("width", "height"), [(13_000, 12_000), (20_000, 20_000)])
def test_an_image_claiming_too_many_pixels_is_refused_before_decoding(
    width: int, height: int
) -> None:
    """156 megapixels (over `MAX_IMAGE_PIXELS`) and 400 (over PIL's own limit too) are refused
    by their headers; 144 megapixels pass the check, and the decoder finds no pixel data."""
    with pytest.raises(BadImageError, match=f"more than {MAX_IMAGE_PIXELS // 10**6} megapixels"):
        decode_image(png_claiming(width, height))
    with pytest.raises(BadImageError, match="not a decodable image"):
        decode_image(png_claiming(12_000, 12_000))


def test_the_pixel_check_does_not_go_through_pil_image_open(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Ultralytics, once imported (a deck tune imports it), replaces `PIL.Image.open` with one
    that tries to install a plugin for bytes it cannot identify; the check must not call it."""
    import PIL.Image

    monkeypatch.setattr(PIL.Image, "open", lambda *args, **kwargs: pytest.fail("Image.open"))
    assert decode_image(jpeg(90)).shape == (48, 64, 3)
    with pytest.raises(BadImageError, match="megapixels"):
        decode_image(png_claiming(20_000, 20_000))
    with pytest.raises(BadImageError, match="not a decodable image"):
        decode_image(b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + bytes(32) + b"\xff\xd9")


def test_push_source_keeps_newest_frame_and_rejects_bad_bytes() -> None:
    source = PushSource()
    assert source.status.state is SourceState.CONNECTING
    assert source.read(0.01) is None
    with pytest.raises(BadImageError, match="not a decodable image"):
        source.push(b"\x00\x01garbage")
    source.push(jpeg(60))
    source.push(jpeg(120))  # replaces the unread 60
    frame = source.read(0.1)
    assert frame is not None and shade_of(frame.image) == pytest.approx(120, abs=2)
    assert source.status.dropped == 1
    assert source.status.state in (SourceState.LIVE,)
    threading.Timer(0.05, source.push, [jpeg(200)]).start()  # a reader waits for a pusher
    frame = source.read(2.0)
    assert frame is not None and shade_of(frame.image) == pytest.approx(200, abs=2)
    source.close()
    assert list(source) == []
    with pytest.raises(SourceError):
        source.push(jpeg(60))


class FakeCamera:
    """A capture that delivers ``frames`` pictures then fails, as an unplugged camera does;
    each opening is counted in ``opened`` and notifies ``changed``."""

    opened = 0
    changed: ClassVar[threading.Condition] = threading.Condition()

    def __init__(self, frames: int, openable: bool = True) -> None:
        self.left, self.openable = frames, openable
        with FakeCamera.changed:
            FakeCamera.opened += 1
            FakeCamera.changed.notify_all()

    def isOpened(self) -> bool:
        return self.openable

    def read(self) -> tuple[bool, npt.NDArray[np.uint8] | None]:
        if self.left <= 0:
            return False, None
        self.left -= 1
        return True, picture(100)

    def release(self) -> None:
        pass


def test_camera_unplugged_reconnects() -> None:
    FakeCamera.opened = 0
    source = CameraSource(3, backoff=FAST, opener=lambda: FakeCamera(frames=2))
    try:
        with FakeCamera.changed:  # opened, unplugged, reopened twice
            reopened = FakeCamera.changed.wait_for(lambda: FakeCamera.opened >= 3, 10.0)
        assert reopened, f"opened {FakeCamera.opened} times, status {source.status}"
        assert source.status.reconnects >= 2
        frame = source.read(2.0)
        assert frame is not None and frame.image.shape == (48, 64, 3)
        assert "camera 3 gave no frame" in str(source.status.error)
    finally:
        source.close()
    assert source.status.state is SourceState.CLOSED
    assert source.read(0.01) is None


def test_camera_that_never_opens_fails_after_max_attempts() -> None:
    backoff = Backoff(initial=0.01, maximum=0.01, max_attempts=3)
    source = CameraSource(7, backoff=backoff, opener=lambda: FakeCamera(0, openable=False))
    wait_status(source, lambda status: status.state is SourceState.FAILED)
    assert "camera 7 cannot be opened" in source.status.detail
    assert list(source) == []  # iteration ends instead of waiting forever
    source.close()


class RecordingCapture:
    """cv2.VideoCapture's stand-in: remembers the device and the properties it was set."""

    made: ClassVar[list[RecordingCapture]] = []

    def __init__(self, index: int) -> None:
        self.index, self.props = index, dict[int, float]()
        RecordingCapture.made.append(self)

    def set(self, prop: int, value: float) -> bool:
        self.props[prop] = value
        return True

    def isOpened(self) -> bool:
        return False

    def release(self) -> None:
        pass


@pytest.mark.parametrize(("size", "expected"), [(None, (1920, 1080)), ((1280, 720), (1280, 720))])
def test_a_camera_is_asked_for_its_frame_size(
    monkeypatch: pytest.MonkeyPatch, size: tuple[int, int] | None, expected: tuple[int, int]
) -> None:
    """Opened without asking, a webcam gives 640 × 480: too few pixels for small indices."""
    RecordingCapture.made = []
    monkeypatch.setattr(cv2, "VideoCapture", RecordingCapture)
    backoff = Backoff(initial=0.01, maximum=0.01, max_attempts=1)
    options = {} if size is None else {"size": size}
    source = CameraSource(2, backoff=backoff, **options)
    wait_status(source, lambda status: status.state is SourceState.FAILED)
    source.close()
    capture = RecordingCapture.made[0]
    assert capture.index == 2
    assert capture.props == {
        cv2.CAP_PROP_FRAME_WIDTH: expected[0],
        cv2.CAP_PROP_FRAME_HEIGHT: expected[1],
    }


class MjpegHandler(BaseHTTPRequestHandler):
    """Serves ``/video`` (MJPEG: on the first request 3 frames, then the connection drops when
    the test sets ``drop``; on later ones a frame, then the connection is held open until
    ``release``), ``/shot.jpg`` (one JPEG) and ``/text`` (not a camera)."""

    requests = 0
    drop: ClassVar[threading.Event] = threading.Event()
    release: ClassVar[threading.Event] = threading.Event()

    def do_GET(self) -> None:
        if self.path == "/shot.jpg":
            self.send_response(200)
            self.send_header("Content-Type", "image/jpeg")
            self.end_headers()
            self.wfile.write(jpeg(30))
            return
        if self.path == "/text":
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.end_headers()
            self.wfile.write(b"<html></html>")
            return
        MjpegHandler.requests += 1
        first = MjpegHandler.requests == 1
        self.send_response(200)
        self.send_header("Content-Type", "multipart/x-mixed-replace; boundary=frame")
        self.end_headers()
        frames = [jpeg(70), b"\xff\xd8corrupt\xff\xd9", jpeg(70)] if first else [jpeg(180)]
        try:
            for data in frames:
                self.wfile.write(b"--frame\r\nContent-Type: image/jpeg\r\n")
                self.wfile.write(b"Content-Length: %d\r\n\r\n" % len(data) + data + b"\r\n")
                self.wfile.flush()
            (MjpegHandler.drop if first else MjpegHandler.release).wait(30.0)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[str]:
    MjpegHandler.requests = 0
    MjpegHandler.drop, MjpegHandler.release = threading.Event(), threading.Event()
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), MjpegHandler)
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    MjpegHandler.drop.set()
    MjpegHandler.release.set()
    httpd.shutdown()
    httpd.server_close()


def test_mjpeg_stream_drop_is_reported_and_reconnected(server: str) -> None:
    source = open_source(server + "/video", backoff=FAST, timeout=30.0)
    assert isinstance(source, MjpegStreamSource)
    try:
        first = source.read(10.0)
        assert first is not None, source.status
        shades = [round(shade_of(first.image), -1)]
        assert shades == [70] and source.status.reconnects == 0
        MjpegHandler.drop.set()  # the stream drops after its 3 frames (one corrupt)
        while shades[-1] != 180:  # the other 70, maybe, then the reconnected stream's 180
            assert len(shades) < 3, f"frames {shades}"
            frame = source.read(10.0)
            assert frame is not None, f"no frame after {shades}: {source.status}"
            shades.append(round(shade_of(frame.image), -1))
        assert set(shades[:-1]) == {70}  # frames before and after the drop
        assert source.status.reconnects == 1  # the new stream is held open: no more drops
        assert "stream ended" in str(source.status.error)
        assert source.status.state in (SourceState.LIVE, SourceState.STALLED)
    finally:
        MjpegHandler.release.set()  # end the held stream, or close() waits on its read
        source.close()


def test_snapshot_url_and_non_camera_url(server: str) -> None:
    source = MjpegStreamSource(server + "/shot.jpg", backoff=FAST, snapshot_interval=0.01)
    try:
        frames = [source.read(2.0) for _ in range(2)]
        assert all(f is not None and shade_of(f.image) == pytest.approx(30, abs=2) for f in frames)
    finally:
        source.close()
    bad = MjpegStreamSource(server + "/text", backoff=Backoff(0.01, max_attempts=2))
    wait_status(bad, lambda status: status.state is SourceState.FAILED)
    assert "text/html" in bad.status.detail
    bad.close()
    with pytest.raises(SourceOpenError):
        MjpegStreamSource("ftp://example/video")


def test_unreachable_stream_reconnects_without_blocking_reads() -> None:
    """A read returns while the device thread still waits for the stream's answer (its socket
    timeout is far off); once nobody listens, the source keeps reconnecting."""
    listener = socket.create_server(("127.0.0.1", 0))  # takes the connection, never answers
    port = listener.getsockname()[1]
    source = MjpegStreamSource(f"http://127.0.0.1:{port}/video", backoff=FAST, timeout=60.0)
    try:
        reads: queue.Queue[Frame | None] = queue.Queue()
        threading.Thread(target=lambda: reads.put(source.read(0.2)), daemon=True).start()
        try:
            frame = reads.get(timeout=30.0)
        except queue.Empty:
            pytest.fail("a read waited for the stream to answer")
        assert frame is None
        waiting = source.status
        assert waiting.state is SourceState.CONNECTING, waiting  # the answer is still due
        listener.close()  # the connection is reset, and the port refuses the next ones
        wait_status(source, lambda status: status.reconnects >= 2)
        assert source.status.state is SourceState.RECONNECTING
        assert isinstance(source.status.error, SourceError)
    finally:
        listener.close()
        source.close()
