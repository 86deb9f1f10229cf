"""`cribcam serve --camera [SOURCE]`: alone it shows the browser camera panel; with a SOURCE the
server reads that camera itself, and a source that cannot be read never stops the server."""

from __future__ import annotations

import signal
import urllib.request
from pathlib import Path

import pytest

from cribcam.cli import build_parser
from cribcam.commands.serve import app_config
from tests.webui.test_serve import Server


@pytest.mark.parametrize(
    ("argv", "panel", "source"),
    [([], False, None), (["--camera"], True, None), (["--camera", "0"], True, "0"),
     (["--camera", "http://phone:8080/video", "--port", "0"], True, "http://phone:8080/video")],
)  # fmt: skip
def test_camera_option(argv: list[str], panel: bool, source: str | None, tmp_path: Path) -> None:
    args = build_parser().parse_args(["serve", "--db", str(tmp_path / "g.sqlite3"), *argv])
    config = app_config(args, None)
    assert (config["CAMERA"], config["CAMERA_SOURCE"]) == (panel, source)


def test_a_missing_camera_source_never_stops_the_server(tmp_path: Path) -> None:
    missing = tmp_path / "no-such-video.mp4"
    server = Server(tmp_path / "games.sqlite3", tmp_path / "data", ["--camera", str(missing)])
    try:
        assert any("reading the camera" in line for line in server.lines)
        status, camera = server.call("GET", "/api/camera")
        assert status == 200 and camera["enabled"] is True
        assert camera["state"] in {"starting", "loading", "no-model", "connecting", "failed"}
        status, created = server.call("POST", "/api/games", {"players": 2})
        assert status == 201
        with urllib.request.urlopen(f"{server.url}/games/{created['id']}", timeout=10) as page:
            assert b'id="server-camera-status"' in page.read()
        server.process.send_signal(signal.SIGTERM)
        assert server.process.wait(timeout=10) == 0  # a clean stop, camera thread included
    finally:
        server.stop()


def test_the_reading_options_reach_the_reader_and_a_bad_size_stops_at_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = ["serve", "--db", str(tmp_path / "g.sqlite3")]
    config = app_config(build_parser().parse_args([*db, "--detector-size", "640"]), None)
    assert config["PHOTO_READER"].card_reader().input_side == 640
    assert config["PHOTO_READER"].card_reader().config.closer_look
    assert config["PHOTO_READER"].card_reader().config.far_look
    config = app_config(build_parser().parse_args([*db, "--one-look"]), None)
    assert not config["PHOTO_READER"].card_reader().config.closer_look
    assert not config["PHOTO_READER"].card_reader().config.far_look
    with pytest.raises(SystemExit):
        build_parser().parse_args([*db, "--detector-size", "650"])
    assert "multiple of 32" in capsys.readouterr().err
    refused = (("99999", "99999 is over 65535"), ("-1", "-1 is under 0"), ("x", "not a whole"))
    for port, message in refused:
        with pytest.raises(SystemExit):
            build_parser().parse_args([*db, "--port", port])
        assert message in capsys.readouterr().err
