"""The app's deck state: the stored profiles, the deck in use and the reader it reads with.

One `Decks` per app (``app.extensions["cribcam.decks"]``) holds the profile store, the
enrolment sessions and the tune runner, and hands the deck in use's tuned reader to the
detector (`PhotoReader.use_reader`) when it changed, here or through `cribcam deck` (looked at
on the deck requests and before each request that reads cards): the photo endpoints and the
server camera read with it from their next image on. Saving an
enrolment as a profile and the decks' JSON views live here too, beside the state they show.

Configuration (`create_app`): ``DECKS_DIR`` (the profiles' folder; None: `<models>/decks` or
the user data dir), ``DECK_TUNER`` (a `webui.decks.tuning.DeckTuner`; None: `tune_profile` on
the base models, which needs the ``train`` extra) and ``DECK_TUNE_SECONDS`` (its budget).
"""

from __future__ import annotations

import logging
import shutil
import threading
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt
from flask import Flask, current_app

from cribtrain.fit.tune import TRAIN_HINT, WEIGHTS_FILE, Cancel, Progress, TuneResult
from vision.decks.profiles import Profile, ProfileStore, default_root, write_patch
from vision.detection.models import MODELS_DIR, READER_FILE
from webui.decks.sessions import Sessions
from webui.decks.tuning import DeckTuner, TuneRunner, missing_train_packages, vision_tuner
from webui.errors import ApiError

log = logging.getLogger(__name__)

Image = npt.NDArray[np.uint8]

#: Why a tune cannot run, as codes for the page: the `train` extra is not installed; the base
#: reader's files are missing.
NO_TRAIN_EXTRA, NO_BASE_READER = "no_train_extra", "no_base_reader"


class TuneBlocker(NamedTuple):
    """What stops the tune here: its code (`NO_TRAIN_EXTRA`, `NO_BASE_READER`) and the sentence."""

    code: str
    text: str


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class Decks:
    """The profiles, the enrolment sessions, the tune and the reader the detector was given."""

    def __init__(self, app: Flask) -> None:
        detector = app.config.get("PHOTO_READER")
        models = getattr(detector, "models_dir", None)
        self.base_models = models if isinstance(models, Path) else MODELS_DIR
        root = app.config.get("DECKS_DIR")
        self.store = ProfileStore(Path(root) if root else default_root(self.base_models))
        self.sessions = Sessions()
        self.tuner = TuneRunner()
        self.app = app
        self._applied: tuple[str, int] | None = None  # the reader given to the detector
        self._sync = threading.Lock()

    def profiles(self) -> list[Profile]:
        """The stored decks that can be read now: one deleted or renamed since it was listed
        (`ProfileError`, a `ValueError`) or with a damaged record is left out of the list."""
        found = []
        for name in self.store.names():
            try:
                found.append(self.store.get(name))
            except (OSError, ValueError):
                continue
        return found

    def reader_in_use(self) -> Path | None:
        """The tuned reader of the deck in use; None: the base (no deck, or one not tuned).
        Enrolment proposes with it too, as `cribcam enroll` does (`ProfileStore.reader_in_use`)."""
        return self.store.reader_in_use()

    def sync_detector(self) -> None:
        """Hand the deck in use's reader to the detector when it changed (chosen here or by
        `cribcam deck use`, renamed, deleted or re-tuned); detectors without `use_reader`
        (test doubles) are left alone."""
        use = getattr(self.app.config.get("PHOTO_READER"), "use_reader", None)
        if not callable(use):
            return
        try:
            path = self.reader_in_use()
            key = None if path is None else (str(path), path.stat().st_mtime_ns)
        except (OSError, ValueError) as error:  # mid-rename, or a damaged profile
            log.warning("the deck in use could not be read: %s", error)
            return
        with self._sync:
            if key != self._applied:
                use(path)
                self._applied = key

    def tune_blocker(self) -> TuneBlocker | None:
        """Why the real tune cannot run here (None: it can, or a tuner was given)."""
        if self.app.config.get("DECK_TUNER") is not None:
            return None
        missing = missing_train_packages()
        if missing:
            return TuneBlocker(NO_TRAIN_EXTRA, f"tuning needs the train extra "
                               f"({', '.join(missing)} not installed): {TRAIN_HINT}")  # fmt: skip
        for needed in (self.base_models / READER_FILE, self.base_models / WEIGHTS_FILE):
            if not needed.exists():
                return TuneBlocker(NO_BASE_READER, f"tuning needs the base reader's files: "
                                   f"{needed} is missing")  # fmt: skip
        return None

    def start_tune(self, name: str, *, use: bool) -> dict[str, Any]:
        tuner: DeckTuner = self.app.config.get("DECK_TUNER") or vision_tuner(
            self.base_models, float(self.app.config.get("DECK_TUNE_SECONDS") or 180.0)
        )
        store = self.store

        def job(progress: Progress, cancel: Cancel) -> TuneResult:
            return tuner(store, name, progress=progress, cancel=cancel)

        def done(result: TuneResult) -> None:
            if use:
                store.use(result.profile.name)
            self.sync_detector()

        return self.tuner.start(name, job, done)


def decks() -> Decks:
    result: Decks = current_app.extensions["cribcam.decks"]
    return result


def save_enrolment(store: ProfileStore, name: str,
                   cards: Sequence[tuple[str, Sequence[Image]]]) -> Profile:  # fmt: skip
    """Make the enrolment's confirmed patches the deck's patches (game corrections too are
    replaced, as `cribcam enroll` does). A deck tuned before keeps its reader and its
    measurements until a new tune succeeds (`needs_tune` meanwhile)."""
    previous = store.get(name) if store.exists(name) else None
    staged = store.staging(name, copy_current=previous is not None)
    try:
        shutil.rmtree(staged / "crops", ignore_errors=True)
        record: dict[str, Any] = (
            dict(previous.record) if previous else {"name": name, "created": _now()}
        )
        record["crops"] = []
        for card, patches in cards:
            for k, patch in enumerate(patches):
                write_patch(staged, card, patch, "enroll", record, held_out=k == 1)
        record["enrolled"] = _now()
        return store.commit(staged, record)
    except BaseException:
        store.discard(staged)
        raise


def stop_tune(app: Flask, timeout: float = 5.0) -> None:
    """Cancel a running tune (its staging folder is discarded) and wait a little for it."""
    the_decks: Decks | None = app.extensions.get("cribcam.decks")
    if the_decks is None:
        return
    try:
        the_decks.tuner.cancel()
    except ApiError:
        return
    the_decks.tuner.wait(timeout)


# -- JSON views -------------------------------------------------------------------------------
def deck_json(profile: Profile, active: str | None) -> dict[str, Any]:
    record = profile.record
    crops = profile.crops()
    enrolled, tuned = record.get("enrolled"), record.get("tuned")
    stale = isinstance(enrolled, str) and isinstance(tuned, str) and enrolled > tuned
    return {
        "name": profile.name,
        "active": profile.name == active,
        "tuned": profile.tuned,
        "needs_tune": not profile.tuned or stale,
        "created": record.get("created"),
        "enrolled": enrolled,
        "tuned_at": tuned,
        "accuracy_before": record.get("accuracy_before"),
        "accuracy_after": record.get("accuracy_after"),
        "held_out": record.get("held_out"),
        "kept_base": record.get("reader") == "base",
        "ink": record.get("ink"),
        "crops": len(crops),
        "cards": len({c.get("card") for c in crops}),
        "corrections": sum(c.get("source") == "game" for c in crops),
    }


def decks_json(the_decks: Decks) -> dict[str, Any]:
    active = the_decks.store.active()
    blocker = the_decks.tune_blocker()
    return {
        "active": active,
        "decks": [deck_json(p, active) for p in the_decks.profiles()],
        "tune": the_decks.tuner.status(),
        "tuning": blocker is None,
        "tuning_unavailable": None if blocker is None else blocker.text,
        "tuning_code": None if blocker is None else blocker.code,
    }
