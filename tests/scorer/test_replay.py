from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from scorer.errors import GameError
from scorer.events import Action, EventKind
from scorer.game import Game, Phase
from scorer.replay import format_event, replay, replay_report

# Seat 0 reaches 61 in the show of deal 3 (56 + a 24 hand claimed as 20): seat 1's muggins
# call on that winning claim, and seat 0's on seat 1's hand and crib counted for interest (the
# second a wrong call: nothing missed), are all moot.
MOOT_CALLS: dict[str, Any] = {
    "settings": {"players": 2, "target": 61, "muggins": True},
    "first_dealer": 1,
    "deals": [
        {
            "hands": [["5H", "5D", "5C", "JS", "KD", "QD"], ["2C", "3C", "4D", "KH", "8S", "7C"]],
            "discards": [["KD", "QD"], ["KH", "8S"]],
            "starter": "5S",
            "plays": ["5H", "2C", "5D", "3C", "5C", "4D", "7C", "JS"],
        },
        {
            "hands": [["2H", "3H", "4H", "6C", "9D", "10D"], ["4S", "4C", "6H", "6D", "QS", "KS"]],
            "discards": [["9D", "10D"], ["QS", "KS"]],
            "starter": "5C",
            "plays": ["4S", "2H", "4C", "3H", "6H", "4H", "6D", "6C"],
        },
        {
            "hands": [["7H", "8H", "8D", "9C", "KC", "AC"], ["3S", "3D", "9H", "10H", "JH", "2D"]],
            "discards": [["KC", "AC"], ["3S", "3D"]],
            "starter": "7S",
            "plays": ["7H", "9H", "8H", "2D", "8D", "10H", "9C", "JH"],
            "shows": [
                {"claim": 20, "muggins": {"by": 1, "points": 4}},
                {"claim": 2, "muggins": {"by": 0, "points": 1}},
                {"claim": 2, "muggins": {"by": 0, "points": 2}},  # exact: a wrong call
            ],
        },
    ],
}


def moot_game() -> Game:
    return replay(copy.deepcopy(MOOT_CALLS))


def without_muggins(record: dict[str, Any]) -> dict[str, Any]:
    plain = copy.deepcopy(record)
    for deal in plain["deals"]:
        for show in deal.get("shows", []):
            show.pop("muggins", None)
    return plain


def snapshot(game: Game) -> str:
    return json.dumps(game.state_json(), sort_keys=True)


# -- a muggins call after the game is won is moot in a replay (issue 53) -----------------------
def test_replay_keeps_muggins_calls_after_the_win_as_moot() -> None:
    game = moot_game()
    assert game.phase is Phase.OVER and game.outcome is not None
    assert game.outcome.winner == 0 and game.scores == (76, 48)
    mugged = [e for e in game.events if e.kind is EventKind.MUGGINS]
    assert [(e.seat, e.points, e.moot) for e in mugged] == [(1, 0, True), (0, 0, True),
                                                            (0, 0, True)]  # fmt: skip
    assert str(mugged[0]) == "deal 3: seat 1 muggins (called for 4; moot: the game was already won)"
    assert not any(e.kind is EventKind.PENALTY for e in game.events)  # moot: no penalty either
    plain = replay(without_muggins(MOOT_CALLS))
    assert game.scores == plain.scores and game.outcome == plain.outcome


def test_the_replay_report_shows_a_moot_call_with_no_points() -> None:
    game = moot_game()
    report = replay_report(game)
    assert report["finished"] is True and report["scores"] == [76, 48]
    moot = [line for line in report["events"] if line["moot"]]
    assert [(line["kind"], line["seat"], line["points"], line["scores"]) for line in moot] == [
        ("muggins", 1, 0, [76, 48]), ("muggins", 0, 0, [76, 48]), ("muggins", 0, 0, [76, 48]),
    ]  # fmt: skip
    assert not any(line["moot"] for line in report["events"] if line["kind"] != "muggins")
    index = next(i for i, e in enumerate(game.events) if e.moot)
    printed = format_event(game.events[index], report["events"][index]["scores"])
    assert printed == (
        "deal 3: seat 1 muggins (called for 4; moot: the game was already won)  [76-48]"
    )


def test_the_live_game_still_refuses_a_muggins_call_after_the_win() -> None:
    game = replay(without_muggins(MOOT_CALLS))
    assert game.phase is Phase.OVER
    before = snapshot(game)
    with pytest.raises(GameError, match="the game is over: no more muggins"):
        game.muggins(1, 4)
    assert snapshot(game) == before


def test_a_replayed_game_with_moot_calls_round_trips_and_undoes() -> None:
    game = moot_game()
    saved = json.loads(json.dumps(game.to_json()))
    calls = [a for a in saved["actions"] if a["kind"] == "muggins"]
    assert calls[0] == {"kind": "muggins", "seat": 1, "points": 4, "moot": True}
    again = Game.from_json(saved)
    assert snapshot(again) == snapshot(game)
    assert [str(e) for e in again.events] == [str(e) for e in game.events]
    assert game.undo() == Action("muggins", seat=0, points=2, moot=True)
    assert [e.moot for e in game.events].count(True) == 2


def test_a_saved_log_cannot_call_a_live_claim_moot() -> None:
    record = copy.deepcopy(MOOT_CALLS)
    record["deals"] = record["deals"][:1]
    record["deals"][0]["shows"] = [{"claim": 27}]
    saved = replay(record).to_json()
    saved["actions"].append({"kind": "muggins", "seat": 1, "points": 2, "moot": True})
    with pytest.raises(GameError, match="moot only once the game is won"):
        Game.from_json(saved)
    saved["actions"][-1] = {"kind": "correct", "seat": 1, "points": 2, "moot": True}
    with pytest.raises(GameError, match="only a muggins call can be moot, not a correct"):
        Game.from_json(saved)
    saved["actions"][-1] = {"kind": "muggins", "seat": 1, "points": 2, "moot": "yes"}
    with pytest.raises(GameError, match="action moot must be true or false, got 'yes'"):
        Game.from_json(saved)
