"""The reading path end to end: photos in, index readings, cards and stage times out."""

from __future__ import annotations

import threading
from dataclasses import fields, replace
from pathlib import Path

import numpy as np
import pytest

from tests.samples import SAMPLES, cut_through, labelled, labelled_cards
from vision.config import DEFAULT_DETECTOR_SIDE, ReadingConfig
from vision.detection.detections import CLASS_NAMES, at_frame_edge, iou_matrix
from vision.detection.finder import letterbox
from vision.detection.models import MODELS_DIR, ModelMissingError, ModelSizeError
from vision.frame_json import frame_json
from vision.reading import STAGES, CardReader, Reading, StageTimes, read_rows
from vision.table.sources import read_image

# (photo, fewest cards the shipped models read right on it). Every card read must be labelled:
# a wrong card on these photos is a regression. The shipped models of 2026-11-30 (preview 4)
# read 12 of 14, 6 of 6 and 22 of 24 here; the figures leave a margin for runtime differences.
EXPECTED = [("dev_0594.jpg", 11), ("dev_0075.jpg", 5), ("syn_77_000013.jpg", 20)]
#: A 1280-px table of a held-out design, its indices small: one look reads 10 of its 15 cards.
LARGE_TABLE = "syn1280_77_000067.jpg"


@pytest.fixture(scope="module")
def reader() -> CardReader:
    return CardReader()


@pytest.fixture(scope="module")
def near_reader() -> CardReader:
    """The shipped reader without the far look, so its looks count the closer one alone."""
    return CardReader(config=ReadingConfig(far_look=False))


@pytest.mark.parametrize(("name", "at_least"), EXPECTED)
def test_reads_the_right_cards_on_sample_photos(
    reader: CardReader, name: str, at_least: int
) -> None:
    frame = read_image(SAMPLES / "images" / name)
    truth = labelled_cards(name, frame.shape[1], frame.shape[0])
    read = {str(card.card) for card in reader.cards(frame).cards}
    assert read <= truth, f"{name}: read cards that are not there: {sorted(read - truth)}"
    assert len(read) >= at_least, f"{name}: read only {sorted(read)}"


@pytest.mark.slow  # reads whole frames through the shipped models
@pytest.mark.parametrize("backend", ["openvino", "onnxruntime"])
def test_the_detector_reads_at_the_side_asked_for(reader: CardReader, backend: str) -> None:
    """The shipped detector takes any side: 640 is the faster one, and reads the same cards
    right on the sample photo (a wrong card at either side is a regression)."""
    assert reader.input_side == DEFAULT_DETECTOR_SIDE
    small = CardReader(backend=backend, config=ReadingConfig(detector_side=640))
    assert small.input_side == 640
    frame = read_image(SAMPLES / "images" / "dev_0594.jpg")
    truth = labelled_cards("dev_0594.jpg", frame.shape[1], frame.shape[0])
    read = {str(card.card) for card in small.cards(frame).cards}
    assert read <= truth and len(read) >= 10
    boxes = small.index_readings(frame).boxes
    assert len(boxes) and boxes.max() <= max(frame.shape[:2])


@pytest.mark.parametrize(("width", "height"), [(20_000, 2), (2, 20_000), (1, 1)])
def test_a_sliver_or_a_dot_of_a_frame_is_read_without_error(
    reader: CardReader, width: int, height: int
) -> None:
    """A 20,000 x 2 picture scales to under one pixel across; it is read (no card) at one."""
    for stride in (None, 32):
        batch, _, _ = letterbox(np.zeros((height, width, 3), np.uint8), 800, stride)
        assert min(batch.shape[2:]) >= 1
    assert reader.cards(np.zeros((height, width, 3), np.uint8)).cards == ()


@pytest.mark.parametrize(
    ("frame", "side", "read_at"),
    [
        ((640, 640), None, (800, 800)),
        ((1280, 720), None, (1024, 576)),
        ((1280, 720), 640, (832, 480)),
    ],
)
def test_the_reader_tells_the_size_its_detector_reads_a_frame_at(
    frame: tuple[int, int], side: int | None, read_at: tuple[int, int]
) -> None:
    reader = CardReader(config=ReadingConfig(detector_side=side))
    assert reader.detector_input(*frame) == read_at
    batch, _, _ = letterbox(np.zeros((frame[1], frame[0], 3), np.uint8), reader.input_side, 32)
    assert batch.shape[2:] == (read_at[1], read_at[0])


@pytest.mark.slow  # reads whole frames through the shipped models
def test_a_large_frame_with_small_indices_gets_a_closer_look(reader: CardReader) -> None:
    """A 1280-px table whose indices are about 11 px in the detector's 800-px input is read
    again at 1152 (and not far, at 384: its indices are small): more of its cards are read,
    each glyph boxed once."""
    frame = read_image(SAMPLES / "images" / LARGE_TABLE)
    truth = labelled_cards(LARGE_TABLE, frame.shape[1], frame.shape[0])
    reading = reader.read(frame)
    pooled = {str(card.card) for card in reading.cards.cards}
    assert reading.looks == 2  # its indices are small: no far look
    boxes = reader.index_readings(frame).boxes
    assert (iou_matrix(boxes, boxes) - np.eye(len(boxes))).max() <= 0.5
    one_look = CardReader(config=ReadingConfig(closer_look=False, far_look=False))
    alone = one_look.read(frame)
    once = {str(card.card) for card in alone.cards.cards}
    assert alone.looks == 1
    assert len(pooled & truth) > len(once & truth) and len(pooled - truth) <= 1, (
        f"one look {sorted(once)}, two {sorted(pooled)}"
    )


@pytest.mark.parametrize("scale", [1, 2])
def test_no_closer_look_without_more_pixels_or_at_large_indices(
    near_reader: CardReader, scale: int
) -> None:
    """A 640-px photo holds fewer pixels than a closer look would read; doubled to 1280 px,
    its indices are large in the detector's 800-px input already."""
    photo = read_image(SAMPLES / "images" / "dev_0594.jpg")
    frame = np.ascontiguousarray(photo.repeat(scale, axis=0).repeat(scale, axis=1))
    assert near_reader.read(frame).looks == 1


@pytest.mark.slow  # reads whole frames through the shipped models
@pytest.mark.parametrize(("width", "height", "looks"), [(1280, 720, 2), (1024, 768, 1)])
def test_a_closer_look_needs_a_fifth_more_side_than_the_first(
    near_reader: CardReader, width: int, height: int, looks: int
) -> None:
    """The middle of the large table as a 1280 × 720 camera frames it holds 960² pixels, a fifth
    more side than the first look's 800: it is read again at 960. A 1024 × 768 frame's 864 is
    too little more to be worth a second look, small as its indices are."""
    frame = read_image(SAMPLES / "images" / LARGE_TABLE)
    top, left = (frame.shape[0] - height) // 2, (frame.shape[1] - width) // 2
    middle = np.ascontiguousarray(frame[top : top + height, left : left + width])
    assert near_reader.read(middle).looks == looks


@pytest.mark.slow  # reads whole frames through the shipped models
def test_a_close_up_of_large_indices_is_read_by_the_far_look(reader: CardReader) -> None:
    """A corner of a real photo enlarged three times: its indices are larger than any stage 1
    learnt, and the first look misses some cards; at half the side they come into its range."""
    photo = read_image(SAMPLES / "images" / "dev_0594.jpg")
    truth = labelled("dev_0594.jpg", photo.shape[1], photo.shape[0])
    inside = (truth.boxes[:, :2] >= 240).all(axis=1)
    there = {CLASS_NAMES[c] for c in truth.class_ids[inside]}
    close_up = np.ascontiguousarray(photo[240:, 240:].repeat(3, axis=0).repeat(3, axis=1))
    near = {str(card.card) for card in CardReader(config=ReadingConfig(far_look=False))
            .cards(close_up).cards}  # fmt: skip
    reading = reader.read(close_up)
    far = {str(card.card) for card in reading.cards.cards}
    assert reading.looks == 2
    assert near < far <= there and len(far) >= len(there) - 1, (
        f"first look {sorted(near)}, with the far look {sorted(far)} of {sorted(there)}"
    )


@pytest.mark.slow  # reads whole frames through the shipped models
def test_an_index_cut_by_the_frames_edge_counts_only_from_the_edge_threshold() -> None:
    reader = CardReader()
    shipped = reader.calibration
    assert shipped is not None and shipped.edge_threshold is not None
    frame, _ = cut_through("dev_0594.jpg", 14)
    reader.calibration = replace(shipped, edge_threshold=None)
    every = reader.read(frame).indices
    at_edge = at_frame_edge(every.boxes, frame.shape[1], frame.shape[0])
    assert (every.scores[at_edge] < 0.9).sum() >= 2 and (every.scores[at_edge] >= 0.9).any()
    reader.calibration = replace(shipped, edge_threshold=0.9)
    assert reader.read(frame).indices == every[~at_edge | (every.scores >= 0.9)]


@pytest.mark.slow  # reads whole frames through the shipped models
def test_the_shipped_calibration_sets_a_cut_index_aside_and_says_so() -> None:
    """Cut through by the frame's edge, a 5D's index is not read, and a reading at the cut
    over the card threshold but under the edge threshold (at the frame's edge such readings
    are right less often) is set aside: the frame says a card was set aside there. A 3H cut
    the same way reads as 2H, under the card threshold: never a card."""
    reader = CardReader()
    assert reader.calibration is not None
    frame, card = cut_through("dev_0594.jpg", 5)
    assert card == "5D"
    seen = reader.cards(frame)
    assert "5D" not in {str(card.card) for card in seen.cards}
    assert seen.cut_at_edge and frame_json("cut.jpg", seen)["cut_at_edge"] is True
    whole = reader.cards(read_image(SAMPLES / "images" / "dev_0594.jpg"))
    assert "5D" in {str(card.card) for card in whole.cards}
    assert not whole.cut_at_edge  # its cards are all in view
    three, card = cut_through("dev_0594.jpg", 14)
    assert card == "3H" and "2H" not in labelled_cards("dev_0594.jpg", 640, 640)
    assert "2H" not in {str(card.card) for card in reader.cards(three).cards}
    reader.calibration = replace(reader.calibration, edge_threshold=None)
    unguarded = reader.cards(frame)
    assert len(unguarded.cards) > len(seen.cards) and not unguarded.cut_at_edge


def test_an_empty_table_reads_no_cards(reader: CardReader) -> None:
    felt = np.full((480, 640, 3), (40, 110, 40), np.uint8)
    assert len(reader.cards(felt).cards) == 0


def test_missing_models_are_named(tmp_path: Path) -> None:
    with pytest.raises(ModelMissingError, match=r"corner-detector\.onnx"):
        CardReader(tmp_path)
    assert (MODELS_DIR / "corner-detector.onnx").exists()


def test_index_boxes_box_each_glyph_once(reader: CardReader) -> None:
    frame = read_image(SAMPLES / "images" / "dev_0594.jpg")
    boxes = reader.index_boxes(frame)
    overlaps = iou_matrix(boxes, boxes) - np.eye(len(boxes))
    assert len(boxes) >= 14 and overlaps.max() <= 0.5
    raw = reader.find_indices(frame)  # from 0.1, duplicates and all: more boxes
    assert len(raw) > len(boxes)


@pytest.mark.slow  # reads whole frames through the shipped models
def test_a_float32_reader_scores_as_onnx_runtime_does() -> None:
    """Held to float32 (`float32`), OpenVINO computes as a CPU without bfloat16 units does:
    its raw scores match ONNX Runtime's (float32 everywhere) to the fourth decimal, where
    bfloat16 moves them by about a hundredth."""
    frame = read_image(SAMPLES / "images" / "dev_0594.jpg")
    exact = CardReader(backend="openvino", float32=True)
    assert exact.runtime == "openvino"
    readings = exact.index_readings(frame)
    reference = CardReader(backend="onnxruntime").index_readings(frame)
    assert len(readings) == len(reference) > 10
    for ours, theirs in zip(read_rows(readings), read_rows(reference), strict=True):
        assert np.abs(ours - theirs).max() < 1e-4


@pytest.mark.parametrize("side", [0, 100, 650, 4128])
def test_a_detector_side_off_the_stride_or_too_large_is_refused(side: int) -> None:
    with pytest.raises(ModelSizeError, match=str(side)):
        CardReader(config=ReadingConfig(detector_side=side))


def test_each_stage_passes_detections_on(reader: CardReader) -> None:
    """Stage 1 boxes indices of no card yet; stage 2 adds each one's class probabilities;
    scoring names the likeliest card; orienting adds which way each faces; the cards and the
    readings kept are what `read` gives."""
    frame = read_image(SAMPLES / "images" / "dev_0075.jpg")
    found = reader.find_indices(frame)
    assert len(found) and (found.class_ids == -1).all() and found.probabilities is None
    read = reader.read_indices(frame, found)
    assert read.boxes is not found.boxes and np.array_equal(read.boxes, found.boxes)
    box_scores, probabilities = read_rows(read)
    assert probabilities.shape == (len(found), 52)
    scored = reader.score(read)
    assert (scored.class_ids == probabilities.argmax(axis=1)).all()
    assert np.array_equal(scored.box_scores, box_scores)
    oriented = reader.orient(frame, scored)
    assert oriented.facing is not None and np.array_equal(oriented.scores, scored.scores)
    reading = reader.read(frame)
    assert set(reading.indices.cards()) >= {card.card for card in reading.cards.cards}
    grouped = reader.group_into_cards(reading.indices).cards  # no conflict to resolve
    assert [c.card for c in grouped] == [c.card for c in reading.cards.cards]


def _stages_run(reader: CardReader) -> list[str]:
    """The stages `reader` runs on every frame: the face reading only where asked."""
    return [s for s in STAGES if s != "read_faces" or reader.config.pips.enabled]


def test_a_reading_carries_the_time_of_every_stage(reader: CardReader) -> None:
    reading = reader.read(read_image(SAMPLES / "images" / "dev_0075.jpg"))
    assert STAGES == ("find_indices", "read_indices", "score", "orient", "group_into_cards",
                      "resolve_conflicts", "read_faces")  # fmt: skip
    assert [f.name for f in fields(StageTimes)] == list(STAGES)
    assert all(getattr(reading.times, stage) > 0 for stage in _stages_run(reader)), reading.times
    assert reading.times.total() == pytest.approx(
        sum(getattr(reading.times, stage) for stage in STAGES)
    )
    assert reading.looks >= 1


def test_two_threads_reading_at_once_get_each_their_own_timings_and_looks(
    reader: CardReader,
) -> None:
    """One reader serves the photo endpoint and the server camera at once: each reading keeps
    its own times and looks. Both threads are held at stage 1 until both are inside it."""
    felt = np.full((480, 640, 3), (40, 110, 40), np.uint8)  # one look: no index to size
    large = read_image(SAMPLES / "images" / LARGE_TABLE)  # a closer look as well
    alone = {name: reader.read(frame).looks for name, frame in (("felt", felt),
                                                                 ("large", large))}  # fmt: skip
    assert alone == {"felt": 1, "large": 2}
    both_inside = threading.Barrier(2, timeout=60)
    first_look = threading.local()
    find = reader.find_indices
    readings: dict[str, Reading] = {}

    def held_find(frame: np.ndarray, side: int | None = None):  # type: ignore[no-untyped-def]
        if not getattr(first_look, "done", False):
            first_look.done = True
            both_inside.wait()
        return find(frame, side)

    def read(name: str, frame: np.ndarray) -> None:
        readings[name] = reader.read(frame)

    reader.find_indices = held_find  # type: ignore[method-assign]
    try:
        threads = [threading.Thread(target=read, args=item)
                   for item in (("felt", felt), ("large", large))]  # fmt: skip
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
    finally:
        del reader.find_indices
    assert not both_inside.broken
    assert {name: reading.looks for name, reading in readings.items()} == alone
    assert readings["felt"].times != readings["large"].times
    for reading in readings.values():
        assert all(getattr(reading.times, stage) > 0 for stage in _stages_run(reader))
