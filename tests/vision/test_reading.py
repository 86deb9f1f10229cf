"""The shipped two-stage models end to end: photos in, cards out, and clear errors."""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from cribtrain.fit.train import set_metadata
from tests.samples import SAMPLES, cut_through, labelled, labelled_cards
from vision.detection.crops import crop_index
from vision.detection.detections import CLASS_NAMES, at_frame_edge, box_sizes, iou_matrix
from vision.detection.reader_classes import INK_KEY, MARGIN_KEY, NOT_AN_INDEX, reader_info
from vision.errors import BadImageError
from vision.reading import (
    DEFAULT_DETECTOR_SIDE,
    DETECTOR_FILE,
    MODELS_DIR,
    READER_FILE,
    SMALL_READER_FILE,
    SMALL_READER_PX,
    SMALL_READER_WEIGHT,
    CardReader,
    FrameDetector,
    ModelMissingError,
    ModelSizeError,
    PhotoReader,
    StageTimes,
    frame_json,
    geometric_mean,
    input_shape,
    letterbox,
    light_on_dark,
    load_model,
)
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
    return CardReader(far_look=False)


@pytest.mark.parametrize(("name", "at_least"), EXPECTED)
def test_reads_the_right_cards_on_sample_photos(
    reader: CardReader, name: str, at_least: int
) -> None:
    frame = read_image(SAMPLES / "images" / name)
    truth = labelled_cards(name, frame.shape[1], frame.shape[0])
    read = {str(card.card) for card in reader.cards(frame).cards}
    assert read <= truth, f"{name}: read cards that are not there: {sorted(read - truth)}"
    assert len(read) >= at_least, f"{name}: read only {sorted(read)}"


def test_a_float32_reader_scores_as_onnx_runtime_does() -> None:
    """Held to float32 (`float32`), OpenVINO computes as a CPU without bfloat16 units does:
    its raw scores match ONNX Runtime's (float32 everywhere) to the fourth decimal, where
    bfloat16 moves them by about a hundredth."""
    frame = read_image(SAMPLES / "images" / "dev_0594.jpg")
    exact = CardReader(backend="openvino", float32=True)
    assert exact.runtime == "openvino"
    boxes, box_scores, probabilities = exact.corners(frame)
    reference = CardReader(backend="onnxruntime").corners(frame)
    assert len(boxes) == len(reference[0]) > 10
    assert np.abs(box_scores - reference[1]).max() < 1e-4
    assert np.abs(probabilities - reference[2]).max() < 1e-4


def _threads_now() -> int:
    return len(os.listdir("/proc/self/task"))


def test_a_one_thread_model_starts_no_threads_and_reads_the_same() -> None:
    """`threads=1` (processes reading side by side) keeps ONNX Runtime's pool to the calling
    thread, where by default it starts one a core; the readings are the same."""
    crops = np.random.default_rng(0).random((4, 3, 64, 64), dtype=np.float32)
    load_model(MODELS_DIR / READER_FILE, "onnxruntime", threads=1)  # the runtime's own thread
    before = _threads_now()
    one = load_model(MODELS_DIR / READER_FILE, "onnxruntime", threads=1)
    assert _threads_now() == before
    every = load_model(MODELS_DIR / READER_FILE, "onnxruntime")
    assert _threads_now() == before + len(os.sched_getaffinity(0)) - 1
    assert np.abs(one.run(crops) - every.run(crops)).max() < 1e-5
    frame = read_image(SAMPLES / "images" / "dev_0594.jpg")
    alone, shared = CardReader(threads=1).cards(frame).cards, CardReader().cards(frame).cards
    assert [seen.card for seen in alone] == [seen.card for seen in shared]
    # OpenVINO's bfloat16 sums in another order on another number of threads
    assert max(abs(a.confidence - b.confidence) for a, b in zip(alone, shared, strict=True)) < 0.01


@pytest.mark.parametrize("backend", ["openvino", "onnxruntime"])
def test_the_detector_reads_at_the_side_asked_for(reader: CardReader, backend: str) -> None:
    """The shipped detector takes any side: 640 is the faster one, and reads the same cards
    right on the sample photo (a wrong card at either side is a regression)."""
    assert reader.input_side == DEFAULT_DETECTOR_SIDE
    small = CardReader(backend=backend, detector_size=640)
    assert small.input_side == 640
    frame = read_image(SAMPLES / "images" / "dev_0594.jpg")
    truth = labelled_cards("dev_0594.jpg", frame.shape[1], frame.shape[0])
    read = {str(card.card) for card in small.cards(frame).cards}
    assert read <= truth and len(read) >= 10
    boxes, _, _ = small.corners(frame)
    assert len(boxes) and boxes.max() <= max(frame.shape[:2])


def test_a_wide_frame_gets_a_square_photos_pixels_padded_only_to_the_stride() -> None:
    frame = np.zeros((720, 1280, 3), np.uint8)
    batch, scale, (left, top) = letterbox(frame, 800, stride=32)
    assert batch.shape == (1, 3, 576, 1024) and scale == 0.8 and (left, top) == (0, 0)
    square, scale, (left, top) = letterbox(frame, 800)
    assert square.shape == (1, 3, 800, 800) and scale == 0.625 and (left, top) == (0, 175)


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
    ("width", "height", "shape"),
    [
        (640, 640, (800, 800)),
        (1280, 720, (1024, 576)),
        (720, 1280, (576, 1024)),
        (640, 480, (896, 672)),
        (1280, 960, (896, 672)),
        (4000, 100, (1600, 64)),  # the longer side at most twice the size
        (3, 2, (960, 640)),
    ],
)
def test_every_frame_is_read_at_up_to_a_squares_pixels(
    width: int, height: int, shape: tuple[int, int]
) -> None:
    scale, (out_w, out_h) = input_shape(width, height, 800, 32)
    assert (out_w, out_h) == shape and out_w * out_h <= 800 * 800
    assert out_w - 32 < round(width * scale) <= out_w
    assert out_h - 32 < round(height * scale) <= out_h


@pytest.mark.parametrize("backend", ["openvino", "onnxruntime"])
def test_a_wide_frame_is_read_at_its_own_shape_and_boxed_where_its_indices_are(
    backend: str,
) -> None:
    """A wide frame (1152 × 640, about a camera's 16:9) reaches the detector as 1024 × 576, not
    in an 800 square, and either way its boxes land on the labelled indices in the frame's
    pixels; one loaded model runs both sizes."""
    photo = read_image(SAMPLES / "images" / "dev_0594.jpg")
    wide = np.full((640, 1152, 3), (60, 110, 40), np.uint8)  # felt either side of the photo
    wide[:, 256:896] = photo
    truth = labelled("dev_0594.jpg", 640, 640).boxes + np.float32([256, 0, 256, 0])
    detector = FrameDetector(MODELS_DIR / DETECTOR_FILE, backend)
    shapes: list[tuple[int, ...]] = []
    forward = detector.forward
    detector.forward = lambda batch: shapes.append(batch.shape) or forward(batch)  # type: ignore[func-returns-value]
    own_shape, _, _ = detector.find(wide, 0.4, StageTimes())
    detector.stride = None
    in_square, _, _ = detector.find(wide, 0.4, StageTimes())
    assert shapes == [(1, 3, 576, 1024), (1, 3, 800, 800)]
    for boxes in (own_shape, in_square):
        assert (iou_matrix(truth, boxes) >= 0.5).any(axis=1).mean() >= 0.8


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
    reader = CardReader(detector_size=side)
    assert reader.detector_input(*frame) == read_at
    batch, _, _ = letterbox(np.zeros((frame[1], frame[0], 3), np.uint8), reader.input_side, 32)
    assert batch.shape[2:] == (read_at[1], read_at[0])


def test_a_large_frame_with_small_indices_gets_a_closer_look(reader: CardReader) -> None:
    """A 1280-px table whose indices are about 11 px in the detector's 800-px input is read
    again at 1152 (and not far, at 384: its indices are small): more of its cards are read,
    each glyph boxed once."""
    frame = read_image(SAMPLES / "images" / LARGE_TABLE)
    truth = labelled_cards(LARGE_TABLE, frame.shape[1], frame.shape[0])
    pooled = {str(card.card) for card in reader.cards(frame).cards}
    assert reader.last_looks == 2  # its indices are small: no far look
    boxes, _, _ = reader.corners(frame)
    assert (iou_matrix(boxes, boxes) - np.eye(len(boxes))).max() <= 0.5
    one_look = CardReader(closer_look=False, far_look=False)
    once = {str(card.card) for card in one_look.cards(frame).cards}
    assert one_look.last_looks == 1
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
    near_reader.cards(np.ascontiguousarray(photo.repeat(scale, axis=0).repeat(scale, axis=1)))
    assert near_reader.last_looks == 1


@pytest.mark.parametrize(("width", "height", "looks"), [(1280, 720, 2), (1024, 768, 1)])
def test_a_closer_look_needs_a_fifth_more_side_than_the_first(
    near_reader: CardReader, width: int, height: int, looks: int
) -> None:
    """The middle of the large table as a 1280 × 720 camera frames it holds 960² pixels, a fifth
    more side than the first look's 800: it is read again at 960. A 1024 × 768 frame's 864 is
    too little more to be worth a second look, small as its indices are."""
    frame = read_image(SAMPLES / "images" / LARGE_TABLE)
    top, left = (frame.shape[0] - height) // 2, (frame.shape[1] - width) // 2
    near_reader.cards(np.ascontiguousarray(frame[top : top + height, left : left + width]))
    assert near_reader.last_looks == looks


def test_a_close_up_of_large_indices_is_read_by_the_far_look(reader: CardReader) -> None:
    """A corner of a real photo enlarged three times: its indices are larger than any stage 1
    learnt, and the first look misses some cards; at half the side they come into its range."""
    photo = read_image(SAMPLES / "images" / "dev_0594.jpg")
    truth = labelled("dev_0594.jpg", photo.shape[1], photo.shape[0])
    inside = (truth.boxes[:, :2] >= 320).all(axis=1)
    there = {CLASS_NAMES[c] for c in truth.class_ids[inside]}
    close_up = np.ascontiguousarray(photo[320:, 320:].repeat(3, axis=0).repeat(3, axis=1))
    near = {str(card.card) for card in CardReader(far_look=False).cards(close_up).cards}
    far = {str(card.card) for card in reader.cards(close_up).cards}
    assert reader.last_looks == 2
    assert near < far <= there and len(far) >= len(there) - 1, (
        f"first look {sorted(near)}, with the far look {sorted(far)} of {sorted(there)}"
    )


@pytest.mark.parametrize(("side", "far"), [(800, 384), (640, 320), (96, 64)])
def test_a_far_look_reads_at_half_the_side(side: int, far: int) -> None:
    detector = FrameDetector(MODELS_DIR / DETECTOR_FILE, "openvino", side)
    assert detector.far_side == far
    detector.stride = None  # as a detector exported for one size, which can read no other
    assert detector.far_side is None


@pytest.mark.parametrize(("side", "closer"), [(800, 1152), (640, 928)])
def test_a_closer_look_reads_at_about_one_and_a_half_times_the_side(side: int, closer: int) -> None:
    detector = FrameDetector(MODELS_DIR / DETECTOR_FILE, "openvino", side)
    assert detector.closer_side == closer
    detector.stride = None  # as a detector exported for one size, which can read no other
    assert detector.closer_side is None


@pytest.mark.parametrize("side", [0, 100, 650, 4128])
def test_a_detector_side_off_the_stride_or_too_large_is_refused(side: int) -> None:
    with pytest.raises(ModelSizeError, match=str(side)):
        CardReader(detector_size=side)


def test_an_index_cut_by_the_frames_edge_counts_only_from_the_edge_threshold() -> None:
    reader = CardReader()
    shipped = reader.calibration
    assert shipped is not None and shipped.edge_threshold is not None
    frame, _ = cut_through("dev_0594.jpg", 14)
    reader.calibration = replace(shipped, edge_threshold=None)
    every = reader.read(frame)
    at_edge = at_frame_edge(every.boxes, frame.shape[1], frame.shape[0])
    assert (every.scores[at_edge] < 0.9).sum() >= 2 and (every.scores[at_edge] >= 0.9).any()
    reader.calibration = replace(shipped, edge_threshold=0.9)
    assert reader.read(frame) == every[~at_edge | (every.scores >= 0.9)]


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


def test_stage_times_are_reported(reader: CardReader) -> None:
    reader.read(read_image(SAMPLES / "images" / "dev_0075.jpg"))
    times = reader.last_times
    assert times.detect > 0 and times.read > 0 and times.total() >= times.detect


def test_an_empty_table_reads_no_cards(reader: CardReader) -> None:
    felt = np.full((480, 640, 3), (40, 110, 40), np.uint8)
    assert len(reader.cards(felt).cards) == 0


def test_photo_reader_answers_the_detect_json_shape() -> None:
    data = (SAMPLES / "images" / "dev_0075.jpg").read_bytes()
    answer = PhotoReader().detect(data, "dev_0075.jpg")
    assert answer["image"] == "dev_0075.jpg"
    assert {"card", "confidence", "box"} <= set(answer["cards"][0])
    json.dumps(answer)  # plain JSON all the way down


@pytest.mark.parametrize("data", [b"", b"not an image", b"\xff\xd8\xff\xe0" + b"\0" * 64])
def test_bad_image_bytes_raise_a_clear_error(data: bytes) -> None:
    with pytest.raises(BadImageError, match=r"image|bytes"):
        PhotoReader().detect(data, "bad.jpg")


def test_missing_models_are_named(tmp_path: Path) -> None:
    with pytest.raises(ModelMissingError, match=r"corner-detector\.onnx"):
        CardReader(tmp_path)
    assert (MODELS_DIR / "corner-detector.onnx").exists()


def test_index_boxes_box_each_glyph_once(reader: CardReader) -> None:
    frame = read_image(SAMPLES / "images" / "dev_0594.jpg")
    boxes = reader.index_boxes(frame)
    overlaps = iou_matrix(boxes, boxes) - np.eye(len(boxes))
    assert len(boxes) >= 14 and overlaps.max() <= 0.5
    raw, _, _ = reader.corners(frame)  # from 0.1, duplicates and all: more boxes
    assert len(raw) > len(boxes)


def _index_crops(name: str) -> tuple[np.ndarray, list[str]]:
    """Each labelled index of a sample photo, cut as the app cuts it, and its card."""
    frame = read_image(SAMPLES / "images" / name)
    truth = labelled(name, frame.shape[1], frame.shape[0])
    crops = np.stack([crop_index(frame, box, 64) for box in truth.boxes])
    return crops, [CLASS_NAMES[c] for c in truth.class_ids]


def test_light_ink_on_a_dark_face_is_told_from_dark_ink_on_a_light_one() -> None:
    crops, _ = _index_crops("dev_0594.jpg")  # a standard deck: black and red ink on white
    assert not light_on_dark(crops).any()
    assert light_on_dark(255 - crops).all()


def test_an_index_printed_light_on_dark_reads_as_its_negative(reader: CardReader) -> None:
    crops, cards = _index_crops("dev_0594.jpg")
    plain = reader.classify(crops).argmax(axis=1)
    negative = reader.classify(255 - crops).argmax(axis=1)
    right = [CLASS_NAMES[c] == card for c, card in zip(plain, cards, strict=True)]
    assert sum(right) >= 0.8 * len(cards)
    assert (negative == plain).mean() >= 0.9


def test_a_reader_tuned_on_a_dark_ink_deck_reads_no_negatives(
    reader: CardReader, tmp_path: Path
) -> None:
    """A deck tune records the deck's ink in the reader; a dark-ink deck's reader reads light
    crops only as cut (the negative test there mistakes glare for light ink)."""
    crops, cards = _index_crops("dev_0594.jpg")
    inverted = 255 - crops
    for ink in ("dark", "light"):
        copy = tmp_path / f"{ink}.onnx"
        copy.write_bytes((MODELS_DIR / READER_FILE).read_bytes())
        set_metadata(copy, {INK_KEY: ink})
        tuned = CardReader(MODELS_DIR, reader_path=copy)
        assert tuned.ink == ink
        read = tuned.classify(inverted).argmax(axis=1)
        right = np.mean([CLASS_NAMES[c] == card for c, card in zip(read, cards, strict=True)])
        if ink == "dark":
            np.testing.assert_array_equal(
                read, tuned._read_turned(inverted, tuned._reader).argmax(axis=1)
            )
            assert right < 0.5
        else:
            assert right >= 0.8
    assert reader.ink is None  # the base reader knows no one deck: it reads negatives


def _constant_reader(path: Path, names: list[str], probabilities: list[float]) -> Path:
    """A reader ONNX that gives every crop the same `probabilities` over classes `names`."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    logits = np.log(np.asarray(probabilities, np.float32))
    nodes = [
        helper.make_node("GlobalAveragePool", ["images"], ["pooled"]),
        helper.make_node("Flatten", ["pooled"], ["flat"]),
        helper.make_node("Gemm", ["flat", "weights", "bias"], ["logits"]),
        helper.make_node("Softmax", ["logits"], ["output0"], axis=1),
    ]
    graph = helper.make_graph(
        nodes,
        "constant-reader",
        [helper.make_tensor_value_info("images", TensorProto.FLOAT, ["batch", 3, 64, 64])],
        [helper.make_tensor_value_info("output0", TensorProto.FLOAT, ["batch", len(names)])],
        [
            numpy_helper.from_array(np.zeros((3, len(names)), np.float32), "weights"),
            numpy_helper.from_array(logits, "bias"),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(path))
    set_metadata(path, {"names": str(dict(enumerate(names)))})
    return path


def test_a_reader_with_a_not_an_index_class_leaves_the_cards_what_it_does_not_take(
    tmp_path: Path,
) -> None:
    """A 53rd "none" class (stage 1's boxes on pips, art and keys) sorts after the cards; its
    share is taken from every card's, so a box the reader calls no index scores low."""
    names = [*sorted(CLASS_NAMES), NOT_AN_INDEX]
    probabilities = np.full(len(names), 0.1 / 51)
    probabilities[names.index("5H")], probabilities[names.index(NOT_AN_INDEX)] = 0.3, 0.6
    path = _constant_reader(tmp_path / "reader.onnx", names, probabilities.tolist())
    info = reader_info(path)
    assert info.none_column == 52
    assert [names[c] for c in info.columns] == list(CLASS_NAMES)
    read = CardReader(MODELS_DIR, reader_path=path).classify(np.full((2, 64, 64, 3), 200, np.uint8))
    assert read.shape == (2, 52)
    assert [CLASS_NAMES[c] for c in read.argmax(axis=1)] == ["5H", "5H"]
    np.testing.assert_allclose(read.max(axis=1), 0.3, atol=0.005)  # bfloat16 here
    np.testing.assert_allclose(read.sum(axis=1), 0.4, atol=0.005)


def test_a_reader_of_the_52_cards_only_gives_them_all_its_probability(tmp_path: Path) -> None:
    names = sorted(CLASS_NAMES)
    probabilities = np.full(52, 0.5 / 51)
    probabilities[names.index("QS")] = 0.5
    path = _constant_reader(tmp_path / "reader.onnx", names, probabilities.tolist())
    assert reader_info(path).none_column is None
    read = CardReader(MODELS_DIR, reader_path=path).classify(np.full((1, 64, 64, 3), 200, np.uint8))
    assert CLASS_NAMES[int(read.argmax())] == "QS"
    np.testing.assert_allclose(read.sum(axis=1), 1.0, atol=0.005)


def test_small_boxes_are_read_again_by_the_small_index_reader_where_the_models_have_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A small-index reader that reads every crop as 5H, at its own crop margin: the boxes
    under `SMALL_READER_PX` read the weighted geometric mean of the main reader's reading and
    5H, the others as the main reader reads them; beside a deck's reader as well."""
    models = tmp_path / "models"
    models.mkdir()
    for name in (DETECTOR_FILE, READER_FILE, "calibration.json"):
        (models / name).symlink_to(MODELS_DIR / name)
    names = sorted(CLASS_NAMES)
    constant = np.full(52, 0.1 / 51)
    constant[names.index("5H")] = 0.9
    small_reader = _constant_reader(models / SMALL_READER_FILE, names, constant.tolist())
    set_metadata(small_reader, {MARGIN_KEY: "0.85"})
    frame = read_image(SAMPLES / "images" / LARGE_TABLE)
    margins: list[float] = []

    def cut(pixels: np.ndarray, box: np.ndarray, out: int, margin: float = 0.15) -> np.ndarray:
        margins.append(margin)
        return crop_index(pixels, box, out, margin=margin)

    monkeypatch.setattr("vision.reading.crop_index", cut)
    boxes, _, read = CardReader(models)._look(frame, None, StageTimes())
    small = box_sizes(boxes) < SMALL_READER_PX
    assert small.sum() >= 3 and (~small).sum() >= 3
    assert margins == [0.15] * len(boxes) + [0.85] * int(small.sum())

    alone = CardReader(models, small_reader=False)._look(frame, None, StageTimes())[2]
    np.testing.assert_allclose(read[~small], alone[~small])
    in_card_order = constant[[names.index(name) for name in CLASS_NAMES]]
    weight = SMALL_READER_WEIGHT
    both = alone[small] ** (1 - weight) * in_card_order**weight
    np.testing.assert_allclose(read[small], both / both.sum(axis=1, keepdims=True), atol=0.01)
    assert (read[small, CLASS_NAMES.index("5H")] > alone[small, CLASS_NAMES.index("5H")]).all()
    deck = CardReader(models, reader_path=models / READER_FILE)
    np.testing.assert_allclose(deck._look(frame, None, StageTimes())[2], read)


def test_the_geometric_mean_of_two_readings_leans_to_the_weighted_one() -> None:
    """Weight 0 or 1 gives one reading back, "not an index" included; in between, the card
    the weighted reading prefers wins and the result is still a distribution."""
    first = np.zeros((1, 52), np.float32)
    second = np.zeros((1, 52), np.float32)
    first[0, :2], second[0, :2] = (0.8, 0.1), (0.2, 0.7)  # "not an index": 0.1 each
    np.testing.assert_allclose(geometric_mean(first, second, 0.0), first, atol=1e-5)
    np.testing.assert_allclose(geometric_mean(first, second, 1.0), second, atol=1e-5)
    even, leaning = geometric_mean(first, second), geometric_mean(first, second, 0.7)
    assert even[0, 0] > even[0, 1] and leaning[0, 1] > leaning[0, 0]
    assert 0.99 > even.sum() > 0.8


def test_a_decks_reader_reads_large_boxes_with_the_base_reader_beside_it(tmp_path: Path) -> None:
    """A deck reader that reads every crop as 5H, with the base reader beside it: the boxes the
    small-index reader leaves read the weighted geometric mean of both, the small ones as
    without it; at weight 0, or for the base reader itself, the deck's reader alone."""
    names = sorted(CLASS_NAMES)
    constant = np.full(52, 0.1 / 51)
    constant[names.index("5H")] = 0.9
    deck = _constant_reader(tmp_path / "deck.onnx", names, constant.tolist())
    frame = read_image(SAMPLES / "images" / LARGE_TABLE)

    def look(reader: CardReader) -> tuple[np.ndarray, np.ndarray]:
        boxes, _, read = reader._look(frame, None, StageTimes())
        return boxes, read

    boxes, alone = look(CardReader(MODELS_DIR, reader_path=deck, base_weight=0.0))
    weight = 0.4
    both_boxes, both = look(CardReader(MODELS_DIR, reader_path=deck, base_weight=weight))
    np.testing.assert_array_equal(both_boxes, boxes)
    small = box_sizes(boxes) < SMALL_READER_PX
    assert small.sum() >= 3 and (~small).sum() >= 3
    base = CardReader(MODELS_DIR)
    crops = np.stack([crop_index(frame, box, base.reader_size) for box in boxes[~small]])
    expected = geometric_mean(alone[~small], base.classify(crops), weight)
    np.testing.assert_allclose(both[~small], expected, atol=1e-5)
    np.testing.assert_allclose(both[small], alone[small], atol=1e-6)
    assert not np.allclose(both[~small], alone[~small], atol=0.01)
    itself = CardReader(MODELS_DIR, reader_path=MODELS_DIR / READER_FILE, base_weight=weight)
    np.testing.assert_allclose(look(itself)[1], look(CardReader(MODELS_DIR))[1], atol=1e-6)
