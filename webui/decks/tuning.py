"""The deck tune in the background: one at a time, with progress and cancel.

`cribtrain.fit.tune.tune_profile` takes minutes of CPU; the web app runs it in a thread so the pages
stay responsive, reports its progress to `GET /api/tune` and lets the player cancel it. A
failed or cancelled tune is reported, never raised into the server, and leaves the profile's
previous reader in place (the tune works in the store's staging folder). The real tune needs
the ``train`` extra (torch, ultralytics): `missing_train_packages` finds out without importing
them, so the page can say so before anything starts.
"""

from __future__ import annotations

import importlib.util
import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from cribtrain.fit.tune import (
    Cancel,
    Progress,
    TuneCancelled,
    TuneResult,
    TuneSettings,
    tune_profile,
)
from vision.decks.profiles import ProfileStore
from vision.errors import VisionError
from webui.errors import ApiError

log = logging.getLogger(__name__)

#: The `train` extra's packages the real tune imports.
TRAIN_PACKAGES = ("torch", "ultralytics")


class DeckTuner(Protocol):
    """Tunes deck `name` on the patches its profile holds (`tune_profile` with cards=None)."""

    def __call__(
        self, store: ProfileStore, name: str, *, progress: Progress, cancel: Cancel
    ) -> TuneResult: ...


class TuneRunner:
    """At most one tune at a time, in a background thread, with progress and cancel."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._cancel = threading.Event()
        self._thread: threading.Thread | None = None
        self._status: dict[str, Any] = {"state": "idle", "deck": None, "fraction": 0.0,
                                        "text": "no tune yet"}  # fmt: skip

    @property
    def deck(self) -> str | None:
        """The deck being tuned now, or None."""
        with self._lock:
            return self._status["deck"] if self._running() else None

    def start(
        self,
        deck: str,
        job: Callable[[Progress, Cancel], TuneResult],
        done: Callable[[TuneResult], None],
    ) -> dict[str, Any]:
        with self._lock:
            if self._running():
                raise ApiError(f"a tune is already running (deck {self._status['deck']!r}): "
                               "wait for it or cancel it", 409)  # fmt: skip
            self._cancel = threading.Event()
            self._status = {"state": "running", "deck": deck, "fraction": 0.0,
                            "text": "starting", "started": time.time()}  # fmt: skip
            self._thread = threading.Thread(target=self._run, args=(job, done, self._cancel),
                                            name="cribcam tune", daemon=True)  # fmt: skip
            self._thread.start()
            return self._view()

    def cancel(self) -> dict[str, Any]:
        with self._lock:
            if not self._running():
                raise ApiError("no tune is running", 409)
            self._cancel.set()
            self._status.update(state="cancelling", text="cancelling…")
            return self._view()

    def status(self) -> dict[str, Any]:
        with self._lock:
            return self._view()

    def wait(self, timeout: float) -> bool:
        """Wait for the running tune to end; whether none is running now."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
        return thread is None or not thread.is_alive()

    def _running(self) -> bool:
        return self._status["state"] in ("running", "cancelling")

    def _view(self) -> dict[str, Any]:
        view = dict(self._status)
        started = view.pop("started", None)
        if started is not None and "seconds" not in view:
            view["seconds"] = round(time.time() - started, 1)
        return view

    def _progress(self, fraction: float, text: str) -> None:
        with self._lock:
            if self._status["state"] == "running":
                self._status.update(fraction=round(min(max(fraction, 0.0), 1.0), 3), text=text)

    def _run(self, job: Callable[[Progress, Cancel], TuneResult],
             done: Callable[[TuneResult], None], cancel: threading.Event) -> None:  # fmt: skip
        try:
            result = job(self._progress, cancel.is_set)
        except TuneCancelled:
            self._end(state="cancelled", text="cancelled: the deck's previous profile is kept")
        except Exception as error:  # a failed tune is reported, never raised into the server
            if not isinstance(error, VisionError):
                log.exception("the deck tune failed")
            self._end(state="failed", text="the tune failed: the previous profile is kept",
                      error=str(error) or type(error).__name__)  # fmt: skip
        else:
            try:
                done(result)
            except Exception:
                log.exception("after the deck tune")
            self._end(state="done", fraction=1.0, text="done", deck=result.profile.name,
                      accuracy_before=result.accuracy_before,
                      accuracy_after=result.accuracy_after, held_out=result.held_out,
                      kept_base=result.kept_base, ink=result.profile.record.get("ink"),
                      seconds=round(result.seconds, 1))  # fmt: skip

    def _end(self, **fields: Any) -> None:
        with self._lock:
            started = self._status.get("started")
            if started is not None and "seconds" not in fields:
                fields["seconds"] = round(time.time() - started, 1)
            self._status.update(fields)
            self._status.pop("started", None)


def vision_tuner(base_models: Path, budget_s: float) -> DeckTuner:
    """The real tune (`cribtrain.fit.tune.tune_profile`) on the profile's patches."""

    def tune(store: ProfileStore, name: str, *, progress: Progress, cancel: Cancel) -> TuneResult:
        return tune_profile(store, name, None, base_models=base_models,
                            settings=TuneSettings(budget_s=budget_s), progress=progress,
                            cancel=cancel)  # fmt: skip

    return tune


def missing_train_packages() -> list[str]:
    """The `train` extra's packages that are not installed (found without importing them)."""
    return [name for name in TRAIN_PACKAGES if importlib.util.find_spec(name) is None]
