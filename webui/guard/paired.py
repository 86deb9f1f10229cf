"""The host's page of paired devices: which devices paired over `--lan`, and unpairing one.

Only this machine (loopback) may see or change the list: a paired phone cannot unpair
another, nor keep itself paired once the host has unpaired it.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Flask, Response, current_app, jsonify, render_template, request

from webui.errors import ApiError
from webui.guard.pairing import devices, is_loopback

paired = Blueprint("paired", __name__)


def _host_only() -> None:
    if not is_loopback(request.remote_addr):
        raise ApiError("only the host computer itself can see and unpair paired devices", 403)


def _listing() -> dict[str, Any]:
    return {"pairing": current_app.config.get("PAIRING_CODE") is not None,
            "devices": [device.to_json() for device in devices().all()]}  # fmt: skip


@paired.get("/devices")
def page() -> str:
    _host_only()
    return render_template("devices.html", **_listing())


@paired.get("/api/devices")
def listing() -> Response:
    _host_only()
    return jsonify(_listing())


@paired.delete("/api/devices/<device_id>")
def revoke(device_id: str) -> Response:
    _host_only()
    if not devices().revoke(device_id):
        raise ApiError(f"no paired device {device_id!r}", 404)
    return jsonify({"revoked": device_id, **_listing()})


def install(app: Flask) -> None:
    app.register_blueprint(paired)

    @app.context_processor
    def devices_link() -> dict[str, Any]:
        """The home page links to the list on the host itself, when others may pair."""
        return {"devices_link": app.config.get("PAIRING_CODE") is not None
                and is_loopback(request.remote_addr)}  # fmt: skip
