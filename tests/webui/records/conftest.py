"""Two finished games between Ann and Bob, entered through the API, whose every figure is worked
out by hand here, and an unfinished one (which no record counts).

Game A (Ann seat 0, Bob seat 1, muggins on; Bob deals first): deal 1 is the known deal
(`HANDS`, starter 5S). The play, Ann leading: 5H 5, 7C 12 (Bob claims 0: exact), 5D 17, 3C 20,
JC 30; Bob cannot play (2C 4D) nor Ann (6S): Ann's go, 1. Bob leads again: 2C 2, 6S 8, 4D 12,
Bob's last card, 1. No fifteen, pair or run. The show: Ann 5H 5D JC 6S + 5S is 14 (four
fifteens 8, pair royal 6); she claims 12, and Bob takes the 2 missed (muggins). Bob 2C 3C 4D 7C
+ 5S is 6 (7-3-5 fifteen 2, run of four 4); the crib 9H QD KH 8S + 5S is 4 (5-Q, 5-K).
So after deal 1: Ann 1 + 12 = 13, Bob 1 + 2 + 6 + 4 = 13. Corrections to match the board: Ann
+106 (119), Bob +70 (83). Deal 2, Ann deals, the starter is JH: his heels, 2, and Ann has 121.
Bob under 91: a skunk, 2 match points to Ann.

Game B (seats "Annie" and Bob, renamed "ANN" before its end: the same player as "Ann"): Ann
deals, Bob is corrected +121 at once and wins; Ann at 0 is double skunked (3 match points to Bob).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest
from flask.testing import FlaskClient

from tests.webui.conftest import HANDS, Act

DEAL_2 = [["AC", "2D", "3H", "4S", "6C", "7D"], ["8H", "9S", "10C", "QC", "KD", "AS"]]


@dataclass(frozen=True)
class Games:
    a: str
    b: str
    unfinished: str


def play_game_a(client: FlaskClient, act: Act) -> str:
    game_id: str = client.post("/api/games", json={
        "players": 2, "muggins": True, "first_dealer": 1, "names": ["Ann", "Bob"]}).json["id"]  # type: ignore[index]  # fmt: skip
    act(game_id, kind="deal", hands=HANDS)
    act(game_id, kind="discard", seat=0, cards=["9H", "QD"])
    act(game_id, kind="discard", seat=1, cards=["KH", "8S"])
    act(game_id, kind="starter", card="5S")
    act(game_id, kind="play", card="5H")
    act(game_id, kind="play", seat=1, card="7C", claim=0)
    for card in ["5D", "3C", "JC", "2C", "6S", "4D"]:
        act(game_id, kind="play", card=card)
    act(game_id, kind="show", claim=12)
    act(game_id, kind="muggins", seat=1, points=2)
    act(game_id, kind="show")
    act(game_id, kind="show")
    act(game_id, kind="correct", seat=0, points=106)
    act(game_id, kind="correct", seat=1, points=70)
    act(game_id, kind="deal", hands=DEAL_2)
    act(game_id, kind="discard", seat=0, cards=["AC", "2D"])
    act(game_id, kind="discard", seat=1, cards=["8H", "9S"])
    over = act(game_id, kind="starter", card="JH")
    assert over["phase"] == "over" and over["scores"] == [121, 83]
    return game_id


def play_game_b(client: FlaskClient, act: Act) -> str:
    game_id: str = client.post("/api/games", json={
        "players": 2, "first_dealer": 0, "names": ["Annie", "Bob"]}).json["id"]  # type: ignore[index]  # fmt: skip
    renamed = client.put(f"/api/games/{game_id}/names", json=["ANN", "Bob"])
    assert renamed.status_code == 200, renamed.json
    over = act(game_id, kind="correct", seat=1, points=121)
    assert over["outcome"]["match_points"] == [0, 3]
    return game_id


@pytest.fixture
def games(client: FlaskClient, act: Act) -> Games:
    a = play_game_a(client, act)
    b = play_game_b(client, act)
    unfinished = client.post(
        "/api/games", json={"players": 2, "first_dealer": 0, "names": ["Ann", "Carl"]}
    ).json
    act(unfinished["id"], kind="correct", seat=0, points=5)  # type: ignore[index]
    return Games(a, b, unfinished["id"])  # type: ignore[index]


MakeGames = Callable[[], Games]
