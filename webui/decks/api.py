"""Teaching cribcam a deck from the page: the enrolment and deck endpoints, and the page.

The flow of `cribcam enroll` and `cribcam deck` (cribcam/commands/decks.py) over HTTP. A
session (`POST /api/enroll`, `webui.decks.sessions`) takes photos of the deck: any photos of
its cards (the default; a card in several photos is more examples of it), or one suit per photo
laid out A to K. Each photo is read at once and the answer is every card found so far,
numbered, with its proposed identity, whether the layout order and the model disagree, its
whole card boxed on its photo (`GET /api/enroll/<sid>/cards/<n>/where.jpg`; the corner crop
too), the cards not seen (information) and any card one photo shows twice (to correct). The
player corrects cards with a tap; finishing saves the confirmed index patches as the deck's
profile (`webui.decks.state`) and starts the tune in the background (`webui.decks.tuning`), one
at a time, with progress and cancel. A failed or cancelled tune leaves the profile's previous reader
in place.

This module is the HTTP side only: reading and checking requests, the endpoints and their
wiring into the app; the state they act on lives in the modules named above.

Configuration (`create_app`): ``ENROLL_READER`` (a factory of an `EnrollReader`; None: the
detector's card reader, which reads with the deck in use's tuned reader, else the shipped one:
`ProfileStore.reader_in_use`, the reader `cribcam enroll` proposes with too), and the deck
settings described in `webui.decks.state`.
"""

from __future__ import annotations

import math
from typing import Any

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
)

from scorer.cards import parse_card
from vision.decks.enroll import SUITS, EnrollmentError, crop_from_patch, cut_patch
from vision.decks.profiles import Profile, ProfileError
from vision.errors import VisionError
from vision.table.sources import decode_image
from webui.contract import answers, bodies
from webui.contract.routes import contract
from webui.decks.sessions import MAX_SHOTS, EnrollReader, Session, session_json, where_image
from webui.decks.state import Decks, deck_json, decks, decks_json, save_enrolment
from webui.errors import DAMAGED_IMAGE, NOT_AN_IMAGE, ApiError, NoCardModelError
from webui.guard.images import image_kind

Image = npt.NDArray[np.uint8]

#: Photos one session takes in "any" mode (a suits session takes one per suit): see
#: `webui.decks.sessions.MAX_SHOTS` (bounded by memory).
__all__ = ["MAX_SHOTS", "enroll_api", "enroll_pages", "install"]
#: Side of the crop shown for each card on the page.
CROP_PX = 96
DEFAULT_SUITS = ("C", "D", "H", "S")
SUIT_NAMES = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
#: Requests that read with the detector: they first pick up a change of the deck in use.
DETECTING_ENDPOINTS = {"camera.detect", "camera.frame", "enroll.add_shot"}

enroll_api = Blueprint("enroll", __name__, url_prefix="/api")
enroll_pages = Blueprint("enroll_pages", __name__)


# -- request helpers --------------------------------------------------------------------------
def _image() -> Image:
    """The uploaded image (raw bytes, `Content-Type: image/...`), decoded."""
    mimetype = request.mimetype
    if not mimetype.startswith("image/"):
        raise ApiError(f"send the image bytes with Content-Type image/jpeg or image/png, "
                       f"not {mimetype or 'none'!r}", 415, code=NOT_AN_IMAGE)  # fmt: skip
    data = request.get_data(cache=False)
    image_kind(data)
    try:
        return decode_image(data)
    except ValueError as error:
        raise ApiError(f"the image could not be read: {error}", code=DAMAGED_IMAGE) from None


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
    mode = body.get("mode", "suits" if "suits" in body else "any")
    if mode not in ("suits", "any"):
        raise ApiError(f"'mode' must be \"any\" (any photos of the deck) or \"suits\" (one "
                       f"suit per photo, laid out A to K), not {mode!r}")  # fmt: skip
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
            raise ApiError("this enrolment takes any photos of the deck: a photo has no 'suit'")
        if len(session.shots) >= MAX_SHOTS:
            raise ApiError.coded("enrol_too_many_photos", 409, high=MAX_SHOTS)
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
    card_reader = getattr(current_app.config.get("PHOTO_READER"), "card_reader", None)
    if not callable(card_reader):
        raise NoCardModelError("no card model installed: enrolment needs it to find the cards")
    try:
        loaded: EnrollReader = card_reader()
    except VisionError as error:
        raise NoCardModelError(f"the card model could not be loaded: {error}") from None
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
@contract(body=bodies.NewEnrolment, answers={201: answers.EnrolmentStarted}, refusals=(400,))
def start(body: bodies.NewEnrolment) -> tuple[Response, int]:
    """Start teaching a deck: its name, and how its photos are taken."""
    name = _checked_name(body.name)
    suits = _suits(body.given())
    session = decks().sessions.new(name, suits)
    replaces = decks().store.exists(name)
    return jsonify({**session_json(session), "replaces": replaces}), 201


@enroll_api.get("/enroll/<sid>")
@contract(answers={200: answers.Enrolment}, refusals=(404,))
def get_session(sid: str) -> Response:
    """An enrolment: its shots, the cards found and what is missing."""
    session = decks().sessions.get(sid)
    with session.lock:
        return jsonify(session_json(session))


@enroll_api.delete("/enroll/<sid>")
@contract(answers={200: answers.Deleted}, refusals=(404,))
def drop_session(sid: str) -> Response:
    """Drop an enrolment (nothing is saved)."""
    decks().sessions.drop(sid)
    return jsonify(deleted=sid)


@enroll_api.post("/enroll/<sid>/shots")
@contract(image=True, query=bodies.ShotQuery, answers={201: answers.ShotAdded},
          refusals=(400, 404, 409, 413, 415, 422, 503))  # fmt: skip
def add_shot(sid: str, query: bodies.ShotQuery) -> tuple[Response, int]:
    """A photo of the deck's cards: the card corners found in it join the enrolment."""
    session = decks().sessions.get(sid)
    image = _image()
    with session.lock:
        suit = _shot_suit(session, query.suit)
        shot = session.add(image, suit, _enroll_reader())
        added = {
            "shot": shot.number,
            "suit": shot.suit,
            "cards": sum(c.shot == shot.number for c in session.enrollment.candidates),
        }
        return jsonify({**session_json(session), "added": added}), 201


@enroll_api.delete("/enroll/<sid>/shots/<int:number>")
@contract(answers={200: answers.Enrolment}, refusals=(404,))
def drop_shot(sid: str, number: int) -> Response:
    """Drop a photo and the cards found in it."""
    session = decks().sessions.get(sid)
    with session.lock:
        session.remove(number)
        return jsonify(session_json(session))


@enroll_api.put("/enroll/<sid>/cards/<int:number>")
@contract(body=bodies.CardWord, answers={200: answers.Enrolment}, refusals=(400, 404))
def correct(sid: str, number: int, body: bodies.CardWord) -> Response:
    """The player's word on one card: ``{"card": "QH"}``, or ``{"card": null}``: not a card."""
    session = decks().sessions.get(sid)
    the_card = None if body.card is None else str(parse_card(body.card))
    with session.lock:
        session.candidate(number)
        session.enrollment.correct(number, the_card)
        return jsonify(session_json(session))


@enroll_api.get("/enroll/<sid>/crops/<int:number>.jpg")
@contract(answers={200: None}, media="image/jpeg", refusals=(404,))
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


@enroll_api.get("/enroll/<sid>/cards/<int:number>/where.jpg")
@contract(answers={200: None}, media="image/jpeg", refusals=(404,))
def where(sid: str, number: int) -> Response:
    """Where a proposed card is: its whole card boxed on its photo, with its number."""
    session = decks().sessions.get(sid)
    with session.lock:
        candidate = session.candidate(number)
        view = where_image(session.shot(candidate.shot), candidate)
    ok, data = cv2.imencode(".jpg", view, [cv2.IMWRITE_JPEG_QUALITY, 85])
    if not ok:
        raise ApiError("the card's picture could not be encoded", 500)
    return Response(bytes(data.tobytes()), mimetype="image/jpeg",
                    headers={"Cache-Control": "private, no-cache"})  # fmt: skip


@enroll_api.post("/enroll/<sid>/finish")
@contract(body=bodies.EnrolmentEnd, optional_body=True,
          answers={200: answers.EnrolmentSaved, 202: answers.EnrolmentSaved},
          refusals=(400, 404, 409, 503))  # fmt: skip
def finish(sid: str, body: bodies.EnrolmentEnd) -> tuple[Response, int]:
    """Save the confirmed cards as the deck's profile, then tune it (unless told not to)."""
    the_decks = decks()
    session = the_decks.sessions.get(sid)
    tune, use = body.tune, body.use
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
    blocker = the_decks.tune_blocker()
    if blocker is not None:
        saved = f"the {len(cards)} confirmed cards are saved in deck {session.name!r}"
        said = f"{blocker.text}; {saved}"
        return jsonify(error=said, code=blocker.code, values={}, **answer), 503
    answer["tune"] = the_decks.start_tune(session.name, use=use)
    return jsonify(answer), 202


# -- decks ------------------------------------------------------------------------------------
@enroll_api.get("/decks")
@contract(answers={200: answers.Decks})
def list_decks() -> Response:
    the_decks = decks()
    the_decks.sync_detector()
    return jsonify(decks_json(the_decks))


@enroll_api.post("/decks/use")
@contract(body=bodies.DeckChoice, answers={200: answers.Decks}, refusals=(400, 404, 409))
def use_deck(body: bodies.DeckChoice) -> Response:
    """Read with a deck's tuned reader: ``{"name": "kitchen"}``; ``{"name": null}``: the base."""
    the_decks = decks()
    if body.name is None:
        the_decks.store.use(None)
    else:
        profile = _profile(body.name, "'name'")
        if not profile.tuned:
            raise ApiError(f"deck {profile.name!r} has not been tuned yet: tune it first "
                           "(its cards are saved)", 409)  # fmt: skip
        the_decks.store.use(profile.name)
    the_decks.sync_detector()
    return jsonify(decks_json(the_decks))


@enroll_api.patch("/decks/<name>")
@contract(body=bodies.DeckRename, context=lambda name: {"deck": _profile(name).name},
          answers={200: answers.Decks}, refusals=(400, 404, 409))  # fmt: skip
def rename_deck(name: str, body: bodies.DeckRename) -> Response:
    """Rename a deck: ``{"name": "new name"}``."""
    the_decks = decks()
    profile = _profile(name)
    new = _checked_name(body.name)
    if new != profile.name:
        if the_decks.store.exists(new):
            raise ApiError(f"a deck named {new!r} already exists", 409)
        _not_tuning(profile.name, "rename it")
        the_decks.store.rename(profile.name, new)
        the_decks.sync_detector()
    return jsonify(decks_json(the_decks))


@enroll_api.delete("/decks/<name>")
@contract(answers={200: answers.DeckDeleted}, refusals=(400, 404, 409))
def delete_deck(name: str) -> Response:
    """Delete a deck and its tuned reader."""
    the_decks = decks()
    profile = _profile(name)
    _not_tuning(profile.name, "delete it")
    the_decks.store.delete(profile.name)
    the_decks.sync_detector()
    return jsonify({"deleted": profile.name, **decks_json(the_decks)})


@enroll_api.post("/decks/<name>/tune")
@contract(answers={202: answers.TuneStarted}, refusals=(400, 404, 409, 503))
def retune(name: str) -> tuple[Response, int]:
    """Tune a deck again on its patches: the enrolment's and the game corrections since."""
    the_decks = decks()
    profile = _profile(name)
    if not profile.crops():
        raise ApiError(f"deck {profile.name!r} holds no confirmed cards: enrol it first", 409)
    blocker = the_decks.tune_blocker()
    if blocker is not None:
        raise ApiError(blocker.text, 503, code=blocker.code)
    return jsonify(tune=the_decks.start_tune(profile.name, use=False)), 202


@enroll_api.post("/decks/corrections")
@contract(image=True, query=bodies.CorrectionQuery, answers={201: answers.CorrectionSaved},
          refusals=(400, 404, 409, 413, 415))  # fmt: skip
def add_correction(query: bodies.CorrectionQuery) -> tuple[Response, int]:
    """A card misread in a game, kept for the deck's next tune (`cribcam deck correct`):
    the photo's bytes, ``?card=QH&box=x1,y1,x2,y2`` (the misread index) and optionally
    ``&deck=NAME`` (default: the deck in use)."""
    the_decks = decks()
    image = _image()
    the_card = str(parse_card(query.card))
    box = _box(query.box, image.shape)
    name = query.deck or the_decks.store.active()
    if name is None:
        raise ApiError(
            "no deck is in use: choose one on the deck page, or teach cribcam yours", 409
        )
    profile = _profile(name)
    _not_tuning(profile.name, "correct it")
    relative = the_decks.store.add_correction(profile.name, cut_patch(image, box), the_card)
    saved = deck_json(the_decks.store.get(profile.name), the_decks.store.active())
    return jsonify(deck=saved, card=the_card, file=relative), 201


@enroll_api.get("/tune")
@contract(answers={200: answers.Tune})
def tune_status() -> Response:
    """The deck tune's progress."""
    return jsonify(decks().tuner.status())


@enroll_api.post("/tune/cancel")
@contract(answers={200: answers.Tune})
def cancel_tune() -> Response:
    """Stop the running tune (the deck keeps its cards)."""
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
