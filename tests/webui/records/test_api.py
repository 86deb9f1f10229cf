"""The records' API on games entered through the API (`conftest`: every figure worked out by
hand there): a player's record, the players, head to head, and refusals."""

from __future__ import annotations

from typing import Any

from flask.testing import FlaskClient

from tests.webui.records.conftest import Games

NO_HISTOGRAM = [0] * 30


def histogram(**counts: int) -> list[int]:
    """A 0..29 histogram from `s14=1`-style counts."""
    found = list(NO_HISTOGRAM)
    for key, n in counts.items():
        found[int(key[1:])] = n
    return found


def without_times(record: dict[str, Any]) -> dict[str, Any]:
    """The record with its best hands' times left out (when the test ran)."""
    for what in ("hands", "cribs"):
        for best in record[what]["best"]:
            del best["played"]
    del record["recent"]
    return record


def test_a_players_record_over_both_games(client: FlaskClient, games: Games) -> None:
    # "ann" finds Ann (game A) and ANN (game B, renamed from Annie): one player
    answer = client.get("/api/players/ann")
    assert answer.status_code == 200
    assert without_times(answer.json) == {  # type: ignore[arg-type]
        "name": "ANN",  # as the latest game spells it
        "key": "ann",
        "games": 2,
        "wins": 1,  # game A
        "losses": 1,  # game B
        "skunks": {"given": 1, "taken": 1},  # Bob at 83 in A; Ann at 0 in B
        "match_points": 2,  # a skunk's 2 in A
        "deals": 2,  # both in A; B had none
        "points": 121,  # 1 go + 12 pegged of her hand + 106 corrected + 2 his heels
        "points_per_deal": 60.5,
        "hands": {
            "count": 1, "total": 14, "average": 14.0, "histogram": histogram(s14=1),
            "best": [{"points": 14, "cards": ["5H", "5D", "JC", "6S"], "starter": "5S",
                      "game": games.a, "deal": 1}],
        },  # the hand is worth 14, though she pegged the 12 claimed
        "cribs": {"count": 0, "total": 0, "average": None, "histogram": NO_HISTOGRAM,
                  "best": []},  # her deal (2) ended on his heels, before the show
        "pegging": {
            "dealer": {"points": 0, "deals": 0, "average": None},  # deal 2 had no play
            "pone": {"points": 1, "deals": 1, "average": 1.0},  # her go in deal 1
        },
        "his_heels": 1,
        "muggins": {"taken": 0, "lost": 2},
    }  # fmt: skip


def test_the_other_players_record(client: FlaskClient, games: Games) -> None:
    answer = client.get("/api/players/%20BOB%20")  # spacing and case folded
    assert without_times(answer.json) == {  # type: ignore[arg-type]
        "name": "Bob",
        "key": "bob",
        "games": 2,
        "wins": 1,
        "losses": 1,
        "skunks": {"given": 1, "taken": 1},
        "match_points": 3,  # B's double skunk
        "deals": 2,
        "points": 204,  # A: 1 last card + 2 muggins + 6 hand + 4 crib + 70 corrected; B: 121
        "points_per_deal": 102.0,
        "hands": {
            "count": 1, "total": 6, "average": 6.0, "histogram": histogram(s6=1),
            "best": [{"points": 6, "cards": ["2C", "3C", "4D", "7C"], "starter": "5S",
                      "game": games.a, "deal": 1}],
        },
        "cribs": {
            "count": 1, "total": 4, "average": 4.0, "histogram": histogram(s4=1),
            "best": [{"points": 4, "cards": ["9H", "QD", "KH", "8S"], "starter": "5S",
                      "game": games.a, "deal": 1}],
        },
        "pegging": {
            "dealer": {"points": 1, "deals": 1, "average": 1.0},  # his last card in deal 1
            "pone": {"points": 0, "deals": 0, "average": None},
        },
        "his_heels": 0,
        "muggins": {"taken": 2, "lost": 0},
    }  # fmt: skip


def test_recent_games_most_recent_first(client: FlaskClient, games: Games) -> None:
    recent = client.get("/api/players/Ann").json["recent"]  # type: ignore[index]
    assert [(g["id"], g["scores"], g["won"], g["side"]) for g in recent] == [
        (games.b, [0, 121], False, 0),
        (games.a, [121, 83], True, 0),
    ]
    assert recent[0]["sides"] == ["ANN", "Bob"] and recent[0]["target"] == 121


def test_the_players(client: FlaskClient, games: Games) -> None:
    # Carl has only an unfinished game: no player yet
    assert client.get("/api/players").json == {"players": [
        {"name": "ANN", "key": "ann", "games": 2, "wins": 1, "match_points": 2},
        {"name": "Bob", "key": "bob", "games": 2, "wins": 1, "match_points": 3},
    ]}  # fmt: skip


def test_head_to_head(client: FlaskClient, games: Games) -> None:
    answer: dict[str, Any] = client.get("/api/players/Ann/against/bob").json  # type: ignore[assignment]
    del answer["recent"]
    assert answer == {
        "player": "ANN",
        "other": "Bob",
        "games": 2,
        "wins": {"player": 1, "other": 1},
        "margin": -41.5,  # (121 - 83 + 0 - 121) / 2
        "skunks": {"given": 1, "taken": 1},
    }
    other_way = client.get("/api/players/Bob/against/Ann").json
    assert other_way["margin"] == 41.5 and other_way["wins"] == {"player": 1, "other": 1}  # type: ignore[index]


def test_unknown_players_are_404_in_the_language(client: FlaskClient, games: Games) -> None:
    carl = client.get("/api/players/Carl")  # his game is not finished
    assert carl.status_code == 404
    assert carl.json == {"error": "no finished game has a player named Carl", "code": "no_player",
                         "values": {"name": "Carl"}}  # fmt: skip
    client.set_cookie("cribcam-lang", "da")
    assert client.get("/api/players/Carl").json["error"] == (  # type: ignore[index]
        "intet færdigt parti har en spiller ved navn Carl"
    )
    never = client.get("/api/players/Ann/against/Carl")
    assert never.status_code == 404 and never.json["code"] == "never_met"  # type: ignore[index]
    same = client.get("/api/players/Ann/against/%20ann")
    assert same.status_code == 400 and "same player" in same.json["error"]  # type: ignore[index]


def test_no_games_no_players(client: FlaskClient) -> None:
    assert client.get("/api/players").json == {"players": []}
    assert client.get("/api/players/Ann").status_code == 404
