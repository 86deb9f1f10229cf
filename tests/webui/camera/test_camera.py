"""The server camera: a capture thread on fake frames and a fake card reader, seen through the
API; play events become suggestions only for the seat whose turn it is."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from scorer.game import Game
from scorer.settings import Settings
from tablemode.tracker import TrackerConfig
from tests.webui.conftest import HANDS, Act, play_to_pegging
from tests.webui.fakes import HAND_BOTTOM, PLAY_BOTTOM, PLAY_TOP, Frames, Reader
from vision.detection.models import ModelMissingError
from vision.errors import SourceOpenError
from vision.table.cards import FrameCards
from vision.table.sources import Backoff, FrameSource, SourceState
from webui import create_app
from webui.app import shutdown
from webui.camera.camera_view import suggestions
from webui.camera.capture import CameraFeed


class Recorder:
    """An opener that keeps every source it makes (`count` frames each, or live) in `made`."""

    def __init__(self, count: int | None = None) -> None:
        self.count = count
        self.made: list[Frames] = []
        self._changed = threading.Condition()

    def __call__(self, spec: str) -> FrameSource:
        with self._changed:
            self.made.append(Frames(self.count))
            self._changed.notify_all()
            return self.made[-1]

    def wait_made(self, number: int, seconds: float = 10.0) -> None:
        """Wait until `number` sources were made (`seconds` only bounds a hang)."""
        with self._changed:
            made = self._changed.wait_for(lambda: len(self.made) >= number, seconds)
        assert made, f"{len(self.made)} sources made, not {number}"


class CountingReader(Reader):
    """The fake reader; a test waits on the frames it read (`calls`)."""

    def __init__(self) -> None:
        super().__init__()
        self._changed = threading.Condition()

    def cards(self, frame: Any) -> FrameCards:
        try:
            return super().cards(frame)
        finally:
            with self._changed:
                self._changed.notify_all()

    def wait_calls(self, number: int, seconds: float = 10.0) -> None:
        """Wait until it read `number` frames (`seconds` only bounds a hang)."""
        with self._changed:
            read = self._changed.wait_for(lambda: self.calls >= number, seconds)
        assert read, f"{self.calls} frames read, not {number}"


def view_of(client: FlaskClient, path: str) -> Any:
    return client.get(path).json


def feed_of(client: FlaskClient) -> CameraFeed:
    feed: CameraFeed = client.application.extensions["cribcam.camera"]
    return feed


def wait_for(feed: CameraFeed, check: Callable[[], Any], seconds: float = 10.0) -> Any:
    """`check()`'s first true result, checked again at each change of `feed` (a new revision)
    instead of on a clock; `seconds` only bounds a wait for a change that never comes."""
    for _ in range(1000):
        seen = feed.revision
        result = check()
        if result:
            return result
        changed = feed.wait_change(seen, seconds)
        assert changed, f"no camera change in {seconds} s and still not there: {feed.snapshot()}"
    raise AssertionError(f"the camera kept changing and never got there: {feed.snapshot()}")


@pytest.fixture
def reader() -> Reader:
    return Reader()


@pytest.fixture
def cam_app(db_path: Path, reader: Reader) -> Iterator[Flask]:
    app = create_app({
        "TESTING": True, "DATABASE": db_path, "SSE_MAX_SECONDS": 3.0,
        "CAMERA_SOURCE": "fake", "CAMERA_OPENER": lambda spec: Frames(),
        "FRAME_READER": lambda: reader, "CAMERA_INTERVAL": 0.005,
        # the fake reads the same cards in any picture: none turned onto the table's plane
        "TABLE_TRACKING": TrackerConfig(plane=False),
    })  # fmt: skip
    yield app
    shutdown(app)


@pytest.fixture
def cam(cam_app: Flask) -> FlaskClient:
    return cam_app.test_client()


@pytest.fixture
def cam_act(cam: FlaskClient) -> Act:
    def post(game_id: str, status: int = 200, **action: Any) -> Any:
        response = cam.post(f"/api/games/{game_id}/actions", json=action)
        assert response.status_code == status, response.json
        return response.json

    return post


def _game(client: FlaskClient, **settings: Any) -> str:
    response = client.post("/api/games", json={"players": 2, **settings})
    assert response.status_code == 201
    game_id: str = response.json["id"]  # type: ignore[index]
    return game_id


def test_no_server_camera_says_so(client: FlaskClient, new_game: Callable[..., str]) -> None:
    assert client.get("/api/camera").json == {
        "enabled": False, "state": "off",
        "detail": "no server camera: start the server with cribcam serve --camera SOURCE",
    }  # fmt: skip
    game_id = new_game()
    assert client.get(f"/api/games/{game_id}/camera").json["enabled"] is False  # type: ignore[index]
    missing = client.get("/api/camera/frame.jpg")
    assert missing.status_code == 404 and "no frame" in missing.json["error"]  # type: ignore[index]
    assert client.get("/api/games/nope/camera").status_code == 404
    assert client.get("/healthz").json["camera"] is False  # type: ignore[index]


def test_camera_table_has_roles_and_a_frame(cam: FlaskClient, reader: Reader) -> None:
    reader.table = [("5H", PLAY_BOTTOM), ("KS", HAND_BOTTOM)]
    snap = wait_for(feed_of(cam), lambda: (s := view_of(cam, "/api/camera"))["table"]
                    and len(s["table"]["cards"]) == 2 and s)  # fmt: skip
    assert snap["enabled"] is True and snap["state"] == "live" and snap["model"] is True
    roles = {c["card"]: c["role"] for c in snap["table"]["cards"]}
    assert roles == {"5H": "play:bottom", "KS": "hand:bottom"}
    assert snap["layout"] == ["bottom", "top"] and snap["frame"]["size"] == [640, 480]
    # the fake reader's indices are 20 px tall: the page is told, as for its own camera
    assert snap["frame"]["index_px"] == 20.0 and snap["frame"]["small_indices"] is True
    assert snap["frame"]["cut_at_edge"] is False
    frame = cam.get("/api/camera/frame.jpg")
    assert frame.status_code == 200 and frame.data[:3] == b"\xff\xd8\xff"
    assert cam.get("/healthz").json["camera"] is True  # type: ignore[index]


def test_a_camera_play_is_suggested_for_the_turn_and_applied_with_its_frame(
    cam: FlaskClient, cam_act: Act, reader: Reader
) -> None:
    game_id = _game(cam, first_dealer=1)
    play_to_pegging(cam_act, game_id)
    watched = cam.post(f"/api/games/{game_id}/camera").json
    assert watched["watching"] is True and watched["game"] == game_id  # type: ignore[index]
    assert [s["edge"] for s in watched["seats"]] == ["bottom", "top"]  # type: ignore[index]
    reader.table = [("9C", PLAY_TOP)]  # seat 1 (top) is not to play: no suggestion
    wait_for(feed_of(cam), lambda: view_of(cam, f"/api/games/{game_id}/camera")["events"])
    assert cam.get(f"/api/games/{game_id}/camera").json["suggestions"] == []  # type: ignore[index]
    reader.table = [("9C", PLAY_TOP), ("5H", PLAY_BOTTOM)]
    view = wait_for(feed_of(cam),
                    lambda: (v := view_of(cam, f"/api/games/{game_id}/camera"))["suggestions"]
                    and v)  # fmt: skip
    [suggestion] = view["suggestions"]
    assert suggestion["text"] == "bottom laid 5H" and suggestion["seat"] == 0
    assert {e["card"]: e["seat_index"] for e in view["events"]} == {"9C": 1, "5H": 0}
    state = cam_act(game_id, **suggestion["action"])
    assert state["count_cards"] == ["5H"]
    index = state["actions"] - 1
    picture = cam.get(f"/api/games/{game_id}/frames/{index}")
    assert picture.status_code == 200 and picture.mimetype == "image/jpeg"
    steps = cam.get(f"/api/games/{game_id}/count").json["steps"]  # type: ignore[index]
    assert steps[0]["card"] == "5H" and steps[0]["frame"] == f"/api/games/{game_id}/frames/{index}"
    after = cam.get(f"/api/games/{game_id}/camera").json
    assert after["suggestions"] == []  # type: ignore[index]


def test_a_new_deal_forgets_the_cards_laid(cam: FlaskClient, cam_act: Act, reader: Reader) -> None:
    game_id = _game(cam, first_dealer=1)
    cam.post(f"/api/games/{game_id}/camera")
    reader.table = [("5H", PLAY_BOTTOM)]
    wait_for(feed_of(cam), lambda: view_of(cam, f"/api/games/{game_id}/camera")["events"])
    reader.table = []
    cam_act(game_id, kind="deal", hands=HANDS)  # deal 1 begins: the feed follows on its next view
    assert cam.get(f"/api/games/{game_id}/camera").json["events"] == []  # type: ignore[index]


def test_only_one_game_is_followed_until_another_asks(cam: FlaskClient) -> None:
    first, second = _game(cam), _game(cam, players=3)
    assert cam.post(f"/api/games/{first}/camera").json["watching"] is True  # type: ignore[index]
    other = cam.get(f"/api/games/{second}/camera").json
    assert other["watching"] is False and other["suggestions"] == []  # type: ignore[index]
    switched = cam.post(f"/api/games/{second}/camera").json
    assert switched["watching"] is True  # type: ignore[index]
    assert switched["layout"] == ["bottom", "left", "right"]  # type: ignore[index]


def test_camera_events_arrive_on_the_live_stream(cam: FlaskClient, reader: Reader) -> None:
    game_id = _game(cam)
    cam.post(f"/api/games/{game_id}/camera")
    response = cam.get(f"/api/games/{game_id}/events", buffered=False)
    reader.table = [("5H", PLAY_BOTTOM)]
    seen = ""
    for chunk in response.response:
        seen += chunk.decode() if isinstance(chunk, bytes) else chunk
        if '"5H"' in seen and "event: camera" in seen:
            break
    response.close()
    assert "event: state" in seen and "event: camera" in seen


def test_no_model_is_a_status_and_manual_entry_still_works(db_path: Path) -> None:
    def missing() -> Reader:
        raise ModelMissingError("card model files not found: models/corner-detector.onnx")

    opened = Recorder()
    app = create_app({"TESTING": True, "DATABASE": db_path, "CAMERA_SOURCE": "0",
                      "CAMERA_OPENER": opened, "FRAME_READER": missing})  # fmt: skip
    try:
        client = app.test_client()
        snap = wait_for(feed_of(client),
                        lambda: (s := view_of(client, "/api/camera"))["state"] == "no-model"
                        and s)  # fmt: skip
        assert "no card model installed" in snap["detail"] and snap["model"] is False
        assert opened.made == []  # without a model the camera is not even opened
        game_id = _game(client)
        client.post(f"/api/games/{game_id}/actions", json={"kind": "dealer", "seat": 1})
        response = client.post(f"/api/games/{game_id}/actions", json={"kind": "deal"})
        assert response.status_code == 200
    finally:
        shutdown(app)


def _feed(opener: Callable[[str], FrameSource], reader: Reader) -> CameraFeed:
    return CameraFeed("spec", lambda: reader, opener=opener, interval=0.001,
                      retry=Backoff(initial=0.01, maximum=0.02))  # fmt: skip


def test_a_source_that_cannot_open_is_retried_and_shown(reader: Reader) -> None:
    attempts: list[int] = []

    def opener(spec: str) -> FrameSource:
        attempts.append(1)
        if len(attempts) < 3:
            raise SourceOpenError(f"no video file at {spec}")
        return Frames()

    feed = _feed(opener, reader)
    states: list[str] = []
    feed._on_change = lambda revision: states.append(feed.snapshot()["state"])
    feed.start()
    try:
        wait_for(feed, lambda: feed.snapshot()["state"] == "live")
        assert "failed" in states and len(attempts) == 3
        assert feed.snapshot()["reconnects"] == 2
    finally:
        feed.stop()
    assert not feed.running and feed.snapshot()["state"] == "closed"


def test_a_reconnecting_source_is_shown(reader: Reader) -> None:
    feed = _feed(lambda spec: Frames(state=SourceState.RECONNECTING), reader)
    feed.start()
    try:
        assert wait_for(feed, lambda: feed.snapshot()["state"] == "reconnecting")
        assert feed.snapshot()["detail"] == "fake reconnecting"
    finally:
        feed.stop()


def test_a_file_source_is_replayed_when_it_ends(reader: Reader) -> None:
    sources = Recorder(count=2)
    feed = _feed(sources, reader)
    feed.start()
    try:
        sources.wait_made(3)
    finally:
        feed.stop()
    assert all(s.closed for s in sources.made)
    assert feed.snapshot()["frames"] >= 4


def test_a_frame_the_reader_cannot_read_is_skipped(reader: Reader) -> None:
    reader.fail = True
    feed = _feed(lambda spec: Frames(), reader)
    feed.start()
    try:
        wait_for(feed, lambda: "could not be read" in feed.snapshot()["detail"])
        reader.fail = False
        reader.table = [("5H", PLAY_BOTTOM)]
        wait_for(feed, lambda: (t := feed.snapshot()["table"]) and t["cards"])
    finally:
        feed.stop()


def test_each_frame_is_read_with_the_reader_the_factory_gives_then() -> None:
    """The feed keeps no reader: a reader handed out after a change (a deck chosen, see
    decks/test_api.py) reads the next frames, the one before no more."""
    reader, other = CountingReader(), CountingReader()
    current = [reader]
    feed = CameraFeed("spec", lambda: current[0], opener=lambda spec: Frames(), interval=0.001)
    feed.start()
    try:
        reader.wait_calls(1)
        current[0] = other
        other.wait_calls(3)
        before = reader.calls
        other.wait_calls(6)
        assert reader.calls == before
    finally:
        feed.stop()


def test_stop_is_prompt_and_releases_the_source(reader: Reader) -> None:
    """`stop` wakes the thread out of its pause between two frames (here a minute long): the
    thread has ended, and closed the source, when `stop` returns."""
    sources = Recorder()
    feed = CameraFeed("spec", lambda: reader, opener=sources, interval=60.0)
    feed.start()
    wait_for(feed, lambda: feed.snapshot()["frames"] > 0)  # then the thread pauses a minute
    feed.stop(timeout=30.0)
    assert not feed.running and sources.made[0].closed


@pytest.mark.parametrize(
    ("players", "turn_edge"),
    [(3, "left"), (4, "left")],
)
def test_suggestions_map_the_turn_to_its_edge(players: int, turn_edge: str) -> None:
    game = Game(Settings(players=players), first_dealer=0)
    game.deal(None)
    for seat in range(players):
        game.discard(seat, None)
    game.cut_starter(_card("2C"))
    assert game.turn == 1
    events: list[dict[str, Any]] = [{"seat": "bottom", "card": "5H", "frame": None},
              {"seat": turn_edge, "card": "2C", "frame": None},  # the starter: never laid
              {"seat": turn_edge, "card": "9D", "frame": "c4"}]  # fmt: skip
    [only] = suggestions(game, events)
    assert only["action"] == {"kind": "play", "seat": 1, "card": "9D", "frame": "c4"}


def _card(text: str) -> Any:
    from scorer.cards import parse_card

    return parse_card(text)


def test_table_mode_follows_the_server_camera_and_keeps_each_frame(
    cam: FlaskClient, reader: Reader
) -> None:
    game_id = _game(cam)
    assert (
        cam.post(f"/api/games/{game_id}/actions", json={"kind": "dealer", "seat": 0}).status_code
        == 200
    )
    reader.table = [("7H", (360.0, 250.0))]
    feed = feed_of(cam)
    assert cam.post(f"/api/games/{game_id}/camera").status_code == 200  # the form: suggestions
    wait_for(feed, lambda: (t := feed.snapshot()["table"]) and t["starter"] == "7H")
    assert view_of(cam, f"/api/games/{game_id}")["phase"] == "deal"
    assert cam.post(f"/api/games/{game_id}/camera?table=1").status_code == 200  # table mode
    wait_for(feed, lambda: view_of(cam, f"/api/games/{game_id}")["starter"] == "7H")
    assert view_of(cam, f"/api/games/{game_id}")["phase"] == "play"
    reader.table = [("7H", (360.0, 250.0)), ("5H", PLAY_TOP)]  # seat 1 (top) leads
    wait_for(feed, lambda: view_of(cam, f"/api/games/{game_id}")["count_cards"] == ["5H"])
    status = wait_for(feed, lambda: (s := feed.snapshot()["table_mode"]) and s["last"] and s)
    assert status["last"]["key"] == "deal 1 play 1" and status["question"] is None
    store = cam.application.extensions["cribcam.store"]
    log = view_of(cam, f"/api/games/{game_id}")["log"]
    kinds = [a["kind"] for a in log]
    assert kinds == ["dealer", "deal", "discard", "discard", "starter", "play"]
    assert store.pictures(game_id) == {kinds.index("starter"), kinds.index("play")}
