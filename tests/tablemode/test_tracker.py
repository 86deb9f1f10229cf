"""One game's table tracker: frames held while the plane settles, the picture's edges when it
never does, each play traced to its frame, boxes back in the picture, seats put right."""

from __future__ import annotations

import numpy as np

from scorer.cards import parse_card
from scorer.game import Game
from scorer.settings import Settings
from tablemode.seats import SeatLearner
from tablemode.tracker import TableTracker, TrackerConfig
from tablemode.view import TableView
from tests.tabletop import card_detections, table
from tests.vision.table.test_changes import ON_TABLE, FakeReader, scene
from tests.vision.table.test_changes import SIZE as CHANGES_SIZE
from vision.table.cards import FrameCards, cards_from_detections
from vision.table.mapping import map_box, map_point

PICTURE = (640, 480)
IMAGE = np.zeros((PICTURE[1], PICTURE[0], 3), np.uint8)
PLAY_TOP, PLAY_BOTTOM = (320.0, 150.0), (320.0, 330.0)


class Reader:
    """Reads the cards in `table` (code, centre) in any picture: as a camera over the table."""

    def __init__(self) -> None:
        self.table: list[tuple[str, tuple[float, float]]] = []
        self.calls = 0

    def cards(self, frame: object) -> FrameCards:
        self.calls += 1
        return cards_from_detections(table([card_detections(c, at) for c, at in self.table]))


def pegging() -> Game:
    """Two players in the play, seat 0 (bottom) to lay first."""
    game = Game(Settings(players=2), first_dealer=1)
    game.deal(None)
    game.discard(0, None)
    game.discard(1, None)
    game.cut_starter(parse_card("6D"))
    return game


def test_without_the_plane_each_play_keeps_the_frame_it_was_seen_on() -> None:
    tracker, reader, game = (
        TableTracker(2, PICTURE, TrackerConfig(plane=False)),
        Reader(),
        pegging(),
    )
    for index in range(3):
        assert tracker.update(IMAGE, reader, game, f"f{index}").view is not None
    reader.table = [("5H", PLAY_BOTTOM)]
    for index in range(3, 9):
        tracked = tracker.update(IMAGE, reader, game, f"f{index}")
    assert tracked.view is not None and tracked.to_picture is None
    [laid] = tracked.view.plays
    assert laid.seat == 0 and laid.reading.card == parse_card("5H")
    assert laid.reading.frame is not None and laid.reading.frame.startswith("f")
    assert int(laid.reading.frame[1:]) >= 3  # seen once the card lay there, never before


def test_a_plane_that_never_settles_gives_the_picture_s_edges_and_loses_no_frame() -> None:
    config = TrackerConfig(hold=12, patience=6)
    tracker, reader, game = TableTracker(2, PICTURE, config), Reader(), pegging()
    for index in range(4):  # an empty table: held, nothing to follow yet
        tracked = tracker.update(IMAGE, reader, game, f"f{index}")
        assert tracked.view is None and tracked.state is None
    reader.table = [("5H", PLAY_BOTTOM)]  # one card: too few indices for the plane
    views: list[TableView] = []
    for index in range(4, 4 + config.patience):
        tracked = tracker.update(IMAGE, reader, game, f"f{index}", follow=views.append)
        assert [c.card for c in tracked.seen.cards] == [parse_card("5H")]  # drawn meanwhile
    assert not tracker.on_plane and tracked.state is not None
    # the empty table in a few frames (more say no more), then every frame with the card
    assert tracked.smoothed == config.empty_kept + config.patience
    assert len(views) == tracked.smoothed  # table mode followed each, in order
    [laid] = views[-1].plays
    # the frame it was laid on, though held, not the frame the tracker gave up on the plane in
    assert laid.reading.frame is not None
    assert 4 <= int(laid.reading.frame[1:]) < 4 + config.patience - 1
    assert tracker.update(IMAGE, reader, game, "next").smoothed == 1  # then frame by frame


def test_frames_hold_no_more_than_the_config_says() -> None:
    tracker, reader = TableTracker(2, PICTURE, TrackerConfig(hold=5)), Reader()
    reader.table = [("5H", PLAY_BOTTOM)]
    for index in range(20):  # no game: held, waiting for the plane, never given up
        assert tracker.update(IMAGE, reader, None, str(index)).state is None
    assert len(tracker._held) == 5 and len(tracker._reading.held) == 5
    assert tracker._held[0].frame == "15"  # the oldest went first


def test_boxes_map_back_through_the_homography() -> None:
    shift = np.array([[2.0, 0, 10], [0, 2.0, -4], [0, 0, 1]])
    assert map_box(shift, (1, 2, 3, 4)) == (12.0, 0.0, 16.0, 4.0)
    assert map_point(shift, (5, 5)) == (20.0, 6.0)


def test_a_seat_put_right_swaps_places_and_is_not_learnt_again() -> None:
    learner = SeatLearner(4, (640, 640))
    learner.learnt = {"bottom": (320.0, 600.0), "left": (40.0, 320.0)}
    assert learner.fix("bottom", "left")
    assert learner.learnt == {"left": (320.0, 600.0), "bottom": (40.0, 320.0)}
    assert learner.fix("left", "top")  # top not learnt: left is to be learnt again
    assert learner.learnt == {"top": (320.0, 600.0), "bottom": (40.0, 320.0)}
    assert learner.fixed == {"bottom", "top"}


def test_reading_what_changed_reads_a_still_table_once() -> None:
    """With `read_changes` a still table is not read again frame after frame (a reader that
    reads regions: `vision.table.changes`), and its cards still reach the table."""
    reader = FakeReader()
    tracker = TableTracker(2, CHANGES_SIZE, TrackerConfig(plane=False, read_changes=True))
    for _ in range(6):
        tracked = tracker.update(scene(ON_TABLE), reader, None)
    assert [kind for kind, _ in reader.calls][:1] == ["whole"] and len(reader.calls) <= 4
    assert tracked.state is not None
    assert sorted(str(s.card) for s in tracked.seen.cards) == sorted(ON_TABLE)
