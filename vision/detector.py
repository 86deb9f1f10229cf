"""Two-stage card reading at run time: find corner indices, then read each one.

Stage 1 is a one-class YOLO detector run on the whole (letterboxed) frame; stage 2 is a 52-way
YOLO classifier run on a square crop of each found index, cut from the full-resolution frame so
small glyphs keep their pixels. Both are ONNX files from `models/`, run by OpenVINO when it is
installed (faster and steadier here) or ONNX Runtime. No torch, no ultralytics.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import cv2
import numpy as np
import numpy.typing as npt

from vision.calibration import ScoreCalibration
from vision.cards_from_detections import (
    FrameCards,
    PairingConfig,
    SeenCard,
    cards_from_detections,
)
from vision.crops import READ_MARGIN, crop_index
from vision.detections import Detections, suppress_overlaps
from vision.errors import VisionError
from vision.reader_classes import reader_columns
from vision.sources import decode_image

MODELS_DIR = Path(__file__).resolve().parent.parent / "models"
DETECTOR_FILE = "corner-detector.onnx"
READER_FILE = "corner-reader.onnx"
#: The side frames are letterboxed to for a detector exported to take any size. Stage 1
#: trains on 320-px windows cut from 640-px scenes, yet reads whole frames letterboxed to 800
#: better (small indices keep more pixels): real held-out card recall 91.5 % against 88.6 % at
#: 640, held-out designs 78.3 % against 76.6 %, for about 1.6 times the detector's time
#: (2026-12-01). 640 is the faster choice (`CardReader(detector_size=640)`).
DEFAULT_DETECTOR_SIDE = 800

Image = npt.NDArray[np.uint8]
Forward = Callable[[npt.NDArray[np.float32]], npt.NDArray[np.float32]]


class ModelMissingError(VisionError):
    """The card models are not installed where they were looked for."""


class ModelSizeError(VisionError, ValueError):
    """A detector input side off YOLO's stride, or not the one the detector was exported for."""


@dataclass
class StageTimes:
    """Milliseconds spent in each stage of the last frame (for benchmarks and the page)."""

    preprocess: float = 0.0
    detect: float = 0.0
    crops: float = 0.0
    read: float = 0.0
    postprocess: float = 0.0

    def total(self) -> float:
        return self.preprocess + self.detect + self.crops + self.read + self.postprocess


class LoadedModel(NamedTuple):
    """A compiled ONNX model: its forward pass, the runtime running it, and the side of the
    square input it was exported for (None where it takes any size)."""

    run: Forward
    runtime: str
    input_side: int | None


def checked_side(side: int) -> int:
    """A detector input side: YOLO's strides need a multiple of 32."""
    if side < 64 or side % 32:
        raise ModelSizeError(f"detector size must be a multiple of 32 from 64, got {side}")
    return side


def load_model(path: Path, backend: str, side: int | None = None) -> LoadedModel:
    """Compile an ONNX file with OpenVINO (preferred) or ONNX Runtime.

    `side`: the image side a model exported for any size is run at (OpenVINO compiles it for
    that one shape, as fast as a fixed export); a model with a fixed side keeps its own.
    """
    if backend in ("auto", "openvino"):
        try:
            import openvino as ov

            core = ov.Core()
            network = core.read_model(str(path))
            if side is not None and network.input(0).get_partial_shape().is_dynamic:
                network.reshape([1, 3, side, side])
            compiled = core.compile_model(network, "CPU")
            output = compiled.output(0)
            # Calling a compiled model reuses one infer request: the server camera and the
            # photo endpoint share this reader from two threads, so calls take turns.
            turn = threading.Lock()

            def run_ov(batch: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
                with turn:
                    return np.asarray(compiled(batch)[output], dtype=np.float32)

            shape = compiled.input(0).get_partial_shape()
            dims = [d.get_length() if d.is_static else None for d in shape]
            return LoadedModel(run_ov, "openvino", _square_side(dims))
        except ImportError:
            if backend == "openvino":
                raise
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.log_severity_level = 3
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    name = session.get_inputs()[0].name

    def run_ort(batch: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        return np.asarray(session.run(None, {name: batch})[0], dtype=np.float32)

    dims = [d if isinstance(d, int) else None for d in session.get_inputs()[0].shape]
    return LoadedModel(run_ort, "onnxruntime", _square_side(dims) or side)


def _square_side(dims: list[int | None]) -> int | None:
    """The side of an image input ``N × C × side × side`` fixed at export, else None."""
    height, width = dims[-2:]
    return height if height is not None and height == width else None


@dataclass
class CardReader:
    """Reads the corner indices in a frame; `read(frame)` returns one `Detections`.

    `reader_path` swaps in another reading stage (a deck profile's fine-tuned reader).
    `detector_size`: the side frames are letterboxed to for stage 1; None: the detector's own
    where it was exported for one size, else `DEFAULT_DETECTOR_SIDE`.
    """

    models_dir: Path = MODELS_DIR
    backend: str = "auto"
    reader_size: int = 64
    #: Boxes the detector scores below this are not read at all.
    min_score: float = 0.1
    #: Quarter turns each index crop is read at (1 = as cut).
    read_turns: int = 4
    last_times: StageTimes = field(default_factory=StageTimes)
    runtime: str = field(init=False, default="")
    reader_path: Path | None = None
    detector_size: int | None = None
    calibration: ScoreCalibration | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        detector = self.models_dir / DETECTOR_FILE
        reader = self.reader_path or self.models_dir / READER_FILE
        missing = [str(p) for p in (detector, reader) if not p.exists()]
        if missing:
            raise ModelMissingError(f"card model files not found: {', '.join(missing)}")
        wanted = None if self.detector_size is None else checked_side(self.detector_size)
        self._detect, self.runtime, side = load_model(
            detector, self.backend, wanted or DEFAULT_DETECTOR_SIDE
        )
        if wanted is not None and side != wanted:
            raise ModelSizeError(f"{detector} reads {side}-px frames only, not {wanted}")
        self.detector_size = side
        self._read = load_model(reader, self.backend).run
        self._columns = reader_columns(reader)
        self.calibration = ScoreCalibration.load(self.models_dir)

    @property
    def input_side(self) -> int:
        """The side frames are letterboxed to for stage 1."""
        return self.detector_size or DEFAULT_DETECTOR_SIDE

    def read(self, frame: Image) -> Detections:
        """Every corner index found, its class and the calibrated chance its reading is right."""
        boxes, box_scores, probabilities = self.corners(frame)
        start = time.perf_counter()
        confidence = probabilities.max(axis=1)
        scores = (
            self.calibration.score(box_scores, confidence)
            if self.calibration
            else np.clip(box_scores * confidence, 0, 1)
        )
        detections = Detections(boxes, scores, probabilities.argmax(axis=1))
        self.last_times.postprocess = _ms_since(start)
        return detections

    def cards(self, frame: Image) -> FrameCards:
        """The physical cards in a frame, at this model's card threshold."""
        return cards_from_detections(self.read(frame), self.pairing)

    @property
    def pairing(self) -> PairingConfig:
        """Pairing settings with the card threshold the models were calibrated for."""
        if self.calibration is None:
            return PairingConfig()
        return PairingConfig(min_score=self.calibration.card_threshold)

    def corners(
        self, frame: Image
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        """Both stages' raw outputs: boxes (frame pixels), box scores and N × 52 probabilities."""
        times = StageTimes()
        boxes, found = self._find(frame, self.min_score, times)
        start = time.perf_counter()
        crops = (
            np.stack([crop_index(frame, box, self.reader_size) for box in boxes])
            if len(boxes)
            else np.zeros((0, self.reader_size, self.reader_size, 3), np.uint8)
        )
        times.crops = _ms_since(start)

        start = time.perf_counter()
        probabilities = self.classify(crops)
        times.read = _ms_since(start)
        self.last_times = times
        return boxes, found, probabilities

    def index_boxes(self, frame: Image, min_score: float = 0.25) -> npt.NDArray[np.float32]:
        """Stage 1 alone: each corner index's box once (for enrolment, which groups indices by
        geometry before any reading; a glyph boxed twice would look like two cards)."""
        boxes, scores = self._find(frame, min_score, StageTimes())
        return boxes[suppress_overlaps(boxes, scores)]

    def _find(
        self, frame: Image, min_score: float, times: StageTimes
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        """The detector's boxes (frame pixels) scoring at least `min_score`, and their scores."""
        boxes, scores, _ = find_boxes(self._detect, frame, self.input_side, min_score, times)
        return boxes, scores

    def read_bytes(self, data: bytes) -> Detections:
        return self.read(decode_image(data))

    def classify(self, crops: Image) -> npt.NDArray[np.float32]:
        """Class probabilities (card-class order) of square BGR index crops, N × 52.

        Each crop is read at `read_turns` quarter turns in one batch and the readings are
        combined (geometric mean): an index seen from across the table reads the same, and
        measured on the held-out real crops four turns read 76% where one read 69%.

        An index printed light on a dark face (`light_on_dark`) is read as its negative too, and
        the surer reading kept: the reader learnt dark ink on light card. On the black-and-gold
        deck of the real held-out photos card recall went from 70.1 % to 84.3 %; the other
        decks, real and synthetic, read as before.
        """
        if not len(crops):
            return np.zeros((0, 52), np.float32)
        light = np.flatnonzero(light_on_dark(crops))
        read = self._read_turned(np.concatenate([crops, 255 - crops[light]]))
        plain, negative = read[: len(crops)], read[len(crops) :]
        surer = negative.max(axis=1) > plain[light].max(axis=1)
        plain[light[surer]] = negative[surer]
        return plain

    def _read_turned(self, crops: Image) -> npt.NDArray[np.float32]:
        turned = np.concatenate([np.rot90(crops, k, axes=(1, 2)) for k in range(self.read_turns)])
        rgb = turned[..., ::-1].transpose(0, 3, 1, 2).astype(np.float32) / 255.0
        out = self._read(np.ascontiguousarray(rgb))  # the reader takes any batch size
        logs = np.log(np.clip(out[:, self._columns], 1e-7, 1.0)).reshape(
            self.read_turns, len(crops), -1
        )
        mean = logs.mean(axis=0)
        probabilities = np.exp(mean - mean.max(axis=1, keepdims=True))
        return np.ascontiguousarray(
            probabilities / probabilities.sum(axis=1, keepdims=True), np.float32
        )


def light_on_dark(crops: Image) -> npt.NDArray[np.bool_]:
    """Which square index crops show light ink on a dark face: in the middle of the crop (the
    index, without the margin around it) the brightest tenth of the pixels lies further from
    the median than the darkest tenth. Read in grey, so red and black ink on white both count
    as dark."""
    side = crops.shape[1]
    inset = round(side * READ_MARGIN)
    grey = crops[:, inset : side - inset, inset : side - inset].mean(axis=3)
    low, middle, high = np.percentile(grey.reshape(len(crops), -1), [10, 50, 90], axis=1)
    return np.asarray(high - middle > middle - low)


def find_boxes(
    detect: Forward, frame: Image, size: int, min_score: float, times: StageTimes
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32], npt.NDArray[np.int64]]:
    """A YOLO detector's boxes (frame pixels) scoring at least `min_score`, their scores and
    classes; the letterbox and the forward pass are timed into `times`."""
    start = time.perf_counter()
    batch, scale, pad = letterbox(frame, size)
    times.preprocess = _ms_since(start)

    start = time.perf_counter()
    raw = detect(batch)[0]  # 300 × 6: x1 y1 x2 y2 score class, NMS-free
    times.detect = _ms_since(start)

    raw = raw[raw[:, 4] >= min_score]
    boxes = (raw[:, :4] - np.array([pad[0], pad[1], pad[0], pad[1]])) / scale
    height, width = frame.shape[:2]
    boxes = np.clip(boxes, 0, [width, height, width, height]).astype(np.float32)
    sizeable = (boxes[:, 2] - boxes[:, 0] >= 2) & (boxes[:, 3] - boxes[:, 1] >= 2)
    return (
        boxes[sizeable],
        raw[sizeable, 4].astype(np.float32),
        raw[sizeable, 5].astype(np.int64),
    )


def letterbox(frame: Image, size: int) -> tuple[npt.NDArray[np.float32], float, tuple[int, int]]:
    """Scale the frame into a `size` square keeping its aspect, padded grey (YOLO's input)."""
    height, width = frame.shape[:2]
    scale = min(size / width, size / height)
    new_w, new_h = round(width * scale), round(height * scale)
    resized = cv2.resize(frame, (new_w, new_h), interpolation=cv2.INTER_AREA)
    canvas = np.full((size, size, 3), 114, dtype=np.uint8)
    left, top = (size - new_w) // 2, (size - new_h) // 2
    canvas[top : top + new_h, left : left + new_w] = resized
    batch = canvas[..., ::-1].transpose(2, 0, 1)[None].astype(np.float32) / 255.0
    return np.ascontiguousarray(batch), scale, (left, top)


def _ms_since(start: float) -> float:
    return (time.perf_counter() - start) * 1000


def card_json(seen: SeenCard) -> dict[str, Any]:
    """One physical card: `box` covers every index it was seen by (both corners: nearly the
    whole card); `corners` holds each index's own box in this frame, what a correction of a
    misread card cuts out (none for a card a smoothed table kept through a gap)."""
    corners = seen.detections.boxes.tolist() if seen.in_frame else []
    return {
        "card": str(seen.card),
        "confidence": round(seen.confidence, 3),
        "box": [round(v, 1) for v in seen.box],
        "corners": [[round(v, 1) for v in box] for box in corners],
        "in_frame": seen.in_frame,
    }


def frame_json(image: str, seen: FrameCards) -> dict[str, Any]:
    """The `cribcam detect --json` object: each physical card once, plus any conflicts."""
    return {
        "image": image,
        "cards": [card_json(card) for card in seen.cards],
        "conflicts": [
            {"card": str(c.card), "places": [[round(x, 1), round(y, 1)] for x, y in c.places],
             "reason": c.reason}
            for c in seen.conflicts
        ],
    }  # fmt: skip


class PhotoReader:
    """What the web app calls: image bytes in, one `cribcam detect --json` object out.

    The models load on first use, so starting the server stays quick.
    """

    def __init__(self, models_dir: Path = MODELS_DIR, detector_size: int | None = None) -> None:
        for name in (DETECTOR_FILE, READER_FILE):
            if not (models_dir / name).exists():
                raise ModelMissingError(f"card model file not found: {models_dir / name}")
        self.models_dir = models_dir
        self.detector_size = None if detector_size is None else checked_side(detector_size)
        #: The reading stage in use: a deck profile's reader, or None for the base one.
        self.reader_path: Path | None = None
        self._reader: CardReader | None = None
        self._loading = threading.Lock()

    def card_reader(self) -> CardReader:
        """The loaded frame reader (loaded on first use, and again after `use_reader`), shared
        with the server camera, which asks for it on every frame."""
        with self._loading:
            if self._reader is None:
                self._reader = CardReader(
                    self.models_dir, reader_path=self.reader_path, detector_size=self.detector_size
                )
            return self._reader

    def use_reader(self, reader_path: Path | None) -> None:
        """Read with another reading stage (a deck profile's; None: the base) from the next
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


def load_default_detector(detector_size: int | None = None) -> PhotoReader:
    """The shipped models' reader; `ModelMissingError` when they are not installed."""
    return PhotoReader(detector_size=detector_size)
