"""The camera check through the API: before the first deal, table mode's frames are checked and
the verdict rides on table mode's status; once a deal has started it is gone."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from flask.testing import FlaskClient

from cribtrain.data.clips import PLAY_ROW
from tests.vision.table.check_scenes import CheckScene, check_scene, held_out_deck
from tests.webui.fakes import TableDetector
from vision.detection.detections import Detections
from webui import create_app


@pytest.fixture(scope="module")
def scene() -> CheckScene:
    return check_scene(held_out_deck(), "overhead", "1080p", 2, row=PLAY_ROW)


def _client(db_path: Path, scene: CheckScene) -> FlaskClient:
    found = Detections.concatenate([card.detections for card in scene.truth.cards])
    reader = TableDetector(found, (1920, 1080))
    return create_app({"TESTING": True, "DATABASE": db_path, "PHOTO_READER": reader}).test_client()


def _jpeg(image: np.ndarray) -> bytes:
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 90])
    assert ok
    return bytes(data.tobytes())


def _frame(client: FlaskClient, game_id: str, image: np.ndarray, query: str = "?table=1") -> Any:
    answer = client.post(f"/api/games/{game_id}/frame{query}", data=_jpeg(image),
                         content_type="image/jpeg")  # fmt: skip
    assert answer.status_code == 200, answer.json
    return answer.json


def test_before_the_first_deal_each_frame_is_checked(db_path: Path, scene: CheckScene) -> None:
    client = _client(db_path, scene)
    game_id = client.post("/api/games", json={"players": 2}).json["id"]  # type: ignore[index]
    assert client.get(f"/api/games/{game_id}/table").json["camera_check"] is None  # type: ignore[index]
    assert "table_mode" not in _frame(client, game_id, scene.frame, "")  # the form page's camera

    check = _frame(client, game_id, scene.frame)["table_mode"]["camera_check"]
    assert check["ready"] is True, check
    assert check["findings"] == []
    assert check["measures"]["size"] == [1920, 1080]
    assert check["measures"]["cards"] == 2
    assert check["measures"]["index_px"] >= check["good_index_px"] == 24
    assert client.get(f"/api/games/{game_id}/table").json["camera_check"] == check  # type: ignore[index]

    dark = (scene.frame * 0.25).astype(np.uint8)
    check = _frame(client, game_id, dark)["table_mode"]["camera_check"]
    assert check["ready"] is False
    assert [f["code"] for f in check["findings"]] == ["too_dark"]
    status = client.get(f"/api/games/{game_id}/table").json
    assert status["camera_check"]["findings"][0]["code"] == "too_dark"  # type: ignore[index]


def test_a_smaller_picture_says_how_much_closer(db_path: Path, scene: CheckScene) -> None:
    client = _client(db_path, check_scene(held_out_deck(), "overhead", "1080p", 2,
                                          row=PLAY_ROW, scale=0.4))  # fmt: skip
    game_id = client.post("/api/games", json={"players": 2}).json["id"]  # type: ignore[index]
    small = np.asarray(cv2.resize(scene.frame, (768, 432), interpolation=cv2.INTER_AREA))
    check = _frame(client, game_id, small)["table_mode"]["camera_check"]
    [finding] = check["findings"]
    assert finding["code"] == "too_far" and finding["blocking"] is True
    assert finding["closer_cm"] >= 20
    assert finding["index_px"] < finding["needed_px"] == 16


def test_once_a_deal_has_started_the_check_is_gone(db_path: Path, scene: CheckScene) -> None:
    client = _client(db_path, scene)
    game_id = client.post("/api/games", json={"players": 2, "first_dealer": 0}).json["id"]  # type: ignore[index]
    assert _frame(client, game_id, scene.frame)["table_mode"]["camera_check"]["ready"] is True
    dealt = client.post(f"/api/games/{game_id}/actions", json={"kind": "deal", "hands": None})
    assert dealt.status_code == 200, dealt.json
    assert client.get(f"/api/games/{game_id}/table").json["camera_check"] is None  # type: ignore[index]
    assert _frame(client, game_id, scene.frame)["table_mode"]["camera_check"] is None
