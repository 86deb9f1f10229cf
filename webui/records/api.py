"""The records' JSON API: players, a player's record, head to head, and games to take away
(export and import). Records are added up from the finished games' stored summaries, never by
replaying the games. See API.md."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, jsonify, request

from webui.errors import ApiError
from webui.games.api import store
from webui.guard.bodies import json_body
from webui.records.figures import fold, head_to_head, player_record, players
from webui.records.store import finished
from webui.records.transfer import chosen, csv_text, imported

records_api = Blueprint("records_api", __name__, url_prefix="/api")


def record_of(name: str) -> dict[str, Any]:
    """A player's record, or 404 when that name finished no game."""
    found = player_record(finished(), fold(name))
    if found is None:
        raise ApiError.coded("no_player", 404, name=name)
    return found


@records_api.get("/players")
def list_players() -> Response:
    return jsonify(players=players(finished()))


@records_api.get("/players/<name>")
def get_player(name: str) -> Response:
    return jsonify(record_of(name))


@records_api.get("/players/<name>/against/<other>")
def against(name: str, other: str) -> Response:
    if fold(name) == fold(other):
        raise ApiError(f"{name!r} and {other!r} are the same player")
    found = head_to_head(finished(), fold(name), fold(other))
    if found is None:
        raise ApiError.coded("never_met", 404, name=name, text=other)
    return jsonify(found)


@records_api.get("/export")
def export() -> Response:
    """Every game (or a player's, or one), as JSON (`format=json`, the default) or CSV."""
    unknown = set(request.args) - {"format", "player", "game"}
    if unknown:
        raise ApiError(f"unknown query argument(s): {', '.join(sorted(unknown))}")
    kind = request.args.get("format", "json")
    if kind not in ("json", "csv"):
        raise ApiError(f"'format' is json or csv, not {kind!r}")
    game = request.args.get("game")
    games = chosen(store().logs(), request.args.get("player"), game)
    if game is not None and not games:
        raise ApiError.coded("no_game", 404, text=repr(game))
    if kind == "csv":
        headers = {"Content-Disposition": 'attachment; filename="cribcam-games.csv"'}
        return Response(csv_text(games), mimetype="text/csv", headers=headers)
    answer = jsonify(games)
    answer.headers["Content-Disposition"] = 'attachment; filename="cribcam-games.json"'
    return answer


@records_api.post("/import")
def import_games() -> Response:
    """Games from an export, merged by id: all are taken in or none (see `GameStore.merge`)."""
    return jsonify(store().merge(imported(json_body("games"))))
