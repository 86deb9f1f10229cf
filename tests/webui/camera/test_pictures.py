"""Pictures kept with actions: a detection's frame named in an action is stored as a small
JPEG with it, in the action's own transaction; a refused action or an undo leaves none."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import cv2
import numpy as np
import pytest
from flask import Flask
from flask.testing import FlaskClient

from tests.webui.conftest import Act, play_to_pegging
from tests.webui.fakes import PhotoDetector
from webui import create_app
from webui.camera.frames import FrameMemory, thumbnail
from webui.games.store import GameStore

DEMO = Path(__file__).resolve().parents[3] / "webui" / "static" / "demo" / "table.jpg"


@pytest.fixture
def app(db_path: Path) -> Flask:
    return create_app({"TESTING": True, "DATABASE": db_path, "PHOTO_READER": PhotoDetector()})


def _frame(client: FlaskClient, game_id: str, data: bytes | None = None) -> str:
    response = client.post(f"/api/games/{game_id}/frame", data=data or DEMO.read_bytes(),
                           content_type="image/jpeg")  # fmt: skip
    assert response.status_code == 200, response.json
    frame_id: str = response.json["frame"]  # type: ignore[index]
    return frame_id


def test_the_demo_photo_is_small_and_readable(client: FlaskClient) -> None:
    data = DEMO.read_bytes()
    assert len(data) < 150 * 1024 and data[:3] == b"\xff\xd8\xff"
    image = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    assert image is not None and min(image.shape[:2]) >= 480
    served = client.get("/static/demo/table.jpg")
    assert served.status_code == 200 and served.data == data
    served.close()


def test_a_play_applied_from_a_photo_keeps_its_picture(
    client: FlaskClient, new_game: Callable[..., str], act: Act, db_path: Path
) -> None:
    game_id = new_game(first_dealer=1)
    play_to_pegging(act, game_id)
    frame_id = _frame(client, game_id)
    state = act(game_id, kind="play", card="5H", frame=frame_id)
    index = state["actions"] - 1
    picture = GameStore(db_path).picture(game_id, index)  # committed: a new connection sees it
    assert picture is not None
    image = cv2.imdecode(np.frombuffer(picture, np.uint8), cv2.IMREAD_COLOR)
    assert image is not None and max(image.shape[:2]) == 320
    served = client.get(f"/api/games/{game_id}/frames/{index}")
    assert served.status_code == 200 and served.data == picture
    client.post(f"/api/games/{game_id}/undo")
    assert client.get(f"/api/games/{game_id}/frames/{index}").status_code == 404
    assert GameStore(db_path).pictures(game_id) == set()


def test_a_refused_action_keeps_no_picture(
    client: FlaskClient, new_game: Callable[..., str], act: Act, db_path: Path
) -> None:
    game_id = new_game(first_dealer=1)
    play_to_pegging(act, game_id)
    frame_id = _frame(client, game_id)
    act(game_id, 409, kind="play", seat=1, card="2C", frame=frame_id)  # not seat 1's turn
    assert GameStore(db_path).pictures(game_id) == set()


@pytest.mark.parametrize(
    ("frame", "message"),
    [(7, "'frame' must be a frame id"), ("", "'frame' must be a frame id"),
     ("u999", "unknown or no longer held")],
)  # fmt: skip
def test_a_bad_frame_is_refused_and_changes_nothing(
    client: FlaskClient, new_game: Callable[..., str], act: Act, frame: object, message: str
) -> None:
    game_id = new_game(first_dealer=1)
    play_to_pegging(act, game_id)
    before = client.get(f"/api/games/{game_id}").json["actions"]  # type: ignore[index]
    answer = act(game_id, 400, kind="play", card="5H", frame=frame)
    assert message in answer["error"]
    assert client.get(f"/api/games/{game_id}").json["actions"] == before  # type: ignore[index]


def test_missing_pictures_are_404_json(client: FlaskClient, new_game: Callable[..., str]) -> None:
    game_id = new_game()
    response = client.get(f"/api/games/{game_id}/frames/0")
    assert response.status_code == 404 and "has no picture" in response.json["error"]  # type: ignore[index]
    assert client.get("/api/games/nope/frames/0").status_code == 404
    assert client.get(f"/api/games/{game_id}/frames/x").status_code == 404


def test_frame_memory_is_bounded_and_thumbnails_on_demand() -> None:
    memory = FrameMemory(keep=2)
    image = np.zeros((600, 800, 3), np.uint8)
    _, jpeg = cv2.imencode(".jpg", image)
    first = memory.add_upload(bytes(jpeg.tobytes()))
    second, third = memory.add_image(image), memory.add_upload(bytes(jpeg.tobytes()))
    assert memory.thumbnail(first) is None  # the oldest went
    small = memory.thumbnail(third)
    assert small is not None and memory.thumbnail(second) is not None
    decoded = cv2.imdecode(np.frombuffer(small, np.uint8), cv2.IMREAD_COLOR)
    assert decoded is not None and decoded.shape[:2] == (240, 320)
    assert len(thumbnail(np.zeros((10, 20, 3), np.uint8))) > 0  # small frames stay their size
