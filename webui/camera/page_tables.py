"""The table a page's own camera sees: frames posted by the browser, smoothed per game.

One frame cannot be trusted (a hand over the cards, a misread glyph), so the frames a page
posts to `/api/games/<id>/frame` go through the same `TableSmoother` as the server camera's,
one per game, laid out on the game's seats. When the table shows a hand (or the crib) next to
the starter, its show is counted, so a player can point the phone at the show and read the
score.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from scorer.cards import Card
from scorer.game import Game
from scorer.json_api import show_to_json
from scorer.show import score_show
from tablemode.seats import game_seat, layout_for, table_phase, table_seat
from tablemode.view import TableView, table_view
from vision.table.cards import FrameCards
from vision.table.roles import TableState
from vision.table.smoothing import TableSmoother
from webui.camera.tablejson import table_json
from webui.languages.i18n import spoken

#: Games whose smoothers are kept (the least recently used is forgotten beyond this).
KEPT_GAMES = 16


@dataclass
class _GameSmoother:
    players: int
    deal: int
    smoother: TableSmoother
    #: The frame id each play event was noticed on (by smoother frame number), this deal.
    event_frames: dict[int, str] = field(default_factory=dict)


class PageTables:
    """Per-game smoothers for frames posted by pages; thread-safe."""

    def __init__(self, kept: int = KEPT_GAMES) -> None:
        self._kept = kept
        self._lock = threading.Lock()
        self._smoothers: OrderedDict[str, _GameSmoother] = OrderedDict()

    def update(
        self,
        game_id: str,
        game: Game,
        seen: FrameCards,
        size: tuple[int, int],
        frame_id: str | None = None,
    ) -> tuple[dict[str, Any], TableView]:
        """Add one frame of `game_id` (kept as `frame_id`); returns the smoothed table
        (`table_json`) plus `seats` (each frame edge's game seat) and `shows`, and the view
        table mode follows."""
        players = game.settings.players
        deal = game.deal_state.number if game.deal_state else 0
        dealer = None if game.dealer is None else table_seat(players, game.dealer)
        with self._lock:
            kept = self._smoothers.pop(game_id, None)
            if kept is None or kept.players != players:
                kept = _GameSmoother(players, deal, TableSmoother(layout_for(players)))
            elif kept.deal != deal:
                kept.smoother.new_deal(game.deal_state.starter if game.deal_state else None)
                kept.deal, kept.event_frames = deal, {}
            self._smoothers[game_id] = kept
            while len(self._smoothers) > self._kept:
                self._smoothers.popitem(last=False)
            smoothed = kept.smoother.update(seen, size, dealer=dealer, phase=table_phase(game))
            if frame_id is not None:
                kept.event_frames.update({e.frame: frame_id for e in smoothed.events})
            state, frames = smoothed.state, dict(kept.event_frames)
            view = table_view(state, kept.smoother.events, players, frames.get, frame_id)
        seats = {edge: game_seat(players, edge) for edge in state.layout.seats}
        return {**table_json(state), "seats": seats, "shows": shows(state, game)}, view


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
