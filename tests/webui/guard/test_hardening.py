"""Issue #51 in the app: other hosts and sites get nothing, and hostile bodies, numbers, ids
and images get a 4xx JSON error that names them and change nothing (never a 500)."""

from __future__ import annotations

import ipaddress
import json
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.helpers import png_claiming
from tests.webui.conftest import Act, play_to_pegging
from webui import create_app
from webui.games.store import GameStore
from webui.guard.security import CONTENT_SECURITY_POLICY, host_name, server_names

EVIL = "https://evil.example"
DEMO = Path(__file__).resolve().parents[3] / "webui" / "static" / "demo" / "table.jpg"


def error_of(response: Any, status: int) -> str:
    """The JSON error of a refusal with `status` (a 4xx, never a traceback)."""
    assert response.status_code == status, (response.status_code, response.data[:300])
    assert response.is_json, response.data[:300]
    message: str = response.json["error"]
    return message


def games(client: FlaskClient) -> list[Any]:
    listed: list[Any] = client.get("/api/games").json["games"]  # type: ignore[index]
    return listed


# -- Host: DNS rebinding ----------------------------------------------------------------------
@pytest.mark.parametrize("host", ["evil.example:8121", "evil.example", "127.0.0.1.evil.example",
                                  "localhost.evil.example:8121", "[::2]:8121", ""])  # fmt: skip
def test_a_request_naming_another_host_is_refused(client: FlaskClient, host: str) -> None:
    for path in ["/healthz", "/", "/api/games", "/static/app.css"]:
        assert "host name" in error_of(client.get(path, headers={"Host": host}), 400)
    created = client.post("/api/games", json={"players": 2}, headers={"Host": host})
    assert "host name" in error_of(created, 400)
    assert games(client) == []


@pytest.mark.parametrize("host", ["127.0.0.1:8121", "localhost:8121", "[::1]:8121", "LOCALHOST",
                                  "localhost."])  # fmt: skip
def test_the_loopback_names_are_served(client: FlaskClient, host: str) -> None:
    assert client.get("/healthz", headers={"Host": host}).status_code == 200


def test_with_lan_the_machine_s_own_names_and_addresses_are_served(
    monkeypatch: pytest.MonkeyPatch, db_path: Path
) -> None:
    import webui.guard.security

    monkeypatch.setattr(webui.guard.security, "local_names",
                        lambda: (["laptop", "laptop.home.arpa"], []))  # fmt: skip
    monkeypatch.setattr(webui.guard.security, "lan_addresses",
                        lambda: [ipaddress.ip_address("192.0.2.10")])  # fmt: skip
    monkeypatch.setattr(webui.guard.security.socket, "gethostname", lambda: "laptop")
    names = server_names("0.0.0.0", lan=True)
    assert {"127.0.0.1", "localhost", "::1", "laptop", "laptop.local", "laptop.home.arpa",
            "192.0.2.10"} <= names  # fmt: skip
    assert server_names("127.0.0.1") == {"127.0.0.1", "localhost", "::1"}
    app = create_app({"TESTING": True, "DATABASE": db_path, "ALLOWED_HOSTS": names})
    client = app.test_client()
    for host in ["192.0.2.10:8121", "laptop.local:8121", "laptop:8121"]:
        assert client.get("/healthz", headers={"Host": host}).status_code == 200
    assert client.get("/healthz", headers={"Host": "evil.example"}).status_code == 400


def test_host_name() -> None:
    assert host_name("[::1]:8121") == "::1" and host_name("Example.COM.:1") == "example.com"


# -- cross-site requests ----------------------------------------------------------------------
def test_another_site_cannot_change_a_game(client: FlaskClient, new_game: Callable[..., str]
                                           ) -> None:  # fmt: skip
    game_id = new_game()
    before = client.get(f"/api/games/{game_id}").json
    evil = {"Origin": EVIL}
    text = {"content_type": "text/plain", "headers": evil}
    attempts = [
        client.post("/api/games", data=json.dumps({"players": 2}), **text),
        client.post(
            f"/api/games/{game_id}/actions",
            data=json.dumps({"kind": "correct", "seat": 0, "points": 121}),
            **text,
        ),
        client.post("/api/decks/use", data=json.dumps({"name": None}), **text),
        client.put(f"/api/games/{game_id}/names", data='["Eve", "Mal"]', **text),
        client.post(f"/api/games/{game_id}/undo", headers=evil),
        client.delete(f"/api/games/{game_id}", headers=evil),
        client.post("/api/games", json={"players": 2}, headers={"Sec-Fetch-Site": "cross-site"}),
        client.post("/api/games", json={"players": 2}, headers={"Sec-Fetch-Site": "same-site"}),
        client.post("/api/games", json={"players": 2}, headers={"Origin": "null"}),
        client.post(
            "/api/games", json={"players": 2}, headers={"Origin": "http://localhost:9999"}
        ),  # another port: another site
    ]
    for response in attempts:
        assert "another site" in error_of(response, 403)
    assert client.get(f"/api/games/{game_id}").json == before
    assert len(games(client)) == 1


def test_another_site_cannot_read_the_api_but_may_link_to_the_page(
    client: FlaskClient, new_game: Callable[..., str]
) -> None:
    game_id = new_game()
    fetch = {"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "cors"}
    for path in [f"/api/games/{game_id}", f"/api/games/{game_id}/events", "/api/camera"]:
        assert "another site" in error_of(client.get(path, headers=fetch), 403)
    navigate = {"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate"}
    assert client.get(f"/games/{game_id}", headers=navigate).status_code == 200


def test_the_page_s_own_requests_are_served(client: FlaskClient) -> None:
    own = {"Origin": "http://localhost", "Sec-Fetch-Site": "same-origin", "Sec-Fetch-Mode": "cors"}
    created = client.post("/api/games", json={"players": 2}, headers=own)
    assert created.status_code == 201
    game_id = created.json["id"]  # type: ignore[index]
    acted = client.post(f"/api/games/{game_id}/actions", json={"kind": "dealer", "seat": 0},
                        headers={**own, "Origin": "http://LOCALHOST:80"})  # fmt: skip
    assert acted.status_code == 200
    typed = client.get("/", headers={"Sec-Fetch-Site": "none", "Sec-Fetch-Mode": "navigate"})
    assert typed.status_code == 200


def test_json_endpoints_require_the_json_content_type(client: FlaskClient) -> None:
    for content_type in ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data"]:
        response = client.post("/api/games", data='{"players": 2}', content_type=content_type)
        assert "application/json" in error_of(response, 415)
    assert games(client) == []
    ok = client.post("/api/games", data='{"players": 2}',
                     content_type="application/json; charset=utf-8")  # fmt: skip
    assert ok.status_code == 201


def test_every_answer_carries_the_security_headers(
    client: FlaskClient, new_game: Callable[..., str]
) -> None:
    game_id = new_game()
    for response in [client.get("/"), client.get(f"/games/{game_id}"), client.get("/enroll"),
                     client.get("/static/game.js"), client.get("/api/games"),
                     client.get("/api/games/nope"), client.get("/nowhere")]:  # fmt: skip
        headers = response.headers
        assert headers["Content-Security-Policy"] == CONTENT_SECURITY_POLICY
        assert "frame-ancestors 'none'" in CONTENT_SECURITY_POLICY
        assert "script-src 'self'" in CONTENT_SECURITY_POLICY
        assert headers["X-Frame-Options"] == "DENY"
        assert headers["X-Content-Type-Options"] == "nosniff"


def test_the_templates_hold_no_inline_script_style_or_handler() -> None:
    """The CSP allows only this origin's files: anything inline would be blocked."""
    for template in (Path(__file__).resolve().parents[3] / "webui" / "templates").glob("*.html"):
        text = template.read_text()
        assert "<style" not in text and " style=" not in text, template
        assert "<script>" not in text and " onclick=" not in text and "javascript:" not in text


# -- deeply nested JSON -----------------------------------------------------------------------
def json_endpoints(client: FlaskClient, game_id: str, session: str) -> list[tuple[str, str]]:
    """(method, path) of every endpoint that reads a JSON body."""
    return [
        ("POST", "/api/score"), ("POST", "/api/games"), ("POST", f"/api/games/{game_id}/actions"),
        ("PUT", f"/api/games/{game_id}/settings"), ("PUT", f"/api/games/{game_id}/names"),
        ("POST", "/api/advise"), ("POST", "/api/enroll"), ("PUT", f"/api/enroll/{session}/cards/1"),
        ("POST", "/api/decks/use"), ("PATCH", "/api/decks/Kitchen"),
        ("POST", f"/api/enroll/{session}/finish"),
    ]  # fmt: skip


@pytest.mark.parametrize(
    "body",
    [
        "[" * 100_000 + "]" * 100_000,
        "[" * 2_000 + "]" * 2_000,
        '{"a":' * 20_000 + "1" + "}" * 20_000,
        '{"players": 2, "names": ' + "[" * 33 + "]" * 33 + "}",
    ],
    ids=["list 100000 deep", "list 2000 deep", "object 20000 deep", "33 deep"],
)
def test_deeply_nested_json_is_refused_everywhere(
    client: FlaskClient, new_game: Callable[..., str], body: str
) -> None:
    game_id = new_game()
    session = client.post("/api/enroll", json={"name": "Kitchen"}).json["id"]  # type: ignore[index]
    before = client.get(f"/api/games/{game_id}").json
    for method, path in json_endpoints(client, game_id, session):
        response = client.open(path, method=method, data=body, content_type="application/json")
        if path.startswith("/api/decks/Kitchen"):  # no such deck: refused before its body
            assert "no deck named" in error_of(response, 404)
            continue
        assert "nested too deeply" in error_of(response, 400), path
    assert client.get(f"/api/games/{game_id}").json == before


def test_a_json_body_over_its_limit_is_413(client: FlaskClient) -> None:
    body = json.dumps({"players": 2, "names": ["x" * 300_000, "y"]})
    assert "KiB" in error_of(client.post("/api/games", data=body,
                                         content_type="application/json"), 413)  # fmt: skip


# -- numbers: bounded by what cribbage allows -------------------------------------------------
@pytest.mark.parametrize(
    ("action", "fragment"),
    [
        ({"kind": "play", "card": "7H", "claim": -5}, "'claim' must be 0 to 14"),
        ({"kind": "play", "card": "7H", "claim": 10**30}, "'claim' must be 0 to 14"),
        ({"kind": "play", "card": "7H", "claim": 15}, "'claim' must be 0 to 14"),
        ({"kind": "correct", "seat": 0, "points": 10**30}, "'points' must be -121 to 121"),
        ({"kind": "correct", "seat": 0, "points": -(10**30)}, "'points' must be -121 to 121"),
        ({"kind": "correct", "seat": 0, "points": 2**63}, "'points' must be -121 to 121"),
        ({"kind": "muggins", "seat": 1, "points": 10**30}, "'points' must be 1 to 29"),
        ({"kind": "muggins", "seat": 1, "points": -3}, "'points' must be 1 to 29"),
        ({"kind": "play", "card": "7H", "claim": 1.5}, "must be an integer"),
        ({"kind": "play", "card": "7H", "claim": True}, "must be an integer"),
    ],
)
def test_numbers_out_of_bounds_are_refused(
    client: FlaskClient, new_game: Callable[..., str], act: Act, action: dict[str, Any],
    fragment: str,
) -> None:  # fmt: skip
    game_id = new_game(first_dealer=1, muggins=True)
    play_to_pegging(act, game_id)
    before = client.get(f"/api/games/{game_id}").json
    response = client.post(f"/api/games/{game_id}/actions", json=action)
    assert fragment in error_of(response, 400)
    assert client.get(f"/api/games/{game_id}").json == before
    assert before["outcome"] is None  # type: ignore[index]


def test_a_show_claim_is_0_to_29(client: FlaskClient, new_game: Callable[..., str]) -> None:
    game_id = new_game(first_dealer=0)
    for claim in [-1, 30, 10**30]:
        response = client.post(f"/api/games/{game_id}/actions",
                               json={"kind": "show", "claim": claim})  # fmt: skip
        assert "'claim' must be 0 to 29" in error_of(response, 400)


def test_a_correction_within_the_board_still_works(
    client: FlaskClient, new_game: Callable[..., str], act: Act
) -> None:
    game_id = new_game(target=61, first_dealer=0)
    assert act(game_id, kind="correct", seat=0, points=-3)["scores"] == [0, 0]
    assert "'points' must be -61 to 61" in act(game_id, status=400, kind="correct", seat=0,
                                               points=62)["error"]  # fmt: skip
    assert act(game_id, kind="correct", seat=1, points=61)["outcome"]["winner"] == 1


@pytest.mark.parametrize(
    ("settings", "fragment"),
    [
        ({"games_per_match": 10**20}, "games_per_match must be 1 to 99"),
        ({"games_per_match": 100}, "games_per_match must be 1 to 99"),
        ({"match_points": {"win": 10**20}}, "match_points.win must be 0 to 99"),
        ({"match_points": {"loss": -1}}, "match_points.loss must be 0 to 99"),
        ({"target": 10**30}, "target must be 61 or 121"),
        ({"players": 10**30}, "players must be 2, 3 or 4"),
    ],
)
def test_settings_out_of_bounds_are_refused(
    client: FlaskClient, settings: dict[str, Any], fragment: str
) -> None:
    assert fragment in error_of(client.post("/api/games", json={"players": 2, **settings}), 400)
    assert games(client) == []


# -- ids and headers --------------------------------------------------------------------------
def test_names_null_is_refused_and_changes_nothing(
    client: FlaskClient, new_game: Callable[..., str]
) -> None:
    game_id = new_game(names=["Ann", "Bob"])
    response = client.put(f"/api/games/{game_id}/names", data="null",
                          content_type="application/json")  # fmt: skip
    assert "'names' must be a list of 2 names" in error_of(response, 400)
    assert client.get(f"/api/games/{game_id}").json["names"] == ["Ann", "Bob"]  # type: ignore[index]


@pytest.mark.parametrize("index", [2**63, 2**64, 10**30, 1_000_001])
def test_a_number_in_a_url_beyond_any_game_is_404(
    client: FlaskClient, new_game: Callable[..., str], index: int
) -> None:
    game_id = new_game()
    error_of(client.get(f"/api/games/{game_id}/frames/{index}"), 404)
    error_of(client.get(f"/api/enroll/abc/crops/{index}.jpg"), 404)
    error_of(client.delete(f"/api/enroll/abc/shots/{index}"), 404)


@pytest.mark.parametrize("last", ["x", "-1", "1.5", "²", "9" * 5000, str(2**63), " 1"])
def test_a_last_event_id_that_is_not_a_small_integer_is_400(
    client: FlaskClient, new_game: Callable[..., str], last: str
) -> None:
    game_id = new_game()
    response = client.get(f"/api/games/{game_id}/events", headers={"Last-Event-ID": last})
    assert "Last-Event-ID" in error_of(response, 400)


def test_a_live_stream_over_the_slots_is_503(app: Flask, new_game: Callable[..., str]) -> None:
    """Each open stream holds a slot (its request context lives as long as it does)."""
    game_id = new_game()
    slots = app.extensions["cribcam.streams"]
    while slots.take():  # the test takes every slot but one
        pass
    slots.give_back()
    client = app.test_client()
    stream = client.get(f"/api/games/{game_id}/events", buffered=False)
    assert stream.status_code == 200
    assert "live streams are open" in error_of(client.get(f"/api/games/{game_id}/events"), 503)
    assert client.get("/healthz").status_code == 200
    stream.close()  # the page closes: its slot is free again
    reopened = client.get(f"/api/games/{game_id}/events", buffered=False)
    assert reopened.status_code == 200
    reopened.close()
    missing = client.get("/api/games/nope/events")
    assert "no game" in error_of(missing, 404)
    missing.close()  # as the server does once the answer is sent
    assert slots.take()  # a refused stream gave its slot back


# -- images -----------------------------------------------------------------------------------
class FakeDetector:
    def __init__(self) -> None:
        self.calls = 0

    def detect(self, image: bytes, name: str) -> dict[str, Any]:
        self.calls += 1
        return {"image": name, "cards": []}


@pytest.fixture
def detecting(db_path: Path) -> tuple[FlaskClient, FakeDetector]:
    detector = FakeDetector()
    app = create_app({"TESTING": True, "DATABASE": db_path, "PHOTO_READER": detector})
    return app.test_client(), detector


def test_a_jpeg_cut_short_with_a_forged_end_marker_is_refused(
    detecting: tuple[FlaskClient, FakeDetector],
) -> None:
    client, detector = detecting
    jpeg = DEMO.read_bytes()
    for share in (0.3, 0.9, 0.99):
        forged = jpeg[: int(len(jpeg) * share)] + b"\xff\xd9"
        response = client.post("/api/detect", data=forged, content_type="image/jpeg")
        assert "damaged or cut short" in error_of(response, 400)
    assert detector.calls == 0
    assert client.post("/api/detect", data=jpeg, content_type="image/jpeg").status_code == 200


@pytest.mark.parametrize("size", [(12_000, 12_000), (6_000, 4_001), (100_000, 300)])
def test_an_image_over_the_pixel_budget_is_refused_from_its_header(
    detecting: tuple[FlaskClient, FakeDetector], size: tuple[int, int]
) -> None:
    client, detector = detecting
    huge = png_claiming(*size)
    assert len(huge) < 100
    response = client.post("/api/detect", data=huge, content_type="image/png")
    assert f"{size[0]} x {size[1]} image is too large" in error_of(response, 413)
    big_jpeg = cv2.imencode(".jpg", np.zeros((8, 8, 3), np.uint8))[1].tobytes()
    assert client.post("/api/detect", data=big_jpeg, content_type="image/jpeg").status_code == 200
    assert detector.calls == 1


def test_a_camera_s_frame_fits_the_budget(detecting: tuple[FlaskClient, FakeDetector]) -> None:
    client, _ = detecting
    photo = cv2.imencode(".jpg", np.zeros((3000, 4000, 3), np.uint8))[1].tobytes()  # 12 MP
    assert client.post("/api/detect", data=photo, content_type="image/jpeg").status_code == 200


# -- a full disk --------------------------------------------------------------------------------
@contextmanager
def full_disk(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The games database can grow no further: SQLite answers SQLITE_FULL, as on a full disk."""
    connect = GameStore._connect

    @contextmanager
    def no_room(self: GameStore) -> Iterator[sqlite3.Connection]:
        with connect(self) as db:
            pages = db.execute("PRAGMA page_count").fetchone()[0]
            db.execute(f"PRAGMA max_page_count = {pages}")
            yield db

    monkeypatch.setattr(GameStore, "_connect", no_room)
    yield
    monkeypatch.setattr(GameStore, "_connect", connect)


def test_a_full_disk_is_507_and_reads_go_on(
    client: FlaskClient, new_game: Callable[..., str], monkeypatch: pytest.MonkeyPatch
) -> None:
    game_id = new_game(names=["Ann", "Bob"])
    before = client.get(f"/api/games/{game_id}").json
    with full_disk(monkeypatch):
        for _ in range(500):  # the last free bytes of the file's pages fill first
            response = client.post("/api/games", json={"players": 2, "names": ["A" * 40, "B"]})
            if response.status_code != 201:
                break
        assert "disk is full" in error_of(response, 507)
        stored = len(games(client))  # reads go on
        assert client.get(f"/api/games/{game_id}").json == before
        assert client.get("/").status_code == 200
        again = client.post("/api/games", json={"players": 2, "names": ["A" * 40, "B"]})
        assert "disk is full" in error_of(again, 507)
        assert len(games(client)) == stored  # the refused write left nothing behind
    assert client.post("/api/games", json={"players": 2}).status_code == 201  # room again
