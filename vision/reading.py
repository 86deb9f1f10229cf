"""The reading path: a frame in, its index readings and its cards out, in named stages.

    find_indices -> read_indices -> score -> orient -> group_into_cards -> resolve_conflicts
        -> read_faces

Stage 1 (`IndexFinder`) boxes the corner indices, stage 2 (`IndexReader`) reads each one; both
run again for a closer or a far look where one is due, the looks pooled. Scoring weighs both
stages' outputs into one calibrated chance per reading (`ScoreCalibration`), orientation says
which way each index faces, and the readings group into physical cards by geometry, each named
from all its indices' readings together, a conflict's weaker sightings read again as their
second choice. Each stage takes and gives `Detections`; every threshold comes from one
`ReadingConfig`; a `Reading` carries what a frame gave and each stage's time, so one reader
serves several threads at once.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import astuple, dataclass, fields, replace
from pathlib import Path

import numpy as np
import numpy.typing as npt

from vision.config import DEFAULT_READING, ReadingConfig
from vision.detection.calibration import ScoreCalibration
from vision.detection.detections import (
    FACING_UNKNOWN,
    Detections,
    at_frame_edge,
    suppress_overlaps,
)
from vision.detection.finder import IndexFinder
from vision.detection.models import (
    DETECTOR_FILE,
    MODELS_DIR,
    READER_FILE,
    Forward,
    Image,
    ModelMissingError,
    load_model,
)
from vision.detection.orientation import ORIENTATION_FILE, OrientationReader
from vision.detection.pips import with_faces
from vision.detection.reader import IndexReader, Probabilities, ranked_choices
from vision.errors import InvalidDetectionsError
from vision.table.cards import (
    FrameCards,
    Keep,
    PairingConfig,
    cards_from_detections,
    with_second_choices,
)


@dataclass(frozen=True)
class StageTimes:
    """Milliseconds one frame spent in each stage (for benchmarks and the page); a closer or
    far look's finding and reading count in `find_indices` and `read_indices`, pooling the
    looks in `find_indices`."""

    find_indices: float = 0.0
    read_indices: float = 0.0
    score: float = 0.0
    orient: float = 0.0
    group_into_cards: float = 0.0
    resolve_conflicts: float = 0.0
    read_faces: float = 0.0

    def total(self) -> float:
        return float(sum(astuple(self)))


#: The reading path's stages, in order.
STAGES = tuple(stage.name for stage in fields(StageTimes))


class _Stopwatch:
    """The milliseconds of one reading's stages, kept by the reading, not the shared reader."""

    def __init__(self) -> None:
        self._ms = dict.fromkeys(STAGES, 0.0)

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self._ms[name] += (time.perf_counter() - start) * 1000

    def times(self) -> StageTimes:
        return StageTimes(**self._ms)


@dataclass(frozen=True)
class Reading:
    """What one frame gave: its index readings (those kept, as first read: a conflict's second
    choices are in `cards` only), its cards, each stage's time and how many looks stage 1
    took (one more for each of the closer and the far look)."""

    indices: Detections
    cards: FrameCards
    times: StageTimes
    looks: int


class CardReader:
    """Reads the cards in a frame: `read(frame)` gives a `Reading`.

    `reader_path` swaps in another index reader (a deck profile's fine-tuned one). `config`
    holds every threshold and option of the reading. `backend`, `float32` and `threads` say how
    the networks run (`load_model`'s `backend`, `exact`, `threads`): OpenVINO computes in
    float32 even on a CPU with bfloat16 units with `float32`, and each network uses `threads`
    threads (None: every core).
    """

    def __init__(
        self, models_dir: Path = MODELS_DIR, *, reader_path: Path | None = None,
        config: ReadingConfig = DEFAULT_READING, backend: str = "auto", float32: bool = False,
        threads: int | None = None,
    ) -> None:  # fmt: skip
        self.models_dir, self.reader_path, self.config = models_dir, reader_path, config
        self.backend, self.float32, self.threads = backend, float32, threads
        detector = models_dir / DETECTOR_FILE
        reader = reader_path or models_dir / READER_FILE
        missing = [str(p) for p in (detector, reader) if not p.exists()]
        if missing:
            raise ModelMissingError(f"card model files not found: {', '.join(missing)}")
        self.finder = IndexFinder(detector, backend, config, exact=float32, threads=threads)
        self.runtime = self.finder.runtime
        self.index_reader = IndexReader.load(models_dir, reader_path, config, self._load)
        self.calibration: ScoreCalibration | None = ScoreCalibration.load(models_dir)
        turned = models_dir / ORIENTATION_FILE
        self._orientation = (
            OrientationReader(self._load(turned), config.min_orientation_confidence)
            if turned.exists()
            else None
        )

    def _load(self, path: Path) -> Forward:
        return load_model(path, self.backend, exact=self.float32, threads=self.threads).run

    @property
    def input_side(self) -> int:
        """Stage 1's side: frames are read at up to this square's pixels."""
        return self.finder.side

    def detector_input(self, width: int, height: int) -> tuple[int, int]:
        """The (width, height) stage 1 reads a `width` × `height` frame at."""
        return self.finder.input_size(width, height)

    @property
    def ink(self) -> str | None:
        """The ink of the deck the index reader was tuned on ("dark", "light"), None for the
        base reader."""
        return self.index_reader.ink

    @property
    def pairing(self) -> PairingConfig:
        """How readings group into cards, at the card threshold the models were calibrated for."""
        if self.calibration is None:
            return self.config.pairing
        return replace(self.config.pairing, min_score=self.calibration.card_threshold)

    def read(self, frame: Image) -> Reading:
        """Every stage on one frame: the index readings kept (an index at the frame's edge only
        from the calibration's edge threshold), the cards they make, and the stages' times."""
        clock = _Stopwatch()
        readings, looks = self._looked_at(frame, clock)
        return self._reading(frame, readings, looks, clock)

    def read_at(self, frame: Image, scale: float) -> Reading:
        """One look at `frame`, stage 1 at `scale` input pixels a frame pixel (`look_scale`): a
        region of a larger frame read as that frame's finest look reads it, the index crops
        cut from `frame`'s own pixels."""
        clock = _Stopwatch()
        height, width = frame.shape[:2]
        side = self.finder.side_for_scale(width, height, scale)
        if side is None:
            return self.read(frame)
        return self._reading(frame, self._look(frame, side, clock), 1, clock)

    def look_scale(self, width: int, height: int, index_px: float | None) -> float:
        """The finest scale `read` looks at a `width` × `height` frame whose indices are
        `index_px` frame pixels (None: not known): the closer look's where one is due."""
        scale = self.finder.scale(width, height)
        closer = self.finder.closer_side_for(width, height) if self.config.closer_look else None
        if closer is None or index_px is None:
            return scale
        if index_px * scale >= self.config.closer_look_index_px:
            return scale
        return self.finder.scale_at(width, height, closer)

    def _reading(self, frame: Image, readings: Detections, looks: int, clock: _Stopwatch
                 ) -> Reading:  # fmt: skip
        with clock.stage("score"):
            scored = self.score(readings)
        with clock.stage("orient"):
            scored = self.orient(frame, scored)
        height, width = frame.shape[:2]
        kept, cards = self.cards_from_scored(scored, width, height, clock)
        if self.config.pips.enabled:
            with clock.stage("read_faces"):
                cards = with_faces(frame, cards, self.config.pips)
        return Reading(kept, cards, clock.times(), looks)

    def cards_from_scored(
        self, scored: Detections, width: int, height: int, clock: _Stopwatch | None = None
    ) -> tuple[Detections, FrameCards]:
        """What `read` makes of `scored` readings of a `width` × `height` frame (their facing
        known): the readings kept and the cards they make, conflicts resolved."""
        clock = clock or _Stopwatch()
        keep = self._keep(width, height)
        with clock.stage("group_into_cards"):
            kept = keep(scored)
            seen = self.group_into_cards(scored[kept])
        with clock.stage("resolve_conflicts"):
            cards = self.resolve_conflicts(scored, seen, keep)
        return scored[kept], cards

    def with_calibration(self, calibration: ScoreCalibration) -> CardReader:
        """This reader, the same networks, scoring with `calibration` (to choose thresholds)."""
        trial = copy.copy(self)
        trial.calibration = calibration
        return trial

    def cards(self, frame: Image) -> FrameCards:
        """The physical cards in a frame (`read`)."""
        return self.read(frame).cards

    def find_indices(self, frame: Image, side: int | None = None) -> Detections:
        """Stage 1: the index boxes scoring at least `min_box_score`, the frame read at `side`
        (None: stage 1's own)."""
        return self.finder.find(frame, self.config.min_box_score, side)

    def read_indices(self, frame: Image, indices: Detections) -> Detections:
        """Stage 2: `indices` with each one's class probabilities."""
        return self.index_reader.read(frame, indices)

    def index_readings(self, frame: Image) -> Detections:
        """Both stages' readings, pooled with a closer or a far look's where one is due
        (`_extra_sides`), a glyph boxed twice kept at its better-scored reading."""
        return self._looked_at(frame, _Stopwatch())[0]

    def score(self, readings: Detections) -> Detections:
        """`readings` as their first choice of card, scored by how likely that is right."""
        ranked, scores = self._choice_scores(readings)
        return readings.with_rows(scores=scores[0], class_ids=ranked[:, 0])

    def second_choices(self, readings: Detections) -> Detections:
        """`readings` as their second choice of card, scored as if the first were ruled out."""
        ranked, scores = self._choice_scores(readings)
        return readings.with_rows(scores=scores[1], class_ids=ranked[:, 1])

    def orient(self, frame: Image, scored: Detections) -> Detections:
        """`scored` with which way the index of each reading that may make or join a card faces
        (at the card threshold, or boxed surely enough to join one: `PairingConfig`)."""
        pairing = self.pairing
        wanted = scored.scores >= pairing.min_score
        if scored.box_scores is not None:
            wanted |= scored.box_scores >= pairing.join_box_score
        return scored.with_rows(facing=self.orientations(frame, scored.boxes, wanted))

    def orientations(
        self, frame: Image, boxes: npt.NDArray[np.float32], wanted: npt.NDArray[np.bool_]
    ) -> npt.NDArray[np.int8] | None:
        """Which way the `wanted` boxes' indices face (`OrientationReader`), the others unknown;
        None without the network."""
        if self._orientation is None:
            return None
        codes = np.full(len(boxes), FACING_UNKNOWN, np.int8)
        codes[wanted] = self._orientation(frame, boxes[wanted])
        return codes

    def group_into_cards(self, kept: Detections) -> FrameCards:
        """The physical cards the `kept` readings make, each named and scored from all its
        indices' readings together."""
        return cards_from_detections(kept, self.pairing)

    def resolve_conflicts(self, scored: Detections, seen: FrameCards, keep: Keep) -> FrameCards:
        """`seen` with each conflict's set-aside sightings read as their second choice
        (`reread_conflicts`), and whether a card read only at the frame's edge was set aside
        (`cut_at_edge`)."""
        pairing = self.pairing
        seen, every, kept = with_second_choices(
            seen, scored, self.second_choices(scored), keep, pairing
        )
        set_aside = every[~kept & (every.scores >= pairing.min_score)]
        unread = set(set_aside.cards()) - {card.card for card in seen.cards}
        return replace(seen, cut_at_edge=True) if unread else seen

    def index_boxes(self, frame: Image, min_score: float = 0.25) -> npt.NDArray[np.float32]:
        """Stage 1 alone: each corner index's box once (for enrolment, which groups indices by
        geometry before any reading; a glyph boxed twice would look like two cards)."""
        found = self.finder.find(frame, min_score)
        return found.boxes[suppress_overlaps(found.boxes, found.scores)]

    def index_facing(self, frame: Image, boxes: npt.NDArray[np.float32]) -> npt.NDArray[np.int8]:
        """Which way each of `boxes`' indices faces (for enrolment's grouping by geometry),
        `FACING_UNKNOWN` where unsure or without the orientation network."""
        codes = self.orientations(frame, boxes, np.ones(len(boxes), bool))
        return np.full(len(boxes), FACING_UNKNOWN, np.int8) if codes is None else codes

    def classify(self, crops: Image) -> Probabilities:
        """Stage 2's class probabilities of square BGR index crops (`IndexReader.classify`)."""
        return self.index_reader.classify(crops)

    def _looked_at(self, frame: Image, clock: _Stopwatch) -> tuple[Detections, int]:
        """`index_readings`, and how many looks they took."""
        readings = self._look(frame, None, clock)
        sides = self._extra_sides(frame, readings)
        for side in sides:
            more = self._look(frame, side, clock)
            with clock.stage("find_indices"):
                pooled = Detections.concatenate([readings, more])
                keep = suppress_overlaps(pooled.boxes, self._scores(*read_rows(pooled)))
                readings = pooled[keep]
        return readings, 1 + len(sides)

    def _look(self, frame: Image, side: int | None, clock: _Stopwatch) -> Detections:
        """Both stages once, stage 1 at `side` (None: its own)."""
        with clock.stage("find_indices"):
            found = self.find_indices(frame, side)
        with clock.stage("read_indices"):
            return self.read_indices(frame, found)

    def _extra_sides(self, frame: Image, readings: Detections) -> list[int]:
        """The sides of the looks due after the first, by the median size in stage 1's input
        of the indices it read (all its boxes where none reaches the card threshold): a closer
        look under `closer_look_index_px`, where the frame holds the pixels for one
        (`IndexFinder.closer_side_for`); a far look from `far_look_index_px`."""
        if not len(readings):
            return []
        height, width = frame.shape[:2]
        scores = self._scores(*read_rows(readings))
        read = readings[scores >= self.pairing.min_score]
        median = float(np.median((read if len(read) else readings).sizes))
        index_px = median * self.finder.scale(width, height)
        config = self.config
        closer = self.finder.closer_side_for(width, height) if config.closer_look else None
        far = self.finder.far_side if config.far_look else None
        due = [
            (closer, index_px < config.closer_look_index_px),
            (far, index_px >= config.far_look_index_px),
        ]
        return [side for side, wanted in due if side is not None and wanted]

    def _choice_scores(
        self, readings: Detections
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]:
        """Each reading's first and second choice of card (N × 2) and their scores (2 × N)."""
        box_scores, probabilities = read_rows(readings)
        ranked, chances = ranked_choices(probabilities)
        both = self._scores(np.tile(box_scores, 2), chances.T.reshape(-1, 1))
        return ranked, both.reshape(2, -1)

    def _scores(
        self, box_scores: npt.NDArray[np.float32], probabilities: Probabilities
    ) -> npt.NDArray[np.float32]:
        """One score per reading: calibrated where the models have a calibration, else the
        box score times the reader's probability."""
        confidence = probabilities.max(axis=1)
        if self.calibration:
            return self.calibration.score(box_scores, confidence)
        product: npt.NDArray[np.float32] = np.clip(box_scores * confidence, 0, 1)
        return product

    def _keep(self, width: int, height: int) -> Keep:
        """Which readings of a `width` × `height` frame to keep (`ScoreCalibration.kept`): all
        without a calibration."""
        calibration = self.calibration

        def keep(readings: Detections) -> npt.NDArray[np.bool_]:
            if not calibration:
                return np.ones(len(readings), np.bool_)
            return calibration.kept(readings.scores, at_frame_edge(readings.boxes, width, height))

        return keep


def read_rows(readings: Detections) -> tuple[npt.NDArray[np.float32], Probabilities]:
    """The box scores and class probabilities both stages gave `readings`."""
    if readings.box_scores is None or readings.probabilities is None:
        raise InvalidDetectionsError(
            f"{readings!r} carry no box scores or class probabilities: not read by both stages"
        )
    return readings.box_scores, readings.probabilities
