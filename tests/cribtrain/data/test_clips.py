"""The whole pipeline on synthetic video: shipped models, pairing, roles and smoothing together.

The clips are rendered from a deck design kept out of training (Dondorf, committed small in
fixtures/deck-dondorf), seen by a shaking webcam with noise, JPEG and a hand passing over.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cribtrain.data.clips import FRAME, CameraConfig, Clip, play_clip, show_clip, write_y4m
from cribtrain.data.deal_clips import DealClip, DealScript, Go, deal_clip
from cribtrain.data.synth import Deck, load_decks
from scorer.errors import CribbageError
from scorer.pegging import Pegging
from tests.helpers import FIXTURES
from vision.reading import CardReader
from vision.table.roles import Role, Seat, TableLayout, TableState
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
    clip: Clip | DealClip, reader: CardReader, dealer: Seat | None = None,
    layout: TableLayout = TWO, until: int | None = None,
) -> tuple[TableState, list[PlayEvent]]:  # fmt: skip
    """The smoothed table on the last frame (before frame `until`) and every play event."""
    smoother = TableSmoother(layout)
    events: list[PlayEvent] = []
    state = None
    for frame in clip.frames[:until]:
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


# Top leads 10C, bottom KD (20), top 9H (29): bottom cannot play, says go; top 2D makes 31.
TWO_DEAL = DealScript.of(
    ("bottom", "top"), 0,
    {"top": ["10C", "9H", "2D", "5S"], "bottom": ["KD", "8C", "4H", "3S"]},
    ["QC", "JH", "6D", "7S"], "AC",
)  # fmt: skip
# Bottom leads (right deals); at 28 right holds only 5H and 6S: go; bottom and left play on.
THREE_DEAL = DealScript.of(
    ("bottom", "left", "right"), 2,
    {"bottom": ["QH", "9D", "3C", "AS"], "left": ["KS", "8H", "4D", "2C"],
     "right": ["JD", "7C", "5H", "6S"]},
    ["10S", "3H", "QD", "8S"], "9C",
)  # fmt: skip


def replayed(script: DealScript) -> None:
    """The plays and goes through the engine with hidden hands, which refuses a card out of
    turn or past 31 and a go where any card could still be played."""
    seats = list(script.seats)
    pegging = Pegging(len(seats), script.dealer)
    goes = {go.after: go for go in script.goes}
    for laid, (seat, card) in enumerate(script.plays):
        if laid in goes:
            assert goes[laid].count == pegging.count
            pegging.go(seats.index(goes[laid].seat))
        pegging.play(seats.index(seat), card)
    assert pegging.finished


@pytest.mark.parametrize(
    ("script", "go", "plays"),
    [
        (TWO_DEAL, Go("bottom", 29, 3), "top 10C, bottom KD, top 9H, top 2D, bottom 8C, top 5S, "
         "bottom 4H, bottom 3S"),
        (THREE_DEAL, Go("right", 28, 8), "bottom QH, left KS, right JD, bottom AS, left 8H, "
         "right 7C, bottom 9D, left 4D, bottom 3C, left 2C, right 5H, right 6S"),
    ],
)  # fmt: skip
def test_a_deal_script_plays_by_the_rules(script: DealScript, go: Go, plays: str) -> None:
    replayed(script)
    assert script.goes == (go,)
    assert ", ".join(f"{seat} {card}" for seat, card in script.plays) == plays


def test_a_bad_deal_script_is_refused() -> None:
    with pytest.raises(ValueError, match="4 cards"):
        DealScript.of(("bottom", "top"), 0, {"bottom": ["AS"], "top": ["2S"]}, [], "3S")
    with pytest.raises(CribbageError):
        DealScript.of(("bottom", "top"), 1, {"bottom": ["AS", "2S", "3S", "4S"],
                                             "top": ["AS", "5S", "6S", "7S"]},
                      ["8S", "9S", "10S", "JS"], "QS")  # fmt: skip


@pytest.mark.parametrize("script", [TWO_DEAL, THREE_DEAL])
def test_a_deal_clip_holds_each_table_state_and_marks_each_event(
    deck: Deck, script: DealScript
) -> None:
    hold = 2
    clip = deal_clip(deck, script, seed=1, hold=hold)
    states = 1 + 1 + len(script.plays) + 1 + 1 + 1  # pack, starter, plays, show, crib, clear
    assert len(clip.frames) == states * hold
    assert all(f.shape == (FRAME, FRAME, 3) and f.dtype == np.uint8 for f in clip.frames)
    assert clip.plays == script.plays
    kinds = [m.kind for m in clip.marks]
    assert kinds == ["starter", *["play"] * len(script.plays), "crib", "clear"]
    frames = [m.frame for m in clip.marks]
    assert frames == sorted(set(frames)) and frames[0] == hold and frames[-1] < len(clip.frames)
    assert [(m.seat, m.cards) for m in clip.marks if m.kind == "play"] == [
        (seat, (card,)) for seat, card in script.plays
    ]
    crib = clip.marks[-2]
    assert crib.seat == script.dealer_seat and crib.cards == script.crib
    assert clip.roles[script.starter] == Role("starter")
    assert {clip.roles[c] for c in script.crib} == {Role("crib", script.dealer_seat)}


def test_the_light_drifts_over_a_deal(deck: Deck) -> None:
    clip = deal_clip(deck, TWO_DEAL, seed=2, hold=2)
    brightness = [float(f.mean()) for f in clip.frames]
    assert max(brightness) / min(brightness) > 1.1
    still = deal_clip(deck, TWO_DEAL, seed=2, hold=2, camera=CameraConfig(light_drift=0.0))
    pack = [float(f.mean()) for f in still.frames[: still.marks[0].frame]]
    assert max(pack) / min(pack) < 1.02
    dim = deal_clip(deck, TWO_DEAL, seed=2, hold=2,
                    camera=CameraConfig(light_drift=0.0, light=0.5))  # fmt: skip
    pairs = zip(dim.frames, still.frames, strict=True)
    halved = [float(d.mean()) / float(f.mean()) for d, f in pairs]
    assert all(0.45 < h < 0.55 for h in halved), halved


@pytest.mark.parametrize(
    "script",
    [TWO_DEAL, pytest.param(THREE_DEAL, marks=pytest.mark.slow)],  # 100 frames read
)
def test_a_whole_deal_gives_its_plays_in_order_and_the_crib_and_starter(
    deck: Deck, reader: CardReader, script: DealScript
) -> None:
    clip = deal_clip(deck, script, seed=0)
    dealer = script.dealer_seat
    layout = TableLayout(script.seats)
    state, events = run(clip, reader, dealer, layout, until=clip.marks[-1].frame)
    assert [(e.seat, e.card) for e in events] == list(clip.plays)
    assert state.roles() == clip.roles


def test_write_y4m_writes_every_frame(tmp_path: Path) -> None:
    frames = [np.full((8, 16, 3), value, np.uint8) for value in (0, 255)]
    write_y4m(frames, tmp_path / "a.y4m", fps=5)
    data = (tmp_path / "a.y4m").read_bytes()
    assert data.startswith(b"YUV4MPEG2 W16 H8 F5:1 ")
    assert data.count(b"FRAME\n") == 2 and len(data.split(b"FRAME\n")[1]) == 16 * 8 * 3 // 2
