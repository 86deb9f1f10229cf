"""The camera's table as JSON: each card with its role, what is undecided, the conflicts."""

from __future__ import annotations

from typing import Any

from tablemode.tracker import SeatMark
from vision.frame_json import card_json, conflict_json
from vision.table.cards import SeenCard
from vision.table.mapping import F64, map_box, map_point
from vision.table.roles import TableState, Undecided


def _card(seen: SeenCard, role: str) -> dict[str, Any]:
    return {**card_json(seen), "role": role}


def _in_picture(card: dict[str, Any], homography: F64) -> dict[str, Any]:
    """A card placed on the table's plane, its boxes back in the picture's pixels."""
    box = [round(v, 1) for v in map_box(homography, card["box"])]
    boxes = [[round(v, 1) for v in map_box(homography, b)] for b in card["index_boxes"]]
    return {**card, "box": box, "index_boxes": boxes}


def _undecided(group: Undecided) -> dict[str, Any]:
    """An undecided group: `reason` in English, and the same as codes for the page's words."""
    return {"cards": [str(c.card) for c in group.cards], "reason": group.reason,
            "code": group.code, "edges": list(group.seats), "zone": group.zone,
            "count": group.count}  # fmt: skip


def table_json(state: TableState, to_picture: F64 | None = None) -> dict[str, Any]:
    """Every card once, with its role (``hand:bottom``, ``play:top``, ``starter``, ``crib:left``,
    ``undecided``), plus the undecided groups and the identity conflicts with their reasons.
    `to_picture`: the state's frame (the table plane's) to the picture, where the boxes go."""
    cards: list[dict[str, Any]] = []
    for seat, seat_cards in state.seats.items():
        cards += [_card(c, f"hand:{seat}") for c in seat_cards.hand]
        cards += [_card(c, f"play:{seat}") for c in seat_cards.play]
    if state.starter is not None:
        cards.append(_card(state.starter, "starter"))
    cards += [_card(c, f"crib:{state.crib_seat}") for c in state.crib]
    cards += [_card(c, "undecided") for u in state.undecided for c in u.cards]
    conflicts = [conflict_json(c) for c in state.conflicts]
    if to_picture is not None:
        cards = [_in_picture(c, to_picture) for c in cards]
        for conflict in conflicts:
            conflict["places"] = [[round(v, 1) for v in map_point(to_picture, (x, y))]
                                  for x, y in conflict["places"]]  # fmt: skip
    return {
        "cards": cards,
        "play": {seat: [str(c.card) for c in sc.play] for seat, sc in state.seats.items()},
        "starter": None if state.starter is None else str(state.starter.card),
        "crib": [str(c.card) for c in state.crib],
        "undecided": [_undecided(u) for u in state.undecided],
        "conflicts": conflicts,
    }  # fmt: skip


def learnt_json(mark: SeatMark) -> dict[str, Any]:
    """A learnt seat on the picture: the game seat, where (picture pixels), fixed by a player."""
    return {"seat": mark.seat, "at": [round(v, 1) for v in mark.at], "fixed": mark.fixed}
