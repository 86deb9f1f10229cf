"""The table a page's own camera sees: frames posted by the browser, tracked per game.

One frame cannot be trusted (a hand over the cards, a misread glyph), so the frames a page
posts to `/api/games/<id>/frame` go through the same `TableTracker` as the server camera's,
one per game: the table's own plane, the smoothed table, the seats learnt from the game. When
the table shows a hand (or the crib) next to the starter, its show is counted, so a player
can point the phone at the show and read the score.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from typing import Any

from scorer.cards import Card
from scorer.game import Game
from scorer.json_api import show_to_json
from scorer.show import score_show
from tablemode.seats import game_seat
from tablemode.tracker import (
    DEFAULT_TRACKER,
    Follow,
    SeatMark,
    TableTracker,
    Tracked,
    TrackerConfig,
)
from tablemode.view import TableView
from vision.frame_json import card_json
from vision.table.cards import FrameCards
from vision.table.roles import TableState
from webui.camera.photo_reading import PageFrame
from webui.camera.tablejson import learnt_json, table_json
from webui.languages.i18n import spoken

#: Games whose trackers are kept (the least recently used is forgotten beyond this).
KEPT_GAMES = 16


@dataclass
class _GameTable:
    players: int
    tracker: TableTracker
    #: One frame of a game at a time; other games' frames are read meanwhile.
    lock: threading.Lock = field(default_factory=threading.Lock)


@dataclass(frozen=True)
class PageTable:
    """What one posted frame gave: the smoothed table as the page draws it (`table_json` in
    the picture's pixels, plus `seats`, `learnt` and `shows`), this frame's cards in the
    picture's pixels (`seen`) and the view table mode follows (None: nothing new)."""

    table: dict[str, Any]
    seen: FrameCards
    view: TableView | None


class PageTables:
    """Per-game table trackers for frames posted by pages; thread-safe (a lock per game: a
    frame read on the plane may take a while, longest when the plane settles)."""

    def __init__(self, kept: int = KEPT_GAMES, config: TrackerConfig = DEFAULT_TRACKER) -> None:
        self._kept, self._config = kept, config
        self._lock = threading.Lock()
        self._tables: OrderedDict[str, _GameTable] = OrderedDict()

    def update(
        self,
        game_id: str,
        game: Game,
        frame: PageFrame,
        frame_id: str | None = None,
        follow: Follow | None = None,
    ) -> PageTable:
        """Add one frame of `game_id` (kept as `frame_id`); `follow` takes each view as it is
        made (table mode's page), so a game moves on between frames released together."""
        players = game.settings.players
        width, height = frame.size
        with self._lock:
            kept = self._tables.pop(game_id, None)
            if kept is None or kept.players != players or kept.tracker.picture != (width, height):
                config = replace(self._config, plane=self._config.plane and frame.plane)
                kept = _GameTable(players, TableTracker(players, (width, height), config))
            self._tables[game_id] = kept
            while len(self._tables) > self._kept:
                self._tables.popitem(last=False)
        with kept.lock:
            tracked = kept.tracker.update(frame.image, frame.reader, game, frame_id, follow=follow)
        return PageTable(page_json(tracked, game), tracked.seen, tracked.view)

    def fix_seat(self, game_id: str, seat: int, player: int) -> tuple[SeatMark, ...] | None:
        """The players put a learnt seat right (`TableTracker.fix`); the seats as now learnt,
        or None when this game's page camera learnt no seat there."""
        with self._lock:
            kept = self._tables.get(game_id)
        if kept is None:
            return None
        with kept.lock:
            if seat not in {m.seat for m in kept.tracker.seat_marks()}:
                return None
            kept.tracker.fix(seat, player)
            return kept.tracker.seat_marks()


def page_json(tracked: Tracked, game: Game) -> dict[str, Any]:
    """The smoothed table as the page draws it, in the picture's pixels: while the plane settles
    (nothing smoothed yet) this frame's cards, unplaced."""
    players = game.settings.players
    if tracked.state is None:
        cards = [{**card_json(c), "role": "undecided"} for c in tracked.seen.cards]
        table: dict[str, Any] = {"cards": cards, "play": {}, "starter": None, "crib": [],
                                 "undecided": [], "conflicts": []}  # fmt: skip
        seats: dict[str, int | None] = {}
        counted: list[dict[str, Any]] = []
    else:
        table = table_json(tracked.state, tracked.to_picture)
        seats = {edge: game_seat(players, edge) for edge in tracked.state.layout.seats}
        counted = shows(tracked.state, game)
    learnt = [learnt_json(m) for m in tracked.seats]
    return {**table, "seats": seats, "shows": counted, "learnt": learnt,
            "settling": tracked.state is None}  # fmt: skip


def shows(state: TableState, game: Game) -> list[dict[str, Any]]:
    """The show of every complete hand (and the crib) the camera sees beside the starter."""
    if state.starter is None:
        return []
    starter = state.starter.card
    size = game.settings.hand_size
    players = game.settings.players
    counted: list[dict[str, Any]] = []
    for edge, seat_cards in state.seats.items():
        if len(seat_cards.hand) == size:
            hand = [c.card for c in seat_cards.hand]
            counted.append(_show("hand", game_seat(players, edge), edge, hand, starter))
    if len(state.crib) == 4 and state.crib_seat is not None:
        crib = [c.card for c in state.crib]
        counted.append(_show("crib", game_seat(players, state.crib_seat), state.crib_seat, crib,
                             starter))  # fmt: skip
    return counted


def _show(
    role: str, seat: int | None, edge: str, cards: list[Card], starter: Card
) -> dict[str, Any]:
    show = score_show(cards, starter, crib=role == "crib")
    return {"role": role, "seat": seat, "edge": edge, **show_to_json(show), "spoken": spoken(show)}
