"""Stage 2, the index reader: a YOLO classifier of the 52 cards (and "not an index") run on a
square crop of each found index, cut from the full-resolution frame so small glyphs keep their
pixels. Each crop is read at several quarter turns, light ink on a dark face as its negative
too; small indices are read again by the small-index reader where the models have one. A deck's
tuned reader holds the base reader in its weights; it reads beside the base reader, keeping
the surer reading where the two agree (`ReadingConfig.deck_keeps_base`), so a taught deck
names the cards the base reader names surely; one from an older tune, which does not hold it,
reads beside the base reader as their geometric mean."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from vision.config import ReadingConfig
from vision.detection.crops import READ_MARGIN, crop_index
from vision.detection.detections import CLASS_NAMES, Detections, box_sizes
from vision.detection.models import (
    READER_FILE,
    SMALL_READER_FILE,
    Forward,
    Image,
    model_input,
)
from vision.detection.reader_classes import ReaderInfo, reader_info

Probabilities = npt.NDArray[np.float32]
#: Loads one network's forward pass from its ONNX file (`load_model`, bound to an engine).
Loader = Callable[[Path], Forward]


class ReaderNetwork(NamedTuple):
    """One classifier network: its forward pass, the output columns of the card classes, then
    of "not an index" where it has one (`ReaderInfo.read_columns`), and the margin its crops
    are cut at."""

    run: Forward
    columns: npt.NDArray[np.int64]
    margin: float = READ_MARGIN

    @property
    def inset(self) -> float:
        """Where the index starts in its crop (share of the side), a little inside: the part
        `light_on_dark` looks at (0.15 at `READ_MARGIN`)."""
        return self.margin / (1 + 2 * self.margin) + 0.035


@dataclass(frozen=True)
class IndexReader:
    """Stage 2: `read(frame, indices)` gives each index's N × 52 class probabilities.

    `main` reads every crop; `base`, where `main` is a deck's reader, the crops the
    small-index reader leaves too: beside a reader from a tune that did not fold the base
    reader into its weights (`BASE_SHARE_KEY`) as their geometric mean, beside a newer one
    (`config.deck_keeps_base`, `keeps_base`) as the surer where they agree; `small` (the models'
    small-index reader, where they have one) the boxes under `config.small_reader_px` again.
    `ink`: the ink of the deck `main` was tuned on ("dark", "light"), None for the base
    reader.
    """

    main: ReaderNetwork
    config: ReadingConfig
    ink: str | None = None
    base: ReaderNetwork | None = None
    small: ReaderNetwork | None = None
    keeps_base: bool = False

    @classmethod
    def load(
        cls, models_dir: Path, reader_path: Path | None, config: ReadingConfig,
        load: Loader,
    ) -> IndexReader:  # fmt: skip
        """The reader of `reader_path` (None: the models' own), with the base and the
        small-index readers `config` asks for where the models have them (the base beside a
        deck's reader only where that reader does not hold it in its weights: `reads_alone`)."""
        path = reader_path or models_dir / READER_FILE
        info = reader_info(path)
        main = ReaderNetwork(load(path), info.read_columns)
        base_path = models_dir / READER_FILE
        base = None
        alone = reads_alone(path, info, base_path)
        older = not alone and config.deck_base_weight > 0
        partly_base = info.base_share is not None and info.base_share < 1  # not the base's own
        keeps_base = alone and partly_base and config.deck_keeps_base
        if older or keeps_base:
            base = ReaderNetwork(load(base_path), reader_info(base_path).read_columns)
        small_path = models_dir / SMALL_READER_FILE
        small = None
        if config.small_reader and small_path.exists():
            run, small_info = load(small_path), reader_info(small_path)
            margin = small_info.margin if small_info.margin is not None else READ_MARGIN
            small = ReaderNetwork(run, small_info.read_columns, margin)
        return cls(main, config, info.ink, base, small, keeps_base)

    def read(self, frame: Image, indices: Detections) -> Detections:
        """`indices` with each one's class probabilities (`probabilities`)."""
        boxes = indices.boxes
        side = self.config.reader_px
        crops = (
            np.stack([crop_index(frame, box, side) for box in boxes])
            if len(boxes)
            else np.zeros((0, side, side, 3), np.uint8)
        )
        read = self._read_large_with_base(crops, boxes, self.classify(crops))
        return indices.with_rows(probabilities=self._read_small_again(frame, boxes, read))

    def classify(self, crops: Image) -> Probabilities:
        """Class probabilities (card-class order) of square BGR index crops, N × 52; with a
        reader that has a "not an index" class they sum to what that class leaves.

        Each crop is read at `read_turns` quarter turns in one batch and the readings are
        combined (geometric mean): an index seen from across the table reads the same.

        An index printed light on a dark face (`light_on_dark`) is read as its negative too, and
        the surer reading kept: the reader learnt dark ink on light card. A reader tuned on a
        deck printed dark on light (`ink`) skips this: there the test only mistakes dim or
        glared crops for light ink.
        """
        return self._classified(crops, self.main)

    def small_boxes(self, boxes: npt.NDArray[np.float32]) -> npt.NDArray[np.bool_]:
        """Which boxes the small-index reader reads (none where there is no such reader)."""
        if self.small is None:
            return np.zeros(len(boxes), np.bool_)
        small: npt.NDArray[np.bool_] = box_sizes(boxes) < self.config.small_reader_px
        return small

    def read_turned(self, crops: Image, network: ReaderNetwork) -> Probabilities:
        """`network`'s reading of `crops` at `read_turns` quarter turns, as one."""
        turns = self.config.read_turns
        turned = np.concatenate([np.rot90(crops, k, axes=(1, 2)) for k in range(turns)])
        out = network.run(model_input(turned))  # the reader takes any batch size
        logs = np.log(np.clip(out[:, network.columns], 1e-7, 1.0)).reshape(turns, len(crops), -1)
        mean = logs.mean(axis=0)
        probabilities = np.exp(mean - mean.max(axis=1, keepdims=True))
        probabilities /= probabilities.sum(axis=1, keepdims=True)
        # A reader with a "not an index" class: the cards share what it leaves.
        return np.ascontiguousarray(probabilities[:, : len(CLASS_NAMES)], np.float32)

    def _classified(self, crops: Image, network: ReaderNetwork) -> Probabilities:
        if not len(crops):
            return np.zeros((0, len(CLASS_NAMES)), np.float32)
        if self.ink == "dark":
            return self.read_turned(crops, network)
        light = np.flatnonzero(light_on_dark(crops, network.inset))
        read = self.read_turned(np.concatenate([crops, 255 - crops[light]]), network)
        plain, negative = read[: len(crops)], read[len(crops) :]
        surer = negative.max(axis=1) > plain[light].max(axis=1)
        plain[light[surer]] = negative[surer]
        return plain

    def _read_small_again(
        self, frame: Image, boxes: npt.NDArray[np.float32], read: Probabilities
    ) -> Probabilities:
        """`read` with each small box's reading (`small_boxes`) combined with the small-index
        reader's, which reads a crop of the box cut at its own margin (their geometric mean,
        weighted by `small_reader_weight`, "not an index" included)."""
        small = self.small_boxes(boxes)
        if self.small is None or not small.any():
            return read
        margin = self.small.margin
        crops = np.stack([crop_index(frame, box, self.config.reader_px, margin=margin)
                          for box in boxes[small]])  # fmt: skip
        combined = read.copy()
        combined[small] = geometric_mean(
            read[small], self._classified(crops, self.small), self.config.small_reader_weight
        )
        return combined

    def _read_large_with_base(
        self, crops: Image, boxes: npt.NDArray[np.float32], read: Probabilities
    ) -> Probabilities:
        """`read` with the boxes the small-index reader leaves (`small_boxes`) read by the base
        reader too where a deck's reader reads, the two readings combined (`keeps_base`: the
        surer where they agree, `surer_where_agreeing`; else their geometric mean, the base's
        weighted by `deck_base_weight`): the deck's reader knows its deck, the base reader more
        of the ways a photo spoils an index."""
        large = ~self.small_boxes(boxes)
        if self.base is None or not large.any():
            return read
        combined = read.copy()
        base = self._classified(crops[large], self.base)
        if self.keeps_base:
            combined[large] = surer_where_agreeing(read[large], base)
        else:
            combined[large] = geometric_mean(read[large], base, self.config.deck_base_weight)
        return combined


def reads_alone(path: Path, info: ReaderInfo, base_path: Path) -> bool:
    """Whether the reader at `path` (`info`: its `reader_info`) reads without the base reader
    beside it: the base reader itself, and a deck's reader whose tune recorded the share of
    the base reader's weights it holds (`BASE_SHARE_KEY`): holding the base in its weights, it
    reads about as well as it did beside the base (MODEL_CARD.md, "Deck enrolment") without
    reading each index twice. Such a reader still has the base beside it where
    `ReadingConfig.deck_keeps_base` asks (`IndexReader.load`), as the surer of two readings
    that agree, not as their mean."""
    return path == base_path or info.base_share is not None


def geometric_mean(
    first: Probabilities, second: Probabilities, second_weight: float = 0.5
) -> Probabilities:
    """Two readings of the same crops (N × 52, "not an index" what they leave) as one: their
    normalised weighted geometric mean, "not an index" taken as a 53rd class."""
    logs = [
        np.log(np.clip(np.column_stack([p, 1 - p.sum(axis=1)]), 1e-7, 1.0)) for p in (first, second)
    ]
    mean = (1 - second_weight) * logs[0] + second_weight * logs[1]
    combined = np.exp(mean - mean.max(axis=1, keepdims=True))
    combined /= combined.sum(axis=1, keepdims=True)
    return np.ascontiguousarray(combined[:, : len(CLASS_NAMES)], np.float32)


def surer_where_agreeing(deck: Probabilities, base: Probabilities) -> Probabilities:
    """A deck reader's and the base reader's readings of the same crops as one: where both
    name the same card, the surer of the two (a deck reader is seldom as sure as the base
    reader of a card both read right, and a card the base reader names surely is kept); where
    they differ, their geometric mean (`geometric_mean`, evenly: neither is taken on its own
    word)."""
    agree = deck.argmax(axis=1) == base.argmax(axis=1)
    surer = np.where((base.max(axis=1) > deck.max(axis=1))[:, None], base, deck)
    out = np.where(agree[:, None], surer, geometric_mean(deck, base))
    return np.ascontiguousarray(out, np.float32)


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


def ranked_choices(
    probabilities: Probabilities,
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]:
    """Each reading's first and second choice of card (N × 2 class ids) and their chances: the
    second's given that the first is not the card (p2 / (1 − p1): a deck holds each card once,
    so where a surer sighting elsewhere is that card, this one is another)."""
    ranked = np.argsort(-probabilities, axis=1)[:, :2]
    chances = np.take_along_axis(probabilities, ranked, axis=1)
    chances[:, 1] /= np.maximum(1 - chances[:, 0], 1e-6)
    return ranked, np.minimum(chances, 1)
