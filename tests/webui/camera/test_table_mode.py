"""Table mode through the API: the page's frames drive the game, sure readings are applied by
themselves with an undo, unsure ones wait for the players' answer."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from scorer.cards import parse_card
from tablemode.view import CardReading, LaidCard, TableView
from tests.tabletop import card_detections, table
from tests.webui.fakes import TableDetector
from webui import create_app
from webui.camera.table_mode import TableModes

DEMO = Path(__file__).resolve().parents[3] / "webui" / "static" / "demo" / "table.jpg"


def body(response: TestResponse) -> Any:
    return response.json


def reading(*choices: tuple[str, float]) -> CardReading:
    return CardReading(tuple((parse_card(c), p) for c, p in choices))


def modes(app: Flask) -> TableModes:
    found: TableModes = app.extensions["cribcam.table_modes"]
    return found


def started(client: FlaskClient, **settings: Any) -> str:
    """A two-player game with seat 0 dealing first."""
    game_id: str = client.post("/api/games", json={"players": 2, **settings}).json["id"]  # type: ignore[index]
    assert (
        client.post(f"/api/games/{game_id}/actions", json={"kind": "dealer", "seat": 0}).status_code
        == 200
    )
    return game_id


def test_a_starter_turned_up_on_camera_deals_and_cuts_by_itself(db_path: Path) -> None:
    client = create_app({"TESTING": True, "DATABASE": db_path,
                         "PHOTO_READER": TableDetector(table([card_detections("7H", (640, 360))]))}
                        ).test_client()  # fmt: skip
    game_id = started(client)
    for _ in range(5):  # the form page's camera only suggests
        response = client.post(f"/api/games/{game_id}/frame", data=DEMO.read_bytes(),
                               content_type="image/jpeg")  # fmt: skip
        assert response.status_code == 200 and "table_mode" not in body(response)
    assert body(client.get(f"/api/games/{game_id}"))["phase"] == "deal"
    answers = []
    for _ in range(5):
        response = client.post(f"/api/games/{game_id}/frame?table=1", data=DEMO.read_bytes(),
                               content_type="image/jpeg")  # fmt: skip
        assert response.status_code == 200, body(response)
        answers.append(body(response)["table_mode"])
    applied = [a["last"] for a in answers if a["last"]]
    assert applied and applied[0]["key"] == "deal 1 starter"
    assert [a["kind"] for a in applied[0]["applied"]["actions"]] == [
        "deal",
        "discard",
        "discard",
        "starter",
    ]
    state = body(client.get(f"/api/games/{game_id}"))
    assert state["phase"] == "play" and state["starter"] == "7H"
    # Undo takes back the whole proposal (deal, discards and starter), and it is asked again.
    undone = client.post(f"/api/games/{game_id}/table/undo", json={"key": "deal 1 starter"})
    assert undone.status_code == 200, undone.json
    assert (
        body(undone)["phase"] == "deal"
        and body(undone)["table_mode"]["question"]["key"] == "deal 1 starter"
    )


def test_an_unsure_card_waits_for_the_players_answer_and_a_correction_is_two_taps(
    app: Flask, client: FlaskClient
) -> None:
    game_id = started(client)
    starter = TableView(reading(("4H", 0.95)))
    assert modes(app).follow(game_id, starter, lambda f: None)["last"]["key"] == "deal 1 starter"
    laid = LaidCard(1, reading(("10S", 0.5), ("10C", 0.4)))
    status = modes(app).follow(game_id, TableView(starter.starter, (laid,)), lambda f: None)
    question = status["question"]
    assert question["key"] == "deal 1 play 1" and not question["sure"]
    assert [o["cards"] for o in question["options"]] == [["10S"], ["10C"]]
    wrong_key = client.post(f"/api/games/{game_id}/table/answer", json={"key": "deal 9 play 1"})
    assert wrong_key.status_code == 409
    answered = client.post(f"/api/games/{game_id}/table/answer",
                           json={"key": question["key"], "cards": ["10C"]})  # fmt: skip
    assert answered.status_code == 200, answered.json
    assert body(answered)["count_cards"] == ["10C"]


def test_a_card_applied_by_itself_can_be_read_otherwise(app: Flask, client: FlaskClient) -> None:
    game_id = started(client)
    starter = reading(("4H", 0.95))
    modes(app).follow(game_id, TableView(starter), lambda f: None)
    laid = LaidCard(1, reading(("6D", 0.9), ("6H", 0.08)))
    status = modes(app).follow(game_id, TableView(starter, (laid,)), lambda f: None)
    assert status["last"]["key"] == "deal 1 play 1" and status["question"] is None
    fixed = client.post(f"/api/games/{game_id}/table/undo",
                        json={"key": "deal 1 play 1", "cards": ["6H"]})  # fmt: skip
    assert fixed.status_code == 200, fixed.json
    assert body(fixed)["count_cards"] == ["6H"] and body(fixed)["table_mode"]["last"] is None


def test_a_question_waved_away_is_not_asked_again(app: Flask, client: FlaskClient) -> None:
    game_id = started(client)
    starter = reading(("4H", 0.95))
    modes(app).follow(game_id, TableView(starter), lambda f: None)
    laid = LaidCard(1, reading(("9C", 0.4), ("9S", 0.3)))
    key = modes(app).follow(game_id, TableView(starter, (laid,)), lambda f: None)["question"]["key"]
    dismissed = client.post(f"/api/games/{game_id}/table/dismiss", json={"key": key})
    assert dismissed.status_code == 200 and body(dismissed)["question"] is None
    bad = client.post(f"/api/games/{game_id}/table/answer", json={"key": key, "cards": "9C"})
    assert bad.status_code == 400 and "list of cards" in body(bad)["error"]


def test_a_muggins_show_is_applied_with_the_players_claim(app: Flask, client: FlaskClient) -> None:
    game_id = started(client, muggins=True)
    starter = reading(("5S", 0.95))
    plays = [(1, "5H"), (0, "JD"), (1, "5C"), (0, "KH"), (1, "AD"), (0, "2C"), (1, "AH"), (0, "3D")]
    view = TableView(starter, tuple(LaidCard(s, reading((c, 0.95))) for s, c in plays))
    modes(app).follow(game_id, TableView(starter), lambda f: None)
    status = modes(app).follow(game_id, view, lambda f: None)
    question = status["question"]
    assert question["kind"] == "show" and question["claim"] and question["seat"] == 1
    answered = client.post(f"/api/games/{game_id}/table/answer",
                           json={"key": question["key"], "claim": 8})  # fmt: skip
    assert answered.status_code == 200, answered.json
    shows = [e for e in body(answered)["events"] if e["kind"] == "hand"]
    assert shows[-1]["claim"]["claimed"] == 8 and shows[-1]["claim"]["outcome"] == "short"


def test_a_crib_card_never_read_is_the_one_the_players_name(app: Flask, client: FlaskClient
                                                            ) -> None:  # fmt: skip
    """The crib seen with a card unread: the three read are asked with the card the players
    tap; no answer without it, a placed card refused, the named one completes the deal."""
    game_id = started(client)
    starter = reading(("5S", 0.95))
    plays = [(1, "5H"), (0, "JD"), (1, "5C"), (0, "KH"), (1, "AD"), (0, "2C"), (1, "AH"), (0, "3D")]
    laid = tuple(LaidCard(s, reading((c, 0.95))) for s, c in plays)
    modes(app).follow(game_id, TableView(starter), lambda f: None)
    crib = tuple(reading((c, 0.95)) for c in ("9C", "9D", "QS"))
    status = modes(app).follow(game_id, TableView(starter, laid, crib), lambda f: None)
    question = status["question"]
    assert question["kind"] == "crib" and question["doubt_code"] == "crib card unseen"
    assert question["options"] == [] and question["partial"] == ["9C", "9D", "QS"]
    key = question["key"]
    bare = client.post(f"/api/games/{game_id}/table/answer", json={"key": key})
    assert bare.status_code == 409 and body(bare)["code"] == "no_reading"
    placed = client.post(f"/api/games/{game_id}/table/answer",
                         json={"key": key, "cards": ["9C", "9D", "QS", "5H"]})  # fmt: skip
    assert placed.status_code == 409 and body(placed)["code"] == "cannot_be_there"
    answered = client.post(f"/api/games/{game_id}/table/answer",
                           json={"key": key, "cards": ["9C", "9D", "QS", "9H"]})  # fmt: skip
    assert answered.status_code == 200, body(answered)
    crib_show = [e for e in body(answered)["events"] if e["kind"] == "crib"][-1]
    assert crib_show["points"] == 8 and body(answered)["phase"] == "deal"


def test_any_possible_card_corrects_a_reading_and_an_impossible_one_is_refused(
    app: Flask, client: FlaskClient
) -> None:
    game_id = started(client)
    starter = reading(("4H", 0.95))
    modes(app).follow(game_id, TableView(starter), lambda f: None)
    laid = LaidCard(1, reading(("6D", 0.9), ("6H", 0.08)))
    modes(app).follow(game_id, TableView(starter, (laid,)), lambda f: None)
    placed = client.post(f"/api/games/{game_id}/table/undo",
                         json={"key": "deal 1 play 1", "cards": ["4H"]})  # fmt: skip
    assert placed.status_code == 409 and "4♥ cannot be there" in body(placed)["error"]
    assert body(client.get(f"/api/games/{game_id}"))["count_cards"] == ["6D"]  # unchanged
    fixed = client.post(f"/api/games/{game_id}/table/undo",
                        json={"key": "deal 1 play 1", "cards": ["9C"]})  # fmt: skip
    assert fixed.status_code == 200, body(fixed)
    assert body(fixed)["count_cards"] == ["9C"]


def test_cards_the_camera_cannot_place_are_said_as_codes_for_the_page(db_path: Path) -> None:
    """A starter laid off the centre, and a hand in two groups: the frame's table says why
    each is undecided as codes the page words (and English for logs); nothing is applied."""
    off_seat = card_detections("7H", (150, 360))  # level with the centre, at the left edge
    top_hand = [card_detections("2C", (300, 60), rotation=2),
                card_detections("KD", (980, 60), rotation=2)]  # fmt: skip
    detector = TableDetector(table([off_seat, *top_hand]))
    client = create_app({"TESTING": True, "DATABASE": db_path, "PHOTO_READER": detector}
                        ).test_client()  # fmt: skip
    game_id = started(client)
    for _ in range(4):  # the page's smoother keeps a card seen in 3 of the last 5 frames
        answer = client.post(f"/api/games/{game_id}/frame?table=1", data=DEMO.read_bytes(),
                             content_type="image/jpeg")  # fmt: skip
        assert answer.status_code == 200, body(answer)
    table_seen = body(answer)["table"]
    undecided = sorted(table_seen["undecided"], key=lambda u: u["cards"])
    assert [(u["cards"], u["code"], u["edges"], u["zone"], u["count"]) for u in undecided] == [
        (["2C"], "groups", ["top"], "hand", 2),
        (["7H"], "no seat", [], "", 0),
        (["KD"], "groups", ["top"], "hand", 2),
    ]
    assert undecided[1]["reason"] == "not in front of any seat"
    assert table_seen["seats"] == {"bottom": 0, "top": 1}  # the page names the players by edge
    mode = body(answer)["table_mode"]  # before the first deal it carries the camera check too
    assert (mode["question"], mode["last"]) == (None, None)
    assert body(client.get(f"/api/games/{game_id}"))["phase"] == "deal"
