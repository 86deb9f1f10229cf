"""The app factory: configuration, the games store, blueprints and JSON error handling."""

from __future__ import annotations

import datetime
import functools
from collections.abc import Callable, Mapping
from importlib.metadata import version
from pathlib import Path
from typing import Any

from flask import Flask, Response, jsonify

from scorer.game import Game
from tablemode.tracker import DEFAULT_TRACKER
from vision.photo_reader import PhotoReader
from vision.reading import CardReader
from webui.camera.api import camera_api
from webui.camera.camera_view import camera_events
from webui.camera.capture import CameraFeed, ReaderFactory, TableHook
from webui.camera.frames import FrameMemory, held_picture
from webui.camera.page_tables import PageTables
from webui.camera.reader_health import ReaderHealth
from webui.camera.table_api import table_api
from webui.camera.table_mode import TableModes, table_hook
from webui.contract.openapi import openapi
from webui.decks.api import install as install_decks
from webui.decks.state import stop_tune
from webui.errors import register_error_handlers
from webui.games.api import api
from webui.games.live import CAMERA_KEY, Broker
from webui.games.store import GameStore
from webui.games.view_cache import ViewCache
from webui.guard import limits, paired, pairing, security
from webui.guard.limits import LIMITS, BoundedInt
from webui.languages import i18n
from webui.pages import pages
from webui.paths import default_db
from webui.records.api import records_api
from webui.records.pages import records_pages

DEFAULTS: dict[str, Any] = {
    "DATABASE": None,  # path of the SQLite file; None: the user's data directory
    "PHOTO_READER": None,  # an object with detect(image, name); None: detection answers 503
    "CAMERA": False,  # show the camera panel on the page
    "CAMERA_SOURCE": None,  # --camera SOURCE: the server reads this camera (camera/capture.py)
    "FRAME_READER": None,  # () -> the camera's reader, asked every frame; None: the detector's
    "CAMERA_OPENER": None,  # spec -> FrameSource; None: vision.table.sources.open_source
    "CAMERA_INTERVAL": 0.1,  # the least seconds between two frames the server camera reads
    # how the cameras' frames become a table (tablemode.tracker): the table's own plane, etc.
    "TABLE_TRACKING": DEFAULT_TRACKER,
    "PAIRING_CODE": None,  # set (by --lan): other devices must pair first
    "TRUST_LOOPBACK": True,  # this machine needs no pairing (False: it pairs too, for tests)
    "ALLOWED_HOSTS": None,  # host names served; None: loopback's (and with --lan this machine's)
    "LIMITS": LIMITS,  # what a client, a request and a body may take (webui.guard.limits)
    "DECKS_DIR": None,  # deck profiles (decks/state.py); None: <models>/decks or the data dir
    "DECK_TUNER": None,  # a decks.tuning.DeckTuner; None: cribtrain.fit.tune (the train extra)
    "DECK_TUNE_SECONDS": 180.0,  # the deck tune's budget
    "ENROLL_READER": None,  # () -> a decks.sessions.EnrollReader; None: the detector's
    "MAX_CONTENT_LENGTH": LIMITS.body_bytes,  # a phone JPEG is well under this
    "SSE_MAX_SECONDS": 300.0,  # a live stream ends and the browser reconnects
    "JSON_SORT_KEYS": False,
    "SESSION_COOKIE_SAMESITE": "Strict",
    "PERMANENT_SESSION_LIFETIME": datetime.timedelta(days=365),
    "TRANSLATIONS": None,  # the folder of <code>.po catalogs; None: webui/translations
}


def create_app(config: Mapping[str, Any] | None = None) -> Flask:
    """Build the web companion. `config` overrides `DEFAULTS` (and any Flask setting)."""
    app = Flask(__name__)
    app.config.update(DEFAULTS)
    app.config.update(config or {})
    if "MAX_CONTENT_LENGTH" not in (config or {}):  # one limit: the server's
        app.config["MAX_CONTENT_LENGTH"] = app.config["LIMITS"].body_bytes
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.url_map.converters["int"] = BoundedInt  # before any route takes a number
    the_store = GameStore(app.config["DATABASE"] or default_db())
    app.extensions["cribcam.store"] = the_store
    the_broker = app.extensions["cribcam.broker"] = Broker()
    # a play seen on a frame held while the table's plane settles still has its picture
    uploads = app.extensions["cribcam.uploads"] = FrameMemory(
        keep=2 * app.config["TABLE_TRACKING"].hold
    )
    app.extensions["cribcam.views"] = ViewCache()
    app.extensions["cribcam.page_tables"] = PageTables(config=app.config["TABLE_TRACKING"])
    the_modes = app.extensions["cribcam.table_modes"] = TableModes(the_store, the_broker)
    app.extensions["cribcam.reader_health"] = ReaderHealth(app.config["PHOTO_READER"])
    install_decks(app)  # before the server camera loads its reader: it reads with the deck in use
    feed = app.extensions["cribcam.camera"] = _camera(
        app.config, the_broker, table_hook(the_modes), lambda game_id: the_store.load(game_id).game
    )
    # what the games take of the camera without importing it: the picture of a frame id the
    # page's uploads or the server camera still hold, and the camera's events in a live stream
    memories = [uploads] + ([feed.memory] if feed is not None else [])
    app.extensions["cribcam.pictures"] = held_picture(*memories)
    app.extensions["cribcam.camera_events"] = camera_events(feed, the_store)
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = the_store.secret("cookie-key")  # pairings survive restarts
    if app.config["PAIRING_CODE"] is not None:
        app.config["SESSION_COOKIE_SECURE"] = True  # --lan serves HTTPS only
    security.install(app)  # first: a request from another host or site goes no further
    # the catalogs: pages, errors and spoken counts in each device's language
    i18n.install(app, Path(app.config["TRANSLATIONS"] or i18n.TRANSLATIONS))
    pairing.install(app)
    limits.install(app)
    paired.install(app)
    register_error_handlers(app)
    app.register_blueprint(api)
    app.register_blueprint(camera_api)
    app.register_blueprint(table_api)
    app.register_blueprint(pages)
    app.register_blueprint(openapi)
    app.register_blueprint(records_api)
    app.register_blueprint(records_pages)

    @app.get("/healthz")
    def healthz() -> Response:
        """Whether the server is up, and whether its card reader reads."""
        reader = app.extensions["cribcam.reader_health"].as_json()
        return jsonify(ok=True, version=version("cribcam"),
                       detector=reader["state"] in ("reads", "unchecked"), reader=reader,
                       camera=app.extensions["cribcam.camera"] is not None)  # fmt: skip

    return app


def _camera(
    config: Mapping[str, Any], broker: Broker, on_table: TableHook, load_game: Callable[[str], Game]
) -> CameraFeed | None:
    """Start the server camera when a source was given; its changes wake the live streams."""
    spec = config["CAMERA_SOURCE"]
    if spec is None:
        return None
    options: dict[str, Any] = {"interval": float(config["CAMERA_INTERVAL"]),
                               "tracking": config["TABLE_TRACKING"]}  # fmt: skip
    if config["CAMERA_OPENER"] is not None:
        options["opener"] = config["CAMERA_OPENER"]
    feed = CameraFeed(
        str(spec),
        config["FRAME_READER"] or _shared_reader(config),
        on_change=lambda revision: broker.publish(CAMERA_KEY, revision),
        on_table=on_table,
        load_game=load_game,
        **options,
    )
    feed.start()
    return feed


def _shared_reader(config: Mapping[str, Any]) -> ReaderFactory:
    """The photo endpoint's reader when there is one: the models load only once, and the camera
    reads with the deck in use (`PhotoReader.use_reader`) from its next frame on. Otherwise a
    base reader of the camera's own, loaded once (the camera asks for it every frame)."""
    detector = config.get("PHOTO_READER")
    if isinstance(detector, PhotoReader):
        return detector.card_reader
    return functools.cache(CardReader)


#: How long stopping waits for the reader's self-check to end (a bound against a hang).
SELF_CHECK_WAIT_SECONDS = 30.0


def shutdown(app: Flask) -> None:
    """Stop the server camera's thread (and release the device), cancel a deck tune, and let the
    reader's self-check end: a process leaving while it reads aborts in the engine's threads."""
    stop_tune(app)
    feed: CameraFeed | None = app.extensions.get("cribcam.camera")
    if feed is not None:
        feed.stop()
    health: ReaderHealth | None = app.extensions.get("cribcam.reader_health")
    if health is not None:
        health.done.wait(SELF_CHECK_WAIT_SECONDS)
