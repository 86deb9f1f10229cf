"""One game's table as one camera sees it, frame by frame: the table's own plane
(`vision.table.plane`, the picture read turned to look straight down once it settles), the
smoothed table (`TableSmoother`), the seats learnt from the game (`SeatLearner`), and the view
table mode follows (`TableView`).

The benchmark (`cribtrain.measure.table_mode.follow_clip`), the page's camera
(`webui.camera.page_tables`) and the server camera (`webui.camera.capture`) all run this one
tracker, so what the benchmark measures is what the players get.

Until the plane settles the frames are held (`PlaneReading`) and nothing reaches the smoother:
the first cards laid would be placed in the wrong rows. A table whose plane never settles (too
few cards in view, or bunched in a corner of the picture) is read in the picture itself with
the seats at its edges, as a camera over the table has them (`TrackerConfig.patience`): the
frames held meanwhile are smoothed then, in the picture, so nothing seen is lost.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace

import numpy as np

from scorer.game import Game
from tablemode.knocks import DEFAULT_KNOCKS, KnockConfig, KnockFollower
from tablemode.seats import LAYOUTS, SeatLearner, layout_for, table_phase, table_seat
from tablemode.steps import laid_this_deal
from tablemode.view import TableView, table_view
from vision.table.cards import FrameCards
from vision.table.changes import ChangeReader, RegionReader
from vision.table.mapping import F64, apply, placed_all
from vision.table.plane import TablePlane
from vision.table.plane_reading import FrameReader, Image, PlaneReading
from vision.table.roles import Seat, TableState
from vision.table.smoothing import TableSmoother

#: Table mode following the view of one frame; the game as it now is (None: the same object).
Follow = Callable[[TableView], "Game | None"]


@dataclass(frozen=True)
class TrackerConfig:
    """`plane`: place the cards on the table's own plane (off: the picture's edges, a camera
    over the table); `hold`: frames held at most while the plane settles (the oldest go first:
    a 720p frame is 2.7 MB, and all are read again when it settles); `patience`: frames that
    showed cards once the dealer is known without the plane settling, before the table is read
    in the picture instead (the clips lay the first three cards, which settle it, within 36
    frames; the page posts one a second or so)."""

    plane: bool = True
    hold: int = 48
    patience: int = 48
    #: Frames of an empty table held in a row at most (more say no more): the smoother takes a
    #: card seen in its first frames (`SmoothingConfig.settle_frames`) for one lying there.
    empty_kept: int = 3
    #: How far beyond the card a seat was learnt by its name is shown, towards the player, in
    #: index sizes: clear of the cards laid there, whose names the picture shows.
    mark_out: float = 4.0
    #: Read only what changed in a frame (`vision.table.changes`) once the cards are placed
    #: (the plane settled, or the picture's edges): off until it scores deals as whole reads
    #: do (`bench_table_mode.py --changes`).
    read_changes: bool = False
    #: When the cards on the plane say the camera was knocked (`tablemode.knocks`).
    knocks: KnockConfig = DEFAULT_KNOCKS


DEFAULT_TRACKER = TrackerConfig()


@dataclass(frozen=True)
class SeatMark:
    """Where game seat `seat` was learnt to sit, in picture pixels (`fixed`: a player said)."""

    seat: int
    at: tuple[float, float]
    fixed: bool = False


@dataclass(frozen=True)
class Tracked:
    """What one frame gave: `state`, the smoothed table (None while the plane settles), in the
    frame it was smoothed in; `to_picture`, that frame's pixels to the picture's (None: it is the
    picture); `seen`, this frame's cards in picture pixels; `view`, the table mode view (None:
    nothing new to follow); `seats`, the learnt seats on the picture."""

    state: TableState | None
    to_picture: F64 | None
    seen: FrameCards
    view: TableView | None
    seats: tuple[SeatMark, ...] = ()
    #: The frames smoothed by this call, oldest first (several when the plane has just settled).
    smoothed: int = 0


@dataclass
class _Held:
    """A frame held while the plane settles: its id (None: not kept yet) and picture reading."""

    image: Image
    frame: str | None
    seen: FrameCards
    timestamp: float | None = None
    #: The most cards any read of it found (the picture, or turned while the plane settles).
    found: int = 0


@dataclass
class TableTracker:
    """The table of one game of `players` seen by one camera whose frames are `picture`
    (width, height) pixels; not thread-safe (callers hold their own lock)."""

    players: int
    picture: tuple[int, int]
    config: TrackerConfig = DEFAULT_TRACKER
    #: Keeps a frame that a play event was seen on and names it (the server camera keeps only
    #: those); frames that come with an id need none.
    keep: Callable[[Image], str] | None = None
    smoother: TableSmoother = field(init=False)
    seats: SeatLearner = field(init=False)
    #: The frame id of each play event, by smoother frame number (this deal).
    event_frames: dict[int, str] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        self.smoother = TableSmoother(layout_for(self.players))
        self.table = TablePlane(self.picture) if self.config.plane else None
        self._reading = PlaneReading(_Unset(), self.table)
        self.seats = SeatLearner(self.players, self.size)
        self._held: list[_Held] = []
        self._changes: ChangeReader | None = None
        self._waited = 0  # frames with cards during a deal, the plane unsettled
        self._deal = 0
        self._view: TableView | None = None
        self.knocks = KnockFollower(self.config.knocks)

    @property
    def on_plane(self) -> bool:
        """Whether the cards are placed on the table's plane (else in the picture)."""
        return self.table is not None

    @property
    def size(self) -> tuple[int, int]:
        """The frame the cards are smoothed in: the plane's canonical one, or the picture."""
        return self.picture if self.table is None else self.table.size

    def update(
        self,
        image: Image,
        reader: FrameReader,
        game: Game | None,
        frame: str | None = None,
        *,
        dealer: Seat | None = None,
        follow: Follow | None = None,
        timestamp: float | None = None,
    ) -> Tracked:
        """Add one frame (`image`, read with `reader`; kept as `frame` when given) of `game`,
        before the game takes this frame's steps. Without a game (a camera following none) the
        roles go by place alone, the crib beside `dealer`, and no seat is learnt. `follow` is
        given the view after each frame smoothed (several at once when the plane has just
        settled), so that the game moves on between them as if smoothed as they came."""
        table = self.table
        was_settled = table is not None and table.settled
        # Once the cards are placed, the same kind of picture comes frame after frame.
        placed = table is None or was_settled
        if self.config.read_changes and placed and isinstance(reader, RegionReader):
            self._changes = self._changes or ChangeReader(reader)
            self._changes.reader, reader = reader, self._changes
        capture = _Capture(reader)
        self._reading.reader = capture
        # (this frame's cards are placed with the plane as it was before this frame's update)
        back = _inverse(table, np.eye(3)) if table is not None and was_settled else None
        ready = self._reading.ready(image)
        if table is not None and not table.settled:
            this = _Held(image, frame, capture.last, timestamp, capture.found)
            return self._hold(this, capture.found > 0, game, dealer, follow)
        if table is None:  # the picture itself
            frames = [_Held(image, frame, ready[0], timestamp)]
            return self._smooth(game, frames, capture.last, dealer, follow)
        if was_settled:  # read turned: its cards back in the picture for the overlay
            assert back is not None
            steady = self.knocks.steady(ready[-1])
            frames = [_Held(image, frame, steady, timestamp)]
            return self._smooth(game, frames, placed_all(back, ready[-1]), dealer, follow)
        # just settled: every frame held, read again turned, smoothed in order
        held = [*self._held, _Held(image, frame, capture.last, timestamp)][-len(ready) :]
        self._held = []
        frames = [replace(h, seen=self.knocks.steady(cards))
                  for h, cards in zip(held, ready, strict=True)]  # fmt: skip
        return self._smooth(game, frames, capture.last, dealer, follow)

    def fix(self, seat: int, player: int) -> bool:
        """A player says game seat `player` sits where `seat` was learnt (the page's tap on a
        seat's name): the two swap places. Whether anything changed."""
        edges = LAYOUTS[self.players]
        changed = self.seats.fix(edges[seat], edges[player])
        return changed

    def seat_marks(self) -> tuple[SeatMark, ...]:
        """The learnt seats in picture pixels (none in the picture-edge layout)."""
        if self.table is None or not self.seats.learnt:
            return ()
        back = self._to_picture()
        edges = LAYOUTS[self.players]
        marks = []
        cx, cy = self.seats.centre or self.seats.middle
        out = self.config.mark_out * self.table.config.glyph
        for edge, (x, y) in self.seats.learnt.items():
            norm = max(float(np.hypot(x - cx, y - cy)), 1e-6)
            x, y = x + (x - cx) / norm * out, y + (y - cy) / norm * out
            px, py = apply(back, np.array([[x, y]], np.float64))[0]
            marks.append(
                SeatMark(edges.index(edge), (float(px), float(py)), edge in self.seats.fixed)
            )
        return tuple(sorted(marks, key=lambda m: m.seat))

    # -- internals -------------------------------------------------------------------------
    def _hold(
        self,
        this: _Held,
        found: bool,
        game: Game | None,
        dealer: Seat | None,
        follow: Follow | None,
    ) -> Tracked:
        """The plane has not settled: hold the frame, or give up on the plane."""
        seen = this.seen
        kept = self.config.empty_kept
        if not found and len(self._held) >= kept and not any(h.found for h in self._held[-kept:]):
            # an empty table again: a few frames of it say as much, each a read on settling
            del self._held[-kept]
            del self._reading.held[-kept - 1]  # it holds this frame already
        self._held.append(this)
        if len(self._held) > self.config.hold:  # the oldest go, from PlaneReading's too: memory
            del self._held[0]
            del self._reading.held[0]
        if game is not None and game.dealer is not None and found:
            self._waited += 1
        if self._waited < self.config.patience:
            return Tracked(None, None, seen, None)
        # The plane does not settle: the picture's edges are the seats, from the frames held.
        held, self._held = self._held, []
        self.table = None
        self._reading = PlaneReading(_Unset(), None)
        self.seats = SeatLearner(self.players, self.size)
        return self._smooth(game, held, seen, dealer, follow)

    def _to_picture(self) -> F64:
        """The canonical frame's pixels to the picture's (the plane settled)."""
        assert self.table is not None
        return _inverse(self.table, self.knocks.correction)

    def next_game(self) -> None:
        """The same camera on the same table follows another game: the plane is kept, the
        seats are learnt anew, and the cards lying now are no plays of it unless they move."""
        self.smoother.new_deal()
        self.knocks.forget()
        self.seats = SeatLearner(self.players, self.size)
        self.event_frames, self._deal, self._waited = {}, 0, 0

    def new_deal(self) -> None:
        """A new deal of a camera following no game: the cards laid so far are forgotten."""
        self.smoother.new_deal()
        self.knocks.forget()
        self.event_frames = {}

    def _smooth(
        self,
        game: Game | None,
        frames: list[_Held],
        seen: FrameCards,
        dealer: Seat | None = None,
        follow: Follow | None = None,
    ) -> Tracked:
        """Smooth `frames` (their cards in `size`) in order; the last is this frame."""
        players = self.players
        state: TableState | None = None
        view = self._view
        for image, frame, cards, timestamp in (
            (h.image, h.frame, h.seen, h.timestamp) for h in frames
        ):
            phase = None
            if game is not None:
                number = game.deal_state.number if game.deal_state else 0
                if number != self._deal:
                    self.smoother.new_deal(game.deal_state.starter if game.deal_state else None)
                    self.knocks.forget()
                    self._deal, self.event_frames = number, {}
                dealer = None if game.dealer is None else table_seat(players, game.dealer)
                phase = table_phase(game)
            seating = self.seats.seating if self.table is not None else self.smoother.seating
            smoothed = self.smoother.update(
                cards, self.size, dealer=dealer, seating=seating, phase=phase,
                timestamp=timestamp, laid=None if game is None else laid_this_deal(game),
            )  # fmt: skip
            if smoothed.events:
                if frame is None and self.keep is not None:
                    frame = self.keep(image)
                if frame is not None:
                    self.event_frames.update({e.frame: frame for e in smoothed.events})
            if self.table is not None and game is not None:
                self.seats.observe(game, smoothed.state)
            state = smoothed.state
            laid_by = self.seats.laid_by if self.table is not None else None
            view = table_view(
                state, self.smoother.events, players, self.event_frames.get, frame, laid_by
            )
            if follow is not None:
                game = follow(view) or game
        self._view = view
        back = None if self.table is None else self._to_picture()
        return Tracked(state, back, seen, view, self.seat_marks(), len(frames))


class _Unset:
    """The reader before the first frame brings one."""

    def cards(self, frame: Image) -> FrameCards:
        raise RuntimeError("no reader given")


@dataclass
class _Capture:
    """`reader`, remembering what it read in the picture itself (the first read of a frame:
    `PlaneReading` reads the picture before it settles, the turned picture after)."""

    reader: FrameReader
    last: FrameCards = field(default_factory=lambda: FrameCards(()))
    #: The most cards in view any read of this frame found.
    found: int = 0
    _read: int = 0

    def cards(self, frame: Image) -> FrameCards:
        cards = self.reader.cards(frame)
        if self._read == 0:
            self.last = cards
        self._read += 1
        self.found = max(self.found, sum(1 for c in cards.cards if c.in_frame))
        return cards


def _inverse(table: TablePlane, correction: F64) -> F64:
    """The canonical frame's pixels to the picture's, the knocks' `correction` undone."""
    return np.asarray(np.linalg.inv(correction @ table.homography()), np.float64)
