"""The records' JSON API: players, a player's record, head to head, and games to take away
(export and import). Records are added up from the finished games' stored summaries, never by
replaying the games. See API.md."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, jsonify

from webui.contract import answers, bodies
from webui.contract.routes import contract
from webui.errors import ApiError
from webui.games.api import store
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
@contract(answers={200: answers.Players})
def list_players() -> Response:
    """Every player who finished a game, most games first."""
    return jsonify(players=players(finished()))


@records_api.get("/players/<name>")
@contract(answers={200: answers.PlayerRecord}, refusals=(404,))
def get_player(name: str) -> Response:
    """A player's record over all their finished games."""
    return jsonify(record_of(name))


@records_api.get("/players/<name>/against/<other>")
@contract(answers={200: answers.HeadToHead}, refusals=(400, 404))
def against(name: str, other: str) -> Response:
    """Two players' games against each other: wins each, average margin, skunks."""
    if fold(name) == fold(other):
        raise ApiError(f"{name!r} and {other!r} are the same player")
    found = head_to_head(finished(), fold(name), fold(other))
    if found is None:
        raise ApiError.coded("never_met", 404, name=name, text=other)
    return jsonify(found)


@records_api.get("/export")
@contract(query=bodies.ExportQuery, answers={200: answers.Exported},
          media=("application/json", "text/csv"), refusals=(400, 404))  # fmt: skip
def export(query: bodies.ExportQuery) -> Response:
    """Every game (or a player's, or one), as JSON (`format=json`, the default) or CSV."""
    game = query.game
    games = chosen(store().logs(), query.player, game)
    if game is not None and not games:
        raise ApiError.coded("no_game", 404, text=repr(game))
    if query.format == "csv":
        headers = {"Content-Disposition": 'attachment; filename="cribcam-games.csv"'}
        return Response(csv_text(games), mimetype="text/csv", headers=headers)
    answer = jsonify(games)
    answer.headers["Content-Disposition"] = 'attachment; filename="cribcam-games.json"'
    return answer


@records_api.post("/import")
@contract(body=bodies.GamesImport, root="games", large_body=True, answers={200: answers.Imported},
          refusals=(400, 409))  # fmt: skip
def import_games(body: bodies.GamesImport) -> Response:
    """Games from an export, merged by id: all are taken in or none (see `GameStore.merge`)."""
    return jsonify(store().merge(imported(body.root)))
