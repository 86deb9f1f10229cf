"""The rules engine's machine interface: JSON requests answered with JSON-ready dicts.

`cribcam score --jsonl`, `cribcam peg` and the page's API share these; a bad request raises
`CribbageError` naming what was wrong.
"""

from __future__ import annotations

from typing import Any

from scorer.cards import parse_card, parse_cards
from scorer.errors import CribbageError, refuse_unknown_fields
from scorer.pegging import Pegging
from scorer.show import Show, score_show


def score_request(request: Any) -> dict[str, Any]:
    """Answer one `score --jsonl` request: ``{"hand": [...], "starter": "5C", "crib": false}``."""
    if not isinstance(request, dict):
        raise CribbageError("request_not_object", value=repr(request))
    refuse_unknown_fields(request, {"hand", "starter", "crib"}, "unknown_fields")
    hand, starter, crib = request.get("hand"), request.get("starter"), request.get("crib", False)
    if not isinstance(hand, list) or not all(isinstance(card, str) for card in hand):
        raise CribbageError("hand_not_card_texts", value=repr(hand))
    if not isinstance(starter, str):
        raise CribbageError("starter_not_text", value=repr(starter))
    if not isinstance(crib, bool):
        raise CribbageError("crib_not_bool", value=repr(crib))
    show = score_show(parse_cards(hand), parse_card(starter), crib=crib)
    return {"total": show.total, "breakdown": show.breakdown()}


def show_to_json(show: Show) -> dict[str, Any]:
    """The full count: total, breakdown, items and the spoken cadence."""
    return {
        "hand": [str(card) for card in show.hand],
        "starter": str(show.starter),
        "crib": show.crib,
        "total": show.total,
        "breakdown": show.breakdown(),
        "items": [
            {"kind": item.kind.value, "name": item.name,
             "cards": [str(card) for card in item.cards], "points": item.points}
            for item in show.items
        ],
        "spoken": show.spoken(),
    }  # fmt: skip


def peg_request(request: Any) -> dict[str, Any]:
    """Answer one `peg --jsonl` request (see the README for the format)."""
    if not isinstance(request, dict):
        raise CribbageError("request_not_object", value=repr(request))
    refuse_unknown_fields(
        request, {"players", "dealer", "hands", "plays", "single_count"}, "unknown_fields"
    )
    players, dealer = request.get("players"), request.get("dealer")
    if not isinstance(players, int) or not isinstance(dealer, int):
        raise CribbageError("players_dealer_not_integers")
    hands = request.get("hands")
    if hands is not None and (
        not isinstance(hands, list) or not all(isinstance(hand, list) for hand in hands)
    ):
        raise CribbageError("hands_not_lists", value=repr(hands))
    plays = request.get("plays")
    if not isinstance(plays, list):
        raise CribbageError("plays_not_list", value=repr(plays))
    pegging = Pegging(
        players,
        dealer,
        None if hands is None else [parse_cards(hand) for hand in hands],
        single_count=bool(request.get("single_count", False)),
    )
    points: list[int] = []
    for number, step in enumerate(plays, start=1):
        if not (isinstance(step, list) and len(step) == 2 and isinstance(step[0], int)
                and isinstance(step[1], str)):  # fmt: skip
            raise CribbageError("play_not_pair", number=number, value=repr(step))
        seat, text = step
        try:
            if text.strip().lower() == "go":
                pegging.go(seat)
            else:
                points.append(sum(item.points for item in pegging.play(seat, parse_card(text))))
        except CribbageError as error:
            raise CribbageError("in_peg_request", number=number, value=repr(step),
                                message=error) from None  # fmt: skip
    return {
        "plays": points,
        "totals": pegging.scores(),
        "finished": pegging.finished,
        "events": [event.to_json() for event in pegging.events],
    }
