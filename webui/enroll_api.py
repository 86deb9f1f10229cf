"""Teaching cribcam a deck from the page: enrolment sessions, deck profiles and the tune.

The flow of `cribcam enroll` and `cribcam deck` (vision/enroll_cli.py) over HTTP. A session
(`POST /api/enroll`) takes shots of the deck laid out, one suit per shot in A..K order or any
arrangement; each shot is read at once (`vision.enroll.propose`) and the answer is every card
found so far, numbered, with its proposed identity, whether the layout order and the model
disagree, a crop to show and the missing and duplicated cards. The player corrects cards with a
tap; finishing saves the confirmed index patches as the deck's profile (`vision.profiles`) and
starts the tune (`vision.tune.tune_profile`) in a background thread, one at a time, with
progress and cancel. A failed or cancelled tune leaves the profile's previous reader in place.

Sessions live in memory only (a few, for a few hours): they are short-lived. The deck in use
is read by the app's detector (`PhotoReader.use_reader`) from the next photo or frame on.

Configuration (`create_app`): ``DECKS_DIR`` (the profiles' folder; None: `<models>/decks` or
the user data dir), ``DECK_TUNER`` (a `DeckTuner`; None: `tune_profile` on the base models,
which needs the ``train`` extra), ``DECK_TUNE_SECONDS`` (the tune's budget) and
``ENROLL_READER`` (a factory of an `EnrollReader`; None: the detector's card reader).
"""

from __future__ import annotations

import importlib.util
import logging
import math
import secrets
import shutil
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np
import numpy.typing as npt
from flask import (
    Blueprint,
    Flask,
    Response,
    current_app,
    jsonify,
    render_template,
    request,
    url_for,
)

from scorer.cards import parse_card
from vision.detections import CLASS_NAMES, Detections
from vision.detector import MODELS_DIR, READER_FILE
from vision.enroll import (
    SUITS,
    Candidate,
    Enrollment,
    EnrollmentError,
    Shot,
    crop_from_patch,
    cut_patch,
    propose,
)
from vision.errors import VisionError
from vision.profiles import Profile, ProfileError, ProfileStore, default_root, write_patch
from vision.sources import decode_image
from vision.tune import WEIGHTS_FILE, TuneCancelled, TuneResult, TuneSettings, tune_profile
from webui.bodies import check_fields, json_object
from webui.errors import ApiError, NoDetectorError
from webui.images import image_kind

log = logging.getLogger(__name__)

Image = npt.NDArray[np.uint8]
Progress = Callable[[float, str], None]
Cancel = Callable[[], bool]

#: Sessions held at once (the oldest is dropped) and how long an untouched one is kept.
MAX_SESSIONS = 6
SESSION_IDLE_S = 3 * 3600.0
#: Shots one session takes ("any" arrangement; a suits session takes one per suit).
MAX_SHOTS = 12
#: Side of the crop shown for each card on the page.
CROP_PX = 96
DEFAULT_SUITS = ("C", "D", "H", "S")
SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
TRAIN_PACKAGES = ("torch", "ultralytics")
TRAIN_HINT = 'pip install -e ".[train]"'
#: Requests that read with the detector: they first pick up a change of the deck in use.
DETECTING_ENDPOINTS = {"api.detect", "api.frame", "enroll.add_shot"}

enroll_api = Blueprint("enroll", __name__, url_prefix="/api")
enroll_pages = Blueprint("enroll_pages", __name__)


class EnrollReader(Protocol):
    """What enrolment reads shots with (`vision.detector.CardReader` is one)."""

    def read(self, frame: Image) -> Detections: ...

    def classify(self, crops: Image) -> npt.NDArray[np.float32]: ...


class DeckTuner(Protocol):
    """Tunes deck `name` on the patches its profile holds (`tune_profile` with cards=None)."""

    def __call__(
        self, store: ProfileStore, name: str, *, progress: Progress, cancel: Cancel
    ) -> TuneResult: ...


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


# -- sessions ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class HeldShot:
    number: int
    suit: str | None
    size: tuple[int, int]


@dataclass
class Session:
    """One enrolment in progress: its shots' candidates, numbered across shots."""

    id: str
    name: str
    suits: tuple[str, ...] | None  # None: any arrangement
    enrollment: Enrollment = field(default_factory=lambda: Enrollment([], ()))
    shots: list[HeldShot] = field(default_factory=list)
    next_shot: int = 1
    next_number: int = 1
    touched: float = field(default_factory=time.monotonic)
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def next_suit(self) -> str | None:
        """The suit the next shot holds (suits mode): the first of the order not yet shot."""
        held = {shot.suit for shot in self.shots}
        return next((s for s in self.suits or () if s not in held), None)

    def add(self, image: Image, suit: str | None, reader: EnrollReader) -> HeldShot:
        found = propose([Shot(image, suit)], lambda frame: reader.read(frame).boxes,
                        reader.classify)  # fmt: skip
        if not found.candidates:
            raise ApiError("no card index was found in this shot: lay the cards face up and "
                           "apart, in good light, and fill the picture with them", 422)  # fmt: skip
        height, width = image.shape[:2]
        shot = HeldShot(self.next_shot, suit, (width, height))
        self.next_shot += 1
        for candidate in found.candidates:
            candidate.number, candidate.shot = self.next_number, shot.number
            self.next_number += 1
        self.enrollment.candidates.extend(found.candidates)
        self.shots.append(shot)
        self._expect()
        return shot

    def remove(self, number: int) -> None:
        if not any(shot.number == number for shot in self.shots):
            raise ApiError(f"this enrolment has no shot {number}", 404)
        self.shots = [shot for shot in self.shots if shot.number != number]
        self.enrollment.candidates = [c for c in self.enrollment.candidates if c.shot != number]
        self._expect()

    def candidate(self, number: int) -> Candidate:
        try:
            return self.enrollment.get(number)
        except EnrollmentError:
            raise ApiError(f"this enrolment has no card numbered {number}", 404) from None

    def _expect(self) -> None:
        """The cards the shots should hold: their suits', or the whole deck."""
        if self.suits is None:
            self.enrollment.expected = CLASS_NAMES
        else:
            held = {shot.suit for shot in self.shots}
            self.enrollment.expected = tuple(c for c in CLASS_NAMES if c[-1] in held)


class Sessions:
    """The enrolment sessions in memory, bounded in number and age; thread-safe."""

    def __init__(self, keep: int = MAX_SESSIONS, idle_s: float = SESSION_IDLE_S) -> None:
        self._keep, self._idle_s = keep, idle_s
        self._lock = threading.Lock()
        self._sessions: OrderedDict[str, Session] = OrderedDict()

    def new(self, name: str, suits: tuple[str, ...] | None) -> Session:
        session = Session(secrets.token_hex(6), name, suits)
        with self._lock:
            self._expire()
            self._sessions[session.id] = session
            while len(self._sessions) > self._keep:
                self._sessions.popitem(last=False)
        return session

    def get(self, sid: str) -> Session:
        with self._lock:
            self._expire()
            session = self._sessions.get(sid)
            if session is None:
                raise ApiError(f"no enrolment session {sid!r}: it ended or expired (sessions "
                               "are kept a few hours, in memory): start again", 404)  # fmt: skip
            session.touched = time.monotonic()
            self._sessions.move_to_end(sid)
            return session

    def drop(self, sid: str) -> None:
        self.get(sid)
        with self._lock:
            self._sessions.pop(sid, None)

    def _expire(self) -> None:
        now = time.monotonic()
        for sid in [s.id for s in self._sessions.values() if now - s.touched > self._idle_s]:
            del self._sessions[sid]


# -- the tune ---------------------------------------------------------------------------------
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
                      seconds=round(result.seconds, 1))  # fmt: skip

    def _end(self, **fields: Any) -> None:
        with self._lock:
            started = self._status.get("started")
            if started is not None and "seconds" not in fields:
                fields["seconds"] = round(time.time() - started, 1)
            self._status.update(fields)
            self._status.pop("started", None)


def vision_tuner(base_models: Path, budget_s: float) -> DeckTuner:
    """The real tune (`vision.tune.tune_profile`) on the profile's patches."""

    def tune(store: ProfileStore, name: str, *, progress: Progress, cancel: Cancel) -> TuneResult:
        return tune_profile(store, name, None, base_models=base_models,
                            settings=TuneSettings(budget_s=budget_s), progress=progress,
                            cancel=cancel)  # fmt: skip

    return tune


def missing_train_packages() -> list[str]:
    """The `train` extra's packages that are not installed (found without importing them)."""
    return [name for name in TRAIN_PACKAGES if importlib.util.find_spec(name) is None]


# -- the app's deck state ---------------------------------------------------------------------
class Decks:
    """The profiles, the enrolment sessions, the tune and the reader the detector was given."""

    def __init__(self, app: Flask) -> None:
        detector = app.config.get("DETECTOR")
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
        """The stored decks (a tune's staging folder is not one)."""
        found = []
        for name in self.store.names():
            try:
                found.append(self.store.get(name))
            except (ProfileError, OSError, ValueError):
                continue
        return found

    def reader_in_use(self) -> Path | None:
        """The tuned reader of the deck in use; None: the base (no deck, or one not tuned)."""
        name = self.store.active()
        if name is None:
            return None
        profile = self.store.get(name)
        return profile.reader if profile.tuned else None

    def sync_detector(self) -> None:
        """Hand the deck in use's reader to the detector when it changed (chosen here or by
        `cribcam deck use`, renamed, deleted or re-tuned); detectors without `use_reader`
        (test doubles) are left alone."""
        use = getattr(self.app.config.get("DETECTOR"), "use_reader", None)
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

    def tune_unavailable(self) -> str | None:
        """Why the real tune cannot run here (None: it can, or a tuner was given)."""
        if self.app.config.get("DECK_TUNER") is not None:
            return None
        missing = missing_train_packages()
        if missing:
            return (f"tuning needs the train extra ({', '.join(missing)} not installed): "
                    f"{TRAIN_HINT}")  # fmt: skip
        for needed in (self.base_models / READER_FILE, self.base_models / WEIGHTS_FILE):
            if not needed.exists():
                return f"tuning needs the base reader's files: {needed} is missing"
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


# -- JSON views -------------------------------------------------------------------------------
def candidate_json(session: Session, c: Candidate) -> dict[str, Any]:
    return {
        "number": c.number,
        "shot": c.shot,
        "card": c.card,
        "proposed": c.proposed,
        "model": c.model_card,
        "confidence": round(c.model_confidence, 3),
        "layout": c.layout_card,
        "confirmed": c.confirmed,
        "not_card": c.skipped,
        "disagree": c.layout_card is not None and c.layout_card != c.model_card,
        "flagged": c.flagged,
        "indices": len(c.boxes),
        "crop": url_for("enroll.crop", sid=session.id, number=c.number),
    }


def session_json(session: Session) -> dict[str, Any]:
    problems = session.enrollment.problems()
    candidates = session.enrollment.candidates
    counted = sum(c.card is not None for c in candidates)
    return {
        "id": session.id,
        "name": session.name,
        "mode": "any" if session.suits is None else "suits",
        "suits": None if session.suits is None else list(session.suits),
        "next_suit": session.next_suit(),
        "shots": [
            {
                "shot": shot.number,
                "suit": shot.suit,
                "size": list(shot.size),
                "cards": sum(c.shot == shot.number for c in candidates),
            }
            for shot in session.shots
        ],
        "candidates": [candidate_json(session, c) for c in candidates],
        "cards": counted,
        "flagged": sum(c.flagged for c in candidates),
        "missing": list(problems.missing),
        "duplicates": {card: list(numbers) for card, numbers in problems.duplicates.items()},
        "problems": problems.lines(),
        "ready": counted > 0 and not problems.duplicates,
    }


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
        "crops": len(crops),
        "cards": len({c.get("card") for c in crops}),
        "corrections": sum(c.get("source") == "game" for c in crops),
    }


def decks_json(the_decks: Decks) -> dict[str, Any]:
    active = the_decks.store.active()
    unavailable = the_decks.tune_unavailable()
    return {
        "active": active,
        "decks": [deck_json(p, active) for p in the_decks.profiles()],
        "tune": the_decks.tuner.status(),
        "tuning": unavailable is None,
        "tuning_unavailable": unavailable,
    }


# -- request helpers --------------------------------------------------------------------------
def _image() -> Image:
    """The uploaded image (raw bytes, `Content-Type: image/...`), decoded."""
    mimetype = request.mimetype
    if not mimetype.startswith("image/"):
        raise ApiError(f"send the image bytes with Content-Type image/jpeg or image/png, "
                       f"not {mimetype or 'none'!r}", 415)  # fmt: skip
    data = request.get_data(cache=False)
    image_kind(data)
    try:
        return decode_image(data)
    except ValueError as error:
        raise ApiError(f"the image could not be read: {error}") from None


def _optional_object() -> dict[str, Any]:
    return json_object() if request.get_data(cache=True).strip() else {}


def _flag(body: dict[str, Any], name: str, default: bool) -> bool:
    value = body.get(name, default)
    if not isinstance(value, bool):
        raise ApiError(f"'{name}' must be true or false, not {value!r}")
    return value


def _checked_name(value: Any, what: str = "'name'") -> str:
    if not isinstance(value, str):
        raise ApiError(f"{what} must be a deck name, not {value!r}")
    try:
        decks().store.exists(value)
    except ProfileError as error:
        raise ApiError(str(error)) from None
    return value


def _profile(name: Any, what: str = "the deck") -> Profile:
    store = decks().store
    if not store.exists(_checked_name(name, what)):
        known = ", ".join(p.name for p in decks().profiles()) or "none"
        raise ApiError(f"no deck named {name!r} (known: {known})", 404)
    return store.get(name)


def _not_tuning(name: str, doing: str) -> None:
    if decks().tuner.deck == name:
        raise ApiError(f"deck {name!r} is being tuned: {doing} after the tune, or cancel it", 409)


def _suits(body: dict[str, Any]) -> tuple[str, ...] | None:
    mode = body.get("mode", "suits")
    if mode not in ("suits", "any"):
        raise ApiError(f"'mode' must be \"suits\" (one suit per shot, laid out A to K) or "
                       f"\"any\" (any arrangement), not {mode!r}")  # fmt: skip
    if mode == "any":
        if "suits" in body:
            raise ApiError("'suits' goes with mode \"suits\" only")
        return None
    value = body.get("suits", list(DEFAULT_SUITS))
    if isinstance(value, str):
        value = list(value.replace(" ", ""))
    if (not isinstance(value, list) or not 1 <= len(value) <= 4
            or not all(isinstance(s, str) and s.upper() in SUITS for s in value)
            or len({s.upper() for s in value}) != len(value)):  # fmt: skip
        raise ApiError(f"'suits' must be the order the suits are shot in, each of C, D, H, S "
                       f"once, e.g. [\"C\", \"D\", \"H\", \"S\"], not {value!r}")  # fmt: skip
    return tuple(s.upper() for s in value)


def _shot_suit(session: Session, given: str | None) -> str | None:
    if session.suits is None:
        if given is not None:
            raise ApiError("this enrolment takes any arrangement: a shot has no 'suit'")
        if len(session.shots) >= MAX_SHOTS:
            raise ApiError(f"an enrolment takes at most {MAX_SHOTS} shots: delete one first", 409)
        return None
    held = {shot.suit for shot in session.shots}
    if given is None:
        suit = session.next_suit()
        if suit is None:
            raise ApiError(f"every suit of this enrolment is shot ({' '.join(session.suits)}): "
                           "delete a shot to take it again", 409)  # fmt: skip
        return suit
    suit = given.upper()
    if suit not in session.suits:
        raise ApiError(f"'suit' must be one of this enrolment's suits "
                       f"({' '.join(session.suits)}), not {given!r}")  # fmt: skip
    if suit in held:
        raise ApiError(f"the {SUIT_NAMES[suit]} are shot already: delete that shot to take "
                       "it again", 409)  # fmt: skip
    return suit


def _enroll_reader() -> EnrollReader:
    factory = current_app.config.get("ENROLL_READER")
    if factory is not None:
        reader: EnrollReader = factory()
        return reader
    card_reader = getattr(current_app.config.get("DETECTOR"), "card_reader", None)
    if not callable(card_reader):
        raise NoDetectorError("no card model installed: enrolment needs it to find the cards")
    try:
        loaded: EnrollReader = card_reader()
    except VisionError as error:
        raise NoDetectorError(f"the card model could not be loaded: {error}") from None
    return loaded


def _box(text: str | None, shape: tuple[int, ...]) -> npt.NDArray[np.float32]:
    """``x1,y1,x2,y2`` in image pixels, inside the image."""
    try:
        values = [float(v) for v in (text or "").split(",")]
    except ValueError:
        values = []
    height, width = shape[:2]
    if (len(values) != 4 or not all(math.isfinite(v) for v in values)
            or not 0 <= values[0] < values[2] <= width or not 0 <= values[1] < values[3] <= height
            or min(values[2] - values[0], values[3] - values[1]) < 2):  # fmt: skip
        raise ApiError(f"'box' must be the misread corner index as x1,y1,x2,y2 in pixels inside "
                       f"the {width} × {height} image, not {text!r}")  # fmt: skip
    return np.array(values, np.float32)


# -- enrolment endpoints ----------------------------------------------------------------------
@enroll_api.post("/enroll")
def start() -> tuple[Response, int]:
    body = json_object()
    check_fields(body, {"name", "mode", "suits"}, "an enrolment")
    name = _checked_name(body.get("name"))
    suits = _suits(body)
    session = decks().sessions.new(name, suits)
    replaces = decks().store.exists(name)
    return jsonify({**session_json(session), "replaces": replaces}), 201


@enroll_api.get("/enroll/<sid>")
def get_session(sid: str) -> Response:
    session = decks().sessions.get(sid)
    with session.lock:
        return jsonify(session_json(session))


@enroll_api.delete("/enroll/<sid>")
def drop_session(sid: str) -> Response:
    decks().sessions.drop(sid)
    return jsonify(deleted=sid)


@enroll_api.post("/enroll/<sid>/shots")
def add_shot(sid: str) -> tuple[Response, int]:
    session = decks().sessions.get(sid)
    image = _image()
    with session.lock:
        suit = _shot_suit(session, request.args.get("suit"))
        shot = session.add(image, suit, _enroll_reader())
        added = {
            "shot": shot.number,
            "suit": shot.suit,
            "cards": sum(c.shot == shot.number for c in session.enrollment.candidates),
        }
        return jsonify({**session_json(session), "added": added}), 201


@enroll_api.delete("/enroll/<sid>/shots/<int:number>")
def drop_shot(sid: str, number: int) -> Response:
    session = decks().sessions.get(sid)
    with session.lock:
        session.remove(number)
        return jsonify(session_json(session))


@enroll_api.put("/enroll/<sid>/cards/<int:number>")
def correct(sid: str, number: int) -> Response:
    """The player's word on one card: ``{"card": "QH"}``, or ``{"card": null}``: not a card."""
    session = decks().sessions.get(sid)
    body = json_object()
    check_fields(body, {"card"}, "a correction")
    if "card" not in body:
        raise ApiError("'card' is required: a card such as \"QH\", or null for not a card")
    value = body["card"]
    if value is not None and not isinstance(value, str):
        raise ApiError(f"'card' must be a card such as \"QH\", or null, not {value!r}")
    the_card = None if value is None or value.strip() == "-" else str(parse_card(value))
    with session.lock:
        session.candidate(number)
        session.enrollment.correct(number, the_card)
        return jsonify(session_json(session))


@enroll_api.get("/enroll/<sid>/crops/<int:number>.jpg")
def crop(sid: str, number: int) -> Response:
    session = decks().sessions.get(sid)
    with session.lock:
        patch = session.candidate(number).patches[0]
    ok, data = cv2.imencode(".jpg", crop_from_patch(patch, CROP_PX),
                            [cv2.IMWRITE_JPEG_QUALITY, 90])  # fmt: skip
    if not ok:
        raise ApiError("the crop could not be encoded", 500)
    return Response(bytes(data.tobytes()), mimetype="image/jpeg",
                    headers={"Cache-Control": "private, max-age=3600"})  # fmt: skip


@enroll_api.post("/enroll/<sid>/finish")
def finish(sid: str) -> tuple[Response, int]:
    """Save the confirmed patches as the deck's profile, then tune it (unless told not to)."""
    the_decks = decks()
    session = the_decks.sessions.get(sid)
    body = _optional_object()
    check_fields(body, {"tune", "use"}, "finishing an enrolment")
    tune, use = _flag(body, "tune", True), _flag(body, "use", True)
    with session.lock:
        try:
            cards = session.enrollment.labelled()
        except EnrollmentError as error:
            raise ApiError(str(error), 409) from None
        running = the_decks.tuner.deck
        if running is not None and (tune or running == session.name):
            raise ApiError(f"a tune is running (deck {running!r}): wait for it or cancel it", 409)
        profile = save_enrolment(the_decks.store, session.name, cards)
        answer = {"deck": deck_json(profile, the_decks.store.active()),
                  "session": session_json(session)}  # fmt: skip
    if not tune:
        return jsonify(answer), 200
    unavailable = the_decks.tune_unavailable()
    if unavailable is not None:
        saved = f"the {len(cards)} confirmed cards are saved in deck {session.name!r}"
        return jsonify(error=f"{unavailable}; {saved}", **answer), 503
    answer["tune"] = the_decks.start_tune(session.name, use=use)
    return jsonify(answer), 202


# -- decks ------------------------------------------------------------------------------------
@enroll_api.get("/decks")
def list_decks() -> Response:
    the_decks = decks()
    the_decks.sync_detector()
    return jsonify(decks_json(the_decks))


@enroll_api.post("/decks/use")
def use_deck() -> Response:
    """``{"name": "kitchen"}`` reads with that deck's tuned reader; ``{"name": null}``: the base."""
    body = json_object()
    check_fields(body, {"name"}, "choosing a deck")
    if "name" not in body:
        raise ApiError("'name' is required: a deck name, or null for the base model")
    the_decks = decks()
    if body["name"] is None:
        the_decks.store.use(None)
    else:
        profile = _profile(body["name"], "'name'")
        if not profile.tuned:
            raise ApiError(f"deck {profile.name!r} has not been tuned yet: tune it first "
                           "(its cards are saved)", 409)  # fmt: skip
        the_decks.store.use(profile.name)
    the_decks.sync_detector()
    return jsonify(decks_json(the_decks))


@enroll_api.patch("/decks/<name>")
def rename_deck(name: str) -> Response:
    """``{"name": "new name"}``."""
    the_decks = decks()
    profile = _profile(name)
    body = json_object()
    check_fields(body, {"name"}, "renaming a deck")
    new = _checked_name(body.get("name"))
    if new != profile.name:
        if the_decks.store.exists(new):
            raise ApiError(f"a deck named {new!r} already exists", 409)
        _not_tuning(profile.name, "rename it")
        the_decks.store.rename(profile.name, new)
        the_decks.sync_detector()
    return jsonify(decks_json(the_decks))


@enroll_api.delete("/decks/<name>")
def delete_deck(name: str) -> Response:
    the_decks = decks()
    profile = _profile(name)
    _not_tuning(profile.name, "delete it")
    the_decks.store.delete(profile.name)
    the_decks.sync_detector()
    return jsonify({"deleted": profile.name, **decks_json(the_decks)})


@enroll_api.post("/decks/<name>/tune")
def retune(name: str) -> tuple[Response, int]:
    """Tune a deck again on its patches: the enrolment's and the game corrections since."""
    the_decks = decks()
    profile = _profile(name)
    if not profile.crops():
        raise ApiError(f"deck {profile.name!r} holds no confirmed cards: enrol it first", 409)
    unavailable = the_decks.tune_unavailable()
    if unavailable is not None:
        raise ApiError(unavailable, 503)
    return jsonify(tune=the_decks.start_tune(profile.name, use=False)), 202


@enroll_api.post("/decks/corrections")
def add_correction() -> tuple[Response, int]:
    """A card misread in a game, kept for the deck's next tune (`cribcam deck correct`):
    the photo's bytes, ``?card=QH&box=x1,y1,x2,y2`` (the misread index) and optionally
    ``&deck=NAME`` (default: the deck in use)."""
    the_decks = decks()
    image = _image()
    card_text = request.args.get("card")
    if not card_text:
        raise ApiError("'card' is required: what the card really is, e.g. ?card=QH")
    the_card = str(parse_card(card_text))
    box = _box(request.args.get("box"), image.shape)
    name = request.args.get("deck") or the_decks.store.active()
    if name is None:
        raise ApiError("no deck is in use: choose one, or name it with ?deck=NAME", 409)
    profile = _profile(name)
    _not_tuning(profile.name, "correct it")
    relative = the_decks.store.add_correction(profile.name, cut_patch(image, box), the_card)
    saved = deck_json(the_decks.store.get(profile.name), the_decks.store.active())
    return jsonify(deck=saved, card=the_card, file=relative), 201


@enroll_api.get("/tune")
def tune_status() -> Response:
    return jsonify(decks().tuner.status())


@enroll_api.post("/tune/cancel")
def cancel_tune() -> Response:
    return jsonify(decks().tuner.cancel())


# -- the page ---------------------------------------------------------------------------------
@enroll_pages.get("/enroll")
def page() -> str:
    return render_template("enroll.html")


def install(app: Flask) -> None:
    """Register the blueprints and the deck state; the deck in use reads from the start."""
    the_decks = app.extensions["cribcam.decks"] = Decks(app)
    app.register_blueprint(enroll_api)
    app.register_blueprint(enroll_pages)

    @app.before_request
    def follow_the_deck_in_use() -> None:
        if request.endpoint in DETECTING_ENDPOINTS:
            the_decks.sync_detector()

    @app.context_processor
    def deck_in_use() -> dict[str, Any]:
        try:
            return {"deck_in_use": the_decks.store.active()}
        except (OSError, ValueError):
            return {"deck_in_use": None}

    the_decks.sync_detector()


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
