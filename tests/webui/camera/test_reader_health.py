"""Whether the server reads cards: `/healthz` says so only once the reader has read its
self-check photo, and a reader that cannot run is a 503 and one log line, never a traceback a
frame."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from werkzeug.test import TestResponse

import vision.photo_reader
from tests.samples import SAMPLES
from vision.photo_reader import PhotoReader
from webui import create_app
from webui.camera.reader_health import ReaderHealth


def answer(response: TestResponse) -> Any:
    return response.json


PHOTO = (SAMPLES / "images" / "dev_0594.jpg").read_bytes()


def _health(app: Flask) -> ReaderHealth:
    health: ReaderHealth = app.extensions["cribcam.reader_health"]
    assert health.done.wait(120), "the self-check never ended"
    return health


def test_healthz_says_the_reader_reads_once_it_has_read_its_self_check(db_path: Path) -> None:
    app = create_app({"TESTING": True, "DATABASE": db_path, "PHOTO_READER": PhotoReader()})
    _health(app)
    health = answer(app.test_client().get("/healthz"))
    assert health["detector"] is True and health["reader"]["state"] == "reads"
    assert health["reader"]["detail"].startswith("read 7H 8C 9H in ")


def test_healthz_without_a_reader_says_none(db_path: Path) -> None:
    app = create_app({"TESTING": True, "DATABASE": db_path})
    health = answer(app.test_client().get("/healthz"))
    assert health["detector"] is False and health["reader"] == {"state": "none", "detail": ""}


def test_a_reader_that_cannot_run_is_said_once_and_each_frame_is_a_clear_503(
    db_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def broken(*_: object, **__: object) -> None:
        raise ModuleNotFoundError("No module named 'onnxruntime'")

    monkeypatch.setattr(vision.photo_reader, "CardReader", broken)
    caplog.set_level(logging.INFO)
    app = create_app({"TESTING": True, "DATABASE": db_path, "PHOTO_READER": PhotoReader()})
    _health(app)
    client = app.test_client()
    health = answer(client.get("/healthz"))
    assert health["detector"] is False and health["reader"]["state"] == "fails"
    assert "onnxruntime" in health["reader"]["detail"]
    game = answer(client.post("/api/games", json={"players": 2}))["id"]
    for path in ["/api/detect", f"/api/games/{game}/frame", f"/api/games/{game}/frame?table=1"]:
        for _ in range(3):
            response = client.post(path, data=PHOTO, content_type="image/jpeg")
            assert response.status_code == 503, (path, response.json)
            error = answer(response)["error"]
            assert "onnxruntime" in error and "enter them by hand" in error
    said = [r for r in caplog.records if r.name == "webui.camera.reader_health"]
    assert len(said) == 1 and said[0].levelno == logging.ERROR
    assert not [r for r in caplog.records if r.exc_info]  # no traceback at all
