"""The whole pipeline on synthetic video: shipped models, pairing, roles and smoothing together.

The clips are rendered from a deck design kept out of training (Dondorf, committed small in
fixtures/deck-dondorf), seen by a shaking webcam with noise, JPEG and a hand passing over.
"""

from __future__ import annotations

import pytest

from cribtrain.data.clips import Clip, play_clip, show_clip
from cribtrain.data.synth import Deck, load_decks
from tests.helpers import FIXTURES
from vision.reading import CardReader
from vision.table.roles import Seat, TableLayout, TableState
from vision.table.smoothing import PlayEvent, TableSmoother

HELD_OUT = FIXTURES / "deck-dondorf"
TWO = TableLayout(["bottom", "top"])


@pytest.fixture(scope="module")
def deck() -> Deck:
    return load_decks([HELD_OUT])[0]


@pytest.fixture(scope="module")
def reader() -> CardReader:
    return CardReader()


def run(
    clip: Clip, reader: CardReader, dealer: Seat | None = None
) -> tuple[TableState, list[PlayEvent]]:
    smoother = TableSmoother(TWO)
    events: list[PlayEvent] = []
    state = None
    for frame in clip.frames:
        height, width = frame.shape[:2]
        smoothed = smoother.update(reader.cards(frame), (width, height),
                                   dealer=dealer)  # fmt: skip
        events.extend(smoothed.events)
        state = smoothed.state
    assert state is not None
    return state, events


@pytest.mark.slow  # reads many frames end to end: the full run covers it
@pytest.mark.parametrize("seed", [0, 1])
def test_play_events_are_complete_in_order_and_once(
    deck: Deck, reader: CardReader, seed: int
) -> None:
    plays: list[tuple[Seat, str]] = [("bottom", "5H"), ("top", "10C"), ("bottom", "4S"),
                                     ("top", "6D"), ("bottom", "3D"), ("top", "AS"),
                                     ("bottom", "2C"), ("top", "9H")]  # fmt: skip
    clip = play_clip(deck, plays, seed=seed)
    _, events = run(clip, reader)
    assert [(e.seat, e.card) for e in events] == list(clip.plays)


@pytest.mark.slow  # renders a clip
@pytest.mark.parametrize("dealer", ["bottom", "top"])
def test_show_layout_puts_every_card_in_its_role(
    deck: Deck, reader: CardReader, dealer: Seat
) -> None:
    hands: dict[Seat, list[str]] = {"bottom": ["5H", "5C", "JD", "4S"],
                                    "top": ["7C", "8D", "9H", "KS"]}  # fmt: skip
    clip = show_clip(deck, hands, ["2C", "3D", "QH", "6S"], "5D", dealer=dealer, seed=3)
    state, _ = run(clip, reader, dealer)
    assert state.roles() == clip.roles
