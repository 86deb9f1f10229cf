"""The games' JSON API: games and their actions, live streams, the "settle it" count and the
pictures kept with actions, and the engine's stable endpoints other tools call (score, advice).

Each write goes through `GameStore.act` (one transaction, committed before the answer) and
then wakes the game's live streams. A frame's picture and the server camera's live events come
from the camera through the app (`held_frames`, `camera_events`): the games import no camera.
See API.md.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request, stream_with_context

from scorer.advice import Role, advise
from scorer.errors import CribbageError
from scorer.json_api import score_request
from scorer.settings import Settings
from webui.errors import ApiError, GameNotFoundError, as_api_error
from webui.games.actions import parse_action
from webui.games.fields import cards, names
from webui.games.live import Broker, CameraEvents, GameCamera, event_stream
from webui.games.settle import count_view
from webui.games.store import GameStore, Pictures, StoredGame
from webui.games.view_cache import ViewCache
from webui.games.views import game_view
from webui.guard.bodies import check_fields, choice, event_id, integer, json_body, json_object
from webui.languages.i18n import with_spoken

api = Blueprint("api", __name__, url_prefix="/api")

_GAME_FIELDS = {"names", "first_dealer"}  # accepted beside the settings when creating a game


def store() -> GameStore:
    result: GameStore = current_app.extensions["cribcam.store"]
    return result


def broker() -> Broker:
    result: Broker = current_app.extensions["cribcam.broker"]
    return result


def views() -> ViewCache:
    result: ViewCache = current_app.extensions["cribcam.views"]
    return result


def held_frames() -> Pictures:
    """The picture of a frame id that the page's uploads or the server camera still hold."""
    result: Pictures = current_app.extensions["cribcam.pictures"]
    return result


def camera_events(game_id: str) -> CameraEvents | None:
    """What the server camera adds to a game's live stream (None without one)."""
    found: GameCamera = current_app.extensions["cribcam.camera_events"]
    return found(game_id)


def view(stored: StoredGame) -> dict[str, Any]:
    return game_view(stored, store().match_games(stored.match_id))


def published(stored: StoredGame) -> dict[str, Any]:
    result = views().published(store(), stored)  # computed once, for this answer and every page
    broker().publish(stored.id, stored.revision)
    return with_spoken(result)


# -- stable endpoints -----------------------------------------------------------------------
@api.post("/score")
def score() -> Response:
    """Exactly `cribcam score --jsonl` for one line."""
    return jsonify(score_request(json_body()))


@api.post("/games")
def create_game() -> tuple[Response, int]:
    body = json_object()
    settings = Settings.from_json({k: v for k, v in body.items() if k not in _GAME_FIELDS})
    first_dealer = integer(body, "first_dealer", required=False)
    if first_dealer is not None and not 0 <= first_dealer < settings.players:
        raise ApiError(f"'first_dealer' must be a seat 0..{settings.players - 1}: {first_dealer}")
    game_id = store().create(settings, names(body.get("names"), settings.players), first_dealer)
    return jsonify(id=game_id), 201


@api.get("/games/<game_id>")
def get_game(game_id: str) -> Response:
    return jsonify(with_spoken(views().view(store(), game_id)))


# -- games ----------------------------------------------------------------------------------
@api.get("/games")
def list_games() -> Response:
    return jsonify(games=store().summaries())


@api.delete("/games/<game_id>")
def delete_game(game_id: str) -> Response:
    store().delete(game_id)
    return jsonify(deleted=game_id)


@api.get("/games/<game_id>/saved")
def saved_game(game_id: str) -> Response:
    """The game as `Game.to_json()`: settings, first dealer and the action log."""
    return jsonify(store().load(game_id).game.to_json())


@api.post("/games/<game_id>/actions")
def act(game_id: str) -> Response:
    """Apply an action; `"frame"` (an id from a detection or a camera suggestion) keeps a
    thumbnail of that frame with the action."""
    body, picture = _frame_picture(json_body())
    apply = parse_action(body)
    try:
        result, stored = store().act(game_id, apply, picture)
    except GameNotFoundError:
        raise
    except (ApiError, CribbageError) as error:
        raise as_api_error(error, store().load(game_id).names) from None
    return jsonify({**published(stored), **(result or {})})


def _frame_picture(body: Any) -> tuple[Any, bytes | None]:
    """Take the optional `frame` field out of an action body; its picture, or a 400."""
    if not isinstance(body, dict) or "frame" not in body:
        return body, None
    body = dict(body)
    frame_id = body.pop("frame")
    if not isinstance(frame_id, str) or not frame_id:
        raise ApiError(f"'frame' must be a frame id from a detection, not {frame_id!r}")
    picture = held_frames()(frame_id)
    if picture is None:
        raise ApiError(f"frame {frame_id!r} is unknown or no longer held: apply it without 'frame'")
    return body, picture


@api.post("/games/<game_id>/undo")
def undo(game_id: str) -> Response:
    undone, stored = store().act(game_id, lambda game: game.undo())
    return jsonify({**published(stored), "undone": undone.to_json()})


@api.put("/games/<game_id>/settings")
def replace_settings(game_id: str) -> Response:
    settings = Settings.from_json(json_object())
    stored = store().load(game_id)
    if settings.players != stored.game.settings.players:
        raise ApiError.coded("players_fixed", 409)
    return jsonify(published(store().replace_settings(game_id, settings)))


@api.put("/games/<game_id>/names")
def rename(game_id: str) -> Response:
    stored = store().load(game_id)
    given = names(json_body("names"), stored.game.settings.players, required=True)
    return jsonify(published(store().rename(game_id, given)))


@api.post("/games/<game_id>/next")
def next_game(game_id: str) -> tuple[Response, int]:
    """The next game of the match: same rules and names; the loser deals first."""
    stored = store().load(game_id)
    if stored.game.outcome is None:
        raise ApiError.coded("game_not_over", 409)
    match = view(stored)["match"]
    if match["over"]:
        raise ApiError.coded("match_over", 409)
    if match["games"][-1] != game_id:
        raise ApiError.coded("match_continues", 409, text=match["games"][-1])
    new_id = store().create(stored.game.settings, stored.names, match["next_first_dealer"],
                            match_id=stored.match_id)  # fmt: skip
    return jsonify(id=new_id), 201


@api.get("/games/<game_id>/events")
def events(game_id: str) -> Response:
    """Server-sent events: a `state` event now and after every change to the game."""
    the_store, the_broker, the_views = store(), broker(), views()
    the_store.revision(game_id)  # 404 before the stream starts
    last = request.headers.get("Last-Event-ID")
    camera = camera_events(game_id)
    stream = event_stream(
        lambda: the_store.revision(game_id),
        lambda: with_spoken(the_views.view(the_store, game_id)),  # in this page's language
        the_broker,
        game_id,
        float(current_app.config["SSE_MAX_SECONDS"]),
        event_id(last),
        camera,
    )  # fmt: skip
    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}
    return Response(stream_with_context(stream), mimetype="text/event-stream", headers=headers)


# -- the current count, and the pictures kept with actions ----------------------------------
@api.get("/games/<game_id>/count")
def settle(game_id: str) -> Response:
    """The "settle it" view: every step of the current count with its points, reason and picture."""
    the_store = store()
    return jsonify(count_view(the_store.load(game_id), the_store.pictures(game_id)))


@api.get("/games/<game_id>/frames/<int:index>")
def action_frame(game_id: str, index: int) -> Response:
    """The frame a card was seen in, kept with action `index` when it was applied."""
    the_store = store()
    the_store.revision(game_id)  # 404 for an unknown game
    data = the_store.picture(game_id, index)
    if data is None:
        raise ApiError(f"action {index} of game {game_id} has no picture", 404)
    return jpeg(data)


def jpeg(data: bytes) -> Response:
    return Response(data, mimetype="image/jpeg", headers={"Cache-Control": "no-store"})


# -- helpers for the page -------------------------------------------------------------------
@api.post("/advise")
def advise_discard() -> Response:
    """Discard advice for a dealt hand: ``{"hand": [...], "role": "dealer", "players": 2}``."""
    body = json_object()
    check_fields(body, {"hand", "role", "players", "variant"}, "advice")
    role = choice(body, "role", (r.value for r in Role), "dealer")
    settings = Settings.from_json({k: body[k] for k in ("players", "variant") if k in body})
    return jsonify(advise(cards(body.get("hand"), "hand"), role=Role(role),
                          settings=settings).to_json())  # fmt: skip
