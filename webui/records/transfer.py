"""Games to take away and to bring back: the export's JSON and CSV, and reading an import.

An exported game is the record `cribcam replay` reads (the action log: settings, first dealer,
actions) plus its labels: `id`, `names`, `match_id`, `created`, `updated`. The CSV has one row
per deal, with each seat's points in it and the running score after it. An import is checked
whole (every game replayed) before anything is written.
"""

from __future__ import annotations

import csv
import io
import re
import time
from collections.abc import Iterable, Sequence
from typing import Any

from scorer.errors import CribbageError
from scorer.events import EventKind
from scorer.game import Game
from scorer.records import PEGGING, dealers
from scorer.replay import LABELS, replay_log
from webui.contract.bodies import SeatNames
from webui.contract.routes import validated
from webui.errors import ApiError
from webui.games.store import StoredGame
from webui.records.figures import fold

#: A game id as URLs carry it: the app's are 8 hex digits; an import may bring others.
GAME_ID = re.compile(r"[0-9A-Za-z_-]{1,40}")
#: The most seats a game has: the CSV's columns for each.
SEATS = 4


def chosen(logs: Iterable[dict[str, Any]], player: str | None, game: str | None) -> list[Any]:
    """The exported games: all, a player's (folded name) or one game's."""
    found = [
        log for log in logs
        if (game is None or log["id"] == game)
        and (player is None or fold(player) in {fold(name) for name in log["names"]})
    ]  # fmt: skip
    return found


def csv_text(logs: Iterable[dict[str, Any]]) -> str:
    """One row per deal of every game: who dealt, the crib, each seat's pegging, hand and other
    points (his heels, three for last, muggins, penalties, corrections), and each seat's side's
    score after the deal. Points counted after the game was won are left out."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    columns = ["game", "deal", "dealer", "crib"]
    for seat in range(1, SEATS + 1):
        columns += [f"player{seat}", f"pegging{seat}", f"hand{seat}", f"other{seat}",
                    f"score{seat}"]  # fmt: skip
    writer.writerow(columns)
    for log in logs:
        game = replay_log({key: log[key] for key in ("settings", "first_dealer", "actions")})
        for row in deal_rows(game, log["names"]):
            writer.writerow([log["id"], *row])
    return out.getvalue()


def deal_rows(game: Game, names: Sequence[str]) -> list[list[Any]]:
    """The CSV's rows of one game, without its id."""
    settings, dealer_of = game.settings, dealers(game)
    running = [0] * settings.sides
    rows = []
    for deal in range(1, game.deals_played + 1):
        pegging, hand, other = [0] * game.players, [0] * game.players, [0] * game.players
        crib = 0
        # points before the first deal (five-card's three for last) count in the first
        for event in (e for e in game.events if max(e.deal, 1) == deal):
            if event.seat is None or event.for_interest:
                continue
            side = settings.side_of(event.seat)
            running[side] = max(running[side] + event.points, 0)
            if event.kind in PEGGING:
                pegging[event.seat] += event.points
            elif event.kind is EventKind.HAND:
                hand[event.seat] += event.points
            elif event.kind is EventKind.CRIB:
                crib += event.points
            else:
                other[event.seat] += event.points
        row: list[Any] = [deal, names[dealer_of[deal]], crib]
        for seat in range(SEATS):
            if seat < game.players:
                row += [names[seat], pegging[seat], hand[seat], other[seat],
                        running[settings.side_of(seat)]]  # fmt: skip
            else:
                row += ["", "", "", "", ""]
        rows.append(row)
    return rows


def imported(body: Any) -> list[StoredGame]:
    """The games of an export (a JSON list), each checked and replayed; the first that is
    not right is refused (400), naming the game and why."""
    if not isinstance(body, list):
        raise ApiError(f"an import is a list of exported games, not {type(body).__name__}")
    games, ids, now = [], set(), time.time()
    for index, entry in enumerate(body):
        where = f"game {index + 1}"
        if not isinstance(entry, dict):
            raise ApiError(f"{where}: an exported game is an object, not {entry!r}")
        game_id = entry.get("id")
        if not isinstance(game_id, str) or not GAME_ID.fullmatch(game_id):
            raise ApiError(f"{where}: 'id' must be 1 to 40 letters, digits, - or _, not "
                           f"{game_id!r}")  # fmt: skip
        where = f"game {game_id}"
        if game_id in ids:
            raise ApiError(f"{where} is in the import twice")
        ids.add(game_id)
        record = {key: value for key, value in entry.items() if key not in LABELS}
        if "actions" not in record:
            raise ApiError(f"{where}: an exported game has its 'actions'")
        try:
            game = replay_log(record)
        except CribbageError as error:
            raise ApiError(f"{where} does not replay: {error}") from None
        match_id = entry.get("match_id", game_id)
        if not isinstance(match_id, str) or not GAME_ID.fullmatch(match_id):
            raise ApiError(f"{where}: 'match_id' must be like an id, not {match_id!r}")
        try:
            names = validated(SeatNames, entry.get("names"), "names", {"players": game.players})
            seats = names.root  # type: ignore[attr-defined]
        except ApiError as error:
            raise ApiError(f"{where}: {error}") from None
        created, updated = _time(entry, "created", now, where), _time(entry, "updated", now, where)
        games.append(StoredGame(game_id, match_id, seats, created, updated, 0, game))
    return games


def _time(entry: dict[str, Any], key: str, default: float, where: str) -> float:
    value = entry.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value < 2**40:
        raise ApiError(f"{where}: {key!r} must be a time in seconds since 1970, not {value!r}")
    return float(value)
