"""The camera's endpoints: a photo read (`/api/detect`), a frame of the page's camera read into
its game's table (and table mode's steps), the server camera's table and latest frame, and one
game's camera view with its play suggestions."""

from __future__ import annotations

from flask import Blueprint, Response, current_app, jsonify, request

from scorer.game import Game
from tablemode.view import TableView
from vision.frame_json import frame_json
from vision.table.camera_check import check_camera
from webui.camera.camera_view import game_camera_view, no_camera
from webui.camera.capture import CameraFeed
from webui.camera.frames import FrameMemory
from webui.camera.page_tables import PageTables
from webui.camera.photo_reading import page_frame, read_photo, reading
from webui.camera.table_mode import TableModes
from webui.contract import answers, bodies
from webui.contract.routes import contract
from webui.errors import ApiError
from webui.games.api import held_frames, jpeg, store
from webui.guard.images import image_kind

camera_api = Blueprint("camera", __name__, url_prefix="/api")


def feed() -> CameraFeed | None:
    result: CameraFeed | None = current_app.extensions.get("cribcam.camera")
    return result


def uploads() -> FrameMemory:
    result: FrameMemory = current_app.extensions["cribcam.uploads"]
    return result


@camera_api.get("/camera")
@contract(answers={200: answers.CameraView})
def camera() -> Response:
    """The server camera's status and latest smoothed table (`enabled: false` without one)."""
    the_feed = feed()
    return jsonify(no_camera() if the_feed is None else the_feed.snapshot())


@camera_api.get("/camera/frame.jpg")
@contract(answers={200: None}, media="image/jpeg", refusals=(404,))
def camera_frame() -> Response:
    """The server camera's latest frame (at most 640 px), to draw the table's boxes on."""
    the_feed = feed()
    data = None if the_feed is None else the_feed.latest_jpeg()
    if data is None:
        raise ApiError("the server camera has no frame yet", 404)
    return jpeg(data)


@camera_api.get("/games/<game_id>/camera")
@contract(answers={200: answers.CameraView}, refusals=(404,))
def game_camera(game_id: str) -> Response:
    """The camera's table as this game sees it, with the plays it could apply now."""
    return jsonify(game_camera_view(feed(), store().load(game_id), switch=False))


@camera_api.post("/games/<game_id>/camera")
@contract(query=bodies.TableQuery, answers={200: answers.CameraView}, refusals=(400, 404))
def watch_game(game_id: str, query: bodies.TableQuery) -> Response:
    """Make the server camera follow this game (its seats, dealer and deal) from now on; with
    `?table=1` (table mode's page) what it sees is applied to the game, else only suggested."""
    table = query.table == "1"
    return jsonify(game_camera_view(feed(), store().load(game_id), switch=True, table_mode=table))


@camera_api.post("/detect")
@contract(image=True, query=bodies.DetectQuery, answers={200: answers.Reading},
          refusals=(400, 413, 415, 503))  # fmt: skip
def detect(query: bodies.DetectQuery) -> Response:
    """Read the cards of a photo: raw image bytes in, one `cribcam detect --json` object out."""
    data, kind = _image_upload()
    return jsonify(read_photo(data, query.name or f"upload.{kind}"))


@camera_api.post("/games/<game_id>/frame")
@contract(image=True, query=bodies.TableQuery, answers={200: answers.FrameReading},
          refusals=(400, 404, 413, 415, 503))  # fmt: skip
def frame(game_id: str, query: bodies.TableQuery) -> Response:
    """A camera frame (or the demo photo) from the page: the detections to draw, and the id of
    the frame (`"frame"`) for an action applied from it (503 without a model). With `?table=1`
    (table mode's page) what the camera sees is applied to the game (`"table_mode"`), and
    before the first deal the frame is checked (`"table_mode"`'s `"camera_check"`)."""
    stored = store().load(game_id)
    data, _ = _image_upload()
    name = f"{game_id}-frame"
    frame_id = uploads().add_upload(data)
    with reading():
        page = page_frame(data)
        if page is None:
            found = read_photo(data, name)
            return jsonify({"game": game_id, **found, "frame": frame_id})
        tables: PageTables = current_app.extensions["cribcam.page_tables"]
        modes: TableModes = current_app.extensions["cribcam.table_modes"]
        table_mode = query.table == "1"  # table mode's page: apply what the camera sees

        def follow(view: TableView) -> Game:
            modes.follow(game_id, view, held_frames())
            return modes.game(game_id)

        tracked = tables.update(
            game_id, stored.game, page, frame_id, follow if table_mode else None
        )
    found = {**frame_json(name, tracked.seen), "table": tracked.table}
    if table_mode:
        if stored.game.deal_state is None:  # before the first deal: can this camera read it?
            verdict = check_camera(page.image, tracked.seen, stored.game.settings.players)
            modes.check_camera(game_id, verdict)
        found["table_mode"] = modes.status(game_id)
    return jsonify({"game": game_id, **found, "frame": frame_id})


def _image_upload() -> tuple[bytes, str]:
    """The uploaded image's bytes and its kind (jpeg, png, webp)."""
    mimetype = request.mimetype
    if not mimetype.startswith("image/"):
        raise ApiError(f"send the image bytes with Content-Type image/jpeg or image/png, "
                       f"not {mimetype or 'none'!r}", 415)  # fmt: skip
    data = request.get_data(cache=False)
    return data, image_kind(data)
