"""Reading what changed: a still table reads nothing, a changed region is read again and the rest
is not, a moved phone or new light reads the whole frame, and no card is lost or doubled."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import cv2
import numpy as np
import pytest

from scorer.cards import Card, parse_card
from vision.detection.detections import Detections, card_of_class, class_of_card
from vision.table.cards import FrameCards, SeenCard
from vision.table.changes import ChangeConfig, ChangeReader

SIZE = (640, 480)
#: Cards the fake reader reads unsurely.
UNSURE = {"8H"}
TABLE_GREY = 60
#: A card is a flat rectangle whose grey level names it (the fake reader's whole skill).
CARD_W, CARD_H = 50, 70


def level(card: str) -> int:
    return 100 + 2 * class_of_card(parse_card(card))


def scene(cards: dict[str, tuple[int, int]], light: float = 1.0,
          hand: tuple[int, int] | None = None) -> np.ndarray:  # fmt: skip
    """A table with `cards` at their top-left corners, and a hand (a dark blob) at `hand`."""
    frame = np.full((SIZE[1], SIZE[0], 3), TABLE_GREY, np.uint8)
    for card, (x, y) in cards.items():
        frame[y : y + CARD_H, x : x + CARD_W] = level(card)
    if hand is not None:
        cv2.circle(frame, hand, 70, (30, 30, 30), -1)
    lit: np.ndarray = np.clip(frame.astype(np.float32) * light, 0, 255).astype(np.uint8)
    return lit


@dataclass
class _Reading:
    cards: FrameCards


@dataclass
class FakeReader:
    """Reads each flat rectangle of a card's grey level as that card; records what it read."""

    calls: list[tuple[str, tuple[int, int]]] = field(default_factory=list)
    #: A card the next region read misreads beside the cards there (then no more).
    ghost: str | None = None

    def cards(self, frame: np.ndarray) -> FrameCards:
        return self.read(frame).cards

    def read(self, frame: np.ndarray) -> _Reading:
        self.calls.append(("whole", frame.shape[1::-1]))
        return _Reading(self._cards(frame))

    def read_at(self, frame: np.ndarray, scale: float) -> _Reading:
        self.calls.append(("region", frame.shape[1::-1]))
        cards = self._cards(frame)
        if self.ghost is not None and cards.cards:
            _, y1, x2, y2 = cards.cards[0].box
            box = (x2 + 20, y1, x2 + 20 + CARD_W, y2)
            card = parse_card(self.ghost)
            ghost = SeenCard(card, 0.99, box, (box[0] + CARD_W / 2, (y1 + y2) / 2), 14.0,
                             Detections([box], [0.99], [class_of_card(card)]))  # fmt: skip
            cards, self.ghost = FrameCards((*cards.cards, ghost)), None
        return _Reading(cards)

    def look_scale(self, width: int, height: int, index_px: float | None) -> float:
        return 1.0

    @staticmethod
    def _cards(frame: np.ndarray) -> FrameCards:
        grey = frame[:, :, 0]
        seen: list[SeenCard] = []
        mask = ((grey >= 100) & (grey < 204)).astype(np.uint8)
        count, labels, stats, centres = cv2.connectedComponentsWithStats(mask)
        for label in range(1, count):
            x, y, w, h, area = (int(v) for v in stats[label])
            if area < CARD_W * CARD_H * 0.9:
                continue  # cut by the frame or the window: not a whole card
            value = int(np.median(grey[labels == label]))
            card = card_of_class((value - 100) // 2)
            box = (float(x), float(y), float(x + w), float(y + h))
            detections = Detections([box], [0.9], [class_of_card(card)])
            cx, cy = (float(v) for v in centres[label])
            sure = 0.5 if str(card) in UNSURE else 0.99
            seen.append(SeenCard(card, sure, box, (cx, cy), 14.0, detections))
        return FrameCards(tuple(seen))


def names(cards: FrameCards) -> list[Card]:
    return sorted(s.card for s in cards.cards)


ON_TABLE = {"5H": (40, 40), "JC": (540, 380), "KD": (40, 380)}
CONFIG = ChangeConfig(refresh=1000)
#: Changes larger than a card (a hand) read once they are still.
SETTLED = replace(CONFIG, settle=1)


def started(table: dict[str, tuple[int, int]], config: ChangeConfig = CONFIG
            ) -> tuple[FakeReader, ChangeReader]:  # fmt: skip
    """A change reader that has read `table` twice (the second read confirms the first), its
    reader's calls forgotten."""
    reader = FakeReader()
    changes = ChangeReader(reader, config)
    changes.cards(scene(table))
    changes.cards(scene(table))
    reader.calls.clear()
    return reader, changes


def test_a_card_read_once_is_read_again_then_kept() -> None:
    reader = FakeReader()
    changes = ChangeReader(reader, CONFIG)
    first = changes.cards(scene(ON_TABLE))
    assert all(s.fresh for s in first.cards)
    confirmed = changes.cards(scene(ON_TABLE))  # each card's own window
    again = [changes.cards(scene(ON_TABLE)) for _ in range(3)]
    assert [kind for kind, _ in reader.calls] == ["whole", "region", "region", "region"]
    assert changes.last.kind == "still"
    assert all(names(a) == names(confirmed) == sorted(map(parse_card, ON_TABLE)) for a in again)
    assert not any(s.fresh for s in again[-1].cards)


def test_a_misreading_in_one_frame_does_not_stay() -> None:
    """The reader reads a card that is not there once (a glare, a hand's shadow) beside one
    laid: the next frame reads its place again and it is gone, not kept as read."""
    reader, changes = started(ON_TABLE)
    reader.ghost = "7S"
    laid = {**ON_TABLE, "9H": (300, 200)}
    once = changes.cards(scene(laid))
    assert parse_card("7S") in names(once)
    read = changes.cards(scene(laid))
    assert changes.last.kind == "regions" and names(read) == sorted(map(parse_card, laid))


def test_a_card_laid_is_read_at_once_in_its_region_alone() -> None:
    reader, changes = started(ON_TABLE)
    laid = {**ON_TABLE, "7S": (300, 200)}
    read = changes.cards(scene(laid))
    assert changes.last.kind == "regions" and [k for k, _ in reader.calls] == ["region"]
    ((x1, y1, x2, y2),) = changes.last.windows
    assert x1 <= 300 and y1 <= 200 and x2 >= 350 and y2 >= 270  # the card whole
    assert (x2 - x1) * (y2 - y1) < SIZE[0] * SIZE[1] / 2  # not the far cards' corners
    assert names(read) == sorted(map(parse_card, laid))
    fresh = {s.card: s.fresh for s in read.cards}
    assert fresh[parse_card("7S")] and not fresh[parse_card("JC")]
    changes.cards(scene(laid))  # read again where it was laid, then kept
    changes.cards(scene(laid))
    assert changes.last.kind == "still" and len(reader.calls) == 2  # type: ignore[comparison-overlap]


def test_a_hand_passing_over_the_table_is_not_read() -> None:
    table = {**ON_TABLE, "9H": (300, 200)}
    reader, changes = started(table, SETTLED)
    for x in range(100, 560, 60):  # over the middle card too: it is kept while covered
        seen = changes.cards(scene(table, hand=(x, 240)))
        assert changes.last.kind == "still" and names(seen) == sorted(map(parse_card, table))
    changes.cards(scene(table))
    assert changes.last.kind == "still" and reader.calls == []


def test_a_card_laid_under_a_hand_is_read_once_the_hand_is_off_it() -> None:
    reader, changes = started(ON_TABLE, SETTLED)
    laid = {**ON_TABLE, "7S": (300, 200)}
    for x in (325, 325, 420, 520):  # laid, held down a moment, the hand withdrawn
        changes.cards(scene(laid, hand=(x, 235)))
    read = changes.cards(scene(laid))
    assert names(read) == sorted(map(parse_card, laid))
    assert [kind for kind, _ in reader.calls if kind == "whole"] == []
    windows = changes.last.windows or ((0, 0, 0, 0),)
    assert all((x2 - x1) * (y2 - y1) < SIZE[0] * SIZE[1] / 2 for x1, y1, x2, y2 in windows)


def test_a_change_larger_than_a_card_is_read_once_still() -> None:
    reader, changes = started(ON_TABLE, SETTLED)
    row = {**ON_TABLE, **{c: (150 + 55 * i, 200) for i, c in enumerate(["2C", "3C", "4C"])}}
    changes.cards(scene(row))
    assert changes.last.kind == "still" and reader.calls == []
    read = changes.cards(scene(row))
    assert changes.last.kind == "regions"  # type: ignore[comparison-overlap]  # it changed
    assert names(read) == sorted(map(parse_card, row))


def test_an_unsure_card_is_read_again_each_frame() -> None:
    table = {**ON_TABLE, "8H": (300, 200)}
    reader, changes = started(table)
    for _ in range(3):
        read = changes.cards(scene(table))
        assert changes.last.kind == "regions" and names(read) == sorted(map(parse_card, table))
        ((x1, y1, x2, y2),) = changes.last.windows
        assert x1 <= 300 < 350 <= x2 and y1 <= 200 < 270 <= y2  # the unsure card's own
    assert reader.calls == [("region", (x2 - x1, y2 - y1))] * 3
    assert {s.card: s.fresh for s in read.cards} == {parse_card(c): c == "8H" for c in table}


def test_a_shake_is_followed_without_reading() -> None:
    reader, changes = started(ON_TABLE)
    first = changes.cards(scene(ON_TABLE))
    shaken = np.roll(scene(ON_TABLE), (3, 4), axis=(0, 1))
    moved = changes.cards(shaken)
    assert changes.last.kind == "still" and reader.calls == []
    before = {s.card: s.centre for s in first.cards}
    for s in moved.cards:
        assert s.centre[0] - before[s.card][0] == pytest.approx(4, abs=1)
        assert s.centre[1] - before[s.card][1] == pytest.approx(3, abs=1)


@pytest.mark.parametrize(
    ("frame", "reason"),
    [
        (np.roll(scene(ON_TABLE), (0, 80), axis=(0, 1)), "moved"),
        (scene(ON_TABLE, light=0.6), "light"),
    ],
    ids=["phone-moved", "light"],
)
def test_a_big_change_reads_the_whole_frame(frame: np.ndarray, reason: str) -> None:
    reader, changes = started(ON_TABLE)
    read = changes.cards(frame)
    assert changes.last.kind == "whole" and changes.last.reason == reason
    assert reader.calls == [("whole", SIZE)]
    assert names(read) == names(FakeReader._cards(frame))


def test_windows_over_most_of_the_picture_read_the_whole_frame() -> None:
    reader, changes = started(ON_TABLE, replace(CONFIG, window_share=0.1))
    laid = {**ON_TABLE, "7S": (300, 200)}
    read = changes.cards(scene(laid))
    assert changes.last.kind == "whole" and changes.last.reason == "wide"
    assert reader.calls == [("whole", SIZE)]
    assert names(read) == sorted(map(parse_card, laid))


def test_the_whole_frame_is_read_now_and_then() -> None:
    reader = FakeReader()
    changes = ChangeReader(reader, ChangeConfig(refresh=4))
    kinds = []
    for _ in range(9):
        changes.cards(scene(ON_TABLE))
        kinds.append(changes.last.kind)
    # (the first read is read again, card by card: each card read once is confirmed)
    assert kinds == ["whole", "regions", "still", "still", "whole", "still", "still", "still",
                     "whole"]  # fmt: skip


def test_no_card_is_lost_or_doubled_over_a_deal() -> None:
    """Cards laid and taken away at random, hands passing, the camera shaking: once a frame has
    been still a frame, what is kept is what a whole read reads."""
    rng = np.random.default_rng(7)
    reader = FakeReader()
    changes = ChangeReader(reader, CONFIG)
    spots = [(20 + 70 * (i % 8), 20 + 100 * (i // 8)) for i in range(32)]
    cards = ["AS", "2H", "3D", "4C", "5S", "6H", "7D", "8C", "9S", "TH", "JD", "QC", "KS"]
    table: dict[str, tuple[int, int]] = {}
    for _ in range(40):
        free = [s for s in spots if s not in table.values()]
        if table and rng.random() < 0.3:
            table.pop(str(rng.choice(sorted(table))))
        else:
            unplayed = [c for c in cards if c not in table]
            if unplayed:
                table[str(rng.choice(unplayed))] = free[int(rng.integers(len(free)))]
        shake = tuple(int(v) for v in rng.integers(-2, 3, 2))
        hand = (int(rng.integers(100, 540)), int(rng.integers(100, 380)))
        changes.cards(np.roll(scene(table, hand=hand), shake, axis=(0, 1)))
        for _ in range(2):
            frame = np.roll(scene(table), shake, axis=(0, 1))
            read = changes.cards(frame)
        assert names(read) == names(FakeReader._cards(frame))
    # It read regions, not the whole frame each time: a fraction of the pixels.
    pixels = sum(width * height for _, (width, height) in reader.calls)
    assert sum(kind == "region" for kind, _ in reader.calls) > 30
    assert pixels < 0.35 * 120 * SIZE[0] * SIZE[1]
