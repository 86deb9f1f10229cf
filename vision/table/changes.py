"""Read what changed: a frame where nothing moved keeps the cards already read; only the regions
that changed are read again, each as the whole frame's finest look would read it.

Each frame is compared, small and grey, with the picture the kept cards were read from, after
following the camera's shake (a phase correlation). Where the difference is a region (read at
once, or once it has stopped changing: `ChangeConfig.settle`), a window around it, a card's
length wider, is read (`CardReader.read_at`) and its cards replace the kept ones there. The
whole frame is read first, every `ChangeConfig.refresh` frames, and after a big change: the
phone moved further than a shake, the light changed, or much of the table did. A kept card
says so (`SeenCard.fresh` False): it is no new evidence.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal, Protocol, runtime_checkable

import cv2
import numpy as np
import numpy.typing as npt

from vision.detection.detections import Detections
from vision.table.cards import Conflict, FrameCards, SeenCard

Image = npt.NDArray[np.uint8]
Grey = npt.NDArray[np.float32]
#: x1, y1, x2, y2 in frame pixels.
Window = tuple[int, int, int, int]
#: How the picture moved between two frames: a 2 × 3 affine matrix (a turn and a shift).
Motion = npt.NDArray[np.float64]
#: What a frame took: the whole frame read, some regions read, or nothing read.
ReadKind = Literal["whole", "regions", "still"]


class RegionReading(Protocol):
    """What `ChangeReader` reads with (`vision.reading.Reading`): its cards."""

    @property
    def cards(self) -> FrameCards: ...


@runtime_checkable
class RegionReader(Protocol):
    """A reader that can read a region at a given scale (`vision.reading.CardReader`)."""

    def read(self, frame: Image) -> RegionReading: ...

    def read_at(self, frame: Image, scale: float) -> RegionReading: ...

    def look_scale(self, width: int, height: int, index_px: float | None) -> float: ...


@dataclass(frozen=True)
class ChangeConfig:
    """When a frame is read whole, in part, or not at all."""

    #: The compared picture's longer side (px), and the grey levels a pixel must change by;
    #: under `absorb` the change is the light's drift, taken into the picture compared with.
    side: int = 192
    threshold: float = 24.0
    absorb: float = 6.0
    #: The share of the picture a change must cover to be one (noise, a speck of glare).
    least_area: float = 0.0004
    #: A change over `whole_share` of the picture, or over `moved_cards` of the kept cards'
    #: centres (at least `least_cards` of them: a plain table moved shows only at its cards,
    #: and a hand covers fewer), reads it whole.
    whole_share: float = 0.3
    moved_cards: float = 0.6
    least_cards: int = 3
    #: The share of the picture a shake may move it, and the degrees it may turn it, and still
    #: be followed; the phase correlation's least response for a shift to be one.
    most_shift: float = 0.04
    most_turn: float = 3.0
    least_response: float = 0.1
    #: A median change of this many grey levels is the light changing: read whole.
    light: float = 10.0
    #: Frames between whole reads.
    refresh: int = 24
    #: Index sizes read around a change (a card's length and more, so that a card whose corner
    #: changed is read whole); the share of the picture's longer side where none is known.
    margin: float = 6.0
    margin_share: float = 0.1
    #: Frames a change must have been still before it is read (1: a hand over the table read
    #: once it has gone), but for `moving_share` of it (its edges shimmer as the camera shakes),
    #: unless it is no larger than a card (`card_area` square index sizes). 0: every change is
    #: read at once, as it lands (a card laid from a hand is seen a frame sooner).
    settle: int = 0
    moving_share: float = 0.15
    card_area: float = 32.0
    #: Windows covering more of the picture than this are read as the whole frame (as fast,
    #: and no card is cut by a window's edge).
    window_share: float = 0.6
    #: A card read less surely than this is read again each frame, still or not: more frames
    #: are more evidence (a sure one is kept as read).
    sure: float = 0.95
    #: Two readings of one card lie within this many index sizes of each other (a centre
    #: guessed from one corner is off by up to a card's half length).
    same_place: float = 3.0


DEFAULT_CHANGES = ChangeConfig()


@dataclass(frozen=True)
class FrameRead:
    """What one frame took: its kind, why a whole read, and the windows read."""

    kind: ReadKind
    reason: str = ""
    windows: tuple[Window, ...] = ()


@dataclass
class _Kept:
    """The cards read so far and the small grey picture they stand for, both moved with the
    camera to the latest frame's coordinates."""

    cards: FrameCards
    #: The table as read: the latest frame where it matched, else what was there when read.
    reference: Grey
    #: The latest frame's small picture (what is still changing), and how long each of its
    #: pixels has been still (for `settle`).
    previous: Grey
    still_for: npt.NDArray[np.int32]
    #: Frame pixels per small-picture pixel.
    zoom: float
    #: The finest scale the whole frame was read at (`CardReader.look_scale`).
    scale: float
    since_whole: int = 0
    #: Cards read once, not yet read again alike at their place: read again before they are
    #: kept as read (a misreading in one frame must not stay on the table).
    unconfirmed: tuple[SeenCard, ...] = ()


class ChangeReader:
    """A `FrameReader` (`cards`) that reads what changed since the cards it keeps were read."""

    def __init__(self, reader: RegionReader, config: ChangeConfig = DEFAULT_CHANGES) -> None:
        self.reader, self.config = reader, config
        self._kept: _Kept | None = None
        #: What the latest frame took.
        self.last = FrameRead("whole", "first")

    def reset(self) -> None:
        """Forget what was read: the next frame is read whole."""
        self._kept = None

    def cards(self, frame: Image) -> FrameCards:
        kept, config = self._kept, self.config
        small, zoom = _small(frame, config.side)
        if kept is None or kept.reference.shape != small.shape:
            return self._whole(frame, small, zoom, "first")
        if kept.since_whole + 1 >= config.refresh:
            return self._whole(frame, small, zoom, "refresh")
        motion, response = _motion(kept.previous, small)
        far = _beyond(motion, config.most_shift * config.side, config.most_turn)
        if far or response < config.least_response:
            # A change in one place (a card laid on a plain table) can pull the correlation's
            # peak far: the phone moved only if much of the picture changed where it stood.
            unmoved = np.abs(small - kept.reference) > config.threshold
            if unmoved.mean() > config.whole_share:
                return self._whole(frame, small, zoom, "moved")
            motion = STILL
        reference = _moved(kept.reference, motion)
        difference = np.abs(small - reference)
        _blank_border(difference, motion)
        if float(np.median(difference)) > config.light:
            return self._whole(frame, small, zoom, "light")
        changed = difference > config.threshold
        cards = _moved_cards(kept.cards, _zoomed(motion, zoom), fresh=False)
        if changed.mean() > config.whole_share or self._most_changed(changed, cards, zoom):
            return self._whole(frame, small, zoom, "moved" if far else "changed")
        moving = np.abs(small - _moved(kept.previous, motion)) > config.threshold
        _blank_border(moving, motion)
        kept.still_for = np.where(moving, 0, kept.still_for + 1).astype(np.int32)
        # What barely changed is the table as read: slow drifts of light never add up (a hand's
        # blurred rim, nearer the threshold, is not taken in, or the hand would creep in).
        absorbed = (difference < config.absorb) & ~moving
        kept.reference = np.where(absorbed, small, reference).astype(np.float32)
        kept.previous, kept.cards = small, cards
        kept.unconfirmed = _moved_cards(
            FrameCards(kept.unconfirmed), _zoomed(motion, zoom), fresh=False
        ).cards
        kept.since_whole += 1
        regions = self._settled_regions(changed, kept) + self._unsure(kept)
        if not regions:
            self.last = FrameRead("still")
            return cards
        return self._regions(frame, small, kept, regions)

    # -- internals -------------------------------------------------------------------------
    def _whole(self, frame: Image, small: Grey, zoom: float, reason: str) -> FrameCards:
        cards = self.reader.read(frame).cards
        height, width = frame.shape[:2]
        scale = self.reader.look_scale(width, height, cards.index_px)
        still = np.zeros(small.shape, np.int32)
        before = () if self._kept is None else self._kept.cards.cards
        unconfirmed = self._unconfirmed(cards.cards, before)
        self._kept = _Kept(cards, small, small, still, zoom, scale, unconfirmed=unconfirmed)
        self.last = FrameRead("whole", reason)
        return cards

    def _most_changed(self, changed: npt.NDArray[np.bool_], cards: FrameCards, zoom: float
                      ) -> bool:  # fmt: skip
        """Whether the change covers more than `moved_cards` of the kept cards' centres, and
        at least `least_cards`."""
        height, width = changed.shape
        hits = 0
        for seen in cards.cards:
            x, y = int(seen.centre[0] / zoom), int(seen.centre[1] / zoom)
            hits += 0 <= x < width and 0 <= y < height and bool(changed[y, x])
        return hits >= self.config.least_cards and hits > self.config.moved_cards * len(cards.cards)

    def _unsure(self, kept: _Kept) -> list[Window]:
        """The boxes (small pixels) of the kept cards to read again: those read under `sure`
        (each frame of them is more evidence of what they are: `TableSmoother` weighs it) and
        those read once only."""
        zoom = kept.zoom
        unsure = [s for s in kept.cards.cards if s.confidence < self.config.sure]
        return [
            (int(x1 / zoom), int(y1 / zoom), math.ceil(x2 / zoom), math.ceil(y2 / zoom))
            for x1, y1, x2, y2 in (s.box for s in (*unsure, *kept.unconfirmed))
        ]

    def _unconfirmed(self, read: Sequence[SeenCard], before: Sequence[SeenCard]
                     ) -> tuple[SeenCard, ...]:  # fmt: skip
        """The cards of `read` that the cards kept `before` do not confirm (the same card at
        the same place)."""
        return tuple(s for s in read if not _matches(s, before, self.config.same_place))

    def _settled_regions(self, changed: npt.NDArray[np.bool_], kept: _Kept) -> list[Window]:
        """The boxes (small pixels) of the changed regions to read now: those that have been
        still long enough, and any no larger than a card (a card laid, no hand beside it)."""
        grown = cv2.dilate(changed.astype(np.uint8), np.ones((3, 3), np.uint8))
        count, labels, stats, _ = cv2.connectedComponentsWithStats(grown, connectivity=8)
        config = self.config
        least = config.least_area * changed.size
        index_px = kept.cards.index_px
        card = config.card_area * (index_px / kept.zoom) ** 2 if index_px else 0.0
        regions: list[Window] = []
        for label in range(1, count):
            x, y, w, h, area = (int(v) for v in stats[label])
            if area < least:
                continue
            inside = labels[y : y + h, x : x + w] == label
            moving = kept.still_for[y : y + h, x : x + w][inside] < config.settle
            if moving.mean() > config.moving_share and area > card:
                continue  # still changing: a hand over the table, read once it has gone
            regions.append((x, y, x + w, y + h))
        return regions

    def _regions(self, frame: Image, small: Grey, kept: _Kept, regions: list[Window]
                 ) -> FrameCards:  # fmt: skip
        """Read a window around each settled region; its cards replace the kept ones whose
        centres lie in it (the window's inner part: a card cut by its edge is read whole by
        the kept reading or the next window)."""
        height, width = frame.shape[:2]
        zoom = kept.zoom
        index_px = kept.cards.index_px
        margin = (
            self.config.margin * index_px
            if index_px
            else self.config.margin_share * max(width, height)
        )
        boxes = [tuple(v * zoom for v in region) for region in regions]
        windows = _merged([_grown(box, margin, width, height) for box in boxes])
        area = sum((x2 - x1) * (y2 - y1) for x1, y1, x2, y2 in windows)
        if area > self.config.window_share * width * height:
            return self._whole(frame, small, zoom, "wide")  # as fast read whole
        inner = [_grown_inside(w, margin / 2, width, height) for w in windows]
        fresh: list[FrameCards] = []
        for window, part in zip(windows, inner, strict=True):
            x1, y1, x2, y2 = window
            read = self.reader.read_at(frame[y1:y2, x1:x2], kept.scale).cards
            placed = _moved_cards(read, _translation(x1, y1), fresh=True)
            # A card the window's edge cuts is read whole by the kept reading (or later).
            whole = tuple(s for s in placed.cards if _clear_of_edges(s, window, width, height))
            fresh.append(_within(replace(placed, cards=whole), part, keep_inside=True))
        outside = kept.cards
        for part in inner:
            outside = _within(outside, part, keep_inside=False)
        new = [seen for part in fresh for seen in part.cards]
        same = self.config.same_place
        # A card read anew where it was kept, its centre guessed elsewhere: one card, not two.
        held = tuple(s for s in outside.cards if not _matches(s, new, same))
        cards = _joined([replace(outside, cards=held), *fresh])
        read_again = {id(s) for s in kept.unconfirmed if any(_inside(s.centre, p) for p in inner)}
        still_unconfirmed = [s for s in kept.unconfirmed if id(s) not in read_again]
        kept.unconfirmed = (*self._unconfirmed(new, kept.cards.cards), *still_unconfirmed)
        kept.cards = cards
        for x1, y1, x2, y2 in windows:  # what was read there is the table as read
            sx1, sy1 = int(x1 / zoom), int(y1 / zoom)
            sx2, sy2 = math.ceil(x2 / zoom), math.ceil(y2 / zoom)
            kept.reference[sy1:sy2, sx1:sx2] = small[sy1:sy2, sx1:sx2]
        self.last = FrameRead("regions", windows=tuple(windows))
        return kept.cards


def _small(frame: Image, side: int) -> tuple[Grey, float]:
    """The frame grey, its longer side `side`, lightly blurred (sensor noise is no change);
    and the frame pixels per small pixel."""
    height, width = frame.shape[:2]
    zoom = max(width, height) / side
    size = (max(1, round(width / zoom)), max(1, round(height / zoom)))
    grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
    small = cv2.resize(grey, size, interpolation=cv2.INTER_AREA).astype(np.float32)
    return np.asarray(cv2.GaussianBlur(small, (3, 3), 0), np.float32), zoom


def _translation(dx: float, dy: float) -> Motion:
    return np.array([[1, 0, dx], [0, 1, dy]], np.float64)


#: No motion.
STILL = _translation(0.0, 0.0)


def _motion(reference: Grey, small: Grey) -> tuple[Motion, float]:
    """How the picture moved from `reference` to `small` (small pixels: a turn and a shift,
    as a shaken camera moves it), and how surely: the phase correlation's shift, refined by
    ECC where the table has the texture for it; none where not moving matches the pictures
    better (a card laid on a plain table can outweigh the table's own texture)."""
    window = cv2.createHanningWindow(reference.shape[::-1], cv2.CV_32F)
    (dx, dy), response = cv2.phaseCorrelate(reference, small, window)
    motion = _translation(dx, dy)
    try:
        criteria = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 30, 1e-4)
        _, refined = cv2.findTransformECC(reference, small, motion.astype(np.float32),
                                          cv2.MOTION_EUCLIDEAN, criteria, None)  # fmt: skip
        motion = np.asarray(refined, np.float64)
    except cv2.error:
        pass  # no texture to refine on (a plain table): the shift alone
    if _mismatch(reference, small, STILL, motion) <= _mismatch(reference, small, motion, motion):
        return STILL, 1.0
    return motion, float(response)


def _beyond(motion: Motion, shift: float, turn: float) -> bool:
    """Whether `motion` moves the picture further than `shift` pixels or turns it more than
    `turn` degrees: the phone moved, not shook."""
    degrees = abs(np.degrees(np.arctan2(motion[1, 0], motion[0, 0])))
    return bool(np.abs(motion[:, 2]).max() > shift or degrees > turn)


def _zoomed(motion: Motion, zoom: float) -> Motion:
    """`motion` (small pixels) in frame pixels."""
    scaled = motion.copy()
    scaled[:, 2] *= zoom
    return scaled


def _mismatch(reference: Grey, small: Grey, motion: Motion, strip: Motion) -> float:
    """The mean grey difference of `small` from `reference` moved by `motion`, the strip
    `strip` uncovers left out (the same pixels compared for every motion tried)."""
    difference = np.abs(small - _moved(reference, motion))
    _blank_border(difference, strip)
    return float(difference.mean())


def _moved(picture: Grey, motion: Motion) -> Grey:
    """`picture` moved by `motion`, its edges repeated into the gap."""
    height, width = picture.shape
    moved = cv2.warpAffine(picture, motion.astype(np.float32), (width, height),
                           borderMode=cv2.BORDER_REPLICATE)  # fmt: skip
    return np.asarray(moved, np.float32)


def _blank_border(values: npt.NDArray[np.float32] | npt.NDArray[np.bool_],
                  motion: Motion) -> None:  # fmt: skip
    """Zero the strip a motion uncovers (it holds no pixels of the earlier picture): as wide
    as its corners move."""
    height, width = values.shape
    corners = np.array([[0, 0, 1], [width, 0, 1], [0, height, 1], [width, height, 1]], float)
    moved = corners @ motion.T - corners[:, :2]
    dx, dy = (int(np.ceil(np.abs(moved[:, i]).max())) + 1 for i in range(2))
    if dx or dy:
        values[:, :dx] = 0
        values[:, -dx:] = 0
        values[:dy, :] = 0
        values[-dy:, :] = 0


def _grown(box: tuple[float, ...], by: float, width: int, height: int) -> Window:
    x1, y1, x2, y2 = box
    return (max(0, int(x1 - by)), max(0, int(y1 - by)),
            min(width, int(np.ceil(x2 + by))), min(height, int(np.ceil(y2 + by))))  # fmt: skip


def _grown_inside(window: Window, by: float, width: int, height: int) -> Window:
    """`window` less `by` on each side, except where it reaches the frame's edge."""
    x1, y1, x2, y2 = window
    return (x1 if x1 == 0 else int(x1 + by), y1 if y1 == 0 else int(y1 + by),
            x2 if x2 == width else int(x2 - by), y2 if y2 == height else int(y2 - by))  # fmt: skip


def _merged(windows: list[Window]) -> list[Window]:
    """Overlapping windows as one (a region read twice could give one card twice)."""
    merged = list(windows)
    joined = True
    while joined:
        joined = False
        for i in range(len(merged)):
            for j in range(i + 1, len(merged)):
                a, b = merged[i], merged[j]
                if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]:
                    merged[i] = (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]),
                                 max(a[3], b[3]))  # fmt: skip
                    del merged[j]
                    joined = True
                    break
            if joined:
                break
    return merged


def _matches(seen: SeenCard, others: Sequence[SeenCard], within: float) -> bool:
    """Whether `others` holds `seen`'s card within `within` index sizes of it."""
    reach = within * seen.glyph_size
    return any(o.card == seen.card and math.dist(o.centre, seen.centre) <= reach for o in others)


def _clear_of_edges(seen: SeenCard, window: Window, width: int, height: int) -> bool:
    """Whether `seen`'s indices lie half an index size or more inside `window`'s edges (those
    that are not the frame's)."""
    x1, y1, x2, y2 = seen.box
    gap = seen.glyph_size / 2
    return (
        (window[0] == 0 or x1 - window[0] >= gap)
        and (window[1] == 0 or y1 - window[1] >= gap)
        and (window[2] == width or window[2] - x2 >= gap)
        and (window[3] == height or window[3] - y2 >= gap)
    )


def _inside(point: tuple[float, float], window: Window) -> bool:
    x, y = point
    return window[0] <= x < window[2] and window[1] <= y < window[3]


def _within(cards: FrameCards, window: Window, *, keep_inside: bool) -> FrameCards:
    """The cards (and conflicts, unread boxes) whose centres lie inside `window`, or outside."""
    seen = tuple(s for s in cards.cards if _inside(s.centre, window) == keep_inside)
    conflicts = tuple(
        c for c in cards.conflicts
        if all(_inside(p, window) == keep_inside for p in c.places)
    )  # fmt: skip
    unread = cards.unread
    if len(unread):
        unread = unread[np.array([_inside(p, window) == keep_inside for p in unread.centres])]
    return replace(cards, cards=seen, conflicts=conflicts, unread=unread)


def _joined(parts: list[FrameCards]) -> FrameCards:
    return FrameCards(
        cards=tuple(s for p in parts for s in p.cards),
        conflicts=tuple(c for p in parts for c in p.conflicts),
        unread=Detections.concatenate([p.unread for p in parts]),
        cut_at_edge=any(p.cut_at_edge for p in parts),
    )


def _moved_cards(cards: FrameCards, motion: Motion, *, fresh: bool) -> FrameCards:
    """`cards` moved by `motion` (frame pixels); `fresh` says whether they are this frame's
    evidence (read now) or kept from an earlier read."""

    def point(p: tuple[float, float]) -> tuple[float, float]:
        x, y = motion @ np.array([p[0], p[1], 1.0])
        return float(x), float(y)

    def seen(s: SeenCard) -> SeenCard:
        box = _moved_boxes(np.array([s.box], np.float32), motion)[0]
        return replace(
            s, box=(float(box[0]), float(box[1]), float(box[2]), float(box[3])),
            centre=point(s.centre), detections=_moved_detections(s.detections, motion),
            fresh=fresh and s.fresh,
        )  # fmt: skip

    def conflict(c: Conflict) -> Conflict:
        places = tuple(point(p) for p in c.places)
        return replace(c, places=places, detections=_moved_detections(c.detections, motion))

    return replace(cards, cards=tuple(seen(s) for s in cards.cards),
                   conflicts=tuple(conflict(c) for c in cards.conflicts),
                   unread=_moved_detections(cards.unread, motion))  # fmt: skip


def _moved_detections(detections: Detections, motion: Motion) -> Detections:
    if not len(detections) or np.array_equal(motion, STILL):
        return detections
    return detections.with_rows(boxes=_moved_boxes(detections.boxes, motion))


def _moved_boxes(boxes: npt.NDArray[np.float32], motion: Motion) -> npt.NDArray[np.float32]:
    """Each box's corners moved, and the box around them."""
    x1, y1, x2, y2 = (boxes[:, i].astype(np.float64) for i in range(4))
    corners = np.stack([np.stack([x1, y1], 1), np.stack([x2, y1], 1), np.stack([x2, y2], 1),
                        np.stack([x1, y2], 1)], 1)  # fmt: skip
    moved = corners @ motion[:, :2].T + motion[:, 2]
    return np.concatenate([moved.min(axis=1), moved.max(axis=1)], axis=1).astype(np.float32)
