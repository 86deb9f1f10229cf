"""--lan: pairing gates other devices (loopback is trusted), and the self-signed certificate
serves real HTTPS."""

from __future__ import annotations

import json
import ssl
import urllib.request
from pathlib import Path

from cryptography import x509

from tests.webui.test_serve import Server
from webui import create_app
from webui.pairing import MAX_WRONG_CODES
from webui.tls import ensure_certificate, fingerprint

PHONE = {"REMOTE_ADDR": "192.0.2.7"}  # a documentation address: never contacted


def test_other_devices_must_pair(db_path: Path) -> None:
    app = create_app({"TESTING": True, "DATABASE": db_path, "PAIRING_CODE": "123456"})
    phone = app.test_client()
    phone.environ_base.update(PHONE)
    assert phone.get("/healthz").status_code == 200
    refused = phone.post("/api/games", json={"players": 2})
    assert refused.status_code == 401 and "pair" in refused.json["error"]  # type: ignore[index]
    assert phone.get("/").status_code == 302
    assert phone.post("/pair", data={"code": "000000"}).status_code == 200  # wrong: form again
    paired = phone.post("/pair", data={"code": "123456", "next": "/"})
    assert paired.status_code == 302
    assert phone.post("/api/games", json={"players": 2}).status_code == 201
    tool = app.test_client()
    tool.environ_base.update(PHONE)
    ok = tool.get("/api/games", headers={"X-Pairing-Code": "123456"})
    assert ok.status_code == 200
    laptop = app.test_client()  # loopback: trusted
    assert laptop.get("/api/games").status_code == 200


def test_guessing_locks_pairing(db_path: Path) -> None:
    app = create_app({"TESTING": True, "DATABASE": db_path, "PAIRING_CODE": "123456"})
    phone = app.test_client()
    phone.environ_base.update(PHONE)
    for _ in range(MAX_WRONG_CODES):
        phone.post("/pair", data={"code": "999999"})
    locked = phone.post("/pair", data={"code": "123456"})
    assert locked.status_code == 200 and b"Too many wrong codes" in locked.data


def test_certificate_is_made_once_and_reused(tmp_path: Path) -> None:
    cert, key = ensure_certificate(tmp_path / "tls")
    first = fingerprint(cert)
    parsed = x509.load_pem_x509_certificate(cert.read_bytes())
    alt = parsed.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert "localhost" in alt.get_values_for_type(x509.DNSName)
    assert oct(key.stat().st_mode & 0o777) == "0o600"
    assert fingerprint(ensure_certificate(tmp_path / "tls")[0]) == first


def test_serve_lan_speaks_https(tmp_path: Path) -> None:
    home = tmp_path / "data"
    server = Server(tmp_path / "games.sqlite3", home, ["--lan", "--host", "127.0.0.1"])
    try:
        assert server.url.startswith("https://127.0.0.1:")
        context = ssl.create_default_context(cafile=str(home / "cribcam" / "tls" / "cert.pem"))
        context.check_hostname = False  # the certificate names this host; the URL an address
        with urllib.request.urlopen(server.url + "/healthz", context=context, timeout=10) as r:
            assert json.loads(r.read())["ok"] is True
        assert any("pairing code: " in line for line in server.lines)
    finally:
        server.stop()
