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
from scorer.cards import parse_cards
from scorer.errors import CribbageError
from scorer.json_api import score_request
from scorer.settings import Settings, Variant
from webui.contract import answers, bodies
from webui.contract.routes import contract
from webui.errors import ApiError, GameNotFoundError, as_api_error
from webui.games.actions import action_of
from webui.games.live import Broker, CameraEvents, GameCamera, event_stream
from webui.games.settle import count_view
from webui.games.store import GameStore, Pictures, StoredGame
from webui.games.view_cache import ViewCache
from webui.games.views import game_view
from webui.guard.bodies import event_id
from webui.languages.i18n import with_spoken

api = Blueprint("api", __name__, url_prefix="/api")


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
@contract(body=bodies.ScoreRequest, answers={200: answers.ScoreAnswer}, refusals=(400,))
def score(body: bodies.ScoreRequest) -> Response:
    """Score a hand or crib: exactly `cribcam score --jsonl` for one line."""
    return jsonify(score_request(body.given()))


@api.post("/games")
@contract(body=bodies.NewGame, answers={201: answers.Created}, refusals=(400,))
def create_game(body: bodies.NewGame) -> tuple[Response, int]:
    """Start a game: its rules, and optionally its players' names and first dealer."""
    settings = body.settings()
    first_dealer = body.first_dealer
    if first_dealer is not None and not 0 <= first_dealer < settings.players:
        raise ApiError(f"'first_dealer' must be a seat 0..{settings.players - 1}: {first_dealer}")
    given = body.names or [f"Seat {seat + 1}" for seat in range(settings.players)]
    return jsonify(id=store().create(settings, given, first_dealer)), 201


@api.get("/games/<game_id>")
@contract(answers={200: answers.GameState}, refusals=(404,))
def get_game(game_id: str) -> Response:
    """A game's whole state."""
    return jsonify(with_spoken(views().view(store(), game_id)))


# -- games ----------------------------------------------------------------------------------
@api.get("/games")
@contract(answers={200: answers.GameList})
def list_games() -> Response:
    """Every stored game, newest first."""
    return jsonify(games=store().summaries())


@api.delete("/games/<game_id>")
@contract(answers={200: answers.Deleted}, refusals=(404,))
def delete_game(game_id: str) -> Response:
    """Delete a game and everything kept with it."""
    store().delete(game_id)
    return jsonify(deleted=game_id)


@api.get("/games/<game_id>/saved")
@contract(answers={200: answers.SavedGame}, refusals=(404,))
def saved_game(game_id: str) -> Response:
    """The game as `Game.to_json()`: settings, first dealer and the action log."""
    return jsonify(store().load(game_id).game.to_json())


@api.post("/games/<game_id>/actions")
@contract(body=bodies.Action, answers={200: answers.GameState}, refusals=(400, 404, 409))
def act(game_id: str, body: bodies.Action) -> Response:
    """Apply an action; `"frame"` (an id from a detection or a camera suggestion) keeps a
    thumbnail of that frame with the action."""
    picture = _frame_picture(body.root.frame)
    apply = action_of(body.root)
    try:
        result, stored = store().act(game_id, apply, picture)
    except GameNotFoundError:
        raise
    except (ApiError, CribbageError) as error:
        raise as_api_error(error, store().load(game_id).names) from None
    return jsonify({**published(stored), **(result or {})})


def _frame_picture(frame_id: str | None) -> bytes | None:
    """The picture of an action's `frame`, or a 400."""
    if frame_id is None:
        return None
    picture = held_frames()(frame_id)
    if picture is None:
        raise ApiError(f"frame {frame_id!r} is unknown or no longer held: apply it without 'frame'")
    return picture


@api.post("/games/<game_id>/undo")
@contract(answers={200: answers.GameState}, refusals=(404, 409))
def undo(game_id: str) -> Response:
    """Take back the last action (a finished game's, only while its match has not moved on)."""
    stored = store().load(game_id)
    if stored.game.outcome is not None:
        later = view(stored)["match"]["games"][-1]
        if later != game_id:
            raise ApiError.coded("match_continues", 409, text=later)
    undone, stored = store().act(game_id, lambda game: game.undo())
    return jsonify({**published(stored), "undone": undone.to_json()})


@api.put("/games/<game_id>/settings")
@contract(body=bodies.SettingsBody, answers={200: answers.GameState}, refusals=(400, 404, 409))
def replace_settings(game_id: str, body: bodies.SettingsBody) -> Response:
    """Change a game's rules before it is finished (not its number of players)."""
    settings = body.settings()
    stored = store().load(game_id)
    if settings.players != stored.game.settings.players:
        raise ApiError.coded("players_fixed", 409)
    return jsonify(published(store().replace_settings(game_id, settings)))


def _players(game_id: str) -> dict[str, Any]:
    return {"players": store().load(game_id).game.settings.players}


@api.put("/games/<game_id>/names")
@contract(body=bodies.SeatNames, root="names", context=_players,
          answers={200: answers.GameState}, refusals=(400, 404, 409))  # fmt: skip
def rename(game_id: str, body: bodies.SeatNames) -> Response:
    """The players' names, one per seat (a finished game's are final)."""
    return jsonify(published(store().rename(game_id, body.root)))


@api.post("/games/<game_id>/next")
@contract(answers={201: answers.Created}, refusals=(404, 409))
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
@contract(answers={200: None}, media="text/event-stream", refusals=(400, 404, 503))
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
@contract(answers={200: answers.CountView}, refusals=(404,))
def settle(game_id: str) -> Response:
    """The "settle it" view: every step of the current count with its points, reason and picture."""
    the_store = store()
    return jsonify(count_view(the_store.load(game_id), the_store.pictures(game_id)))


@api.get("/games/<game_id>/frames/<int:index>")
@contract(answers={200: None}, media="image/jpeg", refusals=(404,))
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
@contract(body=bodies.AdviceRequest, answers={200: answers.AdviceAnswer}, refusals=(400,))
def advise_discard(body: bodies.AdviceRequest) -> Response:
    """Discard advice for a dealt hand: ``{"hand": [...], "role": "dealer", "players": 2}``."""
    settings = Settings(players=body.players, variant=Variant(body.variant))
    return jsonify(advise(parse_cards(body.hand), role=Role(body.role),
                          settings=settings).to_json())  # fmt: skip
