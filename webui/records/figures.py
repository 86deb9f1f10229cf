"""Players' records added up from the finished games' summaries (`GameStore.finished`): pure
functions, no I/O and no replay.

A player is a name at the table, its case and spacing folded (`fold`): "Ann", " ann " and
"ANN" are one player, so renaming a seat to a name already known merges the two. A name sitting
at two seats of one game counts once, at its first seat.
"""

from __future__ import annotations

import functools
import heapq
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

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
    """Hands (or cribs) counted: how many, their points, how often each score, the best. Each
    is kept as its summary stores it (`scorer.records.Shown.to_json`): no card is parsed."""

    count: int = 0
    total: int = 0
    histogram: list[int] = field(default_factory=lambda: [0] * (MAX_SHOW + 1))
    shown: list[tuple[list[Any], FinishedGame]] = field(default_factory=list)

    def add(self, shown: Sequence[list[Any]], game: FinishedGame) -> None:
        for one in shown:
            self.count += 1
            self.total += one[1]
            self.histogram[one[1]] += 1
            self.shown.append((one, game))

    def to_json(self) -> dict[str, Any]:
        # games come most recent first, so of equal hands the latest is first (a stable sort)
        best = heapq.nlargest(BEST, self.shown, key=lambda pair: pair[0][1])
        return {
            "count": self.count,
            "total": self.total,
            "average": None if not self.count else self.total / self.count,
            "histogram": self.histogram,
            "best": [
                {"points": points, "cards": cards.split(), "starter": starter, "game": game.id,
                 "deal": deal, "played": played(game)}
                for (deal, points, cards, starter), game in best
            ],
        }  # fmt: skip


def _per_deal(points: int, deals: int) -> dict[str, Any]:
    return {"points": points, "deals": deals, "average": None if not deals else points / deals}


def player_record(games: Iterable[FinishedGame], key: str) -> dict[str, Any] | None:
    """The record of the player `key` (folded) over `games` (most recent first); None when
    they finished none."""
    name, count = None, 0
    sums = dict.fromkeys(_SUMMED, 0)
    hands, cribs, recent = Tally(), Tally(), list[dict[str, Any]]()
    for game in games:
        seat = seat_of(game, key)
        if seat is None:
            continue
        record = game.seats[seat]
        name = name or game.names[seat]  # as the latest game spells it
        count += 1
        for figure in _SUMMED:
            sums[figure] += record[figure]
        hands.add(record["hands"], game)
        cribs.add(record["cribs"], game)
        if len(recent) < RECENT:
            recent.append(_recent(game, record))
    if name is None:
        return None
    deals = sums["deals"]
    return {
        "name": name,
        "key": key,
        "games": count,
        "wins": sums["won"],
        "losses": count - sums["won"],
        "skunks": {"given": sums["skunks_given"], "taken": sums["skunked"]},
        "match_points": sums["match_points"],
        "deals": deals,
        "points": sums["points"],
        "points_per_deal": None if not deals else sums["points"] / deals,
        "hands": hands.to_json(),
        "cribs": cribs.to_json(),
        "pegging": {
            "dealer": _per_deal(sums["dealer_pegging"], sums["dealer_plays"]),
            "pone": _per_deal(sums["pone_pegging"], sums["pone_plays"]),
        },
        "his_heels": sums["his_heels"],
        "muggins": {"taken": sums["muggins_taken"], "lost": sums["muggins_lost"]},
        "recent": recent,
    }


#: The figures of `scorer.records.SeatRecord` a record adds up (booleans count as 1).
_SUMMED = ("won", "skunks_given", "skunked", "match_points", "deals", "points", "his_heels",
           "muggins_taken", "muggins_lost", "dealer_pegging", "dealer_plays", "pone_pegging",
           "pone_plays")  # fmt: skip


def _recent(game: FinishedGame, record: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": game.id,
        "played": played(game),
        "sides": sides(game),
        "scores": game.scores,
        "side": record["side"],
        "won": record["won"],
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
            one["games"] += 1
            one["wins"] += game.seats[seat]["won"]
            one["match_points"] += game.seats[seat]["match_points"]
    return sorted(found.values(), key=lambda one: (-one["games"], one["key"]))


def rivals(games: Iterable[FinishedGame], key: str) -> dict[str, dict[str, Any]]:
    """`key` against each player who sat on another side in a finished game with them (by
    folded name, the most games first): games, wins each, the average margin (`key`'s side's
    final score less the other's), the skunks each gave the other, their recent games."""
    found: dict[str, dict[str, Any]] = {}
    for game in games:
        mine = seat_of(game, key)
        if mine is None:
            continue
        me = game.seats[mine]
        seen = {key}
        for seat, name in enumerate(game.names):
            other = fold(name)
            them = game.seats[seat]
            if other in seen or them["side"] == me["side"]:
                continue
            seen.add(other)
            one = found.setdefault(other, {
                "player": game.names[mine], "other": name, "games": 0,
                "wins": {"player": 0, "other": 0}, "margin": 0,
                "skunks": {"given": 0, "taken": 0}, "recent": []})  # fmt: skip
            one["games"] += 1
            one["margin"] += game.scores[me["side"]] - game.scores[them["side"]]
            one["wins"]["player"] += me["won"]
            one["wins"]["other"] += them["won"]
            one["skunks"]["given"] += me["won"] and them["skunked"]
            one["skunks"]["taken"] += them["won"] and me["skunked"]
            if len(one["recent"]) < RECENT:
                one["recent"].append(_recent(game, me))
    for one in found.values():
        one["margin"] /= one["games"]
    return dict(sorted(found.items(), key=lambda pair: -int(pair[1]["games"])))


def head_to_head(games: Iterable[FinishedGame], key: str, other: str) -> dict[str, Any] | None:
    """`key` against `other` (both folded): `rivals`' figures, None when they never met."""
    return rivals(games, key).get(other)


@functools.cache
def expected() -> dict[str, Any]:
    """The exact share of each hand and crib score over every deal (`scorer.stats`): worked
    out once per process (about two seconds), then kept."""
    hand, crib = both_distributions()
    return {
        "hands": {"mean": hand.mean, "shares": [n / hand.count for n in hand.histogram]},
        "cribs": {"mean": crib.mean, "shares": [n / crib.count for n in crib.histogram]},
    }
