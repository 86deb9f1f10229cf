"""The HTML pages: the game list, one game's table, and pairing. The page scripts do the rest
through the JSON API."""

from __future__ import annotations

import math
from datetime import UTC, datetime
from typing import Any

from flask import Blueprint, current_app, redirect, render_template, request, session, url_for
from werkzeug.wrappers import Response

from webui.games.api import store
from webui.guard.devices import browser_name
from webui.guard.pairing import PairingLocked, check_code, devices
from webui.languages.i18n import t
from webui.records.figures import players
from webui.records.store import finished
from webui.redirects import same_site_path

pages = Blueprint("pages", __name__)


def home_list() -> list[dict[str, Any]]:
    """The home page's games, most recently played first: players, score, whether finished
    (and who won), and when last played (ISO time; the page shows it in local time). Scores
    come from each game's stored summary: no game is replayed."""
    games, games_store = [], store()
    board = games_store.scoreboard()
    for summary in games_store.summaries():
        names = summary["names"]
        sides = (
            [f"{names[0]} & {names[2]}", f"{names[1]} & {names[3]}"] if len(names) == 4 else names
        )
        scores, winner = board.get(summary["id"], ([0] * len(sides), None))
        games.append({
            **summary,
            "sides": sides,
            "scores": scores,
            "winner": None if winner is None else sides[winner],
            "played": datetime.fromtimestamp(summary["updated"], UTC).isoformat(timespec="seconds"),
        })  # fmt: skip
    return games


#: The home page lists this many games, most recently played first, unless asked for all: a
#: club's thousand games would make the page slow to draw, and long to scroll on a phone.
HOME_GAMES = 30


@pages.get("/")
def index() -> str:
    games = home_list()
    shown = games if request.args.get("all") == "1" else games[:HOME_GAMES]
    return render_template("index.html", games=shown, all_games=len(games),
                           players=players(finished()))  # fmt: skip


@pages.get("/games/<game_id>")
def game(game_id: str) -> str:
    stored = store().load(game_id)
    return render_template(
        "game.html",
        game_id=stored.id,
        camera=bool(current_app.config.get("CAMERA")),
        server_camera=current_app.extensions.get("cribcam.camera") is not None,
    )


@pages.get("/games/<game_id>/table")
def table(game_id: str) -> str:
    """Table mode: the camera follows the deal; the players only confirm."""
    stored = store().load(game_id)
    server_camera = current_app.extensions.get("cribcam.camera") is not None
    return render_template("table.html", game_id=stored.id, server_camera=server_camera)


@pages.route("/pair", methods=["GET", "POST"])
def pair() -> str | Response | tuple[str, int, dict[str, str]]:
    error = None
    target = same_site_path(request.values.get("next"), url_for("pages.index"))
    if request.method == "POST":
        try:
            right = check_code(request.form.get("code", ""))
        except PairingLocked as locked:
            wait = t(
                "Too many wrong codes from this device: try again in {seconds} s.",
                seconds=math.ceil(locked.seconds),
            )
            page = render_template("pair.html", error=wait, next=target)
            return page, 429, {"Retry-After": str(math.ceil(locked.seconds))}
        if right:
            _, token = devices().add(browser_name(request.user_agent.string),
                                     request.remote_addr or "")  # fmt: skip
            session["device"] = token
            session.permanent = True
            return redirect(target)
        error = t("That is not the code. Look at the terminal running cribcam serve.")
    return render_template("pair.html", error=error, next=target)
