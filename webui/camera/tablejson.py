"""The camera's table as JSON: each card with its role, what is undecided, the conflicts."""

from __future__ import annotations

from typing import Any

from vision.frame_json import card_json, conflict_json
from vision.table.cards import SeenCard
from vision.table.roles import TableState, Undecided


def _card(seen: SeenCard, role: str) -> dict[str, Any]:
    return {**card_json(seen), "role": role}


def _undecided(group: Undecided) -> dict[str, Any]:
    """An undecided group: `reason` in English, and the same as codes for the page's words."""
    return {"cards": [str(c.card) for c in group.cards], "reason": group.reason,
            "code": group.code, "edges": list(group.seats), "zone": group.zone,
            "count": group.count}  # fmt: skip


def table_json(state: TableState) -> dict[str, Any]:
    """Every card once, with its role (``hand:bottom``, ``play:top``, ``starter``, ``crib:left``,
    ``undecided``), plus the undecided groups and the identity conflicts with their reasons."""
    cards: list[dict[str, Any]] = []
    for seat, seat_cards in state.seats.items():
        cards += [_card(c, f"hand:{seat}") for c in seat_cards.hand]
        cards += [_card(c, f"play:{seat}") for c in seat_cards.play]
    if state.starter is not None:
        cards.append(_card(state.starter, "starter"))
    cards += [_card(c, f"crib:{state.crib_seat}") for c in state.crib]
    cards += [_card(c, "undecided") for u in state.undecided for c in u.cards]
    return {
        "cards": cards,
        "play": {seat: [str(c.card) for c in sc.play] for seat, sc in state.seats.items()},
        "starter": None if state.starter is None else str(state.starter.card),
        "crib": [str(c.card) for c in state.crib],
        "undecided": [_undecided(u) for u in state.undecided],
        "conflicts": [conflict_json(c) for c in state.conflicts],
    }  # fmt: skip
