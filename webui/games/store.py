"""Games in SQLite: each game is its settings plus its ordered action log.

Every action is committed the moment it is accepted, so a server killed mid-game (even with
SIGKILL) loses nothing: the game is rebuilt from the log with `Game.from_json`. Writes run
inside `BEGIN IMMEDIATE`, which serialises them per database across threads and processes,
and the log is read inside that same transaction, so two devices acting at once can never
interleave half-applied changes. WAL mode lets pages read while a write is in progress.

An action applied from a camera or photo detection keeps a small JPEG of that frame in
`action_frames`, keyed by game and action index and written in the action's own transaction;
undo drops it with the action.

Each game also has a summary row in `game_summaries`, written in the transaction of every change
to it: its score, its winner and, once finished, each seat's figures (`scorer.records`) that a
player's record adds up, so neither the game list nor a record replays a game. A database from
before the summaries (or of an older `SUMMARY_VERSION`) gets them when it is opened.

The store opens only a file that is its own: a new or empty SQLite file becomes a games
database; anything else (not SQLite, another program's tables, a missing folder) is refused
with `GamesDatabaseError`, and left as it was.
"""

from __future__ import annotations

import json
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import closing, contextmanager
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, TypeVar

from scorer.game import Game
from scorer.records import game_record
from scorer.settings import Settings
from webui.errors import ApiError, GameNotFoundError

T = TypeVar("T")

#: The picture kept with an action: the JPEG of a frame id, if it is still held (the camera's
#: frames lend it: `webui.camera.frames.held_picture`).
Pictures = Callable[[str | None], bytes | None]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    match_id TEXT NOT NULL,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    settings TEXT NOT NULL,
    first_dealer INTEGER,
    names TEXT NOT NULL,
    revision INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS actions (
    game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    action TEXT NOT NULL,
    PRIMARY KEY (game_id, seq)
);
CREATE INDEX IF NOT EXISTS games_match ON games(match_id);
CREATE TABLE IF NOT EXISTS game_summaries (
    game_id TEXT PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,
    version INTEGER NOT NULL,
    scores TEXT NOT NULL,
    winner INTEGER,
    seats TEXT
);
CREATE TABLE IF NOT EXISTS action_frames (
    game_id TEXT NOT NULL REFERENCES games(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    jpeg BLOB NOT NULL,
    PRIMARY KEY (game_id, seq)
);
"""


#: The figures' form in `game_summaries.seats`: summaries of another version are made again.
SUMMARY_VERSION = 1


class GamesDatabaseError(Exception):
    """A games database that cannot be used: the path, and why, are in the message."""


def _tables(db: sqlite3.Connection) -> dict[str, frozenset[str]]:
    """Each table of `db` (SQLite's own left out) with its columns."""
    names = [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    return {
        name: frozenset(
            row[0] for row in db.execute("SELECT name FROM pragma_table_info(?)", (name,))
        )
        for name in names
        if not name.startswith("sqlite_")
    }


@cache
def _our_tables() -> dict[str, frozenset[str]]:
    """The tables `_SCHEMA` makes, with their columns."""
    with closing(sqlite3.connect(":memory:")) as db:
        db.executescript(_SCHEMA)
        return _tables(db)


def _not_ours(db: sqlite3.Connection) -> str | None:
    """Why `db` is not a games database, or None: ours, or empty (it is made ours)."""
    tables, ours = _tables(db), _our_tables()
    if tables and not tables.keys() & ours.keys():
        return "it holds other tables: " + ", ".join(sorted(tables))
    for name in sorted(tables.keys() & ours.keys()):
        if missing := ours[name] - tables[name]:
            return f"its table {name} has no column {', '.join(sorted(missing))}"
    return None


def _check_place(path: Path) -> None:
    """Refuse a database in a folder that is not there (a mistyped --db would otherwise start
    an empty list of games somewhere unexpected), or a folder given as the database."""
    if path.is_dir():
        raise GamesDatabaseError(f"{path} is a folder, not a games database file")
    if not path.parent.is_dir():
        raise GamesDatabaseError(f"the folder {path.parent} does not exist (games database {path})")


def _seats(raw: str) -> list[dict[str, Any]]:
    """Each seat's figures as stored, every hand and crib a tuple: tuples of numbers and text
    drop out of the garbage collector's passes, which a records' cache would otherwise slow."""
    seats: list[dict[str, Any]] = json.loads(raw)
    for seat in seats:
        for what in ("hands", "cribs"):
            seat[what] = tuple(tuple(shown) for shown in seat[what])
    return seats


def stored_names(raw: str) -> list[str]:
    """A game's seat names as stored, each made writable as UTF-8: a name stored before names
    were checked may hold a lone surrogate, which would take down every page showing it.

    >>> stored_names('["Ann", "B\\\\ud800b"]')
    ['Ann', 'B?b']
    """
    return [str(name).encode("utf-8", "replace").decode("utf-8") for name in json.loads(raw)]


@dataclass
class StoredGame:
    """A game as loaded: the rebuilt engine plus what the store keeps about it."""

    id: str
    match_id: str
    names: list[str]
    created: float
    updated: float
    revision: int
    game: Game


@dataclass(frozen=True)
class FinishedGame:
    """A finished game as its summary keeps it: no replay."""

    id: str
    match_id: str
    updated: float
    names: list[str]
    settings: dict[str, Any]
    scores: list[int]  # by side
    winner: int  # the winning side
    seats: list[dict[str, Any]]  # each seat's `scorer.records.SeatRecord` as JSON


class GameStore:
    """The games database. Opens a short-lived connection per operation: thread-safe."""

    def __init__(self, path: str | Path) -> None:
        """Open the games database at `path`, made if new; its folder must exist (the default
        one, `webui.paths.data_dir`, is made by itself)."""
        self.path = str(path)
        if self.path != ":memory:":
            _check_place(Path(self.path))
        self._lock = threading.Lock()  # serialises writers of this process (no busy waits)
        try:
            with self._connect() as db:
                if why := _not_ours(db):  # checked before anything is written to it
                    raise GamesDatabaseError(f"{self.path} is not a cribcam games database ({why})")
                db.execute("PRAGMA journal_mode=WAL")
                db.executescript(_SCHEMA)
            self._summarise_missing()
        except sqlite3.OperationalError as error:  # no access, locked, a full disk
            raise GamesDatabaseError(
                f"cannot open the games database {self.path} ({error})"
            ) from error
        except sqlite3.DatabaseError as error:  # not SQLite at all (a text file, a photo)
            raise GamesDatabaseError(
                f"{self.path} is not a cribcam games database ({error})"
            ) from error

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        try:
            db.execute("PRAGMA synchronous=FULL")
            db.execute("PRAGMA foreign_keys=ON")
            yield db
        finally:
            db.close()

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        """One write transaction; rolled back entirely if anything in it fails."""
        with self._lock, self._connect() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:  # SQLite may have rolled back itself (a full disk)
                    db.execute("ROLLBACK")
                raise

    # -- meta ------------------------------------------------------------------------------
    def secret(self, key: str) -> str:
        """A random secret kept in the database (created on first use), e.g. the cookie key."""
        with self._write() as db:
            row = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
            if row is not None:
                return str(row[0])
            value = secrets.token_hex(32)
            db.execute("INSERT INTO meta (key, value) VALUES (?, ?)", (key, value))
            return value

    # -- games -----------------------------------------------------------------------------
    def create(
        self,
        settings: Settings,
        names: Sequence[str],
        first_dealer: int | None = None,
        match_id: str | None = None,
    ) -> str:
        game = Game(settings, first_dealer=first_dealer)  # refuses a bad first dealer first
        game_id = secrets.token_hex(4)
        now = time.time()
        with self._write() as db:
            self._insert(db, StoredGame(game_id, match_id or game_id, list(names), now, now, 0,
                                        game))  # fmt: skip
        return game_id

    def merge(self, games: Sequence[StoredGame]) -> dict[str, list[str]]:
        """Take in games from another database (an export), all or none in one transaction,
        merging by id: a new id is added; a game already here is unchanged when its log is the
        same or goes further, carried on when the imported log goes on from it (same rules,
        its names taken); any other game of the same id is refused (409): nothing is imported."""
        done: dict[str, list[str]] = {"added": [], "extended": [], "unchanged": []}
        with self._write() as db:
            for game in games:
                try:
                    here = self._load(db, game.id)
                except GameNotFoundError:
                    self._insert(db, game)
                    done["added"].append(game.id)
                    continue
                ours, theirs = here.game.to_json(), game.game.to_json()
                before, after = ours.pop("actions"), theirs.pop("actions")
                if ours == theirs and before[: len(after)] == after:  # here already, or further
                    done["unchanged"].append(game.id)
                    continue
                if ours != theirs or after[: len(before)] != before:
                    raise ApiError(f"game {game.id} is already here with another record: "
                                   "nothing was imported", 409)  # fmt: skip
                here.game, here.names = game.game, list(game.names)
                db.execute("UPDATE games SET names = ? WHERE id = ?",
                           (json.dumps(here.names), game.id))  # fmt: skip
                self._save_log(db, here, before, after)
                done["extended"].append(game.id)
        return done

    def summaries(self) -> list[dict[str, Any]]:
        """Every game, most recently played first (summaries; no replay)."""
        with self._connect() as db:
            rows = db.execute(
                "SELECT g.id, g.match_id, g.created, g.updated, g.settings, g.names, g.revision,"
                " (SELECT COUNT(*) FROM actions a WHERE a.game_id = g.id)"
                " FROM games g ORDER BY g.updated DESC"
            ).fetchall()
        return [
            {"id": r[0], "match_id": r[1], "created": r[2], "updated": r[3],
             "settings": json.loads(r[4]), "names": stored_names(r[5]), "revision": r[6],
             "actions": r[7]}
            for r in rows
        ]  # fmt: skip

    def load(self, game_id: str) -> StoredGame:
        with self._connect() as db:
            db.execute("BEGIN")  # one consistent snapshot of the game row and its log
            try:
                return self._load(db, game_id)
            finally:
                db.execute("ROLLBACK")

    def revision(self, game_id: str) -> int:
        with self._connect() as db:
            row = db.execute("SELECT revision FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            raise GameNotFoundError.coded("no_game", text=repr(game_id))
        return int(row[0])

    def match_revisions(self, game_id: str) -> tuple[str, tuple[tuple[str, int], ...]]:
        """The game's match id, and each game of the match with its revision (one query): a
        game's view is the same as long as these are."""
        with self._connect() as db:
            rows = db.execute(
                "SELECT match_id, id, revision FROM games WHERE match_id ="
                " (SELECT match_id FROM games WHERE id = ?) ORDER BY created, rowid",
                (game_id,),
            ).fetchall()
        if not rows:
            raise GameNotFoundError.coded("no_game", text=repr(game_id))
        return str(rows[0][0]), tuple((str(r[1]), int(r[2])) for r in rows)

    def match_games(self, match_id: str) -> list[StoredGame]:
        with self._connect() as db:
            ids = [
                r[0]
                for r in db.execute(
                    "SELECT id FROM games WHERE match_id = ? ORDER BY created, rowid", (match_id,)
                )
            ]
            return [self._load(db, game_id) for game_id in ids]  # fmt: skip

    def act(
        self, game_id: str, action: Callable[[Game], T], picture: bytes | None = None
    ) -> tuple[T, StoredGame]:
        """Apply `action` to the game and commit what it changed in the log, atomically.

        `picture` (a JPEG of the frame the action was read from) is stored with the action it
        appends, in the same transaction. An action that raises leaves the database untouched
        (and the engine itself is unchanged by a refused action).
        """
        with self._write() as db:
            stored = self._load(db, game_id)
            before = [a.to_json() for a in stored.game.actions]
            result = action(stored.game)
            after = [a.to_json() for a in stored.game.actions]
            self._save_log(db, stored, before, after)
            if picture is not None and len(after) > len(before):
                db.execute("INSERT INTO action_frames (game_id, seq, jpeg) VALUES (?, ?, ?)",
                           (game_id, len(after) - 1, picture))  # fmt: skip
            return result, stored

    def picture(self, game_id: str, seq: int) -> bytes | None:
        """The frame stored with action `seq` of the game, if it has one."""
        with self._connect() as db:
            row = db.execute("SELECT jpeg FROM action_frames WHERE game_id = ? AND seq = ?",
                             (game_id, seq)).fetchone()  # fmt: skip
        return None if row is None else bytes(row[0])

    def pictures(self, game_id: str) -> set[int]:
        """The action indexes of the game that have a stored frame."""
        with self._connect() as db:
            rows = db.execute("SELECT seq FROM action_frames WHERE game_id = ?", (game_id,))
            return {int(r[0]) for r in rows}

    def replace_settings(self, game_id: str, settings: Settings) -> StoredGame:
        """New rules for a game; refused (unchanged) if its log does not replay under them, or
        when the game is finished (its outcome stands: other rules could change it)."""
        with self._write() as db:
            stored = self._load(db, game_id)
            if stored.game.outcome is not None and settings != stored.game.settings:
                raise ApiError.coded("game_finished", 409)
            data = stored.game.to_json() | {"settings": settings.to_json()}
            stored.game = Game.from_json(data)
            db.execute("UPDATE games SET settings = ? WHERE id = ?",
                       (json.dumps(settings.to_json()), game_id))  # fmt: skip
            self._bump(db, stored)
            return stored

    def rename(self, game_id: str, names: Sequence[str]) -> StoredGame:
        with self._write() as db:
            stored = self._load(db, game_id)
            if stored.game.outcome is not None and list(names) != stored.names:
                raise ApiError.coded("names_final", 409)
            stored.names = list(names)
            db.execute("UPDATE games SET names = ? WHERE id = ?", (json.dumps(names), game_id))
            self._bump(db, stored)
            return stored

    def delete(self, game_id: str) -> None:
        with self._write() as db:
            if db.execute("DELETE FROM games WHERE id = ?", (game_id,)).rowcount == 0:
                raise GameNotFoundError.coded("no_game", text=repr(game_id))

    # -- summaries -------------------------------------------------------------------------
    def scoreboard(self) -> dict[str, tuple[list[int], int | None]]:
        """Each game's score by side and its winning side (None in play), from its summary."""
        with self._connect() as db:
            rows = db.execute("SELECT game_id, scores, winner FROM game_summaries").fetchall()
        return {str(r[0]): (json.loads(r[1]), r[2]) for r in rows}

    def finished_generation(self) -> tuple[Any, ...]:
        """What changes whenever `finished()` would: a game finished, taken back, renamed,
        carried on, deleted or imported (a cache of it is good while this is the same)."""
        with self._connect() as db:
            row = db.execute(
                "SELECT COUNT(*), MAX(g.updated), TOTAL(g.revision) FROM games g"
                " JOIN game_summaries s ON s.game_id = g.id WHERE s.winner IS NOT NULL"
            ).fetchone()
        return tuple(row)

    def finished(self) -> list[FinishedGame]:
        """Every finished game with each seat's figures, most recently played first."""
        with self._connect() as db:
            rows = db.execute(
                "SELECT g.id, g.match_id, g.updated, g.names, g.settings, s.scores, s.winner,"
                " s.seats FROM games g JOIN game_summaries s ON s.game_id = g.id"
                " WHERE s.winner IS NOT NULL ORDER BY g.updated DESC, g.rowid DESC"
            ).fetchall()
        return [FinishedGame(str(r[0]), str(r[1]), float(r[2]), stored_names(r[3]),
                             json.loads(r[4]), json.loads(r[5]), int(r[6]), _seats(r[7]))
                for r in rows]  # fmt: skip

    def logs(self) -> list[dict[str, Any]]:
        """Every game as it is kept, oldest first: its labels (id, names, match, times) and its
        record (`Game.to_json`: settings, first dealer, actions), read without a replay."""
        with self._connect() as db:
            db.execute("BEGIN")  # the games and their actions from one snapshot
            try:
                rows = db.execute(
                    "SELECT id, match_id, created, updated, settings, first_dealer, names"
                    " FROM games ORDER BY created, rowid"
                ).fetchall()
                actions: dict[str, list[Any]] = {str(r[0]): [] for r in rows}
                for game_id, action in db.execute(
                    "SELECT game_id, action FROM actions ORDER BY game_id, seq"
                ):
                    actions[str(game_id)].append(json.loads(action))
            finally:
                db.execute("ROLLBACK")
        return [
            {"id": r[0], "names": stored_names(r[6]), "match_id": r[1], "created": r[2],
             "updated": r[3], "settings": json.loads(r[4]), "first_dealer": r[5],
             "actions": actions[str(r[0])]}
            for r in rows
        ]  # fmt: skip

    def _summarise(self, db: sqlite3.Connection, game_id: str, game: Game) -> None:
        """Write the game's summary (in the caller's transaction)."""
        outcome = game.outcome
        seats = None if outcome is None else json.dumps([s.to_json() for s in game_record(game)])
        db.execute(
            "INSERT OR REPLACE INTO game_summaries (game_id, version, scores, winner, seats)"
            " VALUES (?, ?, ?, ?, ?)",
            (game_id, SUMMARY_VERSION, json.dumps(list(game.scores)),
             None if outcome is None else outcome.winner, seats),
        )  # fmt: skip

    def _summarise_missing(self) -> None:
        """Summarise the games that have no summary of this version (stored before it)."""
        with self._connect() as db:
            rows = db.execute(
                "SELECT id FROM games WHERE id NOT IN"
                " (SELECT game_id FROM game_summaries WHERE version = ?)",
                (SUMMARY_VERSION,),
            )
            missing = [str(r[0]) for r in rows]
        for game_id in missing:  # one transaction each: a write waits no longer than one replay
            with self._write() as db:
                try:
                    stored = self._load(db, game_id)
                except GameNotFoundError:  # deleted meanwhile by another process
                    continue
                self._summarise(db, game_id, stored.game)

    # -- internals -------------------------------------------------------------------------
    def _insert(self, db: sqlite3.Connection, stored: StoredGame) -> None:
        """A new game row with its log and summary (in the caller's transaction)."""
        game = stored.game
        db.execute(
            "INSERT INTO games (id, match_id, created, updated, settings, first_dealer, names,"
            " revision) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (stored.id, stored.match_id, stored.created, stored.updated,
             json.dumps(game.settings.to_json()), game.first_dealer, json.dumps(stored.names),
             stored.revision),
        )  # fmt: skip
        db.executemany(
            "INSERT INTO actions (game_id, seq, action) VALUES (?, ?, ?)",
            [(stored.id, seq, json.dumps(a.to_json())) for seq, a in enumerate(game.actions)],
        )
        self._summarise(db, stored.id, game)

    def _load(self, db: sqlite3.Connection, game_id: str) -> StoredGame:
        row = db.execute(
            "SELECT match_id, created, updated, settings, first_dealer, names, revision"
            " FROM games WHERE id = ?",
            (game_id,),
        ).fetchone()
        if row is None:
            raise GameNotFoundError.coded("no_game", text=repr(game_id))
        actions = [json.loads(r[0]) for r in db.execute(
            "SELECT action FROM actions WHERE game_id = ? ORDER BY seq", (game_id,))]  # fmt: skip
        game = Game.from_json(
            {"settings": json.loads(row[3]), "first_dealer": row[4], "actions": actions}
        )
        return StoredGame(game_id, row[0], stored_names(row[5]), row[1], row[2], row[6], game)

    def _save_log(
        self,
        db: sqlite3.Connection,
        stored: StoredGame,
        before: list[dict[str, Any]],
        after: list[dict[str, Any]],
    ) -> None:
        """Write only the difference: drop the log's tail after the common prefix, add the new."""
        if before == after:
            return
        keep = 0
        while keep < min(len(before), len(after)) and before[keep] == after[keep]:
            keep += 1
        db.execute("DELETE FROM actions WHERE game_id = ? AND seq >= ?", (stored.id, keep))
        db.execute("DELETE FROM action_frames WHERE game_id = ? AND seq >= ?", (stored.id, keep))
        db.executemany(
            "INSERT INTO actions (game_id, seq, action) VALUES (?, ?, ?)",
            [(stored.id, seq, json.dumps(a)) for seq, a in enumerate(after[keep:], start=keep)],
        )
        self._bump(db, stored)

    def _bump(self, db: sqlite3.Connection, stored: StoredGame) -> None:
        """A change to the game: its revision, its time, and its summary, all in `db`'s
        transaction."""
        self._summarise(db, stored.id, stored.game)
        stored.revision += 1
        stored.updated = time.time()
        db.execute("UPDATE games SET revision = ?, updated = ? WHERE id = ?",
                   (stored.revision, stored.updated, stored.id))  # fmt: skip
