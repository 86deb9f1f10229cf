"""`cribcam serve` met with a wrong `--db` or a busy port: one line that says what is wrong
and what to do, exit status 2, no traceback, and the file given left as it was."""

from __future__ import annotations

import os
import socket
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from cribcam.cli import main
from webui import create_app
from webui.games.store import GamesDatabaseError, GameStore
from webui.guard.server import PortInUseError, check_port, make_server
from webui.paths import default_db

#: A JPEG's first bytes, then noise: a photo given as the database.
JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + bytes(range(256)) * 8


@pytest.fixture(autouse=True)
def never_serve(monkeypatch: pytest.MonkeyPatch) -> None:
    """A `--db` taken by mistake fails the test at once, never serves on."""

    def served(*args: object, **kwargs: object) -> None:
        pytest.fail("cribcam serve went on to serve")

    monkeypatch.setattr("cribcam.commands.serve.serve", served)


def serve_error(db: Path, capsys: pytest.CaptureFixture[str]) -> str:
    """`cribcam serve --db db`'s one line on stderr; it must exit 2 without serving."""
    assert main(["serve", "--port", "0", "--db", str(db)]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err
    return lines[0]


@pytest.mark.parametrize(
    ("name", "content"), [("notes.txt", b"shopping: milk\n"), ("me.jpg", JPEG)]
)
def test_a_file_that_is_not_sqlite_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, content: bytes
) -> None:
    db = tmp_path / name
    db.write_bytes(content)
    line = serve_error(db, capsys)
    assert line == f"cribcam: {db} is not a cribcam games database (file is not a database)"
    assert db.read_bytes() == content
    assert sorted(p.name for p in tmp_path.iterdir()) == [name]  # no -wal or -shm beside it


def test_another_programs_database_is_refused_and_left_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "photos.db"
    with sqlite3.connect(db) as other:
        other.execute("CREATE TABLE albums (id INTEGER PRIMARY KEY, title TEXT)")
        other.execute("INSERT INTO albums (title) VALUES ('summer')")
    other.close()
    before = db.read_bytes()
    line = serve_error(db, capsys)
    assert line == f"cribcam: {db} is not a cribcam games database (it holds other tables: albums)"
    assert db.read_bytes() == before


def test_a_table_named_like_ours_but_not_ours_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "chess.db"
    with sqlite3.connect(db) as other:
        other.execute("CREATE TABLE games (id TEXT PRIMARY KEY, pgn TEXT)")
    other.close()
    with pytest.raises(
        GamesDatabaseError,
        match=r"chess\.db is not a cribcam games database \(its table games has no column created",
    ):
        GameStore(db)


def test_an_empty_sqlite_file_becomes_a_games_database(tmp_path: Path) -> None:
    db = tmp_path / "empty.sqlite3"
    sqlite3.connect(db).close()  # a database with no tables
    db.touch()
    GameStore(db)
    assert GameStore(db).summaries() == []  # and it opens again as ours


def test_a_db_in_a_missing_folder_is_refused_and_not_made(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "gmaes"  # mistyped
    db = folder / "games.sqlite3"
    line = serve_error(db, capsys)
    assert line == f"cribcam: the folder {folder} does not exist (games database {db})"
    assert not folder.exists()


def test_a_folder_as_the_db_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        serve_error(tmp_path, capsys)
        == f"cribcam: {tmp_path} is a folder, not a games database file"
    )


def test_the_default_data_folder_is_made(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "new" / "share"))
    db = default_db()
    assert db.parent == tmp_path / "new" / "share" / "cribcam"
    GameStore(db)
    assert db.exists()


@pytest.mark.slow  # a server process: its imports take seconds
def test_a_busy_port_says_what_to_do(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))  # loopback only
        taken.listen()
        port = taken.getsockname()[1]
        env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data")}
        command = [sys.executable, "-m", "cribcam", "serve", "--port", str(port)]
        done = subprocess.run(
            [*command, "--db", str(tmp_path / "games.sqlite3")],
            capture_output=True, text=True, env=env, timeout=120,
        )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines()[-1] == (
        f"cribcam: port {port} is already in use (is cribcam already running? open "
        f"http://127.0.0.1:{port}/ or choose another with --port {port + 1})"
    )
    assert "Traceback" not in done.stderr
    assert "serving on" not in done.stdout


def test_a_port_taken_after_the_check_is_still_said_plainly(tmp_path: Path) -> None:
    """The check before the models load, and the server's own bind (another program may take
    the port in between) both name it as a port in use."""
    app = create_app({"DATABASE": tmp_path / "games.sqlite3"})
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))  # loopback only
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(PortInUseError) as checked:
            check_port("127.0.0.1", port)
        server = make_server(app, "127.0.0.1", port)
        with pytest.raises(PortInUseError) as bound:
            server.prepare()
    assert (checked.value.port, bound.value.port, bound.value.host) == (port, port, "127.0.0.1")
    check_port("127.0.0.1", port)  # free again
