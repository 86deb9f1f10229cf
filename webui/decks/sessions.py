"""Enrolment sessions: the photos of one deck being taught, and their JSON views.

A session (`POST /api/enroll`) holds the photos of a deck (any photos of its cards, which may
repeat across photos, or one suit per photo laid out A to K) and the cards each photo proposed
(`vision.decks.enroll.propose`), numbered across photos, with the player's corrections. Sessions
live in memory only, a few at a time for a few hours: an enrolment is short-lived and nothing in
it matters until it is finished and saved as the deck's profile (`webui.decks.state`). Kept apart
from the endpoints so the session model can be read and tested without the HTTP around it.

Each photo is kept (as a JPEG, at most `PHOTO_SIDE` pixels a side) so a proposal can be shown as
its whole card boxed on its photo (`where_image`); a session takes up to `MAX_SHOTS` photos.
"""

from __future__ import annotations

import secrets
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Protocol

import cv2
import numpy as np
import numpy.typing as npt
from flask import url_for

from vision.decks.enroll import Candidate, Enrollment, EnrollmentError, Shot, propose
from vision.detection.detections import CLASS_NAMES
from webui.errors import ApiError

Image = npt.NDArray[np.uint8]

#: Sessions held at once (the oldest is dropped) and how long an untouched one is kept.
MAX_SESSIONS = 6
SESSION_IDLE_S = 3 * 3600.0
#: Photos one session takes: a deck photographed a few cards at a time takes dozens (the issue
#: #67 run took 92). Bounded by memory: a photo costs its kept JPEG (`PHOTO_SIDE`, ~0.1-0.3 MB)
#: and its corners' patches (160 × 160 × 3 bytes each, ~0.8 MB for a photo of 5 four-index
#: cards), so a full session holds about 200 MB.
MAX_SHOTS = 200
#: The longest side a kept photo is shrunk to (the card shown boxed on it needs no more).
PHOTO_SIDE = 1280
#: The side of the image of a card boxed on its photo, and the square of the photo it shows:
#: the card's longer side this many times over (the card fills about 60 % of it, its neighbours
#: around it), at least this share of the photo's longer side, at most the photo's shorter side.
WHERE_PX = 360
WHERE_SPAN = 1.6
WHERE_CONTEXT = 0.2


class EnrollReader(Protocol):
    """What enrolment reads shots with (`vision.reading.CardReader` is one)."""

    def index_boxes(self, frame: Image) -> npt.NDArray[np.float32]: ...

    def classify(self, crops: Image) -> npt.NDArray[np.float32]: ...

    def index_facing(
        self, frame: Image, boxes: npt.NDArray[np.float32]
    ) -> npt.NDArray[np.int8]: ...


@dataclass(frozen=True)
class HeldShot:
    number: int
    suit: str | None
    size: tuple[int, int]
    #: The photo as a JPEG, shrunk by `scale` (kept pixels per photo pixel) to `PHOTO_SIDE`.
    jpeg: bytes = field(default=b"", repr=False)
    scale: float = 1.0


def keep_photo(image: Image) -> tuple[bytes, float]:
    """The photo as kept: JPEG bytes at most `PHOTO_SIDE` a side, and the scale it was shrunk by."""
    height, width = image.shape[:2]
    scale = min(1.0, PHOTO_SIDE / max(height, width))
    if scale < 1.0:
        size = (max(1, round(width * scale)), max(1, round(height * scale)))
        image = np.asarray(cv2.resize(image, size, interpolation=cv2.INTER_AREA), np.uint8)
    ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 85])
    if not ok:
        raise ApiError("the photo could not be kept: it did not encode as JPEG", 500)
    return bytes(data.tobytes()), scale


def where_image(shot: HeldShot, candidate: Candidate, *, side: int = WHERE_PX) -> Image:
    """The card of `candidate` boxed on its photo: the photo around its card box (`WHERE_SPAN`),
    the card box drawn thick (orange: to check; green: sure) and its corners thin, the card's
    number at the box's corner, shrunk to at most `side` pixels a side."""
    photo = cv2.imdecode(np.frombuffer(shot.jpeg, np.uint8), cv2.IMREAD_COLOR)
    if photo is None:
        raise ApiError(f"photo {shot.number} of this enrolment could not be read back", 500)
    height, width = photo.shape[:2]
    x1, y1, x2, y2 = (v * shot.scale for v in candidate.where)
    side_px = min(max(WHERE_SPAN * max(x2 - x1, y2 - y1), WHERE_CONTEXT * max(width, height)),
                  float(width), float(height))  # fmt: skip
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    # a square window centred on the card, moved (not cut) to stay inside the photo
    left = int(min(max(0.0, cx - side_px / 2), width - side_px))
    top = int(min(max(0.0, cy - side_px / 2), height - side_px))
    right, bottom = left + int(side_px), top + int(side_px)
    view: Image = np.ascontiguousarray(photo[top:bottom, left:right], np.uint8)
    zoom = side / max(view.shape[:2])
    size = (max(1, round(view.shape[1] * zoom)), max(1, round(view.shape[0] * zoom)))
    view = np.asarray(cv2.resize(view, size, interpolation=cv2.INTER_AREA if zoom < 1
                                 else cv2.INTER_LINEAR), np.uint8)  # fmt: skip

    def at(x: float, y: float) -> tuple[int, int]:
        return round((x - left) * zoom), round((y - top) * zoom)

    colour = (0, 140, 255) if candidate.flagged else (60, 180, 60)
    for box in candidate.boxes:
        bx1, by1, bx2, by2 = (float(v) * shot.scale for v in box)
        cv2.rectangle(view, at(bx1, by1), at(bx2, by2), colour, 1, cv2.LINE_AA)
    # thick enough to see on the page's tiles, which show this image at a third of its size
    line = max(3, round(max(view.shape[:2]) / 60))
    cv2.rectangle(view, at(x1, y1), at(x2, y2), (255, 255, 255), line + 4, cv2.LINE_AA)
    cv2.rectangle(view, at(x1, y1), at(x2, y2), colour, line, cv2.LINE_AA)
    label = str(candidate.number)
    scale = max(view.shape[:2]) / 300
    (tw, th), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, scale, 2)
    lx, ly = at(x1, y1)
    lx, ly = max(0, min(lx, view.shape[1] - tw - 8)), max(th + 8, ly)
    cv2.rectangle(view, (lx, ly - th - 8), (lx + tw + 8, ly), colour, -1)
    cv2.putText(view, label, (lx + 4, ly - 4), cv2.FONT_HERSHEY_SIMPLEX, scale, (255, 255, 255),
                2, cv2.LINE_AA)  # fmt: skip
    return view


@dataclass
class Session:
    """One enrolment in progress: its shots' candidates, numbered across shots."""

    id: str
    name: str
    suits: tuple[str, ...] | None  # None: any photos of the deck
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
        found = propose([Shot(image, suit)], reader.index_boxes, reader.classify,
                        reader.index_facing)  # fmt: skip
        if not found.candidates:
            raise ApiError("no card index was found in this shot: lay the cards face up and "
                           "apart, in good light, and fill the picture with them", 422)  # fmt: skip
        height, width = image.shape[:2]
        jpeg, scale = keep_photo(image)
        shot = HeldShot(self.next_shot, suit, (width, height), jpeg, scale)
        self.next_shot += 1
        self.next_number += len(self.enrollment.add(found, shot.number, self.next_number))
        self.shots.append(shot)
        self._expect()
        return shot

    def remove(self, number: int) -> None:
        if not any(shot.number == number for shot in self.shots):
            raise ApiError(f"this enrolment has no shot {number}", 404)
        self.shots = [shot for shot in self.shots if shot.number != number]
        self.enrollment.candidates = [c for c in self.enrollment.candidates if c.shot != number]
        self._expect()

    def shot(self, number: int) -> HeldShot:
        for shot in self.shots:
            if shot.number == number:
                return shot
        raise ApiError(f"this enrolment has no shot {number}", 404)

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
        "not_card": c.card is None,
        "doubtful": c.doubtful and c.card is None,
        "disagree": c.layout_card is not None and c.layout_card != c.model_card,
        "flagged": c.flagged,
        "indices": len(c.boxes),
        "box": [round(v, 1) for v in c.where],
        "crop": url_for("enroll.crop", sid=session.id, number=c.number),
        "where": url_for("enroll.where", sid=session.id, number=c.number),
        "choices": choices(c),
    }


def choices(c: Candidate, count: int = 4) -> list[str]:
    """The likeliest names of a card, likeliest first (what the page offers as buttons): the
    proposal, the model's and the layout's, then the next readings."""
    out = [card for card in (c.proposed, c.model_card, c.layout_card) if card is not None]
    return list(dict.fromkeys(out + [card for card, _ in c.likeliest]))[:count]


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
        "max_shots": MAX_SHOTS if session.suits is None else len(session.suits),
        "candidates": [candidate_json(session, c) for c in candidates],
        "cards": counted,
        "flagged": sum(c.flagged for c in candidates),
        "missing": list(problems.missing),
        "duplicates": {card: list(numbers) for card, numbers in problems.duplicates.items()},
        "repeated": {card: list(numbers) for card, numbers in problems.repeated.items()},
        "corners": sum(len(c.patches) for c in candidates if c.card is not None),
        "problems": problems.errors(),
        "notes": problems.notes(),
        "ready": counted > 0 and not problems.twice,
    }
