"""Pairing on the LAN (#51): wrong codes lock out only the device that sent them, with a
back-off, in a bounded table; the cookie holds a random device token, never the code, and the
host's page can unpair a device."""

from __future__ import annotations

import dataclasses
import threading
from pathlib import Path

from flask import Flask
from flask.testing import FlaskClient

from webui import create_app
from webui.guard.limits import LIMITS
from webui.guard.pairing import PairingGuard, client_key

PHONE = {"REMOTE_ADDR": "192.0.2.7"}  # documentation addresses: never contacted
CODE = "123456"


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_wrong_codes_back_off_per_address_doubling_up_to_the_cap() -> None:
    limits = dataclasses.replace(LIMITS, pairing_free_tries=3, pairing_backoff_seconds=2.0,
                                 pairing_backoff_max_seconds=30.0)  # fmt: skip
    clock = Clock()
    guard = PairingGuard(limits, clock)
    assert [guard.wrong("192.0.2.7") for _ in range(3)] == [0.0, 0.0, 0.0]
    assert guard.wait("192.0.2.7") == 0.0
    waits = []
    for _ in range(6):
        waits.append(guard.wrong("192.0.2.7"))
        assert guard.wait("192.0.2.7") == waits[-1]  # locked for that long
        assert guard.wait("192.0.2.8") == 0.0  # every other device may try
        clock.now += waits[-1]
        assert guard.wait("192.0.2.7") == 0.0
    assert waits == [2.0, 4.0, 8.0, 16.0, 30.0, 30.0]
    guard.right("192.0.2.7")
    assert guard.wrong("192.0.2.7") == 0.0  # a right code starts afresh


def test_an_ipv6_device_is_its_slash_64() -> None:
    assert client_key("2001:db8::1") == client_key("2001:db8::ffff:1") == "2001:db8::/64"
    assert client_key("2001:db8:0:1::1") != client_key("2001:db8::1")
    assert client_key("::ffff:192.0.2.7") == "192.0.2.7"


def test_the_table_is_bounded() -> None:
    limits = dataclasses.replace(LIMITS, pairing_free_tries=0, pairing_clients=3,
                                 pairing_backoff_seconds=10.0)  # fmt: skip
    clock = Clock()
    guard = PairingGuard(limits, clock)
    for n in range(3):
        assert guard.wrong(f"192.0.2.{n}") == 10.0
    assert len(guard) == 3
    assert guard.wait("192.0.2.99") == 10.0  # full of waiting devices: a new one waits too
    assert guard.wrong("192.0.2.99") == 10.0 and len(guard) == 3
    clock.now += 10
    for n in range(50):  # the waits are over: the oldest are forgotten for new ones
        guard.wrong(f"198.51.100.{n}")
        clock.now += 10
    assert len(guard) == 3


def test_wrong_codes_from_many_threads_all_count() -> None:
    limits = dataclasses.replace(LIMITS, pairing_free_tries=10**6)
    guard = PairingGuard(limits)
    threads = [threading.Thread(target=lambda: [guard.wrong("192.0.2.7") for _ in range(200)])
               for _ in range(8)]  # fmt: skip
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert guard._clients["192.0.2.7"].wrong == 1600


def lan_app(db_path: Path) -> Flask:
    return create_app({"TESTING": True, "DATABASE": db_path, "PAIRING_CODE": CODE})


def phone_of(app: Flask, address: str = "192.0.2.7") -> FlaskClient:
    phone = app.test_client()
    phone.environ_base.update({"REMOTE_ADDR": address})
    return phone


def test_the_cookie_holds_a_device_token_not_the_code(db_path: Path) -> None:
    app = lan_app(db_path)
    phone = phone_of(app)
    assert phone.post("/pair", data={"code": CODE, "next": "/"}).status_code == 302
    cookie = phone.get_cookie("session")
    assert cookie is not None and CODE not in cookie.value
    session = app.session_interface.get_signing_serializer(app).loads(cookie.value)  # type: ignore[attr-defined]
    assert set(session) == {"device", "_permanent"} and len(session["device"]) >= 40
    assert CODE not in str(session)
    assert phone.get("/api/games").status_code == 200


def test_a_cookie_with_the_code_itself_no_longer_pairs(db_path: Path) -> None:
    app = lan_app(db_path)
    phone = phone_of(app)
    with phone.session_transaction() as session:
        session["paired"] = CODE  # how a cookie paired before
    assert phone.get("/api/games").status_code == 401
    with phone.session_transaction() as session:
        session["device"] = "a guessed token"
    assert phone.get("/api/games").status_code == 401


def test_the_host_unpairs_a_device(db_path: Path) -> None:
    app = lan_app(db_path)
    phone, other = phone_of(app), phone_of(app, "192.0.2.8")
    for device in (phone, other):
        assert device.post("/pair", data={"code": CODE, "next": "/"}).status_code == 302
    host = app.test_client()  # loopback
    assert b"Paired devices" in host.get("/").data  # the home page links to the list
    listed = host.get("/api/devices").json["devices"]  # type: ignore[index]
    assert sorted(d["address"] for d in listed) == ["192.0.2.7", "192.0.2.8"]
    page = host.get("/devices")
    assert page.status_code == 200 and b"192.0.2.7" in page.data and b"Unpair" in page.data
    phone_id = next(d["id"] for d in listed if d["address"] == "192.0.2.7")
    revoked = host.delete(f"/api/devices/{phone_id}")
    assert revoked.status_code == 200 and len(revoked.json["devices"]) == 1  # type: ignore[index]
    assert phone.get("/api/games").status_code == 401  # its cookie pairs it no more
    assert phone.get("/").status_code == 302
    assert other.get("/api/games").status_code == 200
    assert host.delete(f"/api/devices/{phone_id}").status_code == 404


def test_only_the_host_sees_and_unpairs_devices(db_path: Path) -> None:
    app = lan_app(db_path)
    phone = phone_of(app)
    phone.post("/pair", data={"code": CODE})
    assert phone.get("/api/devices").status_code == 403
    assert phone.get("/devices").status_code == 403
    assert b"Paired devices" not in phone.get("/").data
    device = app.test_client().get("/api/devices").json["devices"][0]["id"]  # type: ignore[index]
    assert phone.delete(f"/api/devices/{device}").status_code == 403


def test_a_pairing_survives_a_restart(db_path: Path) -> None:
    phone = phone_of(lan_app(db_path))
    phone.post("/pair", data={"code": CODE})
    cookie = phone.get_cookie("session")
    assert cookie is not None
    restarted = create_app({"TESTING": True, "DATABASE": db_path, "PAIRING_CODE": "654321"})
    again = phone_of(restarted)
    again.set_cookie("session", cookie.value)
    assert again.get("/api/games").status_code == 200
