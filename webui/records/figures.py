"""Players' records added up from the finished games' summaries (`GameStore.finished`): pure
functions, no I/O and no replay.

A player is a name at the table, its case and spacing folded (`fold`): "Ann", " ann " and
"ANN" are one player, so renaming a seat to a name already known merges the two. A name sitting
at two seats of one game counts once, at its first seat.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from scorer.records import SeatRecord, Shown
from scorer.stats import MAX_SHOW, both_distributions
from webui.games.store import FinishedGame

#: How many best hands and recent games a record lists.
BEST, RECENT = 5, 10


def fold(name: str) -> str:
    """A player's key: the name's case and spacing folded.

    >>> fold("  Ann   Marie "), fold("ANN MARIE")
    ('ann marie', 'ann marie')
    """
    return " ".join(name.split()).casefold()


def sides(game: FinishedGame) -> list[str]:
    """The game's sides as named at the table (partners joined)."""
    names = game.names
    return [f"{names[0]} & {names[2]}", f"{names[1]} & {names[3]}"] if len(names) == 4 else names


def played(game: FinishedGame) -> str:
    """When the game was last played, as ISO time (the page shows it in local time)."""
    return datetime.fromtimestamp(game.updated, UTC).isoformat(timespec="seconds")


def seat_of(game: FinishedGame, key: str) -> int | None:
    """The first seat of the game whose name folds to `key`."""
    return next((seat for seat, name in enumerate(game.names) if fold(name) == key), None)


@dataclass
class Tally:
    """Hands (or cribs) counted: how many, their points, how often each score, the best."""

    count: int = 0
    total: int = 0
    histogram: list[int] = field(default_factory=lambda: [0] * (MAX_SHOW + 1))
    best: list[tuple[Shown, FinishedGame]] = field(default_factory=list)

    def add(self, shown: Sequence[Shown], game: FinishedGame) -> None:
        for one in shown:
            self.count += 1
            self.total += one.points
            self.histogram[one.points] += 1
            self.best.append((one, game))
        # games come most recent first, so a tie keeps the latest hand first (a stable sort)
        self.best.sort(key=lambda pair: -pair[0].points)
        del self.best[BEST:]

    def to_json(self) -> dict[str, Any]:
        return {
            "count": self.count,
            "total": self.total,
            "average": None if not self.count else self.total / self.count,
            "histogram": self.histogram,
            "best": [
                {"points": shown.points, "cards": [str(c) for c in shown.cards],
                 "starter": str(shown.starter), "game": game.id, "deal": shown.deal,
                 "played": played(game)}
                for shown, game in self.best
            ],
        }  # fmt: skip


def _per_deal(points: int, deals: int) -> dict[str, Any]:
    return {"points": points, "deals": deals, "average": None if not deals else points / deals}


def player_record(games: Iterable[FinishedGame], key: str) -> dict[str, Any] | None:
    """The record of the player `key` (folded) over `games` (most recent first); None when
    they finished none."""
    name = None
    count = wins = given = taken = match_points = deals = points = 0
    heels = mugged = lost = 0
    pegging = {"dealer": [0, 0], "pone": [0, 0]}
    hands, cribs, recent = Tally(), Tally(), list[dict[str, Any]]()
    for game in games:
        seat = seat_of(game, key)
        if seat is None:
            continue
        record = SeatRecord.from_json(game.seats[seat])
        name = name or game.names[seat]  # as the latest game spells it
        count += 1
        wins += record.won
        given += record.skunks_given
        taken += record.skunked
        match_points += record.match_points
        deals += record.deals
        points += record.points
        heels += record.his_heels
        mugged += record.muggins_taken
        lost += record.muggins_lost
        pegging["dealer"][0] += record.dealer_pegging
        pegging["dealer"][1] += record.dealer_plays
        pegging["pone"][0] += record.pone_pegging
        pegging["pone"][1] += record.pone_plays
        hands.add(record.hands, game)
        cribs.add(record.cribs, game)
        if len(recent) < RECENT:
            recent.append(_recent(game, record))
    if name is None:
        return None
    return {
        "name": name,
        "key": key,
        "games": count,
        "wins": wins,
        "losses": count - wins,
        "skunks": {"given": given, "taken": taken},
        "match_points": match_points,
        "deals": deals,
        "points": points,
        "points_per_deal": None if not deals else points / deals,
        "hands": hands.to_json(),
        "cribs": cribs.to_json(),
        "pegging": {role: _per_deal(*pegged) for role, pegged in pegging.items()},
        "his_heels": heels,
        "muggins": {"taken": mugged, "lost": lost},
        "recent": recent,
    }


def _recent(game: FinishedGame, record: SeatRecord) -> dict[str, Any]:
    return {
        "id": game.id,
        "played": played(game),
        "sides": sides(game),
        "scores": game.scores,
        "side": record.side,
        "won": record.won,
        "target": game.settings.get("target"),
    }


def players(games: Iterable[FinishedGame]) -> list[dict[str, Any]]:
    """Every player of the finished games: name (as last spelt), games, wins, match points;
    the most games first."""
    found: dict[str, dict[str, Any]] = {}
    for game in games:
        seen = set()
        for seat, name in enumerate(game.names):
            key = fold(name)
            if key in seen:
                continue
            seen.add(key)
            one = found.setdefault(
                key, {"name": name, "key": key, "games": 0, "wins": 0, "match_points": 0}
            )
            side = game.seats[seat]["side"]
            one["games"] += 1
            one["wins"] += side == game.winner
            one["match_points"] += game.seats[seat]["match_points"]
    return sorted(found.values(), key=lambda one: (-one["games"], one["key"]))


def head_to_head(games: Iterable[FinishedGame], key: str, other: str) -> dict[str, Any] | None:
    """`key` against `other` (both folded) in the finished games where they sat on opposite
    sides: games, wins each, the average margin (`key`'s side's final score less `other`'s),
    the skunks each gave the other; None when they never met."""
    names: list[str | None] = [None, None]
    count, wins, margin, skunks = 0, [0, 0], 0, [0, 0]
    together: list[dict[str, Any]] = []
    for game in games:
        mine, theirs = seat_of(game, key), seat_of(game, other)
        if mine is None or theirs is None:
            continue
        seats = (mine, theirs)
        records = [SeatRecord.from_json(game.seats[seat]) for seat in seats]
        if records[0].side == records[1].side:
            continue
        names = [names[i] or game.names[seat] for i, seat in enumerate(seats)]
        count += 1
        margin += game.scores[records[0].side] - game.scores[records[1].side]
        for i, record in enumerate(records):
            wins[i] += record.won
            skunks[i] += record.won and records[1 - i].skunked
        if len(together) < RECENT:
            together.append(_recent(game, records[0]))
    if not count:
        return None
    return {
        "player": names[0],
        "other": names[1],
        "games": count,
        "wins": {"player": wins[0], "other": wins[1]},
        "margin": margin / count,
        "skunks": {"given": skunks[0], "taken": skunks[1]},
        "recent": together,
    }


@functools.cache
def expected() -> dict[str, Any]:
    """The exact share of each hand and crib score over every deal (`scorer.stats`): worked
    out once per process (about two seconds), then kept."""
    hand, crib = both_distributions()
    return {
        "hands": {"mean": hand.mean, "shares": [n / hand.count for n in hand.histogram]},
        "cribs": {"mean": crib.mean, "shares": [n / crib.count for n in crib.histogram]},
    }
