"""A match: several games, match points per game by skunk level, the loser deals next."""

from __future__ import annotations

from dataclasses import dataclass, field

from scorer.errors import GameError
from scorer.events import Outcome
from scorer.game import Game
from scorer.settings import Settings, Skunk


@dataclass
class Match:
    """Games played to `settings.games_per_match`, or until a triple skunk ends it.

    >>> match = Match(Settings(games_per_match=3))
    >>> match.record(Outcome(0, (121, 80), {1: Skunk.SKUNK}, (2, 0)), last_dealer=1)
    >>> match.standings(), match.next_first_dealer, match.over
    ([2, 0], 1, False)
    """

    settings: Settings
    outcomes: list[Outcome] = field(default_factory=list)
    next_first_dealer: int | None = None
    ended_by_triple_skunk: bool = False

    def record(self, outcome: Outcome, *, last_dealer: int) -> None:
        """Add a finished game; the loser (the lowest score) deals first in the next."""
        if self.over:
            raise GameError("match_over")
        self.outcomes.append(outcome)
        scheme = self.settings.match_points
        if scheme.triple_skunk_wins_match and Skunk.TRIPLE in outcome.skunks.values():
            self.ended_by_triple_skunk = True
        loser_side = min(range(len(outcome.scores)), key=lambda side: outcome.scores[side])
        seats = range(self.settings.players)
        losers = [s for s in seats if self.settings.side_of(s) == loser_side]
        # Of the losing side's seats, the first clockwise from the last dealer deals.
        self.next_first_dealer = min(losers, key=lambda s: (s - last_dealer - 1) % len(seats))

    def record_game(self, game: Game) -> None:
        if game.outcome is None or game.dealer is None:
            raise GameError("game_not_finished")
        self.record(game.outcome, last_dealer=game.dealer)

    def new_game(self) -> Game:
        return Game(self.settings, first_dealer=self.next_first_dealer)

    def standings(self) -> list[int]:
        totals = [0] * self.settings.sides
        for outcome in self.outcomes:
            for side, points in enumerate(outcome.match_points):
                totals[side] += points
        return totals

    @property
    def over(self) -> bool:
        return self.ended_by_triple_skunk or len(self.outcomes) >= self.settings.games_per_match

    def winner(self) -> int | None:
        """The side with the most match points once the match is over (None on a tie)."""
        if not self.over:
            return None
        if self.ended_by_triple_skunk:
            return self.outcomes[-1].winner
        totals = self.standings()
        best = max(totals)
        return totals.index(best) if totals.count(best) == 1 else None
