"""Frames posted by the page's own camera: smoothed per game into the table's roles, with the
show of each complete hand (and the crib) counted beside the starter."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from scorer.cards import parse_card, parse_cards
from scorer.show import score_show
from tests.tabletop import card_detections, row_detections, table
from tests.webui.fakes import TableDetector
from vision.detection.detections import class_of_card
from vision.table.cards import cards_from_detections
from webui import create_app

DEMO = Path(__file__).resolve().parents[3] / "webui" / "static" / "demo" / "table.jpg"
BOTTOM, TOP, CRIB = ["5H", "5C", "JD", "4S"], ["7C", "8D", "9H", "KS"], ["2C", "3D", "QH", "6S"]
SHOW = table([row_detections(BOTTOM, (560, 640)),
              row_detections(TOP, (720, 80), rotation=2),
              row_detections(CRIB, (1000, 600)),
              card_detections("5D", (640, 360))])  # fmt: skip


def post_frames(client: FlaskClient, game_id: str, count: int) -> list[Any]:
    answers = []
    for _ in range(count):
        response = client.post(f"/api/games/{game_id}/frame", data=DEMO.read_bytes(),
                               content_type="image/jpeg")  # fmt: skip
        assert response.status_code == 200, response.json
        answers.append(response.json)
    return answers


def test_the_show_on_camera_is_counted_once_the_table_is_steady(db_path: Path) -> None:
    client = create_app({"TESTING": True, "DATABASE": db_path,
                         "PHOTO_READER": TableDetector(SHOW)}).test_client()  # fmt: skip
    game_id = client.post("/api/games", json={"players": 2, "first_dealer": 0}).json["id"]
    first, *_, last = post_frames(client, game_id, 4)
    assert first["table"]["cards"] == [] and first["table"]["shows"] == []  # one frame: no trust
    roles = {c["card"]: c["role"] for c in last["table"]["cards"]}
    assert roles == ({c: "hand:bottom" for c in BOTTOM} | {c: "hand:top" for c in TOP}
                     | {c: "crib:bottom" for c in CRIB} | {"5D": "starter"})  # fmt: skip
    assert last["table"]["seats"] == {"bottom": 0, "top": 1}
    shows = {(s["role"], s["seat"]): s for s in last["table"]["shows"]}
    for key, cards in {("hand", 0): BOTTOM, ("hand", 1): TOP, ("crib", 0): CRIB}.items():
        expected = score_show(parse_cards(cards), parse_cards(["5D"])[0], crib=key[0] == "crib")
        assert sorted(shows[key]["hand"]) == sorted(cards)
        assert shows[key]["total"] == expected.total and shows[key]["starter"] == "5D"
    assert len(shows) == 3
    assert {c["card"] for c in last["cards"]} == set(roles)  # the frame's own reading too


def test_each_card_carries_the_box_of_every_corner_it_was_read_by(db_path: Path) -> None:
    """A correction cuts one corner index: `box` spans both corners, `index_boxes` holds each."""
    client = create_app({"TESTING": True, "DATABASE": db_path,
                         "PHOTO_READER": TableDetector(SHOW)}).test_client()  # fmt: skip
    game_id = client.post("/api/games", json={"players": 2, "first_dealer": 0}).json["id"]
    last = post_frames(client, game_id, 4)[-1]
    truth = {str(seen.card): seen.detections.boxes.tolist()
             for seen in cards_from_detections(SHOW).cards}  # fmt: skip
    both = {card for card, boxes in truth.items() if len(boxes) == 2}
    assert "5D" in both and len(both) >= 4  # the starter and each row's top card show two
    for cards in (last["table"]["cards"], last["cards"]):
        assert {c["card"] for c in cards} == set(truth)
        for card in cards:
            corners = card["index_boxes"]
            assert corners == [[round(v, 1) for v in box] for box in truth[card["card"]]]
            x1s, y1s, x2s, y2s = zip(*corners, strict=True)
            assert card["box"] == [min(x1s), min(y1s), max(x2s), max(y2s)]
            if card["card"] in both:  # each corner is one index, the box nearly the card
                assert all(3 * (x2 - x1) < card["box"][2] - card["box"][0]
                           for x1, _, x2, _ in corners)  # fmt: skip


def test_a_card_kept_through_a_gap_offers_no_corners_to_correct(db_path: Path) -> None:
    """Its boxes are from an earlier frame: cutting this frame there would teach the deck
    whatever now lies at that spot."""
    detector = TableDetector(SHOW)
    client = create_app({"TESTING": True, "DATABASE": db_path,
                         "PHOTO_READER": detector}).test_client()  # fmt: skip
    game_id = client.post("/api/games", json={"players": 2, "first_dealer": 0}).json["id"]
    post_frames(client, game_id, 4)
    detector.detections = SHOW[SHOW.class_ids != class_of_card(parse_card("5D"))]  # covered
    table = post_frames(client, game_id, 1)[0]["table"]
    starter = next(c for c in table["cards"] if c["role"] == "starter")
    assert starter["card"] == "5D" and starter["index_boxes"] == [] and starter["in_frame"] is False
    others = [c for c in table["cards"] if c["role"] != "starter"]
    assert len(others) == 12 and all(c["in_frame"] and c["index_boxes"] for c in others)


def test_each_game_smooths_its_own_frames(db_path: Path) -> None:
    client = create_app({"TESTING": True, "DATABASE": db_path,
                         "PHOTO_READER": TableDetector(SHOW)}).test_client()  # fmt: skip
    one = client.post("/api/games", json={"players": 2, "first_dealer": 0}).json["id"]
    two = client.post("/api/games", json={"players": 2, "first_dealer": 1}).json["id"]
    post_frames(client, one, 3)
    assert post_frames(client, two, 1)[0]["table"]["cards"] == []
    crib = [s for s in post_frames(client, one, 1)[0]["table"]["shows"] if s["role"] == "crib"]
    assert [s["seat"] for s in crib] == [0]


def test_a_frame_for_an_unknown_game_is_404(db_path: Path) -> None:
    client = create_app({"TESTING": True, "DATABASE": db_path,
                         "PHOTO_READER": TableDetector(SHOW)}).test_client()  # fmt: skip
    response = client.post("/api/games/nope/frame", data=DEMO.read_bytes(),
                           content_type="image/jpeg")  # fmt: skip
    assert response.status_code == 404 and "error" in response.json


@pytest.mark.parametrize(("g", "small"), [(20.0, True), (40.0, False)])
def test_a_frame_of_small_indices_is_flagged_for_the_page(
    db_path: Path, g: float, small: bool
) -> None:
    """The page asks for the camera closer when the cards' indices have too few pixels."""
    hand = table([row_detections(BOTTOM, (560, 640), g)])
    client = create_app({"TESTING": True, "DATABASE": db_path,
                         "PHOTO_READER": TableDetector(hand)}).test_client()  # fmt: skip
    game_id = client.post("/api/games", json={"players": 2, "first_dealer": 0}).json["id"]
    (answer,) = post_frames(client, game_id, 1)
    assert answer["index_px"] == g
    assert answer["small_indices"] is small


@pytest.mark.parametrize("cut", [True, False])
def test_a_card_set_aside_at_the_frames_edge_is_told_to_the_page(db_path: Path, cut: bool) -> None:
    """The page asks for every card in view when a card was seen only at a cut index."""
    hand = table([row_detections(BOTTOM, (560, 640), 40.0)])
    detector = TableDetector(hand, cut_at_edge=cut)
    config = {"TESTING": True, "DATABASE": db_path, "PHOTO_READER": detector}
    client = create_app(config).test_client()
    game_id = client.post("/api/games", json={"players": 2, "first_dealer": 0}).json["id"]
    (answer,) = post_frames(client, game_id, 1)
    assert answer["cut_at_edge"] is cut
