"""The game actions table mode proposes, as small values it can try on a copy of the game and
send as the API's action bodies (the same `{"kind": ...}` JSON that `webui.games.actions` takes)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from scorer.cards import Card
from scorer.errors import CribbageError
from scorer.game import Game

StepKind = Literal["deal", "discard", "starter", "play", "go", "show"]


@dataclass(frozen=True)
class Step:
    """One engine action: a hidden deal or discard, the starter, a play, a go or a show."""

    kind: StepKind
    seat: int | None = None
    cards: tuple[Card, ...] = ()
    claim: int | None = None

    def apply(self, game: Game) -> None:
        """Perform it on `game` (the engine raises `CribbageError` for an illegal one)."""
        if self.kind == "deal":
            game.deal(None)
        elif self.kind == "discard":
            game.discard(self._seat, None)
        elif self.kind == "starter":
            game.cut_starter(self.cards[0])
        elif self.kind == "play":
            game.play(self._seat, self.cards[0], self.claim)
        elif self.kind == "go":
            game.go(self._seat)
        else:
            game.show(list(self.cards) or None, self.claim)

    def to_json(self) -> dict[str, Any]:
        """The API's action body for it."""
        body: dict[str, Any] = {"kind": self.kind}
        if self.seat is not None and self.kind in ("discard", "play", "go"):
            body["seat"] = self.seat
        if self.kind in ("starter", "play"):
            body["card"] = str(self.cards[0])
        elif self.kind == "show" and self.cards:
            body["cards"] = [str(c) for c in self.cards]
        if self.claim is not None:
            body["claim"] = self.claim
        return body

    @property
    def _seat(self) -> int:
        if self.seat is None:
            raise CribbageError("needs_seat", kind=self.kind)
        return self.seat


def copy_of(game: Game) -> Game:
    """A separate game in the same state, to try steps on."""
    return Game.from_json(game.to_json())


def legal(game: Game, steps: Sequence[Step]) -> bool:
    """Whether the engine takes `steps`, in order, from `game`'s state (`game` is unchanged)."""
    trial = copy_of(game)
    try:
        for step in steps:
            step.apply(trial)
    except CribbageError:
        return False
    return True


def laid_this_deal(game: Game) -> list[Card]:
    """The cards laid in this deal's play so far, as the players confirmed them."""
    deal = game.deal_state
    if deal is None or deal.pegging is None:
        return []
    return [card for cards in deal.pegging.played for card in cards]
