"""--lan: pairing gates other devices (loopback is trusted), and the self-signed certificate
serves real HTTPS."""

from __future__ import annotations

import ipaddress
import json
import ssl
import urllib.request
from pathlib import Path

import cv2
import numpy as np
import pytest
from cryptography import x509

from cribcam.commands.serve import lan_lines, listening_addresses
from tests.webui.test_serve import Server
from webui import create_app
from webui.guard import tls
from webui.guard.limits import LIMITS
from webui.guard.tls import ensure_certificate, fingerprint, lan_addresses

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


def test_guessing_locks_out_that_device_only(db_path: Path) -> None:
    app = create_app({"TESTING": True, "DATABASE": db_path, "PAIRING_CODE": "123456"})
    phone = app.test_client()
    phone.environ_base.update(PHONE)
    for _ in range(LIMITS.pairing_free_tries + 1):
        phone.post("/pair", data={"code": "999999"})
    locked = phone.post("/pair", data={"code": "123456"})  # even the right code must wait
    assert locked.status_code == 429 and b"Too many wrong codes" in locked.data
    assert int(locked.headers["Retry-After"]) >= 1
    tool = phone.get("/api/games", headers={"X-Pairing-Code": "123456"})
    assert tool.status_code == 429 and "try again in" in tool.json["error"]  # type: ignore[index]
    other = app.test_client()  # another device on the LAN pairs as usual
    other.environ_base.update({"REMOTE_ADDR": "192.0.2.8"})
    assert other.post("/pair", data={"code": "123456", "next": "/"}).status_code == 302
    assert other.get("/api/games").status_code == 200


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


# -- the LAN addresses `serve --lan` prints, shows as a QR code and certifies -----------------
FAKE_INTERFACES = ["127.0.0.1", "::1", "192.0.2.10", "fe80::1", "2001:db8::10", "198.51.100.7"]


@pytest.fixture
def interfaces(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """This machine's interface addresses, as the test says (documentation addresses)."""
    addresses = list(FAKE_INTERFACES)
    monkeypatch.setattr(tls, "interface_addresses",
                        lambda: [ipaddress.ip_address(a) for a in addresses])  # fmt: skip
    return addresses


def qr_text(lines: list[str]) -> str:
    """Decode a QR code printed in half-block characters (light: upper, lower)."""
    halves = {"█": (255, 255), " ": (0, 0), "▀": (255, 0), "▄": (0, 255)}
    rows: list[list[int]] = []
    for line in lines:
        pairs = [halves[char] for char in line]
        rows += [[upper for upper, _ in pairs], [lower for _, lower in pairs]]
    image = np.array(rows, np.uint8)
    image = cv2.resize(image, None, fx=8, fy=8, interpolation=cv2.INTER_NEAREST)
    text, _, _ = cv2.QRCodeDetector().detectAndDecode(image)
    return str(text)


def test_lan_addresses_leave_out_loopback_and_link_local(interfaces: list[str]) -> None:
    assert [str(a) for a in lan_addresses()] == ["192.0.2.10", "198.51.100.7", "2001:db8::10"]
    assert [str(a) for a in listening_addresses("0.0.0.0")] == ["192.0.2.10", "198.51.100.7"]
    assert [str(a) for a in listening_addresses("::")] == [
        "192.0.2.10", "198.51.100.7", "2001:db8::10"]  # fmt: skip
    assert [str(a) for a in listening_addresses("198.51.100.7")] == ["198.51.100.7"]
    assert listening_addresses("127.0.0.1") == [] and listening_addresses("[::1]") == []


def test_serve_lan_prints_every_address_and_a_qr_code_of_the_first(
    interfaces: list[str], tmp_path: Path
) -> None:
    cert, _ = ensure_certificate(tmp_path / "tls")
    lines = lan_lines("https://0.0.0.0:8143/", "123456", cert)
    assert lines[:4] == [
        "cribcam: on the other devices open one of:",
        "cribcam:   https://192.0.2.10:8143/",
        "cribcam:   https://198.51.100.7:8143/",
        "cribcam: or scan this QR code for https://192.0.2.10:8143/",
    ]
    qr = lines[4:-2]
    assert len(qr) > 10 and qr_text(qr) == "https://192.0.2.10:8143/"
    assert lines[-2].endswith(fingerprint(cert)) and lines[-1] == "cribcam: pairing code: 123456"
    on_v6 = lan_lines("https://[::]:8143/", "123456", cert)
    assert "cribcam:   https://[2001:db8::10]:8143/" in on_v6


def test_serve_lan_on_loopback_only_says_there_is_no_lan_address(
    interfaces: list[str], tmp_path: Path
) -> None:
    cert, _ = ensure_certificate(tmp_path / "tls")
    lines = lan_lines("https://127.0.0.1:8143/", "123456", cert)
    assert lines[0].startswith("cribcam: no LAN address found for 127.0.0.1")
    assert not any("QR" in line for line in lines)


def test_the_certificate_holds_the_lan_addresses_and_is_renewed_for_a_new_one(
    interfaces: list[str], tmp_path: Path
) -> None:
    def sans(cert: Path) -> set[str]:
        parsed = x509.load_pem_x509_certificate(cert.read_bytes())
        alt = parsed.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
        return {str(a) for a in alt.get_values_for_type(x509.IPAddress)}

    cert, _ = ensure_certificate(tmp_path / "tls")
    assert {"192.0.2.10", "198.51.100.7", "2001:db8::10", "127.0.0.1"} <= sans(cert)
    assert "fe80::1" not in sans(cert)
    first = fingerprint(cert)
    assert fingerprint(ensure_certificate(tmp_path / "tls")[0]) == first  # nothing new: kept
    interfaces.append("203.0.113.5")  # the laptop joined another network
    renewed, _ = ensure_certificate(tmp_path / "tls")
    assert fingerprint(renewed) != first and "203.0.113.5" in sans(renewed)
