"""The deck page's errors in a player's words, in a real browser: a photo that is no photo (a
HEIC from a phone, a JPEG cut short) is named by its number and file with what to do, and
without the `train` extra "Save and tune" is off with the reason and the command beside it.

The server runs in this process (the stand-in reader of decks/test_api.py reads the shots), so
the missing extra is simulated by monkeypatching its check, never by uninstalling it."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright import sync_api

import webui.decks.state
from cribtrain.data.synth import load_decks
from tests.vision.decks.test_enroll import CLUBS, FIXTURE, Templates, layout
from tests.webui.decks.test_api import HEARTS, ShotReader
from tests.webui.test_browser import chromium, phone_page
from webui import create_app
from webui.app import shutdown
from webui.guard.server import make_server

pytestmark = pytest.mark.slow  # a real browser: left out of the fast loop

SHOTS = Path("/tmp/shots2")
TRAIN = 'pip install -e ".[train]"'
HEIC = b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic" + b"\x00" * 256
CUT_JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + b"\x00" * 200  # no end of image


@pytest.fixture
def reader() -> ShotReader:
    return ShotReader(Templates(load_decks([FIXTURE])))


@pytest.fixture
def url(tmp_path: Path, reader: ShotReader, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The app without the train extra (as its check sees it), served on 127.0.0.1."""
    monkeypatch.setattr(webui.decks.state, "missing_train_packages",
                        lambda: ["torch", "ultralytics"])  # fmt: skip
    app = create_app({"DATABASE": tmp_path / "games.sqlite3", "DECKS_DIR": tmp_path / "decks",
                      "ENROLL_READER": lambda: reader})  # fmt: skip
    server = make_server(app, "127.0.0.1", 0)
    server.prepare()
    thread = threading.Thread(target=server.serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.bind_addr[1]}"
    finally:
        app.extensions["cribcam.broker"].close()
        server.stop()
        thread.join(30)
        shutdown(app)


def upload(page: sync_api.Page, name: str, mime: str, data: bytes) -> None:
    """Choose `data` as the file `name`; wait until the page has the server's answer."""
    before = page.locator("#shots li").count()
    page.evaluate("() => { document.getElementById('shot-status').className = ''; }")
    page.set_input_files("#shot-file", {"name": name, "mimeType": mime, "buffer": data})
    page.wait_for_function(
        "n => document.getElementById('shot-status').className === 'error'"
        " || document.querySelectorAll('#shots li').length > n",
        arg=before,
    )


def good_shot(reader: ShotReader, cards: list[str]) -> bytes:
    image, boxes = layout(load_decks([FIXTURE]), cards)
    return reader.shot(image, boxes)


def shoot(page: sync_api.Page, name: str, at: str) -> None:
    """Screenshots at phone and desktop size with the element `at` (an id) in the middle."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    for width, height in ((390, 844), (1280, 800)):
        page.set_viewport_size({"width": width, "height": height})
        page.evaluate("at => document.getElementById(at).scrollIntoView({ block: 'center' })", at)
        page.screenshot(path=str(SHOTS / f"{name}-{width}.png"))
    page.set_viewport_size({"width": 420, "height": 900})


def start(page: sync_api.Page, url: str) -> None:
    page.goto(url + "/enroll")
    page.fill("#start-form input[name=name]", "kitchen")
    page.click("#start-form button[type=submit]")
    page.wait_for_selector("#shoot-panel:not([hidden])")


def test_a_bad_photo_and_no_train_extra_are_said_plainly(url: str, reader: ShotReader) -> None:
    with chromium() as browser:
        errors: list[str] = []
        page = phone_page(browser, errors)
        start(page, url)
        assert page.inner_text("#tune-unavailable") == f"Tuning needs the train extra: {TRAIN}"
        upload(page, "IMG_0001.png", "image/png", good_shot(reader, CLUBS))
        upload(page, "IMG_0002.png", "image/png", good_shot(reader, HEARTS))
        upload(page, "IMG_0003.heic", "image/heic", HEIC)
        assert page.inner_text("#shot-status") == (
            "Photo 3 (IMG_0003.heic) is not a JPEG, PNG or WebP photo: "
            "take it again or choose another file."
        )
        assert page.inner_text("#error") == ""  # no API words up top
        shoot(page, "enroll-heic", "shot-status")
        upload(page, "cut.jpg", "image/jpeg", CUT_JPEG)
        assert page.inner_text("#shot-status") == (
            "Photo 3 (cut.jpg) is damaged or cut short: take it again or choose another file."
        )

        assert page.is_disabled("#finish") and page.is_enabled("#save-only")
        note = page.inner_text("#finish-note")
        assert note.startswith(f"Tuning needs the train extra: {TRAIN}")
        assert page.is_visible("#finish-note")
        shoot(page, "enroll-cut-jpeg", "shot-status")
        shoot(page, "enroll-no-train", "finish-note")

        # a page that still offered the tune (the extra removed since): saved, and why not tuned
        page.evaluate("() => { tuning = { ok: true, code: null, why: '' }; renderFinish(); }")
        page.click("#finish")
        page.wait_for_function("document.getElementById('finish-status').textContent !== ''")
        saved = "Saved 26 cards in the deck “kitchen”. Not tuned."
        assert page.inner_text("#finish-status") == saved
        assert page.is_disabled("#finish") and page.is_visible("#finish-note")
        assert page.inner_text("#finish-note").startswith(f"Tuning needs the train extra: {TRAIN}")
        page.wait_for_selector("#decks li:has-text('kitchen')")
        shoot(page, "enroll-not-tuned", "finish-status")
        assert errors == []


def test_the_photo_error_in_danish(url: str) -> None:
    with chromium() as browser:
        page = browser.new_page(locale="da-DK", viewport={"width": 390, "height": 844})
        page.set_default_timeout(90_000)
        start(page, url)
        assert (
            page.inner_text("#tune-unavailable") == f"Tilpasning kræver train-tilføjelsen: {TRAIN}"
        )
        upload(page, "IMG_0001.heic", "image/heic", HEIC)
        assert page.inner_text("#shot-status") == (
            "Billede 1 (IMG_0001.heic) er ikke et JPEG-, PNG- eller WebP-billede: "
            "tag det igen eller vælg en anden fil."
        )
        shoot(page, "enroll-bad-photo-da", "shot-status")
