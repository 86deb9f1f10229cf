"""Table mode on the server: each game's `Follower`, fed by whichever camera reads its table
(the page's frames or the server camera), with sure proposals applied to the store at once.

Applying here rather than in the page means one camera is one writer: two open pages never
apply a card twice. What the players see of it (`status`): the last proposal applied by itself,
which they may undo or correct for a moment, the open question, if any, and before the first
deal the camera check of the latest frame (`vision.table.camera_check`).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from scorer.cards import Card
from scorer.errors import CribbageError
from scorer.game import Game
from tablemode.follow import Follower, Option, Proposal, option_for
from tablemode.steps import Step
from tablemode.view import TableView
from vision.table.camera_check import CameraVerdict, check_camera
from webui.camera.capture import CameraFeed, TableHook
from webui.camera.frames import THUMB_SIDE
from webui.errors import ApiError, as_api_error
from webui.games.live import Broker
from webui.games.store import GameStore, Pictures, StoredGame

#: Games whose followers are kept (the least recently used is forgotten beyond this).
KEPT_GAMES = 16
#: Sure proposals applied from one view at most: a whole deal (a guard against a loop).
MAX_APPLIED = 32


@dataclass
class _Applied:
    """A proposal applied by itself: undoing it takes back `steps` actions."""

    proposal: Proposal
    option: Option
    revision: int
    at: float

    def to_json(self) -> dict[str, Any]:
        return {**self.proposal.to_json(), "applied": self.option.to_json(),
                "steps": len(self.option.steps), "revision": self.revision,
                "at": round(self.at, 3)}  # fmt: skip


@dataclass
class _GameTable:
    follower: Follower
    view: TableView | None = None
    question: Proposal | None = None
    last: _Applied | None = None
    #: The camera check of the latest frame, kept until the first deal starts.
    check: CameraVerdict | None = None


class TableModes:
    """Every game's table mode; thread-safe (one lock: each call is short)."""

    def __init__(self, store: GameStore, broker: Broker, kept: int = KEPT_GAMES) -> None:
        self._store, self._broker, self._kept = store, broker, kept
        self._lock = threading.Lock()
        self._games: OrderedDict[str, _GameTable] = OrderedDict()

    def follow(self, game_id: str, view: TableView, pictures: Pictures) -> dict[str, Any]:
        """The table as the camera sees it now: apply what is sure, keep the question."""
        with self._lock:
            table = self._table(game_id)
            table.view = view
            self._advance(game_id, table, pictures)
            self._forget_check_once_dealt(game_id, table)
            return self._status(table)

    def game(self, game_id: str) -> Game:
        return self._store.load(game_id).game

    def status(self, game_id: str) -> dict[str, Any]:
        with self._lock:
            table = self._table(game_id)
            self._forget_check_once_dealt(game_id, table)
            return self._status(table)

    def check_camera(self, game_id: str, verdict: CameraVerdict) -> None:
        """Keep `verdict`, the camera check of the game's latest frame before its first deal."""
        with self._lock:
            self._table(game_id).check = verdict

    def answer(
        self, game_id: str, key: str, cards: Sequence[Card] | None, claim: int | None,
        pictures: Pictures,
    ) -> StoredGame:  # fmt: skip
        """The players' answer to the open question `key`: its option reading `cards` (None:
        the one proposed), with the player's claim where the game asks one."""
        with self._lock:
            table = self._table(game_id)
            question = table.question
            if question is None or question.key != key:
                raise ApiError.coded("question_moved_on", 409, text=repr(key))
            option = _option(self.game(game_id), question, cards)
            stored = self._apply(game_id, question, option, claim, pictures)
            table.question, table.last = None, None
            self._advance(game_id, table, pictures)
            return stored

    def undo(self, game_id: str, key: str, cards: Sequence[Card] | None = None) -> StoredGame:
        """Take back the proposal `key` applied by itself; it is asked about from now on. With
        `cards`, apply its option reading those instead (a correction: two taps)."""
        with self._lock:
            table = self._table(game_id)
            last = table.last
            if last is None or last.proposal.key != key:
                raise ApiError.coded("not_the_last_step", 409, text=repr(key))
            if self._store.revision(game_id) != last.revision:
                raise ApiError.coded("game_changed", 409)

            def take_back(game: Game) -> None:
                for _ in last.option.steps:
                    game.undo()
                if cards is not None:  # read as the players say, from the game before it
                    for step in _option(game, last.proposal, cards).steps:
                        step.apply(game)

            stored = self._act(game_id, take_back, None)
            table.follower.decline(key)
            table.last = None
            table.question = None if cards is not None else last.proposal
            return stored

    def dismiss(self, game_id: str, key: str) -> dict[str, Any]:
        """The open question is not a card (a misreading, a card moved by mistake)."""
        with self._lock:
            table = self._table(game_id)
            if table.question is None or table.question.key != key:
                raise ApiError.coded("not_the_question", 409, text=repr(key))
            table.follower.decline(key)
            table.question = None
            return self._status(table)

    # -- internals -------------------------------------------------------------------------
    def _forget_check_once_dealt(self, game_id: str, table: _GameTable) -> None:
        """The check is for the table before play: once a deal has started it is not shown."""
        if table.check is not None and self._store.load(game_id).game.deal_state is not None:
            table.check = None

    def _table(self, game_id: str) -> _GameTable:
        table = self._games.pop(game_id, None) or _GameTable(Follower())
        self._games[game_id] = table
        while len(self._games) > self._kept:
            self._games.popitem(last=False)
        return table

    def _advance(self, game_id: str, table: _GameTable, pictures: Pictures) -> None:
        if table.view is None:
            return
        for _ in range(MAX_APPLIED):
            game = self._store.load(game_id).game
            found = table.follower.proposals(game, table.view)
            table.question = None
            if not found:
                return
            proposal = found[0]
            if not proposal.sure:
                table.question = proposal
                return
            stored = self._apply(game_id, proposal, proposal.options[0], None, pictures)
            table.last = _Applied(proposal, proposal.options[0], stored.revision, time.time())

    def _apply(
        self, game_id: str, proposal: Proposal, option: Option, claim: int | None,
        pictures: Pictures,
    ) -> StoredGame:  # fmt: skip
        steps: list[Step] = list(option.steps)
        if claim is not None:
            if not steps or steps[-1].kind not in ("show", "play"):
                raise ApiError(f"{proposal.key!r} takes no claim")
            steps[-1] = replace(steps[-1], claim=claim)

        def apply(game: Game) -> None:
            for step in steps:
                step.apply(game)

        return self._act(game_id, apply, pictures(proposal.frame))

    def _act(self, game_id: str, action: Callable[[Game], None], picture: bytes | None
             ) -> StoredGame:  # fmt: skip
        try:
            _, stored = self._store.act(game_id, action, picture)
        except CribbageError as error:
            raise as_api_error(error, self._store.load(game_id).names) from None
        self._broker.publish(game_id, stored.revision)
        return stored

    @staticmethod
    def _status(table: _GameTable) -> dict[str, Any]:
        return {
            "question": None if table.question is None else table.question.to_json(),
            "last": None if table.last is None else table.last.to_json(),
            "camera_check": None if table.check is None else table.check.to_json(),
        }


def _option(game: Game, proposal: Proposal, cards: Sequence[Card] | None) -> Option:
    """The option of `proposal` reading `cards` (None: its own), or a 409 saying why not."""
    if cards is None:
        if not proposal.options:
            raise ApiError.coded("no_reading", 409, text=repr(proposal.key))
        return proposal.options[0]
    option = option_for(game, proposal, cards)
    if option is None:
        raise ApiError.coded("cannot_be_there", 409, cards=cards)
    return option


def table_hook(modes: TableModes) -> TableHook:
    """Table mode for the server camera: the game it follows, with the frames it keeps, its
    frames checked before the first deal; after a step the feed follows the game's new deal
    (its smoother forgets the last deal's plays)."""

    def follow(feed: CameraFeed, game_id: str, view: TableView) -> dict[str, Any]:
        before = modes.game(game_id)
        reading = feed.latest_reading() if before.deal_state is None else None
        if reading is not None:
            modes.check_camera(game_id, check_camera(*reading, before.settings.players))

        def picture(frame_id: str | None) -> bytes | None:
            if frame_id is None:
                return feed.latest_jpeg(THUMB_SIDE)
            return feed.memory.thumbnail(frame_id)

        status = modes.follow(game_id, view, picture)
        game = modes.game(game_id)
        deal = game.deal_state.number if game.deal_state else 0
        feed.attach(game_id, game.players, game.dealer, deal, switch=False)
        return status

    return follow
