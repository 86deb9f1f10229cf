"""Table mode's JSON API: what the camera applied by itself and what it asks, and the players'
answers (see API.md, "Table mode")."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from flask import Blueprint, Response, current_app, jsonify

from scorer.errors import GameError
from webui.camera.capture import CameraFeed
from webui.camera.page_tables import PageTables
from webui.camera.table_mode import TableModes
from webui.camera.tablejson import learnt_json
from webui.contract import answers, bodies
from webui.contract.fields import as_cards
from webui.contract.routes import contract
from webui.errors import ApiError, as_api_error
from webui.games.api import held_frames, published, store

table_api = Blueprint("table_api", __name__, url_prefix="/api/games/<game_id>/table")


def modes() -> TableModes:
    the_modes: TableModes = current_app.extensions["cribcam.table_modes"]
    return the_modes


@table_api.get("")
@contract(answers={200: answers.TableStatus}, refusals=(404,))
def status(game_id: str) -> Response:
    """What table mode asks now, and the last step it applied by itself."""
    store().load(game_id)  # 404 for an unknown game
    return jsonify(modes().status(game_id))


@table_api.post("/answer")
@contract(body=bodies.TableAnswer, answers={200: answers.TableAnswerResult},
          refusals=(400, 404, 409))  # fmt: skip
def answer(game_id: str, body: bodies.TableAnswer) -> Response:
    """The open question answered: `{"key": ..., "cards": [...], "claim": n}`."""
    # the claim of a play (0-14) or a show (0-29): the engine checks which
    with _in_table_words(game_id):
        stored = modes().answer(game_id, body.key, as_cards(body.cards), body.claim, held_frames())
    return jsonify({**published(stored), "table_mode": modes().status(game_id)})


@table_api.post("/undo")
@contract(body=bodies.TableUndo, answers={200: answers.TableAnswerResult},
          refusals=(400, 404, 409))  # fmt: skip
def undo(game_id: str, body: bodies.TableUndo) -> Response:
    """Take back what the camera applied (`{"key": ...}`); with `"cards"`, read it so instead."""
    with _in_table_words(game_id):
        stored = modes().undo(game_id, body.key, as_cards(body.cards))
    return jsonify({**published(stored), "table_mode": modes().status(game_id)})


@table_api.post("/dismiss")
@contract(body=bodies.TableDismiss, answers={200: answers.TableStatus}, refusals=(400, 404, 409))
def dismiss(game_id: str, body: bodies.TableDismiss) -> Response:
    """The open question is not a card (`{"key": ...}`): it is not asked again."""
    store().load(game_id)
    return jsonify(modes().dismiss(game_id, body.key))


@table_api.post("/seats")
@contract(body=bodies.SeatFix, answers={200: answers.LearntSeats}, refusals=(400, 404, 409))
def fix_seat(game_id: str, body: bodies.SeatFix) -> Response:
    """A seat's name tapped on the picture: `player` sits where the camera learnt `seat`."""
    stored = store().load(game_id)
    players = stored.game.settings.players
    for seat in (body.seat, body.player):
        if seat >= players:
            raise as_api_error(GameError("not_a_seat", seat=seat, players=players), stored.names)
    tables: PageTables = current_app.extensions["cribcam.page_tables"]
    marks = tables.fix_seat(game_id, body.seat, body.player)
    feed: CameraFeed | None = current_app.extensions.get("cribcam.camera")
    if marks is None and feed is not None:
        marks = feed.fix_seat(game_id, body.seat, body.player)
    if marks is None:
        raise as_api_error(ApiError.coded("seat_not_learnt", 409, seat=body.seat), stored.names)
    return jsonify({"learnt": [learnt_json(m) for m in marks]})


@contextmanager
def _in_table_words(game_id: str) -> Iterator[None]:
    """A refusal names the players and writes cards with suit symbols, as the page does."""
    try:
        yield
    except ApiError as error:
        raise as_api_error(error, store().load(game_id).names) from None
