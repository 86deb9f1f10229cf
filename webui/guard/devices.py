"""Paired devices: each a random token its browser keeps in the signed session cookie.

Only a hash of the token is stored (in the games database, so pairings survive restarts), with
what the host's page shows to tell devices apart: the browser's name, the address it paired
from, and when. Revoking a device deletes its row: its cookie no longer pairs it.
"""

from __future__ import annotations

import hashlib
import secrets
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

_SCHEMA = """
CREATE TABLE IF NOT EXISTS devices (
    id TEXT PRIMARY KEY,
    token_hash TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    address TEXT NOT NULL,
    paired REAL NOT NULL
);
"""


@dataclass(frozen=True)
class Device:
    id: str
    name: str
    address: str
    paired: float

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


class Devices:
    """The paired devices of a database file. A short-lived connection per call: thread-safe."""

    def __init__(self, path: str | Path) -> None:
        self.path = str(path)
        with self._connect() as db:
            db.executescript(_SCHEMA)

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        db = sqlite3.connect(self.path, timeout=30, isolation_level=None)
        try:
            yield db
        finally:
            db.close()

    def add(self, name: str, address: str) -> tuple[Device, str]:
        """A new paired device and its token (which only its cookie keeps)."""
        token = secrets.token_urlsafe(32)
        device = Device(secrets.token_hex(4), name[:80] or "a browser", address, time.time())
        with self._connect() as db:
            db.execute(
                "INSERT INTO devices (id, token_hash, name, address, paired)"
                " VALUES (?, ?, ?, ?, ?)",
                (device.id, _hash(token), device.name, device.address, device.paired),
            )
        return device, token

    def find(self, token: Any) -> Device | None:
        """The device holding `token`, or None (revoked, never paired, or not a token)."""
        if not isinstance(token, str) or not token:
            return None
        with self._connect() as db:
            row = db.execute("SELECT id, name, address, paired FROM devices WHERE token_hash = ?",
                             (_hash(token),)).fetchone()  # fmt: skip
        return None if row is None else Device(*row)

    def all(self) -> list[Device]:
        """Every paired device, the most recently paired first."""
        with self._connect() as db:
            rows = db.execute("SELECT id, name, address, paired FROM devices ORDER BY paired DESC")
            return [Device(*row) for row in rows]

    def revoke(self, device_id: str) -> bool:
        """Unpair a device; False when there is no such device."""
        with self._connect() as db:
            return db.execute("DELETE FROM devices WHERE id = ?", (device_id,)).rowcount > 0


def browser_name(user_agent: str) -> str:
    """A short name for a browser from its User-Agent, to tell paired devices apart.

    >>> browser_name("Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) ... Safari/604.1")
    'iPhone'
    >>> browser_name("curl/8.5.0")
    'curl/8.5.0'
    """
    for word in ("iPhone", "iPad", "Android", "Windows", "Macintosh", "Linux", "CrOS"):
        if word in user_agent:
            return {"Macintosh": "Mac", "CrOS": "Chromebook"}.get(word, word)
    return user_agent.split(" ", 1)[0][:40] or "a browser"
