"""What a reader ONNX says about itself: its output columns in card-class order, and the ink
of the deck it was tuned on.

Ultralytics numbers a classifier's classes by its training folders sorted as text ("10C" before
"2C"), not in the card-class order the rest of the pipeline uses (AC..KC, AD..KS). The exported
ONNX keeps the names in its metadata; this module reads them once so every caller can put the
columns back in card-class order. A deck tune also records there whether that deck prints its
indices dark on a light face or light on a dark one (`INK_KEY`), and how much of the base
reader's weights it holds (`BASE_SHARE_KEY`). A reader may also have learnt a 53rd class,
`NOT_AN_INDEX`, for what stage 1 boxes that is no index (pips, card art, keys).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import numpy.typing as npt

from vision.detection.detections import CLASS_NAMES
from vision.errors import VisionError

#: Metadata key a deck tune writes: "dark" (dark ink on a light face) or "light".
INK_KEY = "cribcam_ink"
INKS = ("dark", "light")
#: Metadata key a deck tune writes: the share of the base reader's weights in the deck's reader
#: (`cribtrain.fit.tune.TuneSettings.tuned_share`'s complement; 1 where the tune kept the base).
#: A deck reader that carries the base in its weights reads alone; one from a tune older than
#: the key reads with the base reader beside it (`vision.detection.reader.IndexReader`).
BASE_SHARE_KEY = "cribcam_base_share"
#: Metadata key of the margin a reader learnt its crops at (`vision.detection.crops.crop_index`),
#: where it
#: is not the app's `READ_MARGIN`: the small-index reader reads the card around the index too.
MARGIN_KEY = "cribcam_crop_margin"
#: The class a reader trained on stage 1's false boxes gives what is not a corner index. Its
#: folder name sorts after every card's, so the 52 card columns keep their places.
NOT_AN_INDEX = "none"


@dataclass(frozen=True)
class ReaderInfo:
    """`columns`: the output column of each card class; `ink`: the tuned deck's ink, None for a
    reader that knows no one deck (the base reader); `none_column`: the output column of
    `NOT_AN_INDEX`, None for a reader of the 52 cards only; `margin`: the crop margin it
    learnt (`MARGIN_KEY`), None for the app's own; `base_share`: the share of the base reader's
    weights in a deck's reader (`BASE_SHARE_KEY`), None where not recorded (the base reader, a
    deck reader from an older tune)."""

    columns: npt.NDArray[np.int64]
    ink: str | None
    none_column: int | None = None
    margin: float | None = None
    base_share: float | None = None

    @property
    def read_columns(self) -> npt.NDArray[np.int64]:
        """The card columns, then the "not an index" one where the reader has it."""
        if self.none_column is None:
            return self.columns
        return np.append(self.columns, self.none_column)


def reader_info(path: Path) -> ReaderInfo:
    metadata = onnx_metadata(path)
    ink = metadata.get(INK_KEY)
    names = _names(metadata.get("names")) or {}
    none = [index for index, name in names.items() if name == NOT_AN_INDEX]
    info = ReaderInfo(_columns(names), ink if ink in INKS else None, none[0] if none else None)
    return replace(info, margin=_number(metadata.get(MARGIN_KEY), 2),
                   base_share=_number(metadata.get(BASE_SHARE_KEY), 1))  # fmt: skip


def _number(text: str | None, most: float) -> float | None:
    """A metadata number from 0 to `most`, None where absent or not one."""
    try:
        value = float(text) if text else None
    except ValueError:
        return None
    return value if value is not None and 0 <= value <= most else None


def reader_columns(path: Path) -> npt.NDArray[np.int64]:
    """Column of the model's output for each card class (`probs[:, columns]` is in class order).

    Models without usable `names` metadata are taken to be in class order already.
    """
    return reader_info(path).columns


def _columns(names: dict[int, str]) -> npt.NDArray[np.int64]:
    identity = np.arange(len(CLASS_NAMES), dtype=np.int64)
    cards = {index: name for index, name in names.items() if name != NOT_AN_INDEX}
    if sorted(cards.values()) != sorted(CLASS_NAMES):
        return identity
    column = {name: index for index, name in cards.items()}
    return np.array([column[name] for name in CLASS_NAMES], dtype=np.int64)


def onnx_metadata(path: Path) -> dict[str, str]:
    """The ONNX file's `metadata_props`, read from its protobuf without an ONNX engine (the
    player's install has OpenVINO only, and OpenVINO compiles the whole graph to read them)."""
    try:
        data = memoryview(path.read_bytes())
        return dict(_entry(body) for field, body in _fields(data) if field == _METADATA_PROPS)
    except (OSError, ValueError) as error:
        raise VisionError(f"cannot read the model metadata of {path}: {error}") from error


#: `ModelProto.metadata_props` (onnx.proto), each a `StringStringEntryProto` (key 1, value 2).
_METADATA_PROPS = 14


def _entry(body: memoryview) -> tuple[str, str]:
    parts = dict(_fields(body))
    return bytes(parts.get(1, b"")).decode(), bytes(parts.get(2, b"")).decode()


def _fields(data: memoryview) -> Iterator[tuple[int, memoryview]]:
    """The length-delimited fields of one protobuf message, (field number, bytes); the other
    wire types are skipped."""
    at = 0
    while at < len(data):
        tag, at = _varint(data, at)
        field, wire = tag >> 3, tag & 7
        if wire == 0:
            _, at = _varint(data, at)
        elif wire == 1:
            at += 8
        elif wire == 5:
            at += 4
        elif wire == 2:
            size, at = _varint(data, at)
            if at + size > len(data):
                raise ValueError(f"field {field} runs past the end of the file")
            yield field, data[at : at + size]
            at += size
        else:
            raise ValueError(f"wire type {wire} of field {field} is not ONNX's")


def _varint(data: memoryview, at: int) -> tuple[int, int]:
    value = shift = 0
    while True:
        if at >= len(data):
            raise ValueError("a number runs past the end of the file")
        byte = data[at]
        value |= (byte & 0x7F) << shift
        at, shift = at + 1, shift + 7
        if not byte & 0x80:
            return value, at


def _names(text: str | None) -> dict[int, str] | None:
    if not text:
        return None
    try:
        names = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return None
    if not isinstance(names, dict):
        return None
    return {int(k): str(v) for k, v in names.items()}
