"""`Detections`: the one validated batch of corner-index boxes that flows through the pipeline.

Every stage after the detector (grouping indices into cards, table roles, smoothing) takes this
type, so each stage can trust its inputs: the constructor checks shapes, box geometry, score
range and class ids once, and raises `InvalidDetectionsError` naming the bad entry. The design
follows roboflow/supervision's ``Detections`` (parallel numpy arrays, mask/index filtering)
without depending on it.

Class ids follow dev-real's ``classes.txt``: suits C, D, H, S, each with ranks A, 2..10, J, Q, K
(ids 0..51); ``-1`` marks a box whose identity is unknown.

>>> d = Detections.from_yolo_labels("0 0.5 0.5 0.1 0.2\\n51 0.25 0.25 0.1 0.2 0.8", 100, 100)
>>> len(d), d.cards(), d.scores.tolist()
(2, [Card('AC'), Card('KS')], [1.0, 0.800000011920929])
>>> d[d.scores > 0.9].cards()
[Card('AC')]
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt

from scorer.cards import RANK_NAMES, Card, Suit
from vision.errors import InvalidDetectionsError

FloatArray = npt.NDArray[np.float32]
IntArray = npt.NDArray[np.int64]
FloatT = TypeVar("FloatT", bound=np.floating[Any])

_SUITS = (Suit.CLUBS, Suit.DIAMONDS, Suit.HEARTS, Suit.SPADES)
_SUIT_INDEX = {suit: i for i, suit in enumerate(_SUITS)}

#: The 52 class names in dev-real order: ``CLASS_NAMES[class_of_card(c)] == str(c)``.
CLASS_NAMES: tuple[str, ...] = tuple(
    RANK_NAMES[rank] + suit.value for suit in _SUITS for rank in range(1, 14)
)
#: Class id of a box whose card could not be read.
UNKNOWN_CLASS = -1

#: Orientation codes for the optional per-detection ``facing`` array: how the printed index
#: is rotated in the frame, clockwise. An upright index sits at its card's top-left as seen in
#: the frame, so the orientation says in which direction the card's centre lies.
FACING_UNKNOWN, FACING_UP, FACING_RIGHT, FACING_DOWN, FACING_LEFT = -1, 0, 1, 2, 3


def card_of_class(class_id: int) -> Card:
    """The card a class id names (0..51, dev-real order).

    >>> card_of_class(0), card_of_class(22), card_of_class(51)
    (Card('AC'), Card('10D'), Card('KS'))
    """
    if isinstance(class_id, bool) or not isinstance(class_id, int | np.integer):
        raise InvalidDetectionsError(f"class id {class_id!r} is not an integer")
    if not 0 <= class_id < 52:
        raise InvalidDetectionsError(f"class id {class_id!r} is not a card class (0..51)")
    suit, rank0 = divmod(int(class_id), 13)
    return Card(rank0 + 1, _SUITS[suit])


def class_of_card(card: Card) -> int:
    """The class id of a card (inverse of `card_of_class`).

    >>> from scorer.cards import parse_card
    >>> class_of_card(parse_card("QH"))
    37
    """
    return _SUIT_INDEX[card.suit] * 13 + card.rank - 1


Index = int | slice | Sequence[int] | npt.NDArray[np.bool_] | npt.NDArray[np.integer[Any]]


class Detections:
    """N corner-index detections in one frame, as parallel read-only numpy arrays.

    ``boxes``: N×4 float32 ``x1, y1, x2, y2`` in frame pixels (x2 > x1, y2 > y1);
    ``scores``: N float32 in 0..1; ``class_ids``: N int64 in -1..51; ``facing``: optional N
    int8 orientation codes (``CORNER_*``), -1 where unknown.

    Between the reading path's stages two more optional rows travel with them:
    ``box_scores``, N float32 in 0..1, how surely stage 1 boxed an index; ``probabilities``,
    N×52 float32 in 0..1, stage 2's chance of each card class ("not an index" what they leave).
    """

    __slots__ = ("box_scores", "boxes", "class_ids", "facing", "probabilities", "scores")

    boxes: FloatArray
    scores: FloatArray
    class_ids: IntArray
    facing: npt.NDArray[np.int8] | None
    box_scores: FloatArray | None
    probabilities: FloatArray | None

    def __init__(
        self,
        boxes: npt.ArrayLike,
        scores: npt.ArrayLike,
        class_ids: npt.ArrayLike,
        facing: npt.ArrayLike | None = None,
        *,
        box_scores: npt.ArrayLike | None = None,
        probabilities: npt.ArrayLike | None = None,
    ) -> None:
        b = _as_array("boxes", boxes, np.float32)
        if b.size == 0:
            b = b.reshape(0, 4)
        if b.ndim != 2 or b.shape[1] != 4:
            raise InvalidDetectionsError(f"boxes must be N×4, got shape {b.shape}")
        n = b.shape[0]
        s = _as_array("scores", scores, np.float32)
        c = _as_int_array("class_ids", class_ids)
        for name, arr in (("scores", s), ("class_ids", c)):
            if arr.shape != (n,):
                raise InvalidDetectionsError(f"{name} must have shape ({n},), got {arr.shape}")
        _check_finite("boxes", b)
        _check_finite("scores", s)
        bad = np.flatnonzero((b[:, 2] <= b[:, 0]) | (b[:, 3] <= b[:, 1]))
        if bad.size:
            i = int(bad[0])
            raise InvalidDetectionsError(f"boxes[{i}] = {b[i].tolist()} is not x1 < x2, y1 < y2")
        bad = np.flatnonzero((s < 0) | (s > 1))
        if bad.size:
            i = int(bad[0])
            raise InvalidDetectionsError(f"scores[{i}] = {float(s[i])} is outside 0..1")
        bad = np.flatnonzero((c < UNKNOWN_CLASS) | (c > 51))
        if bad.size:
            i = int(bad[0])
            raise InvalidDetectionsError(f"class_ids[{i}] = {int(c[i])} is not -1..51")
        k: npt.NDArray[np.int8] | None = None
        if facing is not None:
            k64 = _as_int_array("facing", facing)
            if k64.shape != (n,):
                raise InvalidDetectionsError(f"facing must have shape ({n},), got {k64.shape}")
            bad = np.flatnonzero((k64 < FACING_UNKNOWN) | (k64 > FACING_LEFT))
            if bad.size:
                i = int(bad[0])
                raise InvalidDetectionsError(f"facing[{i}] = {int(k64[i])} is not -1..3")
            k = k64.astype(np.int8)
            k.setflags(write=False)
        for arr in (b, s, c):
            arr.setflags(write=False)
        self.boxes, self.scores, self.class_ids, self.facing = b, s, c, k
        self.box_scores = _optional_rows("box_scores", box_scores, (n,))
        self.probabilities = _optional_rows("probabilities", probabilities, (n, len(CLASS_NAMES)))

    @classmethod
    def empty(cls) -> Detections:
        """No detections: what a frame without cards yields."""
        return cls(np.zeros((0, 4), np.float32), np.zeros(0, np.float32), np.zeros(0, np.int64))

    @classmethod
    def from_yolo_labels(
        cls, text: str, width: int, height: int, *, default_score: float = 1.0
    ) -> Detections:
        """Parse a YOLO label file (``class xc yc w h [conf]``, normalised) for a frame size.

        Blank lines are skipped; any other malformed line raises, naming its line number.
        """
        if width <= 0 or height <= 0:
            raise InvalidDetectionsError(f"frame size {width}×{height} is not positive")
        rows: list[list[float]] = []
        ids: list[int] = []
        for number, line in enumerate(text.splitlines(), start=1):
            fields = line.split()
            if not fields:
                continue
            try:
                if len(fields) not in (5, 6):
                    raise ValueError
                class_id = int(fields[0])
                xc, yc, w, h = (float(f) for f in fields[1:5])
                score = float(fields[5]) if len(fields) == 6 else default_score
            except ValueError:
                raise InvalidDetectionsError(
                    f"label line {number} {line.strip()!r} is not 'class xc yc w h [conf]'"
                ) from None
            ids.append(class_id)
            rows.append([
                (xc - w / 2) * width, (yc - h / 2) * height,
                (xc + w / 2) * width, (yc + h / 2) * height, score,
            ])  # fmt: skip
        if not rows:
            return cls.empty()
        arr = np.asarray(rows, np.float32)
        return cls(arr[:, :4], arr[:, 4], np.asarray(ids, np.int64))

    def __len__(self) -> int:
        return int(self.boxes.shape[0])

    def __getitem__(self, index: Index) -> Detections:
        """A subset, always as `Detections`: an int, a slice, indices or a boolean mask."""
        if isinstance(index, int | np.integer):
            i = int(index)
            if not -len(self) <= i < len(self):
                raise IndexError(f"detection {i} out of range for {len(self)} detections")
            sel: Any = [i]
        elif isinstance(index, slice):
            sel = index
        else:
            sel = np.asarray(index)
            if sel.dtype == np.bool_:
                if sel.shape != (len(self),):
                    raise IndexError(f"mask of shape {sel.shape} for {len(self)} detections")
            elif sel.size == 0:
                sel = sel.astype(np.int64)
        return Detections(
            self.boxes[sel],
            self.scores[sel],
            self.class_ids[sel],
            None if self.facing is None else self.facing[sel],
            box_scores=None if self.box_scores is None else self.box_scores[sel],
            probabilities=None if self.probabilities is None else self.probabilities[sel],
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Detections):
            return NotImplemented
        return (
            np.array_equal(self.boxes, other.boxes)
            and np.array_equal(self.scores, other.scores)
            and np.array_equal(self.class_ids, other.class_ids)
            and _same_optional(self.facing, other.facing)
            and _same_optional(self.box_scores, other.box_scores)
            and _same_optional(self.probabilities, other.probabilities)
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        names = [CLASS_NAMES[c] if c >= 0 else "?" for c in self.class_ids.tolist()]
        return f"Detections({len(self)}: {' '.join(names)})"

    @property
    def centres(self) -> FloatArray:
        """N×2 box centres ``x, y``."""
        out: FloatArray = ((self.boxes[:, :2] + self.boxes[:, 2:]) / 2).astype(np.float32)
        return out

    @property
    def sizes(self) -> FloatArray:
        """N glyph sizes: the longer box side, which is the index height whatever its rotation."""
        return box_sizes(self.boxes)

    def cards(self) -> list[Card | None]:
        """The card each detection reads, None where the class is unknown."""
        return [None if c < 0 else card_of_class(c) for c in self.class_ids.tolist()]

    def shifted(self, dx: float, dy: float) -> Detections:
        """The same detections moved by ``(dx, dy)`` pixels (camera shake, crops)."""
        offset = np.asarray([dx, dy, dx, dy], np.float32)
        return self.with_rows(boxes=self.boxes + offset)

    def with_rows(self, **rows: npt.ArrayLike | None) -> Detections:
        """The same detections with some rows replaced (`boxes`, `scores`, `class_ids`,
        `facing`, `box_scores`, `probabilities`), checked as the constructor checks them."""
        unknown = set(rows) - set(self.__slots__)
        if unknown:
            raise InvalidDetectionsError(f"no such detection rows: {sorted(unknown)}")
        now: dict[str, Any] = {name: getattr(self, name) for name in self.__slots__}
        now.update(rows)
        return Detections(
            now["boxes"], now["scores"], now["class_ids"], now["facing"],
            box_scores=now["box_scores"], probabilities=now["probabilities"],
        )  # fmt: skip

    @staticmethod
    def concatenate(parts: Sequence[Detections]) -> Detections:
        """All detections of several batches, in order (facing, box scores and probabilities
        kept only where all have them)."""
        if not parts:
            return Detections.empty()

        def joined(name: str) -> npt.NDArray[Any] | None:
            rows = [getattr(p, name) for p in parts]
            return None if any(r is None for r in rows) else np.concatenate(rows)

        return Detections(
            np.concatenate([p.boxes for p in parts]),
            np.concatenate([p.scores for p in parts]),
            np.concatenate([p.class_ids for p in parts]),
            joined("facing"),
            box_scores=joined("box_scores"),
            probabilities=joined("probabilities"),
        )

    def to_records(self) -> list[dict[str, Any]]:
        """One JSON-ready dict per detection (for the web page and debug dumps)."""
        records: list[dict[str, Any]] = []
        for i in range(len(self)):
            class_id = int(self.class_ids[i])
            record: dict[str, Any] = {
                "box": [round(float(v), 2) for v in self.boxes[i]],
                "score": round(float(self.scores[i]), 4),
                "class_id": class_id,
                "card": CLASS_NAMES[class_id] if class_id >= 0 else None,
            }
            if self.facing is not None:
                record["facing"] = int(self.facing[i])
            records.append(record)
        return records

    def to_json(self) -> str:
        """`to_records` as a JSON string."""
        return json.dumps(self.to_records())


#: A box reaching this close (px) to the frame's edge is taken to show only part of its index.
EDGE_MARGIN = 1.0


def at_frame_edge(
    boxes: npt.NDArray[np.float32], width: int, height: int, margin: float = EDGE_MARGIN
) -> npt.NDArray[np.bool_]:
    """Which boxes reach the edge of a `width` × `height` frame: their index is likely cut by
    it, and a cut glyph (a 10 showing only its 0, half a suit) is misread with confidence.

    >>> at_frame_edge(np.array([[0, 5, 9, 20], [5, 5, 9, 20], [5, 5, 9, 29.5]]), 40, 30)
    array([ True, False,  True])
    """
    if not len(boxes):
        return np.zeros(0, np.bool_)
    return np.asarray(
        (boxes[:, 0] <= margin)
        | (boxes[:, 1] <= margin)
        | (boxes[:, 2] >= width - margin)
        | (boxes[:, 3] >= height - margin)
    )


def box_sizes(boxes: npt.NDArray[FloatT]) -> npt.NDArray[FloatT]:
    """The longer side of each N × 4 ``x1, y1, x2, y2`` box: an index's height at any turn."""
    sides: npt.NDArray[FloatT] = (boxes[:, 2:] - boxes[:, :2]).max(axis=1)
    return sides


def iou_matrix(a: npt.NDArray[np.float32], b: npt.NDArray[np.float32]) -> npt.NDArray[np.float64]:
    """Intersection over union of every box of `a` (N×4) with every box of `b` (M×4)."""
    if not len(a) or not len(b):
        return np.zeros((len(a), len(b)))
    x1 = np.maximum(a[:, None, 0], b[None, :, 0])
    y1 = np.maximum(a[:, None, 1], b[None, :, 1])
    x2 = np.minimum(a[:, None, 2], b[None, :, 2])
    y2 = np.minimum(a[:, None, 3], b[None, :, 3])
    inter = np.clip(x2 - x1, 0, None) * np.clip(y2 - y1, 0, None)
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    return np.asarray(inter / (area_a[:, None] + area_b[None, :] - inter), dtype=np.float64)


def suppress_overlaps(
    boxes: npt.NDArray[np.float32], scores: npt.NDArray[np.float32], iou: float = 0.5
) -> npt.NDArray[np.int64]:
    """Rows to keep, best score first, dropping any box overlapping a kept one beyond `iou`:
    the NMS-free detector still boxes some glyphs twice at low scores."""
    overlaps = iou_matrix(boxes, boxes)
    keep: list[int] = []
    for i in np.argsort(-scores, kind="stable").tolist():
        if all(overlaps[i, j] <= iou for j in keep):
            keep.append(i)
    return np.asarray(sorted(keep), np.int64)


def _as_array(name: str, value: npt.ArrayLike, dtype: type[np.float32]) -> FloatArray:
    try:
        return np.array(value, dtype=dtype)
    except (TypeError, ValueError) as exc:
        raise InvalidDetectionsError(f"{name} is not numeric: {exc}") from None


def _as_int_array(name: str, value: npt.ArrayLike) -> IntArray:
    try:
        arr = np.array(value)
    except (TypeError, ValueError) as exc:
        raise InvalidDetectionsError(f"{name} is not an array: {exc}") from None
    if arr.size == 0:
        empty: IntArray = arr.astype(np.int64).reshape(arr.shape)
        return empty
    if np.issubdtype(arr.dtype, np.integer):
        ints: IntArray = arr.astype(np.int64)
        return ints
    if np.issubdtype(arr.dtype, np.floating) and np.all(np.isfinite(arr)):
        rounded = np.rint(arr)
        if np.array_equal(rounded, arr):
            ints = rounded.astype(np.int64)
            return ints
    raise InvalidDetectionsError(f"{name} must be integers, got {arr.dtype} values")


#: How far float32 rounding may carry a normalised probability past 1.
_ROUNDING = 1e-5


def _optional_rows(
    name: str, value: npt.ArrayLike | None, shape: tuple[int, ...]
) -> FloatArray | None:
    """An optional float row array of `shape`, finite and within 0..1, read-only; None stays."""
    if value is None:
        return None
    arr = _as_array(name, value, np.float32)
    if arr.size == 0:
        arr = arr.reshape(shape)
    if arr.shape != shape:
        raise InvalidDetectionsError(f"{name} must have shape {shape}, got {arr.shape}")
    _check_finite(name, arr)
    outside = (arr < 0) | (arr > 1 + _ROUNDING)
    bad = np.flatnonzero(outside if arr.ndim == 1 else outside.any(axis=1))
    if bad.size:
        i = int(bad[0])
        raise InvalidDetectionsError(f"{name}[{i}] = {arr[i].tolist()} is outside 0..1")
    arr.setflags(write=False)
    return arr


def _same_optional(a: npt.NDArray[Any] | None, b: npt.NDArray[Any] | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return np.array_equal(a, b)


def _check_finite(name: str, arr: FloatArray) -> None:
    finite = np.isfinite(arr)
    bad = np.flatnonzero(~(finite.all(axis=1) if arr.ndim == 2 else finite))
    if bad.size:
        i = int(bad[0])
        raise InvalidDetectionsError(f"{name}[{i}] = {arr[i].tolist()} is not finite")
