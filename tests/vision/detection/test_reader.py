"""Stage 2, the index reader: crops read at quarter turns, light ink as its negative, a
"not an index" class, and the small-index and base readers beside the main one."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cribtrain.fit.train import set_metadata
from tests.samples import SAMPLES, labelled
from vision.config import DEFAULT_READING, ReadingConfig
from vision.detection.crops import crop_index
from vision.detection.detections import CLASS_NAMES, box_sizes
from vision.detection.models import DETECTOR_FILE, MODELS_DIR, READER_FILE, SMALL_READER_FILE
from vision.detection.reader import (
    IndexReader,
    geometric_mean,
    light_on_dark,
    surer_where_agreeing,
)
from vision.detection.reader_classes import (
    BASE_SHARE_KEY,
    INK_KEY,
    MARGIN_KEY,
    NOT_AN_INDEX,
    onnx_metadata,
    reader_info,
)
from vision.errors import VisionError
from vision.reading import CardReader
from vision.table.sources import read_image

#: A 1280-px table of a held-out design, its indices small.
LARGE_TABLE = "syn1280_77_000067.jpg"


@pytest.fixture(scope="module")
def reader() -> CardReader:
    return CardReader()


def _look(reader: CardReader, frame: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """One look's boxes and their class probabilities, both stages at stage 1's own side."""
    read = reader.read_indices(frame, reader.find_indices(frame))
    assert read.probabilities is not None
    return read.boxes, read.probabilities


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


@pytest.mark.slow  # reads whole frames through the shipped models
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
            stage = tuned.index_reader
            np.testing.assert_array_equal(
                read, stage.read_turned(inverted, stage.main).argmax(axis=1)
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


@pytest.mark.slow  # reads whole frames through the shipped models
def test_small_boxes_are_read_again_by_the_small_index_reader_where_the_models_have_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A small-index reader that reads every crop as 5H, at its own crop margin: the boxes
    under `small_reader_px` read the weighted geometric mean of the main reader's reading and
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

    monkeypatch.setattr("vision.detection.reader.crop_index", cut)
    boxes, read = _look(CardReader(models), frame)
    small = box_sizes(boxes) < DEFAULT_READING.small_reader_px
    assert small.sum() >= 3 and (~small).sum() >= 3
    assert margins == [0.15] * len(boxes) + [0.85] * int(small.sum())

    alone = _look(CardReader(models, config=ReadingConfig(small_reader=False)), frame)[1]
    np.testing.assert_allclose(read[~small], alone[~small])
    in_card_order = constant[[names.index(name) for name in CLASS_NAMES]]
    weight = DEFAULT_READING.small_reader_weight
    both = alone[small] ** (1 - weight) * in_card_order**weight
    np.testing.assert_allclose(read[small], both / both.sum(axis=1, keepdims=True), atol=0.01)
    assert (read[small, CLASS_NAMES.index("5H")] > alone[small, CLASS_NAMES.index("5H")]).all()
    deck = CardReader(models, reader_path=models / READER_FILE)
    np.testing.assert_allclose(_look(deck, frame)[1], read)


def test_a_deck_reader_holding_the_base_in_its_weights_keeps_the_base_beside_it(
    tmp_path: Path,
) -> None:
    """A deck's reader whose tune recorded the base reader's share of its weights reads with
    the base reader beside it, keeping the surer where they agree (unless `deck_keeps_base` is
    off: then alone, each index read once); one from an older tune, without it, reads beside
    the base reader as their geometric mean (unless `deck_base_weight` is 0)."""
    names = sorted(CLASS_NAMES)
    older = _constant_reader(tmp_path / "older.onnx", names, [1 / 52] * 52)
    newer = _constant_reader(tmp_path / "newer.onnx", names, [1 / 52] * 52)
    set_metadata(newer, {BASE_SHARE_KEY: "0.5"})
    assert reader_info(older).base_share is None and reader_info(newer).base_share == 0.5

    def load(path: Path | None, config: ReadingConfig = DEFAULT_READING) -> IndexReader:
        return IndexReader.load(MODELS_DIR, path, config, lambda _: np.asarray)

    def base_of(path: Path | None, config: ReadingConfig = DEFAULT_READING) -> object:
        return load(path, config).base

    assert base_of(newer) is not None and load(newer).keeps_base
    assert base_of(newer, ReadingConfig(deck_keeps_base=False)) is None
    assert base_of(None) is None and base_of(MODELS_DIR / READER_FILE) is None
    assert base_of(older) is not None and not load(older).keeps_base
    assert base_of(older, ReadingConfig(deck_base_weight=0.0)) is None
    for unusable in ("", "half", "1.5", "-0.1"):
        set_metadata(newer, {BASE_SHARE_KEY: unusable})
        assert reader_info(newer).base_share is None


def test_a_deck_reader_beside_the_base_keeps_the_surer_reading_where_they_agree() -> None:
    """Both name 5H: the surer (the base's 0.95, not the deck's 0.6); they differ: neither is
    taken on its own word (their even geometric mean)."""
    five, six = CLASS_NAMES.index("5H"), CLASS_NAMES.index("6H")
    deck = np.full((2, 52), 0.001, np.float32)
    base = np.full((2, 52), 0.001, np.float32)
    deck[0, five], base[0, five] = 0.6, 0.95
    deck[1, five], base[1, six] = 0.9, 0.8
    out = surer_where_agreeing(deck, base)
    np.testing.assert_allclose(out[0], base[0])
    np.testing.assert_allclose(out[1], geometric_mean(deck, base)[1])
    assert out[1].max() < 0.8


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


@pytest.mark.slow  # reads whole frames through the shipped models
def test_a_decks_reader_reads_large_boxes_with_the_base_reader_beside_it(tmp_path: Path) -> None:
    """A deck reader from an older tune (no base share recorded: see the test above) that reads
    every crop as 5H, with the base reader beside it: the boxes the
    small-index reader leaves read the weighted geometric mean of both, the small ones as
    without it; at weight 0, or for the base reader itself, the deck's reader alone."""
    names = sorted(CLASS_NAMES)
    constant = np.full(52, 0.1 / 51)
    constant[names.index("5H")] = 0.9
    deck = _constant_reader(tmp_path / "deck.onnx", names, constant.tolist())
    frame = read_image(SAMPLES / "images" / LARGE_TABLE)

    def look(reader: CardReader) -> tuple[np.ndarray, np.ndarray]:
        return _look(reader, frame)

    boxes, alone = look(CardReader(reader_path=deck, config=ReadingConfig(deck_base_weight=0.0)))
    weight = 0.4
    weighted = ReadingConfig(deck_base_weight=weight)
    both_boxes, both = look(CardReader(reader_path=deck, config=weighted))
    np.testing.assert_array_equal(both_boxes, boxes)
    small = box_sizes(boxes) < DEFAULT_READING.small_reader_px
    assert small.sum() >= 3 and (~small).sum() >= 3
    base = CardReader(MODELS_DIR)
    crops = np.stack([crop_index(frame, box, base.config.reader_px) for box in boxes[~small]])
    expected = geometric_mean(alone[~small], base.classify(crops), weight)
    np.testing.assert_allclose(both[~small], expected, atol=1e-5)
    np.testing.assert_allclose(both[small], alone[small], atol=1e-6)
    assert not np.allclose(both[~small], alone[~small], atol=0.01)
    itself = CardReader(reader_path=MODELS_DIR / READER_FILE, config=weighted)
    np.testing.assert_allclose(look(itself)[1], look(CardReader(MODELS_DIR))[1], atol=1e-6)


@pytest.mark.parametrize("name", sorted(p.name for p in MODELS_DIR.glob("*.onnx")))
def test_a_model_s_metadata_is_read_as_onnx_reads_it_without_an_engine(name: str) -> None:
    import onnx

    model = onnx.load(str(MODELS_DIR / name), load_external_data=False)
    assert onnx_metadata(MODELS_DIR / name) == {p.key: p.value for p in model.metadata_props}


def test_a_model_file_cut_short_is_named(tmp_path: Path) -> None:
    cut = tmp_path / "corner-reader.onnx"
    cut.write_bytes((MODELS_DIR / READER_FILE).read_bytes()[:100_000])
    with pytest.raises(VisionError, match=r"corner-reader\.onnx"):
        reader_info(cut)
