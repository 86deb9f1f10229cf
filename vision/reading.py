"""Two-stage card reading at run time: find corner indices, then read each one.

Stage 1 is a one-class YOLO detector run on the whole (letterboxed) frame, again closer where
a large frame's indices are small and again at half the side for indices larger than it learnt;
stage 2 is a YOLO classifier of the 52 cards and "not an index" run on a square crop of each
found index, cut from the full-resolution frame so small glyphs keep their pixels. Both are
ONNX files from `models/`, run by OpenVINO when it is installed (faster and steadier here) or
ONNX Runtime. No torch, no ultralytics.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, NamedTuple

import cv2
import numpy as np
import numpy.typing as npt

from vision.detection.calibration import ScoreCalibration
from vision.detection.crops import READ_MARGIN, crop_index
from vision.detection.detections import (
    CLASS_NAMES,
    CORNER_UNKNOWN,
    Detections,
    at_frame_edge,
    box_sizes,
    suppress_overlaps,
)
from vision.detection.orientation import ORIENTATION_FILE, OrientationReader
from vision.detection.reader_classes import reader_info
from vision.errors import VisionError
from vision.table.cards import (
    FrameCards,
    PairingConfig,
    SeenCard,
    cards_with_second_choice,
)
from vision.table.sources import decode_image

MODELS_DIR = Path(__file__).resolve().parent.parent / "models"
DETECTOR_FILE = "corner-detector.onnx"
READER_FILE = "corner-reader.onnx"
#: A second reader for small indices (`cribtrain.fit.small_index`), optional: where `models/` has
#: one,
#: boxes under `SMALL_READER_PX` (longer side, frame pixels) are read by it as well, on a crop
#: with the card around the index (its own margin), and the two readings combined.
SMALL_READER_FILE = "corner-reader-small.onnx"
#: A detector exported to take any size reads each frame at up to this square's pixels (a
#: square photo at this side, a 16:9 frame at 1024 × 576: `input_shape`). Stage 1
#: trains on 320-px windows cut from 640-px scenes, yet reads whole frames letterboxed to 800
#: better (small indices keep more pixels): real held-out card recall 91.5 % against 88.6 % at
#: 640, held-out designs 78.3 % against 76.6 %, for about 1.6 times the detector's time
#: (2026-12-01). 640 is the faster choice (`CardReader(detector_size=640)`).
DEFAULT_DETECTOR_SIDE = 800
#: YOLO's coarsest stride: a detector input's sides are multiples of it.
STRIDE = 32
#: The largest side asked of stage 1: a 4K camera frame's pixels (3840 x 2160 is 2880²) fit.
MAX_DETECTOR_SIDE = 4096
#: Image sizes an OpenVINO model keeps compiled (a camera gives one; photos a few).
COMPILED_SIZES = 4
#: A frame whose cards' median index is smaller (px) reads markedly worse: on the held-out
#: designs card recall was 51 % under 16 px and 84 % at 16-24, against 95 % at 24-32 and 98 %
#: at 32-48 (MODEL_CARD.md, "Index size and the camera's resolution"). The page then asks for
#: the camera closer or at a higher resolution.
SMALL_INDEX_PX = 24
#: A frame holding more pixels than stage 1 reads is looked at again, at up to this many times
#: the side (1152 for 800) and at most the frame's own pixels, where the indices read are small
#: in the detector's input: under `CLOSER_LOOK_INDEX_PX` (median). Both looks' readings are
#: pooled, a glyph boxed by both counted once. On 1280-px scenes of the training designs card
#: recall went from 94.4 to 96.9 % (precision 98.9 % -> 98.8 %), on 1280 x 720 frames (read
#: again at 960) from 92.0 to 94.0 % (99.1 % -> 98.9 %); a second look at every frame read more
#: at a lower precision, and on 1920 x 1080 frames only lost precision (MODEL_CARD.md, "A
#: closer look at large frames"). Under `CLOSER_LOOK_MIN_SCALE` times the side, no second look.
CLOSER_LOOK_SCALE = 1.44
CLOSER_LOOK_MIN_SCALE = 1.2
CLOSER_LOOK_INDEX_PX = 28
#: A frame whose indices read at least `FAR_LOOK_INDEX_PX` (median) in stage 1's input is read
#: again at this share of its side (384 for 800), where indices larger than stage 1 learnt
#: (close-up fans) come into its range; it boxes large pips too, which the reader's "not an
#: index" class (`vision.detection.reader_classes.NOT_AN_INDEX`) sets aside. With it and that
#: class, 1280
#: x 720 frames of the held-out designs read 96.0 -> 97.3 % of the cards in view; at frames of
#: smaller indices it only read wrong cards (MODEL_CARD.md, "Preview 6").
FAR_LOOK_SCALE = 0.5
FAR_LOOK_INDEX_PX = CLOSER_LOOK_INDEX_PX
#: Boxes under this (longer side, frame pixels) go to the small-index reader where there is one.
SMALL_READER_PX = 24.0
#: The small-index reader's weight where its reading and the main reader's are combined (0.7
#: read more small crops right but fewer held-out cards: MODEL_CARD.md, "Preview 7.1").
SMALL_READER_WEIGHT = 0.5
#: The base reader's weight where a deck's tuned reader reads (`CardReader.base_weight`): the
#: boxes the small-index reader leaves are read by both, the readings combined as the small-index
#: reader's are. Tuned, the real webcam table found 90.9 % of its cards alone and 92.7 % with the
#: base beside it (the base models: 92.7 %), the black-and-gold deck 84.3 and 86.6 % (87.3 %, 10
#: wrong cards; tuned 8 and 4), for 4-6 more wrong cards in 3,600-3,800 rendered ones
#: (MODEL_CARD.md, "The base reader beside a deck's reader").
DECK_BASE_WEIGHT = 0.5

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
    #: Which way each index faces (`OrientationReader`).
    orient: float = 0.0
    postprocess: float = 0.0

    def total(self) -> float:
        return (self.preprocess + self.detect + self.crops + self.read + self.orient
                + self.postprocess)  # fmt: skip


class IndexReader(NamedTuple):
    """A reading stage: its forward pass, the output columns of the card classes, then of
    "not an index" where it has one (`ReaderInfo.read_columns`), and the margin its crops are
    cut at."""

    run: Forward
    columns: npt.NDArray[np.int64]
    margin: float = READ_MARGIN

    @property
    def inset(self) -> float:
        """Where the index starts in its crop (share of the side), a little inside: the part
        `light_on_dark` looks at (0.15 at `READ_MARGIN`)."""
        return self.margin / (1 + 2 * self.margin) + 0.035


class LoadedModel(NamedTuple):
    """A compiled ONNX model: its forward pass, the runtime running it, and the side of the
    square input it was exported for (None where it takes any size)."""

    run: Forward
    runtime: str
    input_side: int | None


def checked_side(side: int) -> int:
    """A detector input side: YOLO's strides need a multiple of 32, and one past
    `MAX_DETECTOR_SIDE` would enlarge every frame into an input of gigabytes."""
    if not 64 <= side <= MAX_DETECTOR_SIDE or side % STRIDE:
        raise ModelSizeError(
            f"detector size must be a multiple of 32 from 64 to {MAX_DETECTOR_SIDE}, got {side}"
        )
    return side


def load_model(
    path: Path, backend: str, batch: int | None = None, *, exact: bool = False,
    threads: int | None = None,
) -> LoadedModel:  # fmt: skip
    """Compile an ONNX file with OpenVINO (preferred) or ONNX Runtime.

    A model exported for any image size takes any; OpenVINO compiles it once for each image
    size it meets (a fixed shape runs faster than a dynamic one: 125 against 181 ms for an
    800 × 480 frame), keeping the last few. `batch`: the batch size of every call, fixed in
    those compilations too (the detector: one frame); None leaves it free (the reader).

    On a CPU with bfloat16 units (Intel AMX) OpenVINO computes in bfloat16 unless told
    otherwise: 1.4-1.7× faster there, and measured to read the same cards (real held-out part
    96.6 % / 91.3 % against 96.6 % / 91.5 % in float32). `exact` keeps float32 everywhere,
    for comparing two networks' outputs to the third decimal. `threads`: the threads one call
    may use (None: the runtime's choice, every core); processes that read side by side take 1
    each, or each would start a thread per core and all would wait on one another.
    """
    if backend in ("auto", "openvino"):
        try:
            import openvino as ov

            core = ov.Core()
            config: dict[str, Any] = {"INFERENCE_PRECISION_HINT": "f32"} if exact else {}
            if threads is not None:
                config["INFERENCE_NUM_THREADS"] = threads
            network = core.read_model(str(path))
            shape = network.input(0).get_partial_shape()
            dims = [d.get_length() if d.is_static else None for d in shape]
            any_size = None in dims[-2:]
            compiled: OrderedDict[tuple[int, ...], Any] = OrderedDict()
            # Calling a compiled model reuses one infer request: the server camera and the
            # photo endpoint share this reader from two threads, so calls take turns.
            turn = threading.Lock()

            def compiled_for(image: tuple[int, ...]) -> Any:
                if image not in compiled:
                    if any_size:
                        network.reshape([batch or -1, dims[1] or 3, *image])
                    compiled[image] = core.compile_model(network, "CPU", config)
                    if len(compiled) > COMPILED_SIZES:
                        compiled.popitem(last=False)
                compiled.move_to_end(image)
                return compiled[image]

            def run_ov(inputs: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
                with turn:
                    model = compiled_for(inputs.shape[-2:] if any_size else ())
                    return np.asarray(model(inputs)[model.output(0)], dtype=np.float32)

            return LoadedModel(run_ov, "openvino", _square_side(dims))
        except ImportError:
            if backend == "openvino":
                raise
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.log_severity_level = 3
    if threads is not None:
        options.intra_op_num_threads = threads
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    name = session.get_inputs()[0].name

    def run_ort(inputs: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        return np.asarray(session.run(None, {name: inputs})[0], dtype=np.float32)

    dims = [d if isinstance(d, int) else None for d in session.get_inputs()[0].shape]
    return LoadedModel(run_ort, "onnxruntime", _square_side(dims))


def _square_side(dims: list[int | None]) -> int | None:
    """The side of an image input ``N × C × side × side`` fixed at export, else None."""
    height, width = dims[-2:]
    return height if height is not None and height == width else None


@dataclass
class CardReader:
    """Reads the corner indices in a frame; `read(frame)` returns one `Detections`.

    `reader_path` swaps in another reading stage (a deck profile's fine-tuned reader).
    `detector_size`: the side asked for stage 1 (a frame is read at up to this square's pixels,
    `input_shape`); None: the detector's own where it was exported for one size, else
    `DEFAULT_DETECTOR_SIDE`. `input_side` tells the side in use. `closer_look`: look again at
    a large frame whose indices read small (`CLOSER_LOOK_SCALE`). `small_reader`: read small
    boxes with `SMALL_READER_FILE` too where the models have one, beside a deck's tuned reader
    as well (with it, an enrolled deck's 640-px scenes read more cards: MODEL_CARD.md, "Deck
    enrolment").
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
    closer_look: bool = True
    #: Look again at half the side where the indices are large (`FAR_LOOK_SCALE`).
    far_look: bool = True
    small_reader: bool = True
    #: Where `reader_path` is a deck's tuned reader: the base reader reads the boxes the
    #: small-index reader leaves too, weighted this much in their geometric mean (0: the tuned
    #: reader alone).
    base_weight: float = DECK_BASE_WEIGHT
    #: How many times stage 1 read the last frame: one more for each of the closer and the far
    #: look.
    last_looks: int = field(init=False, default=0)
    calibration: ScoreCalibration | None = field(init=False, default=None)
    #: The ink of the deck the reader was tuned on ("dark", "light"), None for the base reader.
    ink: str | None = field(init=False, default=None)
    #: OpenVINO computes in float32 even on a CPU with bfloat16 units, as it does on one without
    #: them (`load_model`'s `exact`; `benchmarks/bench_vision.py --float32` times such a CPU's
    #: arithmetic).
    float32: bool = False
    #: Threads each network may use (`load_model`'s `threads`; None: every core).
    threads: int | None = None
    #: Tell which way each index faces where the models have `ORIENTATION_FILE`, so that two
    #: indices facing the same way a card's length apart are never paired as one card.
    orientation: bool = True
    #: Read a conflict's sightings that were set aside as their second choice of card, where
    #: no other sighting names that card (`reread_conflicts`).
    second_choice: bool = True

    def __post_init__(self) -> None:
        detector = self.models_dir / DETECTOR_FILE
        reader = self.reader_path or self.models_dir / READER_FILE
        missing = [str(p) for p in (detector, reader) if not p.exists()]
        if missing:
            raise ModelMissingError(f"card model files not found: {', '.join(missing)}")
        self._detector = FrameDetector(detector, self.backend, self.detector_size,
                                       exact=self.float32, threads=self.threads)  # fmt: skip
        self.runtime = self._detector.runtime
        info = reader_info(reader)
        self._reader = IndexReader(self._load(reader), info.read_columns)
        self.ink = info.ink
        self._base: IndexReader | None = None
        base = self.models_dir / READER_FILE
        if self.reader_path and self.base_weight > 0 and self.reader_path != base:
            self._base = IndexReader(self._load(base), reader_info(base).read_columns)
        small = self.models_dir / SMALL_READER_FILE
        self._small: IndexReader | None = None
        if self.small_reader and small.exists():
            run, small_info = self._load(small), reader_info(small)
            margin = small_info.margin if small_info.margin is not None else READ_MARGIN
            self._small = IndexReader(run, small_info.read_columns, margin)
        self.calibration = ScoreCalibration.load(self.models_dir)
        turned = self.models_dir / ORIENTATION_FILE
        self._orientation = (
            OrientationReader(self._load(turned)) if self.orientation and turned.exists() else None
        )

    def _load(self, path: Path) -> Forward:
        return load_model(path, self.backend, exact=self.float32, threads=self.threads).run

    @property
    def input_side(self) -> int:
        """Stage 1's side: frames are read at up to this square's pixels."""
        return self._detector.side

    def detector_input(self, width: int, height: int) -> tuple[int, int]:
        """The (width, height) stage 1 reads a `width` × `height` frame at."""
        return self._detector.input_size(width, height)

    def read(self, frame: Image) -> Detections:
        """Every corner index found, its class and the calibrated chance its reading is right;
        an index at the frame's edge only when it reaches the calibration's edge threshold."""
        every, _ = self._scored(frame)
        return every[self._kept(every, frame)]

    def cards(self, frame: Image) -> FrameCards:
        """The physical cards in a frame, at this model's card threshold; a conflict's sightings
        set aside read again as their second choice (`reread_conflicts`)."""
        return self.read_cards(frame)[1]

    def read_cards(self, frame: Image) -> tuple[Detections, FrameCards]:
        """`read` and `cards` of one frame, read once (the readings as first read, before a
        conflict's second choices)."""
        every, second = self._scored(frame)
        found = every[self._kept(every, frame)]
        seen, every, kept = cards_with_second_choice(
            every, second if self.second_choice else None,
            lambda d: self._kept(d, frame), self.pairing,
        )  # fmt: skip
        set_aside = every[~kept & (every.scores >= self.pairing.min_score)]
        unread = set(set_aside.cards()) - {card.card for card in seen.cards}
        return found, replace(seen, cut_at_edge=True) if unread else seen

    def _kept(self, every: Detections, frame: Image) -> npt.NDArray[np.bool_]:
        """Which readings to keep (`ScoreCalibration.kept`): all without a calibration."""
        if not self.calibration:
            return np.ones(len(every), np.bool_)
        return self.calibration.kept(every.scores, at_frame_edge(every.boxes, *frame.shape[1::-1]))

    def _scored(self, frame: Image) -> tuple[Detections, Detections]:
        """Every reading with its calibrated score and orientation, and each one's second
        choice of card with its score were the first ruled out."""
        boxes, box_scores, probabilities = self.corners(frame)
        start = time.perf_counter()
        ranked, chances = ranked_choices(probabilities)
        both = self._corner_scores(np.tile(box_scores, 2), chances.T.reshape(-1, 1))
        scores = both.reshape(2, -1)
        self.last_times.postprocess += _ms_since(start)
        start = time.perf_counter()
        corners = self.orientations(frame, boxes, scores[0] >= self.pairing.min_score)
        self.last_times.orient += _ms_since(start)
        every = Detections(boxes, scores[0], ranked[:, 0], corners)
        return every, Detections(boxes, scores[1], ranked[:, 1], corners)

    def orientations(
        self, frame: Image, boxes: npt.NDArray[np.float32], wanted: npt.NDArray[np.bool_]
    ) -> npt.NDArray[np.int8] | None:
        """Which way the `wanted` boxes' indices face (`OrientationReader`), the others unknown;
        None without the network."""
        if self._orientation is None:
            return None
        codes = np.full(len(boxes), CORNER_UNKNOWN, np.int8)
        codes[wanted] = self._orientation(frame, boxes[wanted])
        return codes

    def _corner_scores(
        self, box_scores: npt.NDArray[np.float32], probabilities: npt.NDArray[np.float32]
    ) -> npt.NDArray[np.float32]:
        """One score per reading: calibrated where the models have a calibration, else the
        box score times the reader's probability."""
        confidence = probabilities.max(axis=1)
        if self.calibration:
            return self.calibration.score(box_scores, confidence)
        product: npt.NDArray[np.float32] = np.clip(box_scores * confidence, 0, 1)
        return product

    @property
    def pairing(self) -> PairingConfig:
        """Pairing settings with the card threshold the models were calibrated for."""
        if self.calibration is None:
            return PairingConfig()
        return PairingConfig(min_score=self.calibration.card_threshold)

    def corners(
        self, frame: Image
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        """Both stages' raw outputs: boxes (frame pixels), box scores and N × 52 probabilities,
        pooled with a closer or a far look's where one is due (`_extra_sides`), a glyph boxed
        twice kept at its better-scored reading."""
        times = StageTimes()
        boxes, found, probabilities = self._look(frame, None, times)
        sides = self._extra_sides(frame, boxes, found, probabilities)
        self.last_looks = 1 + len(sides)
        for side in sides:
            more = self._look(frame, side, times)
            start = time.perf_counter()
            pooled = zip((boxes, found, probabilities), more, strict=True)
            boxes, found, probabilities = (np.concatenate(pair) for pair in pooled)
            keep = suppress_overlaps(boxes, self._corner_scores(found, probabilities))
            boxes, found, probabilities = boxes[keep], found[keep], probabilities[keep]
            times.postprocess += _ms_since(start)
        self.last_times = times
        return boxes, found, probabilities

    def _look(
        self, frame: Image, side: int | None, times: StageTimes
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        """Both stages once, stage 1 at `side` (None: its own)."""
        boxes, found, _ = self._detector.find(frame, self.min_score, times, side)
        start = time.perf_counter()
        crops = (
            np.stack([crop_index(frame, box, self.reader_size) for box in boxes])
            if len(boxes)
            else np.zeros((0, self.reader_size, self.reader_size, 3), np.uint8)
        )
        times.crops += _ms_since(start)

        start = time.perf_counter()
        read = self._read_large_with_base(crops, boxes, self.classify(crops))
        probabilities = self._read_small_again(frame, boxes, read)
        times.read += _ms_since(start)
        return boxes, found, probabilities

    def _extra_sides(
        self,
        frame: Image,
        boxes: npt.NDArray[np.float32],
        box_scores: npt.NDArray[np.float32],
        probabilities: npt.NDArray[np.float32],
    ) -> list[int]:
        """The sides of the looks due after the first, by the median size in stage 1's input
        of the indices it read (all its boxes where none reaches the card threshold): a closer
        look under `CLOSER_LOOK_INDEX_PX`, where the frame holds the pixels for one
        (`FrameDetector.closer_side_for`); a far look from `FAR_LOOK_INDEX_PX`."""
        if not len(boxes):
            return []
        height, width = frame.shape[:2]
        scores = self._corner_scores(box_scores, probabilities)
        seen = Detections(boxes, scores, probabilities.argmax(axis=1))
        read = seen[scores >= self.pairing.min_score]
        median = float(np.median((read if len(read) else seen).sizes))
        index_px = median * self._detector.scale(width, height)
        closer = self._detector.closer_side_for(width, height) if self.closer_look else None
        far = self._detector.far_side if self.far_look else None
        due = [
            (closer, index_px < CLOSER_LOOK_INDEX_PX),
            (far, index_px >= FAR_LOOK_INDEX_PX),
        ]
        return [side for side, wanted in due if side is not None and wanted]

    def _read_small_again(
        self, frame: Image, boxes: npt.NDArray[np.float32], read: npt.NDArray[np.float32]
    ) -> npt.NDArray[np.float32]:
        """`read` with each small box's reading (`small_boxes`) combined with the small-index
        reader's, which reads a crop of the box cut at its own margin (their geometric mean,
        weighted by `SMALL_READER_WEIGHT`, "not an index" included)."""
        small = self.small_boxes(boxes)
        if self._small is None or not small.any():
            return read
        margin = self._small.margin
        crops = np.stack([crop_index(frame, box, self.reader_size, margin=margin)
                          for box in boxes[small]])  # fmt: skip
        combined = read.copy()
        combined[small] = geometric_mean(
            read[small], self._classified(crops, self._small), SMALL_READER_WEIGHT
        )
        return combined

    def _read_large_with_base(
        self, crops: Image, boxes: npt.NDArray[np.float32], read: npt.NDArray[np.float32]
    ) -> npt.NDArray[np.float32]:
        """`read` with the boxes the small-index reader leaves (`small_boxes`) read by the base
        reader too where a deck's reader reads, the two readings combined (their geometric
        mean, the base's weighted by `base_weight`): the deck's reader knows its deck, the base
        reader more of the ways a photo spoils an index."""
        large = ~self.small_boxes(boxes)
        if self._base is None or not large.any():
            return read
        combined = read.copy()
        base = self._classified(crops[large], self._base)
        combined[large] = geometric_mean(read[large], base, self.base_weight)
        return combined

    def small_boxes(self, boxes: npt.NDArray[np.float32]) -> npt.NDArray[np.bool_]:
        """Which boxes the small-index reader reads (none where there is no such reader)."""
        if self._small is None:
            return np.zeros(len(boxes), np.bool_)
        small: npt.NDArray[np.bool_] = box_sizes(boxes) < SMALL_READER_PX
        return small

    def index_boxes(self, frame: Image, min_score: float = 0.25) -> npt.NDArray[np.float32]:
        """Stage 1 alone: each corner index's box once (for enrolment, which groups indices by
        geometry before any reading; a glyph boxed twice would look like two cards)."""
        boxes, scores, _ = self._detector.find(frame, min_score, StageTimes())
        return boxes[suppress_overlaps(boxes, scores)]

    def read_bytes(self, data: bytes) -> Detections:
        return self.read(decode_image(data))

    def classify(self, crops: Image) -> npt.NDArray[np.float32]:
        """Class probabilities (card-class order) of square BGR index crops, N × 52; with a
        reader that has a "not an index" class they sum to what that class leaves.

        Each crop is read at `read_turns` quarter turns in one batch and the readings are
        combined (geometric mean): an index seen from across the table reads the same, and
        measured on the held-out real crops four turns read 76% where one read 69%.

        An index printed light on a dark face (`light_on_dark`) is read as its negative too, and
        the surer reading kept: the reader learnt dark ink on light card. On the black-and-gold
        deck of the real held-out photos card recall went from 70.1 % to 84.3 %; the other
        decks, real and synthetic, read as before. A reader tuned on a deck printed dark on
        light (`ink`) skips this: there the test only mistakes dim or glared crops for light ink.
        """
        return self._classified(crops, self._reader)

    def _classified(self, crops: Image, reader: IndexReader) -> npt.NDArray[np.float32]:
        if not len(crops):
            return np.zeros((0, len(CLASS_NAMES)), np.float32)
        if self.ink == "dark":
            return self._read_turned(crops, reader)
        light = np.flatnonzero(light_on_dark(crops, reader.inset))
        read = self._read_turned(np.concatenate([crops, 255 - crops[light]]), reader)
        plain, negative = read[: len(crops)], read[len(crops) :]
        surer = negative.max(axis=1) > plain[light].max(axis=1)
        plain[light[surer]] = negative[surer]
        return plain

    def _read_turned(self, crops: Image, reader: IndexReader) -> npt.NDArray[np.float32]:
        turned = np.concatenate([np.rot90(crops, k, axes=(1, 2)) for k in range(self.read_turns)])
        out = reader.run(model_input(turned))  # the reader takes any batch size
        logs = np.log(np.clip(out[:, reader.columns], 1e-7, 1.0)).reshape(
            self.read_turns, len(crops), -1
        )
        mean = logs.mean(axis=0)
        probabilities = np.exp(mean - mean.max(axis=1, keepdims=True))
        probabilities /= probabilities.sum(axis=1, keepdims=True)
        # A reader with a "not an index" class: the cards share what it leaves.
        return np.ascontiguousarray(probabilities[:, : len(CLASS_NAMES)], np.float32)


def geometric_mean(
    first: npt.NDArray[np.float32], second: npt.NDArray[np.float32], second_weight: float = 0.5
) -> npt.NDArray[np.float32]:
    """Two readings of the same crops (N × 52, "not an index" what they leave) as one: their
    normalised weighted geometric mean, "not an index" taken as a 53rd class."""
    logs = [
        np.log(np.clip(np.column_stack([p, 1 - p.sum(axis=1)]), 1e-7, 1.0)) for p in (first, second)
    ]
    mean = (1 - second_weight) * logs[0] + second_weight * logs[1]
    combined = np.exp(mean - mean.max(axis=1, keepdims=True))
    combined /= combined.sum(axis=1, keepdims=True)
    return np.ascontiguousarray(combined[:, : len(CLASS_NAMES)], np.float32)


def light_on_dark(crops: Image, inset: float = READ_MARGIN) -> npt.NDArray[np.bool_]:
    """Which square index crops show light ink on a dark face: in the middle of the crop (the
    index: `inset` of the side off each edge) the brightest tenth of the pixels lies further from
    the median than the darkest tenth. Read in grey, so red and black ink on white both count
    as dark."""
    side = crops.shape[1]
    cut = round(side * inset)
    grey = crops[:, cut : side - cut, cut : side - cut].mean(axis=3)
    low, middle, high = np.percentile(grey.reshape(len(crops), -1), [10, 50, 90], axis=1)
    return np.asarray(high - middle > middle - low)


class FrameDetector:
    """A YOLO detector (NMS-free ONNX) run on whole frames at `side`: the one it was exported
    for (the frame's longer side scaled to it), else the one asked (`DEFAULT_DETECTOR_SIDE`
    when none; the frame scaled to up to that square's pixels, `letterbox`)."""

    def __init__(
        self, path: Path, backend: str, side: int | None = None, *, exact: bool = False,
        threads: int | None = None,
    ) -> None:  # fmt: skip
        wanted = None if side is None else checked_side(side)
        self.forward, self.runtime, fixed = load_model(path, backend, batch=1, exact=exact,
                                                       threads=threads)  # fmt: skip
        if wanted is not None and fixed is not None and fixed != wanted:
            raise ModelSizeError(f"{path} reads {fixed}-px frames only, not {wanted}")
        self.side = fixed or wanted or DEFAULT_DETECTOR_SIDE
        #: A detector exported for one size gets square frames; one that takes any, frames
        #: padded only to the stride (see `letterbox`).
        self.stride = None if fixed else STRIDE

    @property
    def closer_side(self) -> int | None:
        """The side of a closer look (`CLOSER_LOOK_SCALE`); None for a detector exported for
        one size."""
        if self.stride is None:
            return None
        return round(self.side * CLOSER_LOOK_SCALE / STRIDE) * STRIDE

    def closer_side_for(self, width: int, height: int) -> int | None:
        """The side of a closer look at a `width` × `height` frame: `closer_side`, or the
        frame's own pixels' where fewer; None where that is under `CLOSER_LOOK_MIN_SCALE` times
        the side (too little more to be worth a look)."""
        if self.closer_side is None:
            return None
        side = min(self.closer_side, math.isqrt(width * height) // STRIDE * STRIDE)
        return side if side >= round(CLOSER_LOOK_MIN_SCALE * self.side) else None

    @property
    def far_side(self) -> int | None:
        """The side of a far look (`FAR_LOOK_SCALE`); None for a detector exported for one
        size."""
        if self.stride is None:
            return None
        return max(STRIDE * 2, round(self.side * FAR_LOOK_SCALE / STRIDE) * STRIDE)

    def input_size(self, width: int, height: int) -> tuple[int, int]:
        """The network input's (width, height) for a `width` × `height` frame (`letterbox`)."""
        if self.stride is None:
            return self.side, self.side
        return input_shape(width, height, self.side, self.stride)[1]

    def scale(self, width: int, height: int) -> float:
        """How much a `width` × `height` frame is scaled for the network's input."""
        if self.stride is None:
            return self.side / max(width, height)
        return input_shape(width, height, self.side, self.stride)[0]

    def find(
        self, frame: Image, min_score: float, times: StageTimes, side: int | None = None
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32], npt.NDArray[np.int64]]:
        """Boxes (frame pixels) scoring at least `min_score`, their scores and classes, the
        frame read at `side` (None: `self.side`); the letterbox and the forward pass are timed
        into `times`."""
        start = time.perf_counter()
        batch, scale, pad = letterbox(frame, side or self.side, self.stride)
        times.preprocess += _ms_since(start)

        start = time.perf_counter()
        raw = self.forward(batch)[0]  # 300 × 6: x1 y1 x2 y2 score class, NMS-free
        times.detect += _ms_since(start)

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


def letterbox(
    frame: Image, size: int, stride: int | None = None
) -> tuple[npt.NDArray[np.float32], float, tuple[int, int]]:
    """Scale the frame keeping its aspect and pad it grey (YOLO's input): its longer side to
    `size` in a `size` square, or, with `stride` (a detector that takes any size), to as many
    pixels as a `size` square holds at most, each side padded up to a multiple of `stride`
    (`input_shape`). A 1280 × 720 camera frame is read at 1024 × 576, not in an 800 square.
    """
    height, width = frame.shape[:2]
    if stride is None:
        scale = min(size / width, size / height)
        out_w = out_h = size
    else:
        scale, (out_w, out_h) = input_shape(width, height, size, stride)
    new_w, new_h = max(1, round(width * scale)), max(1, round(height * scale))  # a sliver too
    resized = cv2.resize(frame, (new_w, new_h), interpolation=cv2.INTER_AREA)
    canvas = np.full((out_h, out_w, 3), 114, dtype=np.uint8)
    left, top = (out_w - new_w) // 2, (out_h - new_h) // 2
    canvas[top : top + new_h, left : left + new_w] = resized
    return model_input(canvas[None]), scale, (left, top)


def input_shape(width: int, height: int, size: int, stride: int) -> tuple[float, tuple[int, int]]:
    """The scale, and the input's (width, height), that give a frame as many pixels as a `size`
    square at most, each side a multiple of `stride`; the longer side at most twice `size`.

    The detector's time goes with its input's pixels, so every frame costs about what a square
    photo does, and a wide frame's indices are not shrunk for the square's sake: on 16:9 frames
    of the held-out designs (1280 × 720) card recall went from 93.3 % (longer side to 800: 800 ×
    480) to 94.7 % (1024 × 576) at the same precision, on 640 × 360 frames from 90.5 to 92.8 %.
    """
    longer = max(width, height)

    def padded(side: int) -> tuple[int, int]:
        scale = side / longer
        out_w, out_h = (-(-max(1, round(v * scale)) // stride) * stride for v in (width, height))
        return out_w, out_h

    side = min(int(size * math.sqrt(longer / min(width, height))), 2 * size) // stride * stride
    while side > stride and math.prod(padded(side)) > size * size:
        side -= stride
    return side / longer, padded(side)


def ranked_choices(
    probabilities: npt.NDArray[np.float32],
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]:
    """Each reading's first and second choice of card (N × 2 class ids) and their chances: the
    second's given that the first is not the card (p2 / (1 − p1): a deck holds each card once,
    so where a surer sighting elsewhere is that card, this one is another)."""
    ranked = np.argsort(-probabilities, axis=1)[:, :2]
    chances = np.take_along_axis(probabilities, ranked, axis=1)
    chances[:, 1] /= np.maximum(1 - chances[:, 0], 1e-6)
    return ranked, np.minimum(chances, 1)


def model_input(images: Image) -> npt.NDArray[np.float32]:
    """BGR images (N × H × W × 3, uint8) as YOLO's input: N × 3 × H × W, RGB, 0-1.

    Written channel by channel into one array: numpy's transpose-then-convert took 11 ms for
    an 800-px frame on this 2-core machine, this takes 2 (and 2 instead of 8 for a batch of
    160 reader crops)."""
    count, height, width = images.shape[:3]
    out = np.empty((count, 3, height, width), np.float32)
    for channel in range(3):
        np.multiply(images[..., 2 - channel], np.float32(1 / 255), out=out[:, channel],
                    casting="unsafe")  # fmt: skip
    return out


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


def frame_quality(seen: FrameCards) -> dict[str, Any]:
    """How surely a frame reads: its cards' median index size (`index_px`), small
    (`small_indices`) under `SMALL_INDEX_PX`, and whether a card seen only at an index the
    frame's edge cuts was set aside (`cut_at_edge`)."""
    index_px = seen.index_px
    return {
        "index_px": None if index_px is None else round(index_px, 1),
        "small_indices": index_px is not None and index_px < SMALL_INDEX_PX,
        "cut_at_edge": seen.cut_at_edge,
    }


def frame_json(image: str, seen: FrameCards) -> dict[str, Any]:
    """The `cribcam detect --json` object: each physical card once, how surely the frame reads
    (`frame_quality`), and any conflicts."""
    return {
        "image": image,
        "cards": [card_json(card) for card in seen.cards],
        **frame_quality(seen),
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

    def __init__(self, models_dir: Path = MODELS_DIR, **settings: Any) -> None:
        """`settings`: `CardReader`'s reading settings (`detector_size`, `closer_look`, ...)."""
        for name in (DETECTOR_FILE, READER_FILE):
            if not (models_dir / name).exists():
                raise ModelMissingError(f"card model file not found: {models_dir / name}")
        self.models_dir = models_dir
        if settings.get("detector_size") is not None:
            settings["detector_size"] = checked_side(settings["detector_size"])
        self.settings = settings
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
                    self.models_dir, reader_path=self.reader_path, **self.settings
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


def load_default_detector(**settings: Any) -> PhotoReader:
    """The shipped models' reader with `CardReader`'s reading `settings`; `ModelMissingError`
    when they are not installed."""
    return PhotoReader(**settings)
