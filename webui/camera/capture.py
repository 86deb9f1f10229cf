"""The server's own camera (`cribcam serve --camera SOURCE`): one thread reads the frames,
reads the cards and keeps the smoothed table, so every page sees the same table.

It must never hang or take the server down: a source that cannot be opened or drops is shown
in the status and tried again with backoff (live sources also reconnect by themselves), a
frame the model chokes on is skipped, a file source is replayed from the start when it ends,
and without a card model the status says so while manual entry keeps working. Detection is
spaced by `interval` so that a 2-core machine still answers the pages promptly.

The feed holds no reader: it asks its factory for one on every frame, so a deck chosen on the
/enroll page (`PhotoReader.use_reader`) is read with from the next frame on, without a restart.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from scorer.game import Game
from tablemode.seats import LAYOUTS, table_seat
from tablemode.tracker import DEFAULT_TRACKER, SeatMark, TableTracker, TrackerConfig
from tablemode.view import TableView
from vision.detection.models import ModelMissingError
from vision.frame_json import card_json, frame_quality
from vision.table.cards import FrameCards
from vision.table.roles import Seat, assign_roles
from vision.table.sources import TERMINAL, Backoff, Frame, FrameSource, SourceState, open_source
from webui.camera.frames import FrameMemory, thumbnail
from webui.camera.tablejson import learnt_json, table_json

log = logging.getLogger(__name__)

Image = npt.NDArray[np.uint8]
NO_MODEL = "no card model installed"
#: Retrying a source that cannot be opened: 1 s, 2 s, 4 s, … at most 10 s apart.
RETRY = Backoff(initial=1.0, maximum=10.0)
#: Fields that change with every frame: they do not make a new camera revision by themselves.
_VOLATILE = ("frames", "dropped", "frame", "revision")


class FrameReader(Protocol):
    """Reads the cards of one decoded frame (`vision.reading.CardReader`)."""

    def cards(self, frame: Image) -> FrameCards: ...


#: The reader to read the next frame with. Called for every frame, from the capture thread:
#: it must be cheap once loaded (`PhotoReader.card_reader`, which reloads after a deck change).
ReaderFactory = Callable[[], FrameReader]
Opener = Callable[[str], FrameSource]
#: Table mode for the game the feed follows: given its id and the view of the table, it applies
#: what is sure and returns table mode's status (shown in the snapshot as "table_mode").
TableHook = Callable[["CameraFeed", str, TableView], dict[str, Any]]


class CameraFeed:
    """The capture thread and the latest table it saw; every public method is thread-safe."""

    def __init__(
        self,
        spec: str,
        reader_factory: ReaderFactory,
        *,
        opener: Opener = open_source,
        memory: FrameMemory | None = None,
        on_change: Callable[[int], None] | None = None,
        on_table: TableHook | None = None,
        load_game: Callable[[str], Game] | None = None,
        tracking: TrackerConfig = DEFAULT_TRACKER,
        interval: float = 0.3,
        retry: Backoff = RETRY,
        read_timeout: float = 0.5,
    ) -> None:
        self.spec = spec
        self.memory = memory or FrameMemory()
        self._reader_factory, self._opener, self._on_change = reader_factory, opener, on_change
        self._on_table, self._load_game, self._tracking = on_table, load_game, tracking
        self._table_on = False  # a table mode page asked for it (`attach`)
        self._table_mode: dict[str, Any] | None = None
        self._interval, self._retry, self._read_timeout = interval, retry, read_timeout
        self._lock = threading.Lock()
        # Notified on each new revision, so callers (tests) wait for a change instead of polling.
        self._revised = threading.Condition(self._lock)
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._revision, self._key = 0, ""
        self._status: dict[str, Any] = {"state": "starting", "detail": "starting the camera",
                                        "reconnects": 0, "frames": 0, "dropped": 0}  # fmt: skip
        self._model: bool | None = None
        self._reopens = 0  # failed attempts to open the source (it reconnects by itself after)
        self._replaying = False  # a file source that ended and is read again from the start
        self._game: str | None = None
        self._deal = 0
        self._dealer: Seat | None = None
        self._players = 2
        #: The table the frames show (made on the first frame, which says the picture's size),
        #: only ever used under `_tracker_lock`, which comes before `_lock`.
        self._tracker: TableTracker | None = None
        self._tracker_lock = threading.RLock()  # table mode's hook attaches from within
        self._events: list[dict[str, Any]] = []
        self._table: dict[str, Any] | None = None
        self._frame: dict[str, Any] | None = None
        self._latest: Image | None = None
        self._seen: FrameCards | None = None  # what the reader read in `_latest`

    # -- life ------------------------------------------------------------------------------
    def start(self) -> None:
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="cribcam camera", daemon=True)
            self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        """Stop reading and release the device; returns within about `timeout` seconds."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
        self._set_status(state="closed", detail="the camera is stopped")

    @property
    def running(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    # -- what the pages read ---------------------------------------------------------------
    @property
    def revision(self) -> int:
        with self._lock:
            return self._revision

    def wait_change(self, seen: int, timeout: float) -> bool:
        """Wait until the revision is no longer `seen`; whether it changed within `timeout` s."""
        with self._revised:
            return self._revised.wait_for(lambda: self._revision != seen, timeout)

    def snapshot(self) -> dict[str, Any]:
        """The source's status and the latest smoothed table (see API.md, `GET /api/camera`)."""
        with self._lock:
            return self._snapshot()

    def latest_jpeg(self, side: int = 640) -> bytes | None:
        with self._lock:
            image = self._latest
        return None if image is None else thumbnail(image, side)

    def latest_reading(self) -> tuple[Image, FrameCards] | None:
        """The latest frame and the cards read in it (for the camera check), None before one."""
        with self._lock:
            image, seen = self._latest, self._seen
        return None if image is None or seen is None else (image, seen)

    def attach(
        self,
        game_id: str,
        players: int,
        dealer: int | None,
        deal: int,
        *,
        switch: bool,
        table_mode: bool | None = None,
    ) -> bool:
        """Read the table for this game: its seat layout, dealer (for the crib) and deal (a new
        deal forgets the cards laid). Without `switch` only a feed that follows no game or
        already this one is changed. `table_mode` turns applying what the camera sees on or off
        (None: as it was for this game; off for another). Returns whether the feed now follows
        `game_id`."""
        with self._tracker_lock, self._lock:
            if not (switch or self._game in (None, game_id)):
                return False
            if table_mode is not None:
                self._table_on = table_mode
            elif self._game != game_id:
                self._table_on = False
            if players != self._players:
                self._tracker = None  # another layout: made anew on the next frame
                self._events = []
            elif game_id != self._game and self._tracker is not None:
                self._tracker.next_game()  # the same camera and table: its plane is kept
                self._events = []
            elif deal != self._deal:
                if self._tracker is not None and self._load_game is None:
                    self._tracker.new_deal()  # (a game loaded each frame says its own new deal)
                self._events = []  # shown at once, not from the next frame on
            self._players, self._game, self._deal = players, game_id, deal
            self._dealer = None if dealer is None else table_seat(players, dealer)
        self._changed()
        return True

    # -- the thread ------------------------------------------------------------------------
    def _run(self) -> None:
        try:
            loaded = self._load_reader()
            failures = 0
            while loaded and not self._stop.is_set():
                source = self._open()
                if source is not None:
                    try:
                        state = self._watch(source)
                    finally:
                        source.close()
                    if state is SourceState.ENDED:  # a file: replay it, quietly (no status flicker)
                        failures, self._replaying = 0, True
                        self._stop.wait(self._interval)  # a still photo reads like a live table
                        continue
                failures += 1
                self._stop.wait(self._retry.delay(failures - 1))
        except Exception as error:  # the server outlives any bug here; the page shows it
            log.exception("camera thread failed")
            self._set_status(state="failed", detail=f"the camera stopped: {error}")

    def _load_reader(self) -> bool:
        """Load the card model before opening the source; False (and said so) without one."""
        self._set_status(state="loading", detail="loading the card model")
        try:
            self._reader_factory()
        except ModelMissingError as error:
            self._model = False
            self._set_status(state="no-model",
                             detail=f"{NO_MODEL} ({error}): enter the cards by hand")  # fmt: skip
            return False
        self._model = True
        return True

    def _open(self) -> FrameSource | None:
        if not self._replaying:
            self._set_status(state="connecting", detail=f"opening {self.spec}")
        try:
            return self._opener(self.spec)
        except Exception as error:  # a missing file, a bad URL: shown, and tried again later
            self._reopens += 1
            self._set_status(state="failed", detail=f"cannot open {self.spec}: {error}",
                             reconnects=self._reopens)  # fmt: skip
            return None

    def _watch(self, source: FrameSource) -> SourceState:
        """Read and detect until the source ends or fails, or the feed stops."""
        while not self._stop.is_set():
            try:
                frame = source.read(self._read_timeout)
            except Exception as error:  # e.g. a single image file that cannot be decoded
                self._set_status(state="failed", detail=f"{self.spec}: {error}")
                return SourceState.FAILED
            status = source.status
            detail = status.detail
            if status.state is SourceState.STALLED:
                detail = f"no new frame from {self.spec}"  # not the ticking seconds
            elif self._replaying and status.state in (SourceState.LIVE, SourceState.ENDED):
                if status.state is SourceState.ENDED:
                    return status.state
                detail = f"{self.spec}: replayed from the start whenever it ends"
            self._set_status(state=status.state.value, detail=detail,
                             reconnects=self._reopens + status.reconnects,
                             dropped=status.dropped)  # fmt: skip
            if frame is not None:
                started = time.perf_counter()
                self._process(frame)
                # at most one frame each interval, the next at once when reading took longer
                self._stop.wait(max(0.0, self._interval - (time.perf_counter() - started)))
            elif status.state in TERMINAL:
                return status.state
        return SourceState.CLOSED

    def _process(self, frame: Frame) -> None:
        start = time.perf_counter()
        modes: list[dict[str, Any]] = []
        with self._tracker_lock:
            with self._lock:
                game_id, dealer, table_on = self._game, self._dealer, self._table_on
                deal = self._deal
            game = self._game_of(game_id)
            if self._tracker is None or self._tracker.picture != frame.size:
                self._tracker = TableTracker(self._players, frame.size, self._tracking,
                                             keep=self.memory.add_image)  # fmt: skip
            tracker = self._tracker
            follow = None
            if table_on and game_id is not None and self._on_table is not None:
                hook, followed = self._on_table, game_id

                def follow(view: TableView) -> Game | None:
                    try:
                        modes.append(hook(self, followed, view))
                    except Exception as error:  # a game deleted meanwhile, a refused step
                        log.warning("table mode for game %s: %s", followed, error)
                        modes.append({"question": None, "last": None, "error": str(error)})
                    return self._game_of(followed)

            try:  # the deck in use's reader, asked for anew: a deck chosen meanwhile reads it
                tracked = tracker.update(frame.image, self._reader_factory(), game,
                                         dealer=dealer, follow=follow,
                                         timestamp=frame.timestamp)  # fmt: skip
            except Exception as error:  # one bad frame must not stop the camera
                log.warning("camera frame %d not read: %s", frame.index, error)
                self._set_status(detail=f"frame {frame.index} could not be read: {error}")
                return
            events = [{"seat": e.seat, "card": str(e.card),
                       "frame": tracker.event_frames.get(e.frame)}
                      for e in tracker.smoother.events]  # fmt: skip
        ms = (time.perf_counter() - start) * 1000
        seen = tracked.seen
        with self._lock:
            self._latest, self._seen = frame.image, seen
            if tracked.state is not None:
                self._table = table_json(tracked.state, tracked.to_picture)
            else:  # the plane settling: this frame's cards, not placed yet
                self._table = {**table_json(assign_roles(FrameCards(()), tracker.smoother.layout,
                                                         frame.size)),
                               "cards": [{**card_json(c), "role": "undecided"}
                                         for c in seen.cards]}  # fmt: skip
            self._table["learnt"] = [learnt_json(m) for m in tracked.seats]
            if (self._game, self._deal) == (game_id, deal):  # else a new deal cleared them
                self._events = events
            self._status["frames"] = int(self._status["frames"]) + 1
            self._frame = {"index": frame.index, "size": list(frame.size),
                           "timestamp": round(frame.timestamp, 3), "ms": round(ms, 1),
                           **frame_quality(seen)}  # fmt: skip
            if modes:
                self._table_mode = modes[-1]
        self._changed()

    def fix_seat(self, game_id: str, seat: int, player: int) -> tuple[SeatMark, ...] | None:
        """The players put a learnt seat right (`TableTracker.fix`); the seats as now learnt,
        or None when the camera follows another game or learnt no seat there."""
        with self._tracker_lock:
            tracker = self._tracker
            if self._game != game_id or tracker is None:
                return None
            if seat not in {m.seat for m in tracker.seat_marks()}:
                return None
            tracker.fix(seat, player)
            return tracker.seat_marks()

    def _game_of(self, game_id: str | None) -> Game | None:
        """The game the feed follows, as now stored (None: none, or none to load)."""
        if game_id is None or self._load_game is None:
            return None
        try:
            return self._load_game(game_id)
        except Exception as error:  # a game deleted meanwhile: the table is read without it
            log.warning("camera: game %s not loaded: %s", game_id, error)
            return None

    # -- internals -------------------------------------------------------------------------
    def _snapshot(self) -> dict[str, Any]:
        return {
            "enabled": True,
            "source": self.spec,
            **self._status,
            "model": self._model,
            "revision": self._revision,
            "game": self._game,
            "layout": list(LAYOUTS[self._players]),
            "table_mode": self._table_mode,
            "frame": self._frame,
            "table": self._table,
            "events": self._events,
        }

    def _set_status(self, **changes: Any) -> None:
        with self._lock:
            self._status.update(changes)
        self._changed()

    def _changed(self) -> None:
        """Bump the revision when anything but the frame counters changed; tell the pages."""
        with self._lock:
            snapshot = self._snapshot()
            key = json.dumps({k: v for k, v in snapshot.items() if k not in _VOLATILE})
            if key == self._key:
                return
            self._key = key
            self._revision += 1
            revision = self._revision
            self._revised.notify_all()
        if self._on_change is not None:
            self._on_change(revision)
