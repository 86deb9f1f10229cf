"""Pairing: on the LAN, a device must enter the code the server printed before it may act.

Requests from this machine (loopback) need no pairing. A paired browser keeps a signed cookie;
tools may send the code in an ``X-Pairing-Code`` header. After too many wrong codes pairing
stops until the server restarts, so the 6-digit code cannot be guessed by brute force.
"""

from __future__ import annotations

import hmac
import ipaddress
import secrets

from flask import Flask, Response, current_app, jsonify, redirect, request, session, url_for
from werkzeug.wrappers import Response as BaseResponse

MAX_WRONG_CODES = 10
_OPEN_ENDPOINTS = {"healthz", "static", "pages.pair", "i18n.catalog", "i18n.switch"}


def new_code() -> str:
    return f"{secrets.randbelow(10**6):06d}"


def is_loopback(address: str | None) -> bool:
    try:
        return address is not None and ipaddress.ip_address(address).is_loopback
    except ValueError:
        return False


def check_code(given: str) -> bool:
    """Compare a code in constant time, counting failures."""
    code: str | None = current_app.config.get("PAIRING_CODE")
    state = current_app.extensions["cribcam.pairing"]
    if code is None:
        return True
    if state["wrong"] >= MAX_WRONG_CODES:
        return False
    if hmac.compare_digest(given.strip().encode(), code.encode()):
        return True
    state["wrong"] += 1
    return False


def locked_out() -> bool:
    return bool(current_app.extensions["cribcam.pairing"]["wrong"] >= MAX_WRONG_CODES)


def _paired() -> bool:
    code: str | None = current_app.config.get("PAIRING_CODE")
    if code is None or is_loopback(request.remote_addr):
        return True
    if session.get("paired") == code:
        return True
    header = request.headers.get("X-Pairing-Code")
    return header is not None and check_code(header)


def install(app: Flask) -> None:
    app.extensions["cribcam.pairing"] = {"wrong": 0}

    @app.before_request
    def require_pairing() -> Response | BaseResponse | tuple[Response, int] | None:
        if request.endpoint in _OPEN_ENDPOINTS or _paired():
            return None
        if request.path.startswith("/api/"):
            return jsonify(error="this device is not paired: open the page and enter the "
                                 "pairing code the server printed"), 401  # fmt: skip
        return redirect(url_for("pages.pair", next=request.full_path))
