"""The camera's endpoints: the server camera's table, one game's camera view and play
suggestions, the "settle it" view of the current count, and the pictures kept with actions."""

from __future__ import annotations

from flask import Blueprint, Response, current_app, jsonify, request

from webui.api import store
from webui.camera_view import game_camera_view, no_camera
from webui.capture import CameraFeed
from webui.errors import ApiError
from webui.settle import count_view

camera_api = Blueprint("camera", __name__, url_prefix="/api")


def feed() -> CameraFeed | None:
    result: CameraFeed | None = current_app.extensions.get("cribcam.camera")
    return result


def _jpeg(data: bytes) -> Response:
    return Response(data, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


@camera_api.get("/camera")
def camera() -> Response:
    """The server camera's status and latest smoothed table (`enabled: false` without one)."""
    the_feed = feed()
    return jsonify(no_camera() if the_feed is None else the_feed.snapshot())


@camera_api.get("/camera/frame.jpg")
def camera_frame() -> Response:
    """The server camera's latest frame (at most 640 px), to draw the table's boxes on."""
    the_feed = feed()
    data = None if the_feed is None else the_feed.latest_jpeg()
    if data is None:
        raise ApiError("the server camera has no frame yet", 404)
    return _jpeg(data)


@camera_api.get("/games/<game_id>/camera")
def game_camera(game_id: str) -> Response:
    """The camera's table as this game sees it, with the plays it could apply now."""
    return jsonify(game_camera_view(feed(), store().load(game_id), switch=False))


@camera_api.post("/games/<game_id>/camera")
def watch_game(game_id: str) -> Response:
    """Make the server camera follow this game (its seats, dealer and deal) from now on; with
    `?table=1` (table mode's page) what it sees is applied to the game, else only suggested."""
    table = request.args.get("table") == "1"
    return jsonify(game_camera_view(feed(), store().load(game_id), switch=True, table_mode=table))


@camera_api.get("/games/<game_id>/count")
def settle(game_id: str) -> Response:
    """The "settle it" view: every step of the current count with its points, reason and picture."""
    the_store = store()
    return jsonify(count_view(the_store.load(game_id), the_store.pictures(game_id)))


@camera_api.get("/games/<game_id>/frames/<int:index>")
def action_frame(game_id: str, index: int) -> Response:
    """The frame a card was seen in, kept with action `index` when it was applied."""
    the_store = store()
    the_store.revision(game_id)  # 404 for an unknown game
    data = the_store.picture(game_id, index)
    if data is None:
        raise ApiError(f"action {index} of game {game_id} has no picture", 404)
    return _jpeg(data)
