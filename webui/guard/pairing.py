"""Pairing: on the LAN, a device must enter the code the server printed before it may act.

Requests from this machine (loopback) need no pairing. Pairing gives the browser a random
device token in its signed session cookie (`webui.guard.devices`; never the code itself), which the
host's page can revoke. Tools may send the code in an ``X-Pairing-Code`` header instead.

Wrong codes are counted per client address (`PairingGuard`): after a few, that address must
wait before its next try, twice as long after each further wrong code, so the 6-digit code
cannot be guessed, while every other device can still pair.
"""

from __future__ import annotations

import hmac
import ipaddress
import math
import secrets
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from flask import Flask, Response, current_app, jsonify, redirect, request, session, url_for
from werkzeug.wrappers import Response as BaseResponse

from webui.guard.devices import Device, Devices
from webui.guard.limits import ServerLimits

_OPEN_ENDPOINTS = {"healthz", "static", "pages.pair", "i18n.catalog", "i18n.switch"}


def new_code() -> str:
    return f"{secrets.randbelow(10**6):06d}"


def is_loopback(address: str | None) -> bool:
    try:
        return address is not None and ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


def client_key(address: str | None) -> str:
    """Whose wrong codes these are: an IPv4 address, or an IPv6 address's /64 (one device
    can take any address of its network's /64).

    >>> client_key("192.0.2.7"), client_key("2001:db8::1:2:3:4")
    ('192.0.2.7', '2001:db8::/64')
    """
    try:
        parsed = ipaddress.ip_address(address or "")
    except ValueError:
        return str(address)
    if isinstance(parsed, ipaddress.IPv6Address):
        if parsed.ipv4_mapped is not None:
            return str(parsed.ipv4_mapped)
        return str(ipaddress.ip_network(f"{parsed}/64", strict=False))
    return str(parsed)


@dataclass
class _Tries:
    wrong: int = 0
    until: float = 0.0  # the clock's time before which this client may not try


class PairingGuard:
    """Wrong pairing codes per client, in a bounded table (thread-safe).

    A client may enter `pairing_free_tries` wrong codes; after each further one it waits
    `pairing_backoff_seconds`, doubled each time, up to `pairing_backoff_max_seconds`. The
    table holds `pairing_clients` clients: when it is full, the client seen least recently
    that is not waiting is forgotten; when every one is waiting, new clients wait too.
    """

    def __init__(self, limits: ServerLimits, clock: Callable[[], float] = time.monotonic):
        self.limits = limits
        self.clock = clock
        self._lock = threading.Lock()
        self._clients: OrderedDict[str, _Tries] = OrderedDict()

    def wait(self, address: str | None) -> float:
        """Seconds until `address` may try a code (0: now)."""
        key = client_key(address)
        with self._lock:
            now = self.clock()
            tries = self._clients.get(key)
            if tries is None:
                if len(self._clients) < self.limits.pairing_clients or self._forget_one(now):
                    return 0.0
                return max(min(t.until for t in self._clients.values()) - now, 0.001)
            return max(tries.until - now, 0.0)

    def wrong(self, address: str | None) -> float:
        """Count a wrong code from `address`; the seconds it must now wait."""
        key = client_key(address)
        limits = self.limits
        with self._lock:
            now = self.clock()
            tries = self._clients.pop(key, None)
            if tries is None:
                if len(self._clients) >= limits.pairing_clients and not self._forget_one(now):
                    return max(min(t.until for t in self._clients.values()) - now, 0.001)
                tries = _Tries()
            self._clients[key] = tries  # the most recently seen last
            tries.wrong += 1
            over = tries.wrong - limits.pairing_free_tries
            if over <= 0:
                return 0.0
            seconds = min(limits.pairing_backoff_seconds * 2.0 ** min(over - 1, 64),
                          limits.pairing_backoff_max_seconds)  # fmt: skip
            tries.until = now + seconds
            return seconds

    def right(self, address: str | None) -> None:
        """A right code: `address` starts afresh."""
        with self._lock:
            self._clients.pop(client_key(address), None)

    def __len__(self) -> int:
        return len(self._clients)

    def _forget_one(self, now: float) -> bool:
        for key, tries in self._clients.items():  # least recently seen first
            if tries.until <= now:
                del self._clients[key]
                return True
        return False


class PairingLocked(Exception):
    """This client must wait before its next code."""

    def __init__(self, seconds: float) -> None:
        super().__init__(f"too many wrong codes from this device: try again in "
                         f"{math.ceil(seconds)} s")  # fmt: skip
        self.seconds = seconds


def guard() -> PairingGuard:
    result: PairingGuard = current_app.extensions["cribcam.pairing"]
    return result


def devices() -> Devices:
    result: Devices = current_app.extensions["cribcam.devices"]
    return result


def check_code(given: str) -> bool:
    """Compare a code in constant time, counting this client's wrong ones; `PairingLocked`
    while it must wait."""
    code: str | None = current_app.config.get("PAIRING_CODE")
    if code is None:
        return True
    address = request.remote_addr
    waiting = guard().wait(address)
    if waiting > 0:
        raise PairingLocked(waiting)
    if hmac.compare_digest(given.strip().encode(), code.encode()):
        guard().right(address)
        return True
    guard().wrong(address)
    return False


def this_device() -> Device | None:
    """The paired device this request's cookie names, if any."""
    return devices().find(session.get("device"))


def _paired() -> bool:
    code: str | None = current_app.config.get("PAIRING_CODE")
    if code is None or (current_app.config["TRUST_LOOPBACK"] and is_loopback(request.remote_addr)):
        return True
    if this_device() is not None:
        return True
    header = request.headers.get("X-Pairing-Code")
    return header is not None and check_code(header)


def install(app: Flask) -> None:
    app.extensions["cribcam.pairing"] = PairingGuard(app.config["LIMITS"])
    app.extensions["cribcam.devices"] = Devices(app.extensions["cribcam.store"].path)

    @app.errorhandler(PairingLocked)
    def locked(error: PairingLocked) -> tuple[Response, int, dict[str, str]]:
        return jsonify(error=str(error)), 429, {"Retry-After": str(math.ceil(error.seconds))}

    @app.before_request
    def require_pairing() -> Response | BaseResponse | tuple[Response, int] | None:
        if request.endpoint in _OPEN_ENDPOINTS or _paired():
            return None
        if request.path.startswith("/api/"):
            return jsonify(error="this device is not paired: open the page and enter the "
                                 "pairing code the server printed"), 401  # fmt: skip
        return redirect(url_for("pages.pair", next=request.full_path))
