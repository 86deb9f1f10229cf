"""Teaching cribcam a deck through the web API: shots of the committed small deck rendered as in
tests/vision/decks/test_enroll.py, read by a stand-in reader (the boxes the render placed, a
template
matcher for the identities), a tuner injected through the app config (no torch), and the
detector's reading stage following the deck in use."""

from __future__ import annotations

import argparse
import hashlib
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, ClassVar

import cv2
import numpy as np
import numpy.typing as npt
import pytest
from flask import Flask
from flask.testing import FlaskClient

import cribtrain.fit.tune
import vision.photo_reader
import webui.decks.api
import webui.decks.state
from cribtrain.data.synth import Deck, load_decks
from cribtrain.fit.tune import (
    Cancel,
    Progress,
    TuneCancelled,
    TuneResult,
    TuneSettings,
    tune_profile,
)
from tests.vision.decks.test_enroll import CLUBS, FIXTURE, Templates, layout
from tests.webui.fakes import Frames
from vision.config import DEFAULT_READING, ReadingConfig
from vision.decks.profiles import ProfileStore
from vision.detection.detections import CLASS_NAMES, FACING_UNKNOWN, Detections
from vision.detection.models import DETECTOR_FILE, READER_FILE
from vision.photo_reader import PhotoReader
from vision.table.cards import FrameCards, cards_from_detections
from webui import create_app
from webui.app import shutdown
from webui.decks.sessions import MAX_SESSIONS

Image = npt.NDArray[np.uint8]
REPO = Path(__file__).resolve().parents[3]
HEARTS = [card[:-1] + "H" for card in CLUBS]


# -- stand-ins --------------------------------------------------------------------------------
class ShotReader:
    """Finds the index boxes a shot was rendered with (by the shot's pixels) and reads them with
    the template matcher of tests/vision/decks/test_enroll.py."""

    def __init__(self, templates: Templates) -> None:
        self.templates = templates
        self.boxes: dict[str, np.ndarray] = {}

    def shot(self, image: Image, boxes: np.ndarray) -> bytes:
        """The shot as PNG bytes (lossless: the reader sees exactly these pixels)."""
        self.boxes[hashlib.sha1(image.tobytes()).hexdigest()] = boxes
        ok, data = cv2.imencode(".png", image)
        assert ok
        return bytes(data.tobytes())

    def index_boxes(self, frame: Image) -> np.ndarray:
        boxes = self.boxes.get(hashlib.sha1(frame.tobytes()).hexdigest())
        return np.zeros((0, 4), np.float32) if boxes is None else boxes

    def classify(self, crops: Image) -> npt.NDArray[np.float32]:
        return self.templates(crops)

    def index_facing(self, frame: Image, boxes: np.ndarray) -> npt.NDArray[np.int8]:
        return np.full(len(boxes), FACING_UNKNOWN, np.int8)  # the reader's, without its network


class Gate:
    """What the fake tune waits on instead of training: open (`set`) or shut (`clear`); a shut
    gate holds the tune until it opens, or until a `poke` (the test asked for a cancel) finds
    the tune's cancel flag up."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._open = True

    def set(self) -> None:
        with self._changed:
            self._open = True
            self._changed.notify_all()

    def clear(self) -> None:
        with self._changed:
            self._open = False

    def poke(self) -> None:
        with self._changed:
            self._changed.notify_all()

    def hold(self, cancel: Cancel) -> None:
        with self._changed:
            while not self._open:
                if cancel():
                    raise TuneCancelled("tune cancelled")
                # woken only by `set` and `poke`: no clock, and the bound only stops a hang
                assert self._changed.wait(60.0), "the fake tune was held shut for 60 s"


class FakeTuner:
    """Tunes like `tune_profile` (a staging copy, committed only when done, discarded on
    cancel) but writes `reader v<n>` as the reader and waits for `gate` instead of training;
    with `worse` set it reports a tune that read worse and kept the base reader."""

    def __init__(self) -> None:
        self.gate = Gate()
        self.version = 0
        self.calls: list[str] = []
        self.worse = False

    def __call__(
        self, store: ProfileStore, name: str, *, progress: Progress, cancel: Cancel
    ) -> TuneResult:
        self.calls.append(name)
        staged = store.staging(name, copy_current=True)
        try:
            record = dict(store.get(name).record)
            self.version += 1
            (staged / READER_FILE).write_text(f"reader v{self.version}")
            progress(0.25, "epoch 1")
            self.gate.hold(cancel)
            held = sum(1 for crop in record["crops"] if crop["held_out"])
            after = 0.25 if self.worse else 0.875
            record.update(tuned="9999-12-31T00:00:00+00:00", accuracy_before=0.5,
                          accuracy_after=after, held_out=held,
                          reader="base" if self.worse else "tuned", ink="dark")  # fmt: skip
            return TuneResult(store.commit(staged, record), 0.5, after, held, 0.1, self.worse)
        except BaseException:
            store.discard(staged)
            raise


# -- fixtures and helpers ---------------------------------------------------------------------
@pytest.fixture(scope="module")
def decks() -> list[Deck]:
    return load_decks([FIXTURE])


@pytest.fixture(scope="module")
def templates(decks: list[Deck]) -> Templates:
    return Templates(decks)


@pytest.fixture
def reader(templates: Templates) -> ShotReader:
    return ShotReader(templates)


@pytest.fixture
def tuner() -> FakeTuner:
    return FakeTuner()


@pytest.fixture
def decks_dir(tmp_path: Path) -> Path:
    return tmp_path / "decks"


def make_app(db_path: Path, decks_dir: Path, **config: Any) -> Flask:
    return create_app({"TESTING": True, "DATABASE": db_path, "DECKS_DIR": decks_dir, **config})


@pytest.fixture
def app(db_path: Path, decks_dir: Path, reader: ShotReader, tuner: FakeTuner) -> Iterator[Flask]:
    the_app = make_app(db_path, decks_dir, ENROLL_READER=lambda: reader, DECK_TUNER=tuner)
    yield the_app
    tuner.gate.set()
    shutdown(the_app)


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


def ok(response: Any, status: int = 200) -> Any:
    assert response.status_code == status, response.json
    return response.json


def refused(response: Any, status: int, fragment: str) -> None:
    assert response.status_code == status, response.json
    assert response.is_json and fragment in response.json["error"], response.json


def start(client: FlaskClient, name: str = "kitchen", **body: Any) -> str:
    session: dict[str, Any] = ok(client.post("/api/enroll", json={"name": name, **body}), 201)
    return str(session["id"])


def post_shot(client: FlaskClient, sid: str, data: bytes, query: str = "") -> Any:
    return client.post(f"/api/enroll/{sid}/shots{query}", data=data, content_type="image/png")


def shoot(client: FlaskClient, reader: ShotReader, decks: list[Deck], sid: str,
          cards: list[str], query: str = "") -> Any:  # fmt: skip
    image, boxes = layout(decks, cards)
    return ok(post_shot(client, sid, reader.shot(image, boxes), query), 201)


def wait_tune(client: FlaskClient, *states: str) -> Any:
    """The tune's status once in one of `states`: a tune still running is waited for (its
    thread joined), never polled; the bound only keeps a stuck tune from hanging the test."""
    status = ok(client.get("/api/tune"))
    if status["state"] not in states:
        the_decks: webui.decks.state.Decks = client.application.extensions["cribcam.decks"]
        assert the_decks.tuner.wait(60.0), f"the tune is still {status['state']} after 60 s"
        status = ok(client.get("/api/tune"))
    assert status["state"] in states, f"the tune never reached {states}: {status}"
    return status


def enrolled(client: FlaskClient, reader: ShotReader, decks: list[Deck], name: str) -> None:
    """A deck enrolled from one clubs shot and tuned by the fake tuner (and put in use)."""
    sid = start(client, name, suits=["C"])
    shoot(client, reader, decks, sid, CLUBS)
    ok(client.post(f"/api/enroll/{sid}/finish"), 202)
    wait_tune(client, "done")


# -- enrolment --------------------------------------------------------------------------------
def test_a_suits_session_proposes_the_layout_order(
    client: FlaskClient, reader: ShotReader, decks: list[Deck]
) -> None:
    sid = start(client, suits=["C", "H"])
    session = ok(client.get(f"/api/enroll/{sid}"))
    assert (session["mode"], session["next_suit"], session["candidates"]) == ("suits", "C", [])

    session = shoot(client, reader, decks, sid, CLUBS)
    assert session["added"] == {"shot": 1, "suit": "C", "cards": 13}
    assert [c["proposed"] for c in session["candidates"]] == CLUBS
    assert [c["number"] for c in session["candidates"]] == list(range(1, 14))
    first = session["candidates"][0]
    assert (first["layout"], first["model"], first["disagree"], first["flagged"]) == (
        "AC", "AC", False, False,
    )  # fmt: skip
    assert first["indices"] == 2
    assert (session["missing"], session["duplicates"], session["ready"]) == ([], {}, True)
    assert session["next_suit"] == "H"

    crop = client.get(first["crop"])
    assert crop.status_code == 200 and crop.mimetype == "image/jpeg"
    tile = cv2.imdecode(np.frombuffer(crop.data, np.uint8), cv2.IMREAD_COLOR)
    assert tile is not None and tile.shape[:2] == (96, 96)

    hearts = [c for c in HEARTS if c != "7H"]  # a card lost under the table
    session = shoot(client, reader, decks, sid, hearts)
    assert [c["proposed"] for c in session["candidates"][13:]] == hearts
    assert [c["number"] for c in session["candidates"][13:]] == list(range(14, 26))
    assert session["missing"] == ["7H"]
    assert session["problems"] == [] and session["notes"] == ["not seen: 7H"]
    assert session["next_suit"] is None and session["ready"] is True
    assert [s["suit"] for s in session["shots"]] == ["C", "H"]

    refused(post_shot(client, sid, reader.shot(*layout(decks, HEARTS))), 409, "every suit")
    session = ok(client.delete(f"/api/enroll/{sid}/shots/2"))  # retake the hearts
    assert session["next_suit"] == "H" and len(session["candidates"]) == 13
    assert shoot(client, reader, decks, sid, HEARTS)["missing"] == []


def test_any_arrangement_reads_with_the_model(
    client: FlaskClient, reader: ShotReader, decks: list[Deck]
) -> None:
    sid = start(client, mode="any")
    session = shoot(client, reader, decks, sid, ["QH", "3S", "10D", "AC"])
    assert session["mode"] == "any" and session["suits"] is None
    assert [c["proposed"] for c in session["candidates"]] == ["QH", "3S", "10D", "AC"]
    assert all(c["layout"] is None and not c["flagged"] for c in session["candidates"])
    assert len(session["missing"]) == 48 and "QH" not in session["missing"]


def test_corrections_duplicates_and_not_a_card(
    client: FlaskClient, reader: ShotReader, decks: list[Deck]
) -> None:
    sid = start(client, suits="C")
    shoot(client, reader, decks, sid, CLUBS)
    session = ok(client.put(f"/api/enroll/{sid}/cards/2", json={"card": "ac"}))
    second = session["candidates"][1]
    assert (second["card"], second["confirmed"], second["proposed"]) == ("AC", "AC", "2C")
    assert session["duplicates"] == {"AC": [1, 2]} and session["missing"] == ["2C"]
    assert session["problems"] == [
        "AC is in one photo 2 times (cards 1, 2): one deck holds it once, so correct the wrong one"
    ]
    assert session["notes"] == ["not seen: 2C"] and session["ready"] is False
    refused(
        client.post(f"/api/enroll/{sid}/finish"), 409, "AC is in one photo 2 times (cards 1, 2)"
    )

    ok(client.put(f"/api/enroll/{sid}/cards/2", json={"card": "2♣"}))
    session = ok(client.put(f"/api/enroll/{sid}/cards/13", json={"card": None}))
    last = session["candidates"][12]
    assert (last["card"], last["not_card"], last["flagged"]) == (None, True, False)
    assert session["missing"] == ["KC"] and session["duplicates"] == {}
    assert session["cards"] == 12 and session["ready"] is True


def test_ordinary_photos_where_cards_repeat_are_taught(
    client: FlaskClient, reader: ShotReader, decks: list[Deck], tuner: FakeTuner, decks_dir: Path
) -> None:
    """The default session takes any photos of the deck: a card in several photos is more
    examples of it (every corner saved, one held back to measure the tune), cards not seen are
    a note, and a card twice in one photo is the one thing to correct."""
    sid = start(client)  # no mode: any photos
    shoot(client, reader, decks, sid, ["QH", "3S", "10D", "AC"])
    shoot(client, reader, decks, sid, ["AC", "5H", "QH"])
    session = shoot(client, reader, decks, sid, ["QH", "9C"])
    assert session["mode"] == "any" and len(session["shots"]) == 3
    assert session["repeated"] == {"QH": [1, 7, 8], "AC": [4, 5]}
    assert (session["cards"], session["corners"]) == (9, 18)
    assert session["duplicates"] == {} and session["problems"] == []
    assert session["notes"] == ["not seen: " + " ".join(
        c for c in CLASS_NAMES if c not in {"QH", "3S", "10D", "AC", "5H", "9C"})]  # fmt: skip
    assert session["ready"] is True

    session = ok(client.put(f"/api/enroll/{sid}/cards/9", json={"card": "QH"}))  # 9C misread
    assert session["duplicates"] == {"QH": [8, 9]} and session["ready"] is False
    assert session["problems"] == [
        "QH is in one photo 2 times (cards 8, 9): one deck holds it once, so correct the wrong one"
    ]
    refused(client.post(f"/api/enroll/{sid}/finish"), 409, "QH is in one photo 2 times")
    ok(client.put(f"/api/enroll/{sid}/cards/9", json={"card": "9C"}))

    tuner.gate.clear()
    answer = ok(client.post(f"/api/enroll/{sid}/finish"), 202)
    assert (answer["deck"]["cards"], answer["deck"]["crops"]) == (6, 18)
    saved = ProfileStore(decks_dir).get("kitchen").crops()
    per_card = {card: [c["held_out"] for c in saved if c["card"] == card]
                for card in ("QH", "AC", "3S")}  # fmt: skip
    assert per_card == {"QH": [False, True, False, False, False, False],
                        "AC": [False, True, False, False], "3S": [False, True]}  # fmt: skip
    tuner.gate.set()
    assert wait_tune(client, "done")["held_out"] == 6  # one corner of each card


def test_the_page_and_cribcam_enroll_propose_the_same_cards(
    client: FlaskClient, reader: ShotReader, decks: list[Deck], tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    """The same photos, read with the same reader, give the same proposals on the page and on
    the command line: numbers, photos, cards, sureness and where each card lies."""
    import cribcam.commands.decks as cli

    sid = start(client)
    files = []
    for k, cards in enumerate((["QH", "3S", "10D"], ["AC", "QH"], ["9C", "5H", "KS", "2D"])):
        image, boxes = layout(decks, cards, seed=3 + k)
        files.append(tmp_path / f"photo-{k}.png")
        files[-1].write_bytes(reader.shot(image, boxes))
        page = ok(post_shot(client, sid, files[-1].read_bytes()), 201)["candidates"]
    monkeypatch.setattr(cli, "CardReader", lambda models, reader_path=None: reader)
    parser = argparse.ArgumentParser()
    cli.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["enroll", "kitchen", *map(str, files), "--list",
                              "--decks", str(tmp_path / "decks")])  # fmt: skip
    assert args.run(args) == 0
    review = (tmp_path / "decks" / ".enroll-kitchen" / "review.txt").read_text()
    listed = [line.split("#")[0].strip() for line in review.splitlines() if line[:1].isdigit()]
    assert listed == [f"{c['number']}={c['card']}" for c in page] and len(page) == 9
    photos, _ = cli._file_shots(args)
    proposed = cli._propose_each(photos, reader).candidates  # what `--list` listed
    assert [(c.number, c.shot + 1, c.card, c.flagged, [round(v, 1) for v in c.where])
            for c in proposed] == [(c["number"], c["shot"], c["card"], c["flagged"], c["box"])
                                   for c in page]  # fmt: skip


def test_each_proposal_is_shown_as_its_whole_card_boxed_on_its_photo(
    client: FlaskClient, reader: ShotReader, decks: list[Deck]
) -> None:
    """Each card's `where` is its photo around the card's box with the box drawn (green: sure),
    its `box` holds all its corners, and it says which photo it is from."""
    sid = start(client)
    shoot(client, reader, decks, sid, ["QH", "3S"])
    image, boxes = layout(decks, ["10D", "AC", "5H"], seed=4)
    session = ok(post_shot(client, sid, reader.shot(image, boxes)), 201)
    third = session["candidates"][2]
    assert (third["shot"], third["proposed"], third["choices"][0]) == (2, "10D", "10D")
    assert len(third["choices"]) == 4 and len(set(third["choices"])) == 4
    x1, y1, x2, y2 = third["box"]
    corners = boxes[:2]  # the 10D's two corners, as the render placed them
    assert x1 <= corners[:, 0].min() and y1 <= corners[:, 1].min()
    assert x2 >= corners[:, 2].max() and y2 >= corners[:, 3].max()
    answer = client.get(third["where"])
    assert answer.status_code == 200 and answer.mimetype == "image/jpeg"
    shown = cv2.imdecode(np.frombuffer(answer.data, np.uint8), cv2.IMREAD_COLOR)
    assert shown is not None and max(shown.shape[:2]) == 360
    green = (np.abs(shown.astype(int) - (60, 180, 60)).max(axis=2) < 40).sum()
    assert green > 400, "the card's box is drawn in green (a sure card)"
    other = cv2.imdecode(np.frombuffer(client.get(session["candidates"][0]["where"]).data,
                                       np.uint8), cv2.IMREAD_COLOR)  # fmt: skip
    assert other.shape != shown.shape or not np.array_equal(other, shown)  # its own photo
    refused(client.get(f"/api/enroll/{sid}/cards/99/where.jpg"), 404, "no card numbered 99")


def test_a_session_takes_many_photos_up_to_its_bound(
    client: FlaskClient, reader: ShotReader, decks: list[Deck], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The 25th photo is taken (it was refused with 409); past the bound (memory) a photo is
    refused with a coded 409 that names the bound."""
    assert webui.decks.api.MAX_SHOTS >= 200
    sid = start(client)
    image, boxes = layout(decks, ["QH", "3S"])
    data = reader.shot(image, boxes)
    for _ in range(26):
        session = ok(post_shot(client, sid, data), 201)
    assert len(session["shots"]) == 26 and session["max_shots"] == webui.decks.api.MAX_SHOTS
    monkeypatch.setattr(webui.decks.api, "MAX_SHOTS", 26)
    answer = post_shot(client, sid, data)
    refused(answer, 409, "at most 26 photos")
    assert answer.json["code"] == "enrol_too_many_photos"


@pytest.mark.parametrize(
    ("body", "fragment"),
    [
        ({"name": "kitchen", "mode": "rows"}, "'mode' must be"),
        ({"name": "kitchen", "suits": ["C", "C"]}, "each of C, D, H, S once"),
        ({"name": "kitchen", "suits": ["X"]}, "each of C, D, H, S once"),
        ({"name": "kitchen", "suits": []}, "each of C, D, H, S once"),
        ({"name": "kitchen", "mode": "any", "suits": ["C"]}, 'mode "suits" only'),
        ({"name": "../up"}, "bad deck name"),
        ({"name": "base"}, "bad deck name"),
        ({"name": "active"}, "'active' cannot name a deck"),
        ({"name": 7}, "'name' must be a deck name"),
        ({"mode": "any"}, "'name' must be a deck name"),
        ({"name": "kitchen", "colour": "red"}, "unknown field(s) for an enrolment: colour"),
        ([1], "expected a JSON object"),
    ],
)
def test_a_bad_enrolment_is_refused(client: FlaskClient, body: Any, fragment: str) -> None:
    refused(client.post("/api/enroll", json=body), 400, fragment)


@pytest.mark.parametrize(
    ("data", "content_type", "status", "code"),
    [
        (b"\x00\x00\x00\x18ftypheic" + b"\x00" * 64, "image/heic", 400, "not_an_image"),
        (b"", "image/jpeg", 400, "not_an_image"),
        (b"hello", "text/plain", 415, "not_an_image"),
        (b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + b"\x00" * 32, "image/jpeg", 400, "damaged_image"),
        (b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + b"\x00" * 32 + b"\xff\xd9", "image/jpeg", 400,
         "damaged_image"),
    ],
)  # fmt: skip
def test_a_refused_photo_has_a_code_the_page_words(
    client: FlaskClient, data: bytes, content_type: str, status: int, code: str
) -> None:
    """The page says which photo and what to do from the code, not from the English."""
    sid = start(client)
    response = client.post(f"/api/enroll/{sid}/shots", data=data, content_type=content_type)
    assert (response.status_code, response.json["code"]) == (status, code), response.json  # type: ignore[index]


def test_bad_shots_and_corrections_are_refused(
    client: FlaskClient, reader: ShotReader, decks: list[Deck]
) -> None:
    sid = start(client, suits=["C"])
    image, boxes = layout(decks, CLUBS)
    png = reader.shot(image, boxes)
    refused(client.post(f"/api/enroll/{sid}/shots", data=png, content_type="text/plain"), 415,
            "Content-Type image/")  # fmt: skip
    refused(post_shot(client, sid, b"hello, not an image"), 400, "not a JPEG, PNG or WebP")
    refused(post_shot(client, sid, png[:-20]), 400, "truncated")
    fake_jpeg = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + b"\x00" * 32 + b"\xff\xd9"
    refused(client.post(f"/api/enroll/{sid}/shots", data=fake_jpeg, content_type="image/jpeg"),
            400, "could not be read")  # fmt: skip
    blank = np.full((480, 640, 3), 60, np.uint8)
    refused(post_shot(client, sid, reader.shot(blank, np.zeros((0, 4), np.float32))), 422,
            "no card index was found")  # fmt: skip
    refused(post_shot(client, sid, png, "?suit=X"), 400, "'suit' must be one of")
    refused(post_shot(client, "nope", png), 404, "no enrolment session 'nope'")
    refused(client.get("/api/enroll/nope"), 404, "no enrolment session")
    assert ok(client.get(f"/api/enroll/{sid}"))["shots"] == []  # nothing refused was kept

    shoot(client, reader, decks, sid, CLUBS)
    cards = f"/api/enroll/{sid}/cards"
    refused(client.put(f"{cards}/1", json={"card": "ZZ"}), 400, "'ZZ' is not a card")
    refused(client.put(f"{cards}/1", json={"card": 5}), 400, "'card' must be a card")
    refused(client.put(f"{cards}/1", json={}), 400, "'card' is required")
    refused(client.put(f"{cards}/1", json={"card": "QH", "x": 1}), 400, "unknown field")
    refused(client.put(f"{cards}/99", json={"card": "QH"}), 404, "no card numbered 99")
    refused(client.get(f"/api/enroll/{sid}/crops/99.jpg"), 404, "no card numbered 99")
    refused(client.delete(f"/api/enroll/{sid}/shots/7"), 404, "no shot 7")
    refused(client.post(f"/api/enroll/{sid}/finish", json={"tune": "yes"}), 400, "'tune' must")
    assert [c["confirmed"] for c in ok(client.get(f"/api/enroll/{sid}"))["candidates"]] == [
        None
    ] * 13

    any_sid = start(client, "pub", mode="any")
    refused(post_shot(client, any_sid, png, "?suit=C"), 400, "any photos of the deck")
    ok(client.delete(f"/api/enroll/{any_sid}"))
    refused(client.get(f"/api/enroll/{any_sid}"), 404, "no enrolment session")


def test_without_a_card_model_enrolment_is_503(db_path: Path, decks_dir: Path) -> None:
    client = make_app(db_path, decks_dir).test_client()
    sid = start(client)
    image = np.full((64, 64, 3), 90, np.uint8)
    data = bytes(cv2.imencode(".png", image)[1].tobytes())
    refused(post_shot(client, sid, data), 503, "no card model installed")


# -- finishing and the tune -------------------------------------------------------------------
def test_finish_saves_the_deck_and_tunes_it(
    client: FlaskClient, reader: ShotReader, decks: list[Deck], tuner: FakeTuner, decks_dir: Path
) -> None:
    tuner.gate.clear()
    sid = start(client, suits=["C"])
    shoot(client, reader, decks, sid, CLUBS)
    ok(client.put(f"/api/enroll/{sid}/cards/13", json={"card": None}))
    answer = ok(client.post(f"/api/enroll/{sid}/finish"), 202)
    assert answer["tune"]["state"] == "running" and answer["tune"]["deck"] == "kitchen"
    deck = answer["deck"]
    assert (deck["name"], deck["crops"], deck["cards"], deck["tuned"]) == ("kitchen", 24, 12, False)
    saved = ProfileStore(decks_dir).get("kitchen").crops()
    assert sorted({c["card"] for c in saved}) == sorted(CLUBS[:12])
    assert sum(c["held_out"] for c in saved) == 12  # each card's second index

    status = wait_tune(client, "running")
    assert status["deck"] == "kitchen" and 0 <= status["fraction"] <= 1 and status["text"]
    tuner.gate.set()
    status = wait_tune(client, "done")
    assert (status["accuracy_before"], status["accuracy_after"], status["held_out"]) == (
        0.5, 0.875, 12,
    )  # fmt: skip
    listed = ok(client.get("/api/decks"))
    assert listed["active"] == "kitchen"  # finishing puts the deck in use
    (kitchen,) = listed["decks"]
    assert kitchen["tuned"] and not kitchen["needs_tune"] and kitchen["accuracy_after"] == 0.875
    assert not status["kept_base"] and not kitchen["kept_base"]
    assert status["ink"] == kitchen["ink"] == "dark"
    assert (decks_dir / "kitchen" / READER_FILE).read_text() == "reader v1"
    assert tuner.calls == ["kitchen"]


def test_a_tune_that_kept_the_base_reader_says_so(
    client: FlaskClient, reader: ShotReader, decks: list[Deck], tuner: FakeTuner
) -> None:
    enrolled(client, reader, decks, "kitchen")
    tuner.worse = True
    ok(client.post("/api/decks/kitchen/tune"), 202)
    status = wait_tune(client, "done")
    assert status["kept_base"] and status["accuracy_after"] < status["accuracy_before"]
    (kitchen,) = ok(client.get("/api/decks"))["decks"]
    assert kitchen["kept_base"] and kitchen["tuned"]


def test_tuning_without_the_train_extra_keeps_the_crops(
    db_path: Path, decks_dir: Path, reader: ShotReader, decks: list[Deck],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    monkeypatch.setattr(webui.decks.state, "missing_train_packages", lambda: ["torch"])
    client = make_app(db_path, decks_dir, ENROLL_READER=lambda: reader).test_client()
    sid = start(client, suits=["C"])
    shoot(client, reader, decks, sid, CLUBS)
    response = client.post(f"/api/enroll/{sid}/finish")
    refused(response, 503, 'the train extra (torch not installed): pip install -e ".[train]"')
    answer: Any = response.json
    assert "the 13 confirmed cards are saved in deck 'kitchen'" in answer["error"]
    assert answer["code"] == "no_train_extra"  # for the page's own words
    assert answer["deck"]["crops"] == 26 and not answer["deck"]["tuned"]
    assert len(ProfileStore(decks_dir).get("kitchen").crops()) == 26

    listed = ok(client.get("/api/decks"))
    assert listed["tuning"] is False and "pip install" in listed["tuning_unavailable"]
    assert listed["tuning_code"] == "no_train_extra"
    assert listed["decks"][0]["needs_tune"] and listed["tune"]["state"] == "idle"
    refused(client.post("/api/decks/kitchen/tune"), 503, "train extra")
    refused(client.post("/api/decks/use", json={"name": "kitchen"}), 409, "not been tuned")


def test_one_tune_at_a_time_and_cancel_keeps_the_previous_profile(
    client: FlaskClient, reader: ShotReader, decks: list[Deck], tuner: FakeTuner, decks_dir: Path
) -> None:
    enrolled(client, reader, decks, "kitchen")
    before = ProfileStore(decks_dir).get("kitchen").record
    refused(client.post("/api/tune/cancel"), 409, "no tune is running")

    tuner.gate.clear()
    assert ok(client.post("/api/decks/kitchen/tune"), 202)["tune"]["state"] == "running"
    refused(client.post("/api/decks/kitchen/tune"), 409, "a tune is already running")
    sid = start(client, "pub", suits=["C"])
    shoot(client, reader, decks, sid, CLUBS)
    refused(client.post(f"/api/enroll/{sid}/finish"), 409, "a tune is running (deck 'kitchen')")
    refused(client.patch("/api/decks/kitchen", json={"name": "Kitchen 2"}), 409, "being tuned")
    refused(client.delete("/api/decks/kitchen"), 409, "being tuned")
    assert "pub" not in ProfileStore(decks_dir).names()  # the refused finish saved nothing
    assert [d["name"] for d in ok(client.get("/api/decks"))["decks"]] == ["kitchen"]

    assert ok(client.post("/api/tune/cancel"))["state"] == "cancelling"
    tuner.gate.poke()  # the held tune looks at its cancel flag now
    status = wait_tune(client, "cancelled")
    assert "previous profile is kept" in status["text"]
    store = ProfileStore(decks_dir)
    assert store.get("kitchen").record == before and store.active() == "kitchen"
    assert (decks_dir / "kitchen" / READER_FILE).read_text() == "reader v1"
    assert sorted(p.name for p in decks_dir.iterdir()) == ["active", "kitchen"]  # no staging
    tuner.gate.set()
    ok(client.post(f"/api/enroll/{sid}/finish", json={"use": False}), 202)  # the next tune runs
    assert wait_tune(client, "done")["deck"] == "pub"
    assert ProfileStore(decks_dir).active() == "kitchen"


def test_cancelling_the_real_tune_keeps_the_previous_profile(
    app: Flask, client: FlaskClient, reader: ShotReader, decks: list[Deck], decks_dir: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    """`cribtrain.fit.tune.tune_profile` itself, its training step replaced by a wait for the
    cancel."""
    enrolled(client, reader, decks, "kitchen")
    before = ProfileStore(decks_dir).get("kitchen").record
    training, asked = threading.Event(), threading.Event()

    def train(work: Path, base_weights: Path, seconds: float, settings: TuneSettings,
              progress: Progress | None, cancel: Cancel | None) -> Path:  # fmt: skip
        training.set()
        assert asked.wait(60), "the test never asked for a cancel"
        assert cancel is not None and cancel(), "the cancel asked for did not reach the training"
        raise TuneCancelled("tune cancelled")

    def real(store: ProfileStore, name: str, *, progress: Progress, cancel: Cancel) -> TuneResult:
        settings = TuneSettings(variants=1, general_per_class=1, eval_angles=1)
        return tune_profile(store, name, None, base_models=REPO / "models", general=[FIXTURE],
                            settings=settings, progress=progress, cancel=cancel)  # fmt: skip

    monkeypatch.setattr(cribtrain.fit.tune, "_train", train)
    app.config["DECK_TUNER"] = real
    ok(client.post("/api/decks/kitchen/tune"), 202)
    assert training.wait(60), ok(client.get("/api/tune"))
    ok(client.post("/api/tune/cancel"))
    asked.set()  # the training looks at its cancel flag now
    wait_tune(client, "cancelled")
    assert ProfileStore(decks_dir).get("kitchen").record == before
    assert (decks_dir / "kitchen" / READER_FILE).read_text() == "reader v1"
    assert sorted(p.name for p in decks_dir.iterdir()) == ["active", "kitchen"]


# -- profiles ---------------------------------------------------------------------------------
def test_decks_are_listed_chosen_renamed_and_deleted(
    client: FlaskClient, reader: ShotReader, decks: list[Deck], decks_dir: Path
) -> None:
    assert ok(client.get("/api/decks"))["decks"] == []
    enrolled(client, reader, decks, "kitchen")
    sid = start(client, "pub", suits=["C"])
    shoot(client, reader, decks, sid, CLUBS)
    assert ok(client.post(f"/api/enroll/{sid}/finish", json={"tune": False}))["deck"]["name"]
    listed = ok(client.get("/api/decks"))
    assert [(d["name"], d["active"], d["tuned"]) for d in listed["decks"]] == [
        ("kitchen", True, True), ("pub", False, False),
    ]  # fmt: skip

    assert ok(client.post("/api/decks/use", json={"name": None}))["active"] is None
    assert ok(client.post("/api/decks/use", json={"name": "kitchen"}))["active"] == "kitchen"
    listed = ok(client.patch("/api/decks/kitchen", json={"name": "Kitchen deck"}))
    assert listed["active"] == "Kitchen deck"  # the deck in use keeps being used
    assert [d["name"] for d in listed["decks"]] == ["Kitchen deck", "pub"]

    refused(client.post("/api/decks/use", json={"name": "nope"}), 404, "no deck named 'nope'")
    refused(client.post("/api/decks/use", json={"name": "pub"}), 409, "not been tuned")
    refused(client.post("/api/decks/use", json={}), 400, "'name' is required")
    refused(client.post("/api/decks/use", json={"name": 3}), 400, "'name' must be a deck name")
    refused(client.patch("/api/decks/pub", json={"name": "Kitchen deck"}), 409, "already exists")
    refused(client.patch("/api/decks/pub", json={"name": ".hidden"}), 400, "bad deck name")
    refused(client.patch("/api/decks/pub", json={"to": "x"}), 400, "unknown field")
    refused(client.patch("/api/decks/nope", json={"name": "x"}), 404, "no deck named 'nope'")
    refused(client.delete("/api/decks/nope"), 404, "no deck named 'nope'")

    answer = ok(client.delete("/api/decks/Kitchen%20deck"))
    assert answer["deleted"] == "Kitchen deck" and answer["active"] is None
    assert [d["name"] for d in answer["decks"]] == ["pub"]
    assert ProfileStore(decks_dir).names() == ["pub"]


def test_a_game_correction_is_kept_for_the_deck_in_use(
    client: FlaskClient, reader: ShotReader, decks: list[Deck], decks_dir: Path
) -> None:
    image, boxes = layout(decks, ["QH", "3S"])
    png = bytes(cv2.imencode(".png", image)[1].tobytes())
    box = ",".join(f"{v:.1f}" for v in boxes[0])

    def post(query: str) -> Any:
        return client.post(f"/api/decks/corrections?{query}", data=png, content_type="image/png")

    refused(post(f"card=QH&box={box}"), 409, "no deck is in use")
    enrolled(client, reader, decks, "kitchen")
    answer = ok(post(f"card=qh&box={box}"), 201)
    assert answer["card"] == "QH" and answer["deck"]["corrections"] == 1
    crop = ProfileStore(decks_dir).get("kitchen").crops()[-1]
    assert (crop["card"], crop["source"]) == ("QH", "game")
    assert (decks_dir / "kitchen" / crop["file"]).exists()

    refused(post(f"card=ZZ&box={box}"), 400, "'ZZ' is not a card")
    refused(post(f"box={box}"), 400, "'card' is required")
    refused(post("card=QH&box=1,2,3"), 400, "'box' must be")
    refused(post("card=QH&box=10,10,5000,40"), 400, "inside the 640 × 640 image")
    refused(post(f"card=QH&box={box}&deck=nope"), 404, "no deck named 'nope'")
    refused(client.post("/api/decks/corrections?card=QH&box=1,2,30,40", data=b"x",
                        content_type="text/plain"), 415, "Content-Type")  # fmt: skip
    assert ProfileStore(decks_dir).get("kitchen").crops()[-1] == crop  # none of those was kept


# -- detection follows the deck in use --------------------------------------------------------
class RecordingCardReader:
    """Stands in for `vision.reading.CardReader`: remembers the reading stage it loaded, and
    the stage each frame was read with."""

    made: ClassVar[list[Path | None]] = []
    read_with: ClassVar[list[Path | None]] = []
    frame_read: ClassVar[threading.Condition] = threading.Condition()

    def __init__(
        self,
        models_dir: Path,
        reader_path: Path | None = None,
        config: ReadingConfig = DEFAULT_READING,
    ) -> None:
        self.reader_path = reader_path
        RecordingCardReader.made.append(reader_path)

    def read(self, frame: Image) -> Detections:
        with RecordingCardReader.frame_read:
            RecordingCardReader.read_with.append(self.reader_path)
            RecordingCardReader.frame_read.notify_all()
        return Detections.empty()

    @classmethod
    def wait_read(cls, done: Callable[[list[Path | None]], bool], seconds: float = 10.0) -> None:
        """Wait, on the frames read (not on a clock), until `done(read_with)`."""
        with cls.frame_read:
            reached = cls.frame_read.wait_for(lambda: done(cls.read_with), seconds)
        assert reached, f"read with {cls.read_with[-3:]} ({len(cls.read_with)} frames)"

    def cards(self, frame: Image) -> FrameCards:
        return cards_from_detections(self.read(frame))


def recording_models(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A models folder whose readers are `RecordingCardReader`s (nothing is really loaded)."""
    models = tmp_path / "models"
    models.mkdir()
    for name in (DETECTOR_FILE, READER_FILE):
        (models / name).write_bytes(b"onnx")
    monkeypatch.setattr(vision.photo_reader, "CardReader", RecordingCardReader)
    return models


def test_detection_reads_with_the_deck_in_use(
    tmp_path: Path, db_path: Path, decks_dir: Path, reader: ShotReader, decks: list[Deck],
    tuner: FakeTuner, monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    models = recording_models(tmp_path, monkeypatch)
    RecordingCardReader.made = []
    detector = PhotoReader(models)
    app = make_app(db_path, decks_dir, PHOTO_READER=detector, ENROLL_READER=lambda: reader,
                   DECK_TUNER=tuner)  # fmt: skip
    client = app.test_client()
    game = ok(client.post("/api/games", json={"players": 2}), 201)["id"]
    png = bytes(cv2.imencode(".png", np.full((48, 64, 3), 90, np.uint8))[1].tobytes())

    def detect() -> Path | None:
        ok(client.post("/api/detect", data=png, content_type="image/png"))
        return detector.card_reader().reader_path

    def frame() -> Path | None:
        ok(client.post(f"/api/games/{game}/frame", data=png, content_type="image/png"))
        return detector.card_reader().reader_path

    assert detect() is None and frame() is None  # the base reader
    assert RecordingCardReader.made == [None]  # loaded once, shared
    enrolled(client, reader, decks, "kitchen")  # tuned and put in use
    assert detect() == decks_dir / "kitchen" / READER_FILE
    assert frame() == decks_dir / "kitchen" / READER_FILE
    ok(client.patch("/api/decks/kitchen", json={"name": "pub"}))
    assert detect() == decks_dir / "pub" / READER_FILE
    ok(client.post("/api/decks/use", json={"name": None}))
    assert frame() is None
    ProfileStore(decks_dir).use("pub")  # `cribcam deck use pub` while the server runs
    assert detect() == decks_dir / "pub" / READER_FILE
    ok(client.post("/api/decks/pub/tune"), 202)  # a re-tune replaces the reader file
    wait_tune(client, "done")
    assert detect() == decks_dir / "pub" / READER_FILE
    kitchen, pub = decks_dir / "kitchen" / READER_FILE, decks_dir / "pub" / READER_FILE
    assert RecordingCardReader.made == [None, kitchen, pub, None, pub, pub]  # each change once
    shutdown(app)


def test_the_active_deck_reads_from_the_start(
    tmp_path: Path, db_path: Path, decks_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = ProfileStore(decks_dir)
    staged = store.staging("kitchen", copy_current=False)
    (staged / READER_FILE).write_text("reader")
    store.commit(staged, {"name": "kitchen", "crops": []})
    store.use("kitchen")
    models = recording_models(tmp_path, monkeypatch)
    detector = PhotoReader(models)
    make_app(db_path, decks_dir, PHOTO_READER=detector)
    assert detector.card_reader().reader_path == decks_dir / "kitchen" / READER_FILE


def test_the_server_camera_reads_with_the_deck_chosen(
    tmp_path: Path, db_path: Path, decks_dir: Path, reader: ShotReader, decks: list[Deck],
    tuner: FakeTuner, monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    """`cribcam serve --camera SOURCE` follows the deck chosen on the page, without a restart."""
    models = recording_models(tmp_path, monkeypatch)
    RecordingCardReader.made, RecordingCardReader.read_with = [], []
    app = make_app(db_path, decks_dir, PHOTO_READER=PhotoReader(models),
                   ENROLL_READER=lambda: reader, DECK_TUNER=tuner, CAMERA_SOURCE="fake",
                   CAMERA_OPENER=lambda spec: Frames(), CAMERA_INTERVAL=0.01)  # fmt: skip
    read_with = RecordingCardReader.read_with
    kitchen = decks_dir / "kitchen" / READER_FILE
    try:
        client = app.test_client()
        wait_read = RecordingCardReader.wait_read
        wait_read(lambda read: bool(read) and read[-1] is None)  # the base reader
        enrolled(client, reader, decks, "kitchen")  # tuned and put in use
        wait_read(lambda read: read[-1] == kitchen)
        ok(client.post("/api/decks/use", json={"name": None}))
        wait_read(lambda read: read[-1] is None)
        ok(client.post("/api/decks/use", json={"name": "kitchen"}))
        wait_read(lambda read: read[-1] == kitchen)
        frames = len(read_with)
        wait_read(lambda read: len(read) > frames + 3)
        assert set(read_with[frames:]) == {kitchen}
        assert ok(client.get("/api/camera"))["model"] is True
    finally:
        shutdown(app)
    assert RecordingCardReader.made == [None, kitchen, None, kitchen]  # loaded once per choice


# -- the page ---------------------------------------------------------------------------------
def test_the_enrol_page_is_served_and_linked(client: FlaskClient, db_path: Path) -> None:
    page = client.get("/enroll")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    for part in ("enroll.js", "cards.js", 'id="grid"', 'id="tune-progress"', 'id="decks"'):
        assert part in html
    assert client.get("/static/enroll.js").status_code == 200
    assert 'href="/enroll"' in client.get("/").get_data(as_text=True)
    game = ok(client.post("/api/games", json={"players": 2}), 201)["id"]
    game_page = client.get(f"/games/{game}").get_data(as_text=True)
    assert 'href="/enroll"' in game_page and "base model" in game_page


def test_the_game_pages_tell_their_camera_the_deck_in_use(
    client: FlaskClient, reader: ShotReader, decks: list[Deck]
) -> None:
    """The camera offers teaching only while the base model reads: the pages carry the deck in
    use (none, then the deck enrolled) for it to know."""
    game = ok(client.post("/api/games", json={"players": 2}), 201)["id"]
    pages = (f"/games/{game}", f"/games/{game}/table")
    for path in pages:
        assert 'data-deck=""' in client.get(path).get_data(as_text=True)
    enrolled(client, reader, decks, "kitchen")
    for path in pages:
        assert 'data-deck="kitchen"' in client.get(path).get_data(as_text=True)


def test_sessions_are_bounded(client: FlaskClient) -> None:
    made = [start(client, f"deck {k}") for k in range(MAX_SESSIONS + 2)]
    refused(client.get(f"/api/enroll/{made[0]}"), 404, "no enrolment session")
    refused(client.get(f"/api/enroll/{made[1]}"), 404, "no enrolment session")
    assert ok(client.get(f"/api/enroll/{made[-1]}"))["name"] == f"deck {len(made) - 1}"
