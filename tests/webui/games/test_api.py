"""Every endpoint, and every kind of bad input: a 4xx JSON error and an unchanged game."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import cv2
import numpy as np
import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.helpers import png_claiming
from tests.webui.conftest import HANDS, Act, play_to_pegging
from vision.photo_reader import PhotoReader

JPEG = cv2.imencode(".jpg", np.full((48, 64, 3), 90, np.uint8))[1].tobytes()


class FakeDetector:
    """Stands in for a card model in tests only: records what it was given."""

    def __init__(self) -> None:
        self.calls: list[tuple[bytes, str]] = []

    def detect(self, image: bytes, name: str) -> dict[str, Any]:
        self.calls.append((image, name))
        return {"image": name, "cards": [{"card": "5H", "confidence": 0.97, "box": [1, 2, 3, 4]}]}


def state(client: FlaskClient, game_id: str) -> Any:
    response = client.get(f"/api/games/{game_id}")
    assert response.status_code == 200
    return response.json


# -- stable endpoints ------------------------------------------------------------------------
def test_healthz(client: FlaskClient) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json["ok"] is True  # type: ignore[index]


def test_score_matches_the_jsonl_command(client: FlaskClient) -> None:
    body = {"hand": ["5H", "5D", "5S", "JC"], "starter": "5C", "crib": False}
    response = client.post("/api/score", json=body)
    assert response.status_code == 200
    assert response.json == {
        "total": 29,
        "breakdown": {"fifteens": 16, "pairs": 12, "runs": 0, "flush": 0, "nobs": 1},
    }


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        ({"hand": ["1X"], "starter": "5C"}, "'1X' is not a card"),
        ({"hand": ["5H", "5H", "5S", "JC"], "starter": "5C"}, "5H"),
        ({"hand": ["5H"], "starter": "5C", "extra": 1}, "unknown field"),
        ([1, 2], "expected a JSON object"),
    ],
)
def test_score_refuses_bad_input(client: FlaskClient, body: Any, fragment: str) -> None:
    response = client.post("/api/score", json=body)
    assert response.status_code == 400
    assert fragment in response.json["error"]  # type: ignore[index]


def test_detect_without_a_model_is_503(client: FlaskClient) -> None:
    response = client.post("/api/detect", data=JPEG, content_type="image/jpeg")
    assert response.status_code == 503
    assert "no card model installed" in response.json["error"]  # type: ignore[index]


def test_detect_calls_the_injected_detector(db_path: Any) -> None:
    from webui import create_app

    detector = FakeDetector()
    app = create_app({"TESTING": True, "DATABASE": db_path, "PHOTO_READER": detector})
    response = app.test_client().post(
        "/api/detect?name=table.jpg", data=JPEG, content_type="image/jpeg"
    )
    assert response.status_code == 200
    assert response.json == {
        "image": "table.jpg",
        "cards": [{"card": "5H", "confidence": 0.97, "box": [1, 2, 3, 4]}],
    }
    assert detector.calls == [(JPEG, "table.jpg")]


@pytest.mark.parametrize(
    ("data", "content_type", "status", "fragment"),
    [
        (b"hello, not an image", "image/jpeg", 400, "not a JPEG, PNG or WebP"),
        (JPEG[:-2], "image/jpeg", 400, "truncated"),
        (b"\x89PNG\r\n\x1a\n" + b"\x00" * 20, "image/png", 400, "truncated"),
        (b"", "image/jpeg", 400, "empty"),
        (JPEG, "text/plain", 415, "Content-Type image/"),
        (b"\xff\xd8\xff" + b"\x00" * (50 * 2**20) + b"\xff\xd9", "image/jpeg", 413, "too large"),
    ],
)
def test_detect_refuses_bad_uploads(
    client: FlaskClient, data: bytes, content_type: str, status: int, fragment: str
) -> None:
    response = client.post("/api/detect", data=data, content_type=content_type)
    assert response.status_code == status
    assert fragment in response.json["error"]  # type: ignore[index]


def test_detect_refuses_an_image_claiming_too_many_pixels(app: Flask) -> None:
    """The upload budget refuses it from its header: no decoding, no model loaded."""
    app.config["PHOTO_READER"] = PhotoReader()
    huge = png_claiming(20_000, 20_000)
    response = app.test_client().post("/api/detect", data=huge, content_type="image/png")
    assert response.status_code == 413
    answer: Any = response.json
    assert "20000 x 20000 image is too large" in answer["error"]
    assert (answer["code"], answer["values"]["width"]) == ("too_many_pixels", "20000")


def test_create_and_get_a_game(client: FlaskClient) -> None:
    response = client.post(
        "/api/games", json={"players": 3, "target": 61, "names": ["Ann", "Bo", "Cy"]}
    )
    assert response.status_code == 201
    game_id = response.json["id"]  # type: ignore[index]
    got = state(client, game_id)
    assert got["id"] == game_id
    assert got["names"] == ["Ann", "Bo", "Cy"]
    assert got["settings"]["players"] == 3 and got["settings"]["target"] == 61
    assert got["phase"] == "cut for deal"
    assert got["scores"] == [0, 0, 0]


@pytest.mark.parametrize(
    "body",
    [
        {"players": 5},
        {"players": "2"},
        {"target": 100},
        {"colour": "red"},
        {"players": 2, "names": ["only one"]},
        {"players": 2, "first_dealer": 7},
        [],
    ],
)
def test_create_refuses_bad_settings(client: FlaskClient, body: Any) -> None:
    response = client.post("/api/games", json=body)
    assert response.status_code == 400, response.json
    assert "error" in response.json  # type: ignore[operator]
    assert client.get("/api/games").json == {"games": []}


def test_unknown_game_is_404(client: FlaskClient) -> None:
    for method, path in [
        ("get", "/api/games/nope"),
        ("post", "/api/games/nope/undo"),
        ("get", "/api/games/nope/events"),
        ("get", "/api/games/nope/saved"),
        ("delete", "/api/games/nope"),
        ("get", "/games/nope"),
    ]:
        response = getattr(client, method)(path)
        assert response.status_code == 404, path
        assert "nope" in response.json["error"]
    response = client.post("/api/games/nope/actions", json={"kind": "go"})
    assert response.status_code == 404


def test_unknown_path_and_wrong_method_are_json(client: FlaskClient) -> None:
    assert client.get("/api/nothing").status_code == 404
    assert "error" in client.get("/api/nothing").json  # type: ignore[operator]
    response = client.get("/api/score")
    assert response.status_code == 405
    assert "error" in response.json  # type: ignore[operator]


# -- playing ---------------------------------------------------------------------------------
def test_a_deal_played_through_the_api(
    client: FlaskClient, new_game: Callable[..., str], act: Act
) -> None:
    game_id = new_game(first_dealer=1, muggins=True)
    play_to_pegging(act, game_id)
    after = act(game_id, kind="play", card="5H")  # seat 0 leads; seat inferred from the turn
    assert after["count"] == 5 and after["turn"] == 1
    after = act(game_id, kind="play", seat=1, card="7C", claim=0)
    assert after["count"] == 12
    for card in ["5D", "3C", "JC", "2C", "6S", "4D"]:
        after = act(game_id, kind="play", card=card)
    assert after["phase"] == "show"
    assert after["next_show"] == {"what": "hand", "seat": 0}
    steps = [(p["action"], p["card"], p["count"]) for p in after["play"]]
    assert steps[0] == ("play", "5H", 5)
    shown = act(game_id, kind="show", claim=12)
    assert shown["show"]["total"] == 14
    assert shown["muggins_open"]["missed"] == 2
    after = act(game_id, kind="muggins", seat=1, points=2)
    assert after["events"][-1]["kind"] == "muggins"
    hand = after["shows"][0]
    assert hand["what"] == "hand" and hand["total"] == 14 and hand["spoken"]
    assert hand["claim"]["outcome"] == "short"
    assert any(item["name"].startswith("fifteen") for item in hand["items"])


def test_undo_takes_back_the_last_action(
    client: FlaskClient, new_game: Callable[..., str], act: Act
) -> None:
    game_id = new_game(first_dealer=1)
    play_to_pegging(act, game_id)
    before = state(client, game_id)
    act(game_id, kind="play", card="5H")
    response = client.post(f"/api/games/{game_id}/undo")
    assert response.status_code == 200
    assert response.json["undone"] == {"kind": "play", "seat": 0, "cards": ["5H"]}  # type: ignore[index]
    after = state(client, game_id)
    assert {k: v for k, v in after.items() if k not in ("revision", "updated")} == {
        k: v for k, v in before.items() if k not in ("revision", "updated")
    }
    assert client.get(f"/api/games/{game_id}/saved").json == {
        "settings": after["settings"],
        "first_dealer": 1,
        "actions": before["log"],
    }


def test_nothing_to_undo(client: FlaskClient, new_game: Callable[..., str]) -> None:
    game_id = new_game()
    response = client.post(f"/api/games/{game_id}/undo")
    assert response.status_code == 409
    assert response.json == {"error": "nothing to undo", "code": "nothing_to_undo", "values": {}}


BAD_ACTIONS: list[tuple[Any, int, str]] = [
    ({"kind": "play", "card": "ZZ"}, 400, "'ZZ' is not a card"),
    ({"kind": "play", "card": "9H"}, 409, "9♥"),  # laid away: not in seat 0's hand
    ({"kind": "play", "card": "5S"}, 409, "5♠ is the starter"),  # already used
    ({"kind": "play", "seat": 1, "card": "7C"}, 409, "turn"),  # out of turn
    ({"kind": "play", "card": 5}, 400, "'card' must be a card"),
    ({"kind": "play", "card": "5H", "claim": "two"}, 400, "'claim' must be an integer"),
    ({"kind": "play", "card": "5H", "colour": "red"}, 400, "unknown field"),
    ({"kind": "fly"}, 400, "'kind' must be one of"),
    ({"seat": 0}, 400, "'kind' must be one of"),
    ([], 400, "an action is a JSON object"),
    ({"kind": "go", "seat": 0}, 409, ""),  # a renege: seat 0 can play
    ({"kind": "deal"}, 409, "cannot deal now"),
    ({"kind": "muggins", "seat": 1, "points": 2}, 409, "muggins"),
    ({"kind": "show"}, 409, "cannot show now"),
    ({"kind": "correct", "seat": 9, "points": 2}, 409, "seat 9"),
]


@pytest.mark.parametrize(("body", "status", "fragment"), BAD_ACTIONS)
def test_bad_actions_leave_the_game_unchanged(
    client: FlaskClient,
    new_game: Callable[..., str],
    act: Act,
    body: Any,
    status: int,
    fragment: str,
) -> None:
    game_id = new_game(first_dealer=1)
    play_to_pegging(act, game_id)
    before = state(client, game_id)
    response = client.post(f"/api/games/{game_id}/actions", json=body)
    assert response.status_code == status, response.json
    assert fragment in response.json["error"]  # type: ignore[index]
    assert state(client, game_id) == before


@pytest.mark.parametrize("raw", [b"", b"{", b"{'kind': 'go'}", b"\xff\xfe", b"null"])
def test_malformed_bodies(
    client: FlaskClient, new_game: Callable[..., str], act: Act, raw: bytes
) -> None:
    game_id = new_game(first_dealer=1)
    play_to_pegging(act, game_id)
    before = state(client, game_id)
    response = client.post(
        f"/api/games/{game_id}/actions", data=raw, content_type="application/json"
    )
    assert response.status_code == 400
    assert response.json["error"]  # type: ignore[index]
    assert state(client, game_id) == before


def test_a_deal_with_a_card_twice_is_refused(new_game: Callable[..., str], act: Act) -> None:
    game_id = new_game(first_dealer=0)
    hands = [HANDS[0], [*HANDS[1][:5], "5H"]]
    error = act(game_id, status=400, kind="deal", hands=hands)["error"]
    assert "5♥ appears twice" in error


def test_hidden_hands_and_a_crib_entered_at_the_show(
    client: FlaskClient, new_game: Callable[..., str], act: Act
) -> None:
    game_id = new_game(first_dealer=1)
    act(game_id, kind="deal")
    act(game_id, kind="discard", seat=0)
    act(game_id, kind="discard", seat=1)
    act(game_id, kind="starter", card="5S")
    for card in ["AH", "AC", "2H", "2C", "3D", "3C", "4S", "4C"]:
        act(game_id, kind="play", card=card)
    after = state(client, game_id)
    assert after["phase"] == "show"
    assert "AH" in after["seen"] and "5S" in after["seen"]
    act(game_id, kind="show")  # each hand is the four cards it played
    act(game_id, kind="show")
    assert "enter the cards" in act(game_id, status=409, kind="show")["error"]
    assert (
        "already" in act(game_id, status=409, kind="show", cards=["AH", "KD", "QS", "JS"])["error"]
    )
    crib = act(game_id, kind="show", cards=["KH", "KD", "QS", "JS"], claim=4)
    assert crib["show"]["crib"] is True
    assert crib["phase"] == "deal" and crib["dealer"] == 0
    assert [s["what"] for s in crib["shows"]] == ["hand", "hand", "crib"]


def test_settings_names_delete_and_list(
    client: FlaskClient, new_game: Callable[..., str], act: Act
) -> None:
    game_id = new_game(first_dealer=1)
    response = client.put(f"/api/games/{game_id}/settings", json={"players": 2, "muggins": True})
    assert response.status_code == 200 and response.json["settings"]["muggins"] is True  # type: ignore[index]
    response = client.put(f"/api/games/{game_id}/settings", json={"players": 3})
    assert response.status_code == 409
    response = client.put(f"/api/games/{game_id}/names", json=["Ann", "Bob"])
    assert response.json["names"] == ["Ann", "Bob"]  # type: ignore[index]
    assert client.put(f"/api/games/{game_id}/names", json=["Ann"]).status_code == 400
    games = client.get("/api/games").json["games"]  # type: ignore[index]
    assert [g["id"] for g in games] == [game_id]
    assert client.delete(f"/api/games/{game_id}").status_code == 200
    assert client.get(f"/api/games/{game_id}").status_code == 404


def test_advice(client: FlaskClient) -> None:
    response = client.post(
        "/api/advise", json={"hand": ["5H", "5D", "JC", "6S", "9H", "QD"], "role": "dealer"}
    )
    assert response.status_code == 200
    assert response.json["options"][0]["discard"] == ["6S", "9H"]  # type: ignore[index]
    bad = client.post("/api/advise", json={"hand": ["5H"], "role": "dealer"})
    assert bad.status_code == 400
    assert client.post("/api/advise", json={"hand": [], "role": "boss"}).status_code == 400


def test_frame_endpoint(client: FlaskClient, new_game: Callable[..., str], app: Flask) -> None:
    game_id = new_game()
    response = client.post(f"/api/games/{game_id}/frame", data=JPEG, content_type="image/jpeg")
    assert response.status_code == 503
    app.config["PHOTO_READER"] = FakeDetector()
    response = client.post(f"/api/games/{game_id}/frame", data=JPEG, content_type="image/jpeg")
    assert response.status_code == 200
    assert response.json["game"] == game_id  # type: ignore[index]
    assert response.json["cards"][0]["card"] == "5H"  # type: ignore[index]
    response = client.post("/api/games/nope/frame", data=JPEG, content_type="image/jpeg")
    assert response.status_code == 404


def test_a_genuine_bug_is_json_500_without_traceback(app: Flask) -> None:
    class Broken:
        def detect(self, image: bytes, name: str) -> dict[str, Any]:
            raise RuntimeError("boom")

    app.config["PHOTO_READER"] = Broken()
    app.config["TESTING"] = False  # let the handler catch it as in production
    response = app.test_client().post("/api/detect", data=JPEG, content_type="image/jpeg")
    assert response.status_code == 500
    assert response.json == {
        "error": "internal error (RuntimeError); see the server log",
        "code": "internal_error",
        "values": {"text": "RuntimeError"},
    }
    assert "Traceback" not in json.dumps(response.json)


def test_pages_render(client: FlaskClient, new_game: Callable[..., str]) -> None:
    game_id = new_game(names=["Ann", "Bob"])
    index = client.get("/")
    assert index.status_code == 200 and game_id.encode() in index.data
    page = client.get(f"/games/{game_id}")
    assert page.status_code == 200
    assert b'id="board"' in page.data and b"picker" in page.data
    assert client.get("/static/game.js").status_code == 200


# -- issue 49: bugs found at the table -------------------------------------------------------
PLAY_ORDER = ["5H", "7C", "5D", "3C", "JC", "2C", "6S", "4D"]  # the known deal, played out


def test_seen_is_this_deals_cards_only(
    client: FlaskClient, new_game: Callable[..., str], act: Act
) -> None:
    """Deal 2's hands can be entered: deal 1's cards are not greyed out at the next deal."""
    game_id = new_game(first_dealer=1)
    play_to_pegging(act, game_id)
    for card in PLAY_ORDER:
        act(game_id, kind="play", card=card)
    for _ in range(3):  # both hands and the crib
        after = act(game_id, kind="show")
    assert after["phase"] == "deal" and after["deal"] == 1
    assert after["seen"] == [] and after["hands_known"] is False
    dealt = act(game_id, kind="deal", hands=HANDS)  # the same 12 cards again, newly dealt
    assert dealt["deal"] == 2 and len(dealt["seen"]) == 12 and dealt["hands_known"] is True


def hidden_deal_at_play(act: Act, game_id: str) -> None:
    act(game_id, kind="deal")
    act(game_id, kind="discard", seat=0)
    act(game_id, kind="discard", seat=1)
    act(game_id, kind="starter", card="5S")


@pytest.mark.parametrize("cards", [[], ["KH"], ["KH", "AC"], ["KH", "AC", "QD"]])
def test_an_impossible_go_is_refused_with_hidden_hands(
    client: FlaskClient, new_game: Callable[..., str], act: Act, cards: list[str]
) -> None:
    """At a count of 21 or less any card can be played: a go there is a 409 naming the count."""
    game_id = new_game(first_dealer=1, names=["Ann", "Bob"])
    hidden_deal_at_play(act, game_id)
    for card in cards:
        act(game_id, kind="play", card=card)
    before = state(client, game_id)
    assert before["go_possible"] is False
    count, seat = before["count"], before["turn"]
    error = act(game_id, status=409, kind="go")["error"]
    name = ["Ann", "Bob"][seat]
    assert f"{name} cannot say go at a count of {count}: any card can still be played" in error
    assert state(client, game_id) == before


def test_go_possible_from_a_count_of_22_with_hidden_hands(
    client: FlaskClient, new_game: Callable[..., str], act: Act
) -> None:
    game_id = new_game(first_dealer=1)
    hidden_deal_at_play(act, game_id)
    for card in ["KH", "AC", "QD", "AD"]:  # 22: seat 0 to play, who may hold only high cards
        act(game_id, kind="play", card=card)
    assert state(client, game_id)["go_possible"] is True
    after = act(game_id, kind="go")
    assert after["turn"] == 1 and after["go_possible"] is True  # 22 still: seat 1 may go too
    after = act(game_id, kind="go")
    assert after["count"] == 0 and after["go_possible"] is False
    assert [e["kind"] for e in after["events"]][-2:] == ["go", "go point"]


def test_go_is_never_possible_with_known_hands(
    client: FlaskClient, new_game: Callable[..., str], act: Act
) -> None:
    """The engine says go itself for a seat that cannot play: the page never offers it."""
    game_id = new_game(first_dealer=1)
    assert state(client, game_id)["go_possible"] is False
    play_to_pegging(act, game_id)
    for card in PLAY_ORDER[:-1]:
        assert act(game_id, kind="play", card=card)["go_possible"] is False


def test_errors_name_the_players_and_write_suits(
    client: FlaskClient, new_game: Callable[..., str], act: Act
) -> None:
    game_id = new_game(first_dealer=1, names=["Ann", "Bob"])
    play_to_pegging(act, game_id)
    turn = act(game_id, status=409, kind="play", seat=1, card="7C")
    assert turn["error"] == "deal 1: Bob cannot play 7♣: it is Ann's turn"
    renege = act(game_id, status=409, kind="go", seat=0)["error"]
    assert renege.startswith("deal 1: Ann says go but can play 5♥ 5♦ J♣ 6♠ on 0")
    assert act(game_id, status=409, kind="play", card="5S") == {
        "error": "deal 1: 5♠ is the starter",
        "code": "in_deal",
        "values": {"number": 1, "message": {"code": "card_is_starter", "values": {"card": "5S"}}},
    }  # the values keep the cards' codes
    assert "'ZZ' is not a card" in act(game_id, status=400, kind="play", card="ZZ")["error"]
    assert "seat 9" in act(game_id, status=409, kind="correct", seat=9, points=2)["error"]
    assert state(client, game_id)["starter"] == "5S"  # the API's fields keep the codes
