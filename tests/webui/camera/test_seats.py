"""The seats the page's camera learnt, put right by a tap (`POST /api/games/<id>/table/seats`)."""

from __future__ import annotations

from pathlib import Path

from flask import Flask

from tests.tabletop import card_detections, table
from tests.webui.fakes import TableDetector
from vision.table.plane import TablePlane
from webui import create_app
from webui.camera.page_tables import PageTables

DEMO = Path(__file__).resolve().parents[3] / "webui" / "static" / "demo" / "table.jpg"


def _app(db_path: Path) -> Flask:
    detector = TableDetector(table([card_detections("5H", (640, 500))]))
    return create_app({"TESTING": True, "DATABASE": db_path, "PHOTO_READER": detector})


def _game_with_a_frame(app: Flask, players: int) -> str:
    client = app.test_client()
    names = ["Ann", "Bob", "Cy", "Di"][:players]
    game_id: str = client.post("/api/games", json={"players": players, "names": names}).json["id"]  # type: ignore[index]
    posted = client.post(f"/api/games/{game_id}/frame?table=1", data=DEMO.read_bytes(),
                         content_type="image/jpeg")  # fmt: skip
    assert posted.status_code == 200, posted.json
    assert posted.json["table"]["learnt"] == []  # type: ignore[index]
    return game_id


def test_a_seat_not_learnt_cannot_be_put_right(db_path: Path) -> None:
    app = _app(db_path)
    game_id = _game_with_a_frame(app, 2)
    client = app.test_client()
    refused = client.post(f"/api/games/{game_id}/table/seats", json={"seat": 0, "player": 1})
    assert refused.status_code == 409
    assert refused.json["code"] == "seat_not_learnt"  # type: ignore[index]
    assert "Ann" in refused.json["error"]  # type: ignore[index]
    beyond = client.post(f"/api/games/{game_id}/table/seats", json={"seat": 0, "player": 2})
    assert beyond.json["code"] == "not_a_seat"  # type: ignore[index]


def test_a_tap_on_a_learnt_seat_swaps_it_with_the_player_named(db_path: Path) -> None:
    app = _app(db_path)
    game_id = _game_with_a_frame(app, 4)
    tables: PageTables = app.extensions["cribcam.page_tables"]
    tracker = tables._tables[game_id].tracker
    tracker.table = TablePlane(tracker.picture)  # as though the plane had settled
    tracker.seats.learnt = {"bottom": (320.0, 600.0), "left": (40.0, 320.0)}
    before = {m.seat: m.at for m in tracker.seat_marks()}
    client = app.test_client()
    fixed = client.post(f"/api/games/{game_id}/table/seats", json={"seat": 0, "player": 1})
    assert fixed.status_code == 200, fixed.json
    learnt = {m["seat"]: (tuple(m["at"]), m["fixed"]) for m in fixed.json["learnt"]}  # type: ignore[index]
    assert set(learnt) == {0, 1} and learnt[0][1] and learnt[1][1]
    assert learnt[1][0] == tuple(round(v, 1) for v in before[0])  # Bob sits where Ann was put
    assert learnt[0][0] == tuple(round(v, 1) for v in before[1])
