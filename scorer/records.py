"""What a finished game says about each seat: the figures a player's record adds up.

`game_record(game)` reads the replayed game's events (the action log is the one source of
truth) into one `SeatRecord` per seat: the result (won, the skunk, match points), every hand and
crib counted with its cards and its worth, the points pegged in the play as dealer and as pone,
his heels, and muggins points taken and lost. Counted as the table scored it:

- A hand's or crib's points are what its cards are worth (a short claim pegged less, and the
  difference is muggins or lost); hands counted for interest after the game was won are left out.
- Pegging is what the seat pegged in the play (a card's points, go's and last card). A deal
  counts for the averages once a card of it was played: a deal won on his heels has no play.
- A seat's points are those it earned itself (`Game.seat_points`: corrections and penalties
  too); partners each keep their own.
- A skunk given is a losing side under the skunk line (any level) in a game the seat's side
  won; a skunk taken, the seat's side so beaten.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scorer.cards import Card, parse_card, parse_cards
from scorer.errors import GameError
from scorer.events import EventKind
from scorer.game import Game
from scorer.settings import Skunk

#: Pegging's scoring events (a go itself scores nothing: the go point does).
PEGGING = (EventKind.PLAY, EventKind.GO_POINT, EventKind.LAST_CARD)


@dataclass(frozen=True)
class Shown:
    """A hand or crib as counted: its deal, what its cards are worth, the cards, the starter."""

    deal: int
    points: int
    cards: tuple[Card, ...]
    starter: Card

    def to_json(self) -> list[Any]:
        return [self.deal, self.points, " ".join(map(str, self.cards)), str(self.starter)]

    @classmethod
    def from_json(cls, data: list[Any]) -> Shown:
        deal, points, cards, starter = data
        return cls(int(deal), int(points), tuple(parse_cards(cards.split())), parse_card(starter))


@dataclass(frozen=True)
class SeatRecord:
    """One seat's figures in one finished game."""

    seat: int
    side: int
    won: bool
    skunks_given: int
    skunked: bool
    match_points: int
    deals: int  # deals of the game (dealt)
    points: int  # points the seat earned itself
    hands: tuple[Shown, ...]
    cribs: tuple[Shown, ...]
    dealer_pegging: int  # points pegged in deals the seat dealt
    dealer_plays: int  # deals the seat dealt that had a play
    pone_pegging: int
    pone_plays: int
    his_heels: int  # times the seat turned a jack as dealer
    muggins_taken: int  # points taken from opponents' short claims
    muggins_lost: int  # points opponents took from the seat's short claims

    def to_json(self) -> dict[str, Any]:
        data = {name: getattr(self, name) for name in self.__dataclass_fields__}
        data["hands"] = [shown.to_json() for shown in self.hands]
        data["cribs"] = [shown.to_json() for shown in self.cribs]
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SeatRecord:
        values = dict(data)
        values["hands"] = tuple(Shown.from_json(s) for s in values["hands"])
        values["cribs"] = tuple(Shown.from_json(s) for s in values["cribs"])
        return cls(**values)


def dealers(game: Game) -> dict[int, int]:
    """Deal number → its dealer: the first dealer (given, chosen or cut), then clockwise."""
    first = game.first_dealer
    for action in game.actions:
        if first is not None:
            break
        if action.kind == "dealer":
            first = action.seat
        elif action.kind == "cut":
            low = min(card.rank for card in action.cards)
            first = next(s for s, card in enumerate(action.cards) if card.rank == low)
    if first is None:
        return {}
    return {deal: (first + deal - 1) % game.players for deal in range(1, game.deals_played + 1)}


def starters(game: Game) -> dict[int, Card]:
    """Deal number → starter, from the action log (the n-th starter belongs to deal n)."""
    found = [a.cards[0] for a in game.actions if a.kind == "starter" and a.cards]
    return dict(enumerate(found, start=1))


def game_record(game: Game) -> list[SeatRecord]:
    """Each seat's figures in `game`, which must be finished."""
    outcome = game.outcome
    if outcome is None:
        raise GameError("game_not_finished")
    settings = game.settings
    dealer_of, starter_of = dealers(game), starters(game)
    players = range(game.players)
    hands: list[list[Shown]] = [[] for _ in players]
    cribs: list[list[Shown]] = [[] for _ in players]
    pegged = [[0, 0] for _ in players]  # [as dealer, as pone]
    played: set[int] = set()  # the deals with a play
    heels, taken, lost = [0] * game.players, [0] * game.players, [0] * game.players
    claimant: int | None = None  # the seat of the last claim: muggins is called on it
    for event in game.events:
        if event.for_interest or event.moot or event.seat is None:
            continue
        seat = event.seat
        if event.kind in (EventKind.HAND, EventKind.CRIB):
            worth = event.points if event.claim is None else event.claim.actual
            shown = Shown(event.deal, worth, event.cards, starter_of[event.deal])
            (hands if event.kind is EventKind.HAND else cribs)[seat].append(shown)
        elif event.kind in PEGGING:
            pegged[seat][0 if dealer_of.get(event.deal) == seat else 1] += event.points
            if event.kind is EventKind.PLAY:
                played.add(event.deal)
        elif event.kind is EventKind.HIS_HEELS:
            heels[seat] += 1
        elif event.kind is EventKind.MUGGINS and claimant is not None:
            taken[seat] += event.points
            lost[claimant] += event.points
        if event.claim is not None:
            claimant = seat
    records = []
    for seat in players:
        side = settings.side_of(seat)
        won = side == outcome.winner
        dealt = {deal for deal in played if dealer_of.get(deal) == seat}
        skunked = not won and outcome.skunks.get(side, Skunk.NONE) is not Skunk.NONE
        given = sum(level is not Skunk.NONE for level in outcome.skunks.values()) if won else 0
        records.append(SeatRecord(
            seat=seat, side=side, won=won,
            skunks_given=given, skunked=skunked, match_points=outcome.match_points[side],
            deals=game.deals_played, points=game.seat_points()[seat],
            hands=tuple(hands[seat]), cribs=tuple(cribs[seat]),
            dealer_pegging=pegged[seat][0], dealer_plays=len(dealt),
            pone_pegging=pegged[seat][1], pone_plays=len(played) - len(dealt),
            his_heels=heels[seat], muggins_taken=taken[seat], muggins_lost=lost[seat],
        ))  # fmt: skip
    return records
