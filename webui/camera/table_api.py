"""Table mode's JSON API: what the camera applied by itself and what it asks, and the players'
answers (see API.md, "Table mode")."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from flask import Blueprint, Response, current_app, jsonify

from scorer.cards import Card
from webui.camera.table_mode import TableModes
from webui.errors import ApiError, as_api_error
from webui.games.api import held_frames, published, store
from webui.games.fields import cards
from webui.guard.bodies import check_fields, integer, json_object
from webui.guard.limits import BOUNDS

table_api = Blueprint("table_api", __name__, url_prefix="/api/games/<game_id>/table")


def modes() -> TableModes:
    the_modes: TableModes = current_app.extensions["cribcam.table_modes"]
    return the_modes


def _body(fields: set[str], what: str) -> tuple[str, list[Card] | None, dict[str, Any]]:
    body = json_object()
    check_fields(body, fields, what)
    key = body.get("key")
    if not isinstance(key, str) or not key:
        raise ApiError(f"'key' must name the proposal (its \"key\"), not {key!r}")
    chosen = None if body.get("cards") is None else cards(body["cards"], "cards")
    return key, chosen, body


@table_api.get("")
def status(game_id: str) -> Response:
    store().load(game_id)  # 404 for an unknown game
    return jsonify(modes().status(game_id))


@table_api.post("/answer")
def answer(game_id: str) -> Response:
    """`{"key": ..., "cards": [...], "claim": n}`: the open question answered."""
    key, chosen, body = _body({"key", "cards", "claim"}, "an answer")
    # the claim of a play (0-14) or a show (0-29): the engine checks which
    claim = integer(body, "claim", required=False, low=0, high=BOUNDS.show_points)
    with _in_table_words(game_id):
        stored = modes().answer(game_id, key, chosen, claim, held_frames())
    return jsonify({**published(stored), "table_mode": modes().status(game_id)})


@table_api.post("/undo")
def undo(game_id: str) -> Response:
    """`{"key": ...}` takes back what the camera applied; with `"cards"`, reads it so instead."""
    key, chosen, _ = _body({"key", "cards"}, "an undo")
    with _in_table_words(game_id):
        stored = modes().undo(game_id, key, chosen)
    return jsonify({**published(stored), "table_mode": modes().status(game_id)})


@table_api.post("/dismiss")
def dismiss(game_id: str) -> Response:
    """`{"key": ...}`: the open question is not a card; it is not asked again."""
    key, _, _ = _body({"key"}, "a dismissal")
    store().load(game_id)
    return jsonify(modes().dismiss(game_id, key))


@contextmanager
def _in_table_words(game_id: str) -> Iterator[None]:
    """A refusal names the players and writes cards with suit symbols, as the page does."""
    try:
        yield
    except ApiError as error:
        raise as_api_error(error, store().load(game_id).names) from None
