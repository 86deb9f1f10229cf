"""The app factory: configuration, the games store, blueprints and JSON error handling."""

from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any

from flask import Flask, Response, jsonify

from cribcam import __version__
from webui import pairing
from webui.api import api
from webui.errors import register_error_handlers
from webui.live import Broker
from webui.pages import pages
from webui.paths import default_db
from webui.store import GameStore

DEFAULTS: dict[str, Any] = {
    "DATABASE": None,  # path of the SQLite file; None: the user's data directory
    "DETECTOR": None,  # an object with detect(image, name); None: detection answers 503
    "CAMERA": False,  # show the camera panel on the page
    "PAIRING_CODE": None,  # set (by --lan): other devices must pair first
    "MAX_CONTENT_LENGTH": 8 * 1024 * 1024,  # a phone JPEG is well under this
    "SSE_MAX_SECONDS": 300.0,  # a live stream ends and the browser reconnects
    "JSON_SORT_KEYS": False,
    "SESSION_COOKIE_SAMESITE": "Strict",
    "PERMANENT_SESSION_LIFETIME": datetime.timedelta(days=365),
}


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """Build the web companion. `config` overrides `DEFAULTS` (and any Flask setting)."""
    app = Flask(__name__)
    app.config.update(DEFAULTS)
    app.config.update(config or {})
    app.json.sort_keys = False  # type: ignore[attr-defined]
    the_store = GameStore(app.config["DATABASE"] or default_db())
    app.extensions["cribcam.store"] = the_store
    app.extensions["cribcam.broker"] = Broker()
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = the_store.secret("cookie-key")  # pairings survive restarts
    if app.config["PAIRING_CODE"] is not None:
        app.config["SESSION_COOKIE_SECURE"] = True  # --lan serves HTTPS only
    pairing.install(app)
    register_error_handlers(app)
    app.register_blueprint(api)
    app.register_blueprint(pages)

    @app.get("/healthz")
    def healthz() -> Response:
        return jsonify(ok=True, version=__version__,
                       detector=app.config["DETECTOR"] is not None)  # fmt: skip

    return app
