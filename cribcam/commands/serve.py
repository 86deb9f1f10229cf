"""`cribcam serve`: the table-side web page on this machine, or on the LAN over HTTPS."""

from __future__ import annotations

import argparse
import io
import ipaddress
import socket
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import segno

from cribcam.commands.art import at_least
from cribcam.commands.reading import reading_config, reading_options
from vision.config import ReadingConfig
from vision.detection.models import ModelMissingError
from vision.photo_reader import load_photo_reader
from webui.app import create_app, shutdown
from webui.camera.photo_reading import PhotoReading
from webui.games.store import GamesDatabaseError, GameStore
from webui.guard.pairing import new_code
from webui.guard.security import server_names
from webui.guard.server import PortInUseError, check_port, make_server, serve
from webui.guard.tls import IPAddress, ensure_certificate, fingerprint, lan_addresses
from webui.paths import data_dir, default_db

DEFAULT_PORT = 8121
HIGHEST_PORT = 65535

#: `--port`: a TCP port (0: the system picks a free one).
PORT_NUMBER = at_least(0, most=HIGHEST_PORT)


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "serve",
        help="run the table-side web page",
        description="Serve the web companion. Without --lan it listens on 127.0.0.1 only.",
    )
    parser.add_argument("--host", help="address to listen on (default 127.0.0.1; --lan: 0.0.0.0)")
    parser.add_argument("--port", type=PORT_NUMBER, default=DEFAULT_PORT,
                        help=f"port (default {DEFAULT_PORT}; 0 picks a free one)")  # fmt: skip
    parser.add_argument("--db", type=Path, help=f"games database (default {default_db()})")
    parser.add_argument("--camera", nargs="?", const="", metavar="SOURCE",
                        help="show the camera panel (the browser's camera; phones need --lan); "
                             "with SOURCE the server reads that camera itself: a camera index, "
                             "a video file, an image file or folder, or an MJPEG/HTTP URL "
                             "(a phone IP-webcam app)")  # fmt: skip
    parser.add_argument("--decks", type=Path,
                        help="deck profiles folder (default: <models>/decks in a checkout, "
                             "else the user data folder)")  # fmt: skip
    parser.add_argument("--lan", action="store_true",
                        help="listen on the local network over HTTPS (self-signed certificate) "
                             "and ask other devices for a pairing code")  # fmt: skip
    reading_options(parser)
    parser.set_defaults(run=run_serve)


def installed_photo_reader(config: ReadingConfig) -> PhotoReading | None:
    """The shipped card models' reader reading as `config` says, or None (detection then
    answers 503, never guesses)."""
    try:
        return load_photo_reader(config)
    except ModelMissingError as error:
        print(f"cribcam: no card detector: {error}", file=sys.stderr)
        return None


def app_config(args: argparse.Namespace, code: str | None) -> dict[str, Any]:
    """The app's configuration from the command line (`--camera` alone: the browser's camera;
    `--camera SOURCE`: the server camera as well)."""
    return {
        "DATABASE": args.db or default_db(),
        "CAMERA": args.camera is not None,
        "CAMERA_SOURCE": args.camera or None,
        "PHOTO_READER": installed_photo_reader(reading_config(args)),
        "PAIRING_CODE": code,
        "DECKS_DIR": args.decks,
        "ALLOWED_HOSTS": server_names(listen_host(args), lan=args.lan),
    }


def listen_host(args: argparse.Namespace) -> str:
    """Where to listen: `--host`, else every interface with `--lan`, else loopback only."""
    return str(args.host or ("0.0.0.0" if args.lan else "127.0.0.1"))


def listening_addresses(host: str) -> list[IPAddress]:
    """The LAN addresses a server bound to `host` answers on: 0.0.0.0 is every IPv4 one, ::
    every one, a single address itself (none for loopback or a host name)."""
    lan = lan_addresses()
    if host in ("", "0.0.0.0"):
        return [address for address in lan if address.version == 4]
    if host == "::":
        return lan
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return []
    return [] if address.is_loopback else [address]


def url_of(address: IPAddress, port: int) -> str:
    shown = f"[{address}]" if address.version == 6 else str(address)
    return f"https://{shown}:{port}/"


def qr_lines(text: str) -> list[str]:
    """`text` as a QR code in terminal block characters, one string a line."""
    out = io.StringIO()
    segno.make(text, micro=False).terminal(out=out, compact=True)
    return out.getvalue().splitlines()


def lan_lines(address: str, code: str, certificate: Path) -> list[str]:
    """What other devices need: every LAN address the server listens on, a QR code of the
    first, the certificate's fingerprint and the pairing code."""
    where = urlsplit(address)
    port = where.port or 443
    urls = [url_of(a, port) for a in listening_addresses(where.hostname or "")]
    if urls:
        lines = ["cribcam: on the other devices open one of:"]
        lines += [f"cribcam:   {url}" for url in urls]
        lines += [f"cribcam: or scan this QR code for {urls[0]}", *qr_lines(urls[0])]
    else:
        lines = [f"cribcam: no LAN address found for {where.hostname}: on the other devices "
                 f"try https://{socket.gethostname()}:{port}/"]  # fmt: skip
    lines.append("cribcam: the certificate is self-signed: accept it once; its SHA-256 is "
                 + fingerprint(certificate))  # fmt: skip
    lines.append(f"cribcam: pairing code: {code}")
    return lines


def port_in_use_line(error: PortInUseError, tls: bool) -> str:
    """What to do when the port is taken: most often cribcam already runs there."""
    host = "127.0.0.1" if error.host in ("", "0.0.0.0", "::") else error.host
    shown = f"[{host}]" if ":" in host else host
    other = error.port + 1 if error.port < HIGHEST_PORT else error.port - 1
    return (f"cribcam: port {error.port} is already in use (is cribcam already running? open "
            f"{'https' if tls else 'http'}://{shown}:{error.port}/ or choose another with "
            f"--port {other})")  # fmt: skip


def run_serve(args: argparse.Namespace) -> int:
    host = listen_host(args)
    try:  # before the models load: a wrong --db or a taken port is said at once
        GameStore(args.db or default_db())
        check_port(host, args.port)
    except GamesDatabaseError as error:
        print(f"cribcam: {error}", file=sys.stderr)
        return 2
    except PortInUseError as error:
        print(port_in_use_line(error, args.lan), file=sys.stderr)
        return 2
    code = new_code() if args.lan else None
    app = create_app(app_config(args, code))
    tls = ensure_certificate(data_dir() / "tls") if args.lan else None
    server = make_server(app, host, args.port, tls)

    def announce(address: str) -> list[str]:
        lines = [f"cribcam: serving on {address} (games in {app.config['DATABASE']})"]
        if tls is not None and code is not None:
            lines += lan_lines(address, code, tls[0])
        if app.config["PHOTO_READER"] is None and args.camera is not None:
            lines.append("cribcam: no card model installed: enter cards with the card picker")
        if app.config["CAMERA_SOURCE"]:
            lines.append(f"cribcam: reading the camera {app.config['CAMERA_SOURCE']}")
        lines.append("cribcam: press Ctrl-C to stop")
        return lines

    try:
        serve(server, announce, tls is not None,
              before_stop=app.extensions["cribcam.broker"].close)  # fmt: skip
    except PortInUseError as error:
        print(port_in_use_line(error, tls is not None), file=sys.stderr)
        return 2
    finally:
        shutdown(app)
    return 0
