"""Whether this server reads cards: the reader's self-check at start-up, run in the background
so the page serves at once, and a reader that cannot run said once in the log, not a traceback
a frame."""

from __future__ import annotations

import logging
import threading
from typing import Any, Literal, Protocol, runtime_checkable

from vision.photo_reader import SelfCheck

log = logging.getLogger(__name__)

#: none: no reader configured; checking: the self-check runs; reads: it read the self-check
#: photo right; fails: it could not (the detail says why); unchecked: a reader without one.
ReaderState = Literal["none", "checking", "reads", "fails", "unchecked"]


@runtime_checkable
class SelfChecking(Protocol):
    def self_check(self) -> SelfCheck: ...


class ReaderHealth:
    """The configured reader's state for `/healthz`, and the log of its failures."""

    def __init__(self, reader: object | None) -> None:
        self.state: ReaderState = "none" if reader is None else "unchecked"
        self.detail = ""
        self._logged: set[str] = set()
        self._lock = threading.Lock()
        self.done = threading.Event()
        if isinstance(reader, SelfChecking):
            self.state = "checking"
            threading.Thread(target=self._check, args=(reader,), name="reader self-check",
                             daemon=True).start()  # fmt: skip
        else:
            self.done.set()

    def _check(self, reader: SelfChecking) -> None:
        try:
            check = reader.self_check()
        except Exception as error:  # a bug in reading must not leave the state "checking"
            check = SelfCheck(False, f"{type(error).__name__}: {error}")
        with self._lock:
            self.state, self.detail = ("reads" if check.ok else "fails"), check.detail
        if check.ok:
            log.info("card reader: %s", check.detail)
        else:
            self.failed(check.detail)
        self.done.set()

    def failed(self, message: str) -> None:
        """Log a reading failure, once for each distinct message."""
        with self._lock:
            if message in self._logged:
                return
            self._logged.add(message)
            self.state, self.detail = "fails", message
        log.error("card reader: %s (the page asks for the cards by hand)", message)

    def as_json(self) -> dict[str, Any]:
        with self._lock:
            return {"state": self.state, "detail": self.detail}
