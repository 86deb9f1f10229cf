"""The game's logs: actions (what players did) and events (what changed the score, and why).

Both serialise to JSON: a saved game is its settings plus its actions; events are what the page
and `cribcam replay` show.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Any

from scorer.cards import Card, format_cards, parse_card
from scorer.errors import GameError
from scorer.muggins import ClaimCheck, ClaimOutcome
from scorer.settings import Skunk


class EventKind(enum.StrEnum):
    THREE_FOR_LAST = "three for last"
    HIS_HEELS = "his heels"
    PLAY = "play"
    GO = "go"
    GO_POINT = "go point"
    LAST_CARD = "last card"
    HAND = "hand"
    CRIB = "crib"
    MUGGINS = "muggins"
    PENALTY = "penalty"
    CORRECTION = "correction"


@dataclass(frozen=True)
class Action:
    """One thing a player did at the table: the unit of the log and of undo."""

    kind: str  # cut, dealer, deal, discard, starter, play, go, show, muggins, correct
    seat: int | None = None
    cards: tuple[Card, ...] = ()
    claim: int | None = None
    points: int | None = None
    hidden: bool = False  # deal/discard/show whose cards nobody entered
    moot: bool = False  # a recorded muggins call made after the game was won: kept, no points

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": self.kind}
        if self.seat is not None:
            data["seat"] = self.seat
        if self.cards:
            data["cards"] = [str(card) for card in self.cards]
        if self.claim is not None:
            data["claim"] = self.claim
        if self.points is not None:
            data["points"] = self.points
        if self.hidden:
            data["hidden"] = True
        if self.moot:
            data["moot"] = True
        return data

    @classmethod
    def from_json(cls, data: Any) -> Action:
        if not isinstance(data, dict) or not isinstance(data.get("kind"), str):
            raise GameError("action_not_object", value=repr(data))
        for name in ("seat", "claim", "points"):
            if data.get(name) is not None and type(data[name]) is not int:
                raise GameError("action_field_not_integer", name=name, value=repr(data[name]))
        cards = data.get("cards", [])
        if not isinstance(cards, list):
            raise GameError("action_cards_not_list", value=repr(cards))
        moot = data.get("moot", False)
        if type(moot) is not bool:
            raise GameError("action_moot_not_bool", value=repr(moot))
        return cls(
            kind=data["kind"],
            seat=data.get("seat"),
            cards=tuple(parse_card(card) for card in cards),
            claim=data.get("claim"),
            points=data.get("points"),
            hidden=bool(data.get("hidden", False)),
            moot=moot,
        )


@dataclass(frozen=True)
class Event:
    """A change of score (or a scoreless step of the play), with what justifies it."""

    deal: int
    kind: EventKind
    seat: int | None
    points: int  # points applied to the seat's side (negative for a backward penalty)
    cards: tuple[Card, ...] = ()
    items: tuple[str, ...] = ()
    claim: ClaimCheck | None = None
    note: str = ""
    for_interest: bool = False  # counted after the game was won: shown, not scored
    moot: bool = False  # a muggins call after the game was won (a replay keeps it): no points

    def to_json(self) -> dict[str, Any]:
        return {
            "deal": self.deal,
            "kind": self.kind.value,
            "seat": self.seat,
            "points": self.points,
            "cards": [str(card) for card in self.cards],
            "items": list(self.items),
            "claim": None if self.claim is None else self.claim.to_json(),
            "note": self.note,
            "for_interest": self.for_interest,
            "moot": self.moot,
        }

    def __str__(self) -> str:
        who = "" if self.seat is None else f"seat {self.seat} "
        text = f"deal {self.deal}: {who}{self.kind.value}"
        if self.cards:
            text += f" {format_cards(self.cards)}"
        text += f" {self.points:+d}" if self.points else ""
        details = [*self.items, *([self.note] if self.note else [])]
        if self.claim is not None and self.claim.outcome is not ClaimOutcome.EXACT:
            details.append(self.claim.describe())
        if self.for_interest:
            details.append("for interest: the game was already won")
        if self.moot:
            details.append("moot: the game was already won")
        return text + (f" ({'; '.join(details)})" if details else "")


@dataclass(frozen=True)
class Outcome:
    winner: int  # side
    scores: tuple[int, ...]
    skunks: dict[int, Skunk]  # per losing side
    match_points: tuple[int, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "winner": self.winner,
            "scores": list(self.scores),
            "skunks": {str(side): level.name.lower() for side, level in self.skunks.items()},
            "match_points": list(self.match_points),
        }
