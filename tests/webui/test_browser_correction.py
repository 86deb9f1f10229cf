"""A card the page's camera misread, named by the player in a real browser: Chromium's fake
camera shows the demo photo, the shipped models read it, a card's "wrong?" button opens the
picker, and each corner index the card was read by is kept for the deck in use's next tune,
cut from the very frame that was read. With no deck in use the page says why nothing was kept.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from playwright import sync_api

from cribtrain.data.clips import Clip
from tests.webui.test_browser_fake_camera import camera_page, write_y4m
from tests.webui.test_serve import Server
from vision.decks.enroll import cut_patch
from vision.decks.profiles import ProfileStore
from vision.detection.models import MODELS_DIR, READER_FILE
from vision.table.sources import read_image

pytestmark = pytest.mark.slow  # a real browser: left out of the fast loop

DEMO = Path(__file__).resolve().parents[2] / "webui" / "static" / "demo" / "table.jpg"
SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}


def tuned_deck(root: Path, name: str) -> None:
    """A deck whose tuned reader is a copy of the base one: the cheapest deck that can be put
    in use (the enrolment's patches are not needed to keep corrections)."""
    store = ProfileStore(root)
    staged = store.staging(name, copy_current=False)
    shutil.copy(MODELS_DIR / READER_FILE, staged / READER_FILE)
    store.commit(staged, {"name": name, "created": "2024-01-01T00:00:00+00:00", "crops": []})


def corrections(server: Server, name: str) -> int:
    status, answer = server.call("GET", "/api/decks")
    assert status == 200, answer
    (deck,) = [d for d in answer["decks"] if d["name"] == name]
    count: int = deck["corrections"]
    return count


def name_the_card(
    page: sync_api.Page, misread: str, card: str, shot: Path | None = None
) -> list[list[float]]:
    """Tap `misread`'s "wrong?" button, pick `card`, OK; the corners the dialog will save."""
    page.get_by_role("button", name=f"{misread} is wrong").first.click()
    page.wait_for_selector("#misread-dialog[open]")
    label = misread[:-1] + SUIT_SYMBOLS[misread[-1]]
    assert page.inner_text("#misread-prompt") == f"The camera read {label}. What is it?"
    assert page.is_disabled(f"#misread-picker button[data-card='{misread}']")
    assert page.is_disabled("#misread-ok")
    page.click(f"#misread-picker button[data-card='{card}']")
    corners: list[list[float]] = page.evaluate("misread.card.index_boxes")
    if shot is not None:
        page.screenshot(path=str(shot))
    page.click("#misread-ok")
    return corners


def test_a_misread_card_is_kept_for_the_deck_in_use(server: Server, tmp_path: Path) -> None:
    demo = read_image(DEMO)
    video = tmp_path / "demo.y4m"
    write_y4m(Clip((demo, demo)), video)
    decks = tmp_path / "decks"
    tuned_deck(decks, "kitchen")
    status, created = server.call("POST", "/api/games", {"players": 2, "first_dealer": 0})
    assert status == 201
    with camera_page(server, created["id"], video) as (page, errors):
        page.wait_for_function(  # the smoothed table accepts a card after a few frames
            "detected && detected.table.cards.some((c) => c.index_boxes.length === 2)"
        )
        misread = page.evaluate("detected.table.cards.find((c) => c.index_boxes.length === 2).card")
        seen = page.evaluate("detected.table.cards.map((c) => c.card)")
        card = next(
            misread[:-1] + suit for suit in SUIT_SYMBOLS if misread[:-1] + suit not in seen
        )  # same rank, a suit not on the table

        # no deck in use: the server's reason, and a way to choose or teach one
        name_the_card(page, misread, card)
        page.wait_for_selector("#misread-status.error a[href='/enroll']")
        refused = page.inner_text("#misread-status")
        assert refused.startswith("Not saved: no deck is in use"), refused
        assert corrections(server, "kitchen") == 0

        assert page.inner_text("#deck-in-use") == "base model"
        status, _ = server.call("POST", "/api/decks/use", {"name": "kitchen"})
        assert status == 200
        page.evaluate("document.dispatchEvent(new Event('visibilitychange'))")  # back in view
        page.wait_for_function(
            "document.getElementById('deck-in-use').textContent === 'deck “kitchen”'"
        )
        corners = name_the_card(page, misread, card, tmp_path / "correction-dialog.png")
        page.wait_for_function(
            "document.getElementById('misread-status').textContent.startsWith('Saved')"
        )
        saved = page.inner_text("#misread-status")
        frame = page.evaluate("[misread.picture.width, misread.picture.height]")
        page.screenshot(path=str(tmp_path / "correction.png"), full_page=True)

    label = card[:-1] + SUIT_SYMBOLS[card[-1]]
    assert len(corners) == 2
    assert saved == (
        f"Saved: {label} will be learnt at the next tune of the deck “kitchen” (2 corners)."
    )
    assert corrections(server, "kitchen") == 2
    crops = ProfileStore(decks).get("kitchen").crops()
    assert [(c["card"], c["source"]) for c in crops] == [(card, "game")] * 2
    assert frame == [demo.shape[1], demo.shape[0]]  # the fake camera passes the photo's size
    for crop, box in zip(crops, corners, strict=True):
        patch = read_image(decks / "kitchen" / crop["file"])
        # cut from the frame the boxes came from: the demo photo, give or take the JPEGs
        expected = cut_patch(demo, np.array(box, np.float32))
        assert patch.shape == expected.shape
        assert np.abs(patch.astype(int) - expected.astype(int)).mean() < 8  # 6 px off: 30+
        assert patch.std() > 20  # an index, not blank felt
    assert (tmp_path / "correction.png").stat().st_size > 0
    assert (tmp_path / "correction-dialog.png").stat().st_size > 0
    assert errors == []
