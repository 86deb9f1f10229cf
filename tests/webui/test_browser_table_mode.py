"""Table mode end to end: Chromium's fake camera plays a whole deal (a deck design kept out of
training, a shaking camera, hands over the cards, drifting light), the page posts its frames,
the shipped models read them, and the page follows the deal to the crib with at most one tap
(who deals) and every score as entered by hand."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from playwright import sync_api
from playwright.sync_api import Page, ViewportSize

from cribtrain.data.clips import write_y4m
from cribtrain.data.deal_clips import DealScript, deal_clip
from cribtrain.data.synth import load_decks
from cribtrain.measure.table_mode import by_hand
from tests.cribtrain.data.test_clips import THREE_DEAL, TWO_DEAL
from tests.helpers import FIXTURES
from tests.webui.test_browser import ARGS, BYPASS_CSP, CHROMIUM
from tests.webui.test_serve import Server

pytestmark = pytest.mark.slow  # a real browser on a whole deal: left out of the fast loop

HELD_OUT = FIXTURES / "deck-dondorf"
#: The clips' own deals: 2 players with a go at 29, 3 players with a go at 28.
TWO, THREE = TWO_DEAL, THREE_DEAL
NAMES = ["Ann", "Bob", "Cy"]
#: Frames a second the fake camera plays, and frames each table state is held (3 s).
FPS, HOLD = 4, 12
SIZES: dict[str, ViewportSize] = {
    "phone": {"width": 390, "height": 844},
    "desktop": {"width": 1280, "height": 800},
}


@contextmanager
def table_page(server: Server, game_id: str, video: Path, size: str) -> Iterator[Page]:
    """The game's table mode page, its camera Chromium's fake one playing `video`."""
    camera_args = ["--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream",
                   f"--use-file-for-fake-video-capture={video}"]  # fmt: skip
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS + camera_args)
        try:
            page = browser.new_page(viewport=SIZES[size], bypass_csp=BYPASS_CSP)
            page.set_default_timeout(150_000)  # a whole deal on a loaded 2-core machine
            errors: list[str] = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.goto(f"{server.url}/games/{game_id}/table")
            yield page
            assert errors == []
        finally:
            browser.close()


def stuck(page: Page, server: Server, game_id: str, shot: Path) -> AssertionError:
    """Where a deal stopped: a screenshot at `shot`, and the game and table in the error."""
    page.screenshot(path=str(shot))
    game = server.call("GET", f"/api/games/{game_id}")[1]
    table = server.call("GET", f"/api/games/{game_id}/table")[1]
    return AssertionError(f"stuck at {game['phase']}, {game['log']}, {table}")


@pytest.mark.parametrize(("script", "size"), [(TWO, "phone"), (THREE, "desktop")],
                         ids=["2-players-phone", "3-players-desktop"])  # fmt: skip
def test_table_mode_follows_a_whole_deal_from_the_camera(
    server: Server, tmp_path: Path, script: DealScript, size: str
) -> None:
    players = len(script.seats)
    deck = load_decks([HELD_OUT])[0]
    video = tmp_path / "deal.y4m"
    write_y4m(deal_clip(deck, script, seed=3, hold=HOLD).frames, video, fps=FPS)
    status, created = server.call("POST", "/api/games",
                                  {"players": players, "names": NAMES[:players]})  # fmt: skip
    assert status == 201, created
    oracle = by_hand(script)
    with table_page(server, created["id"], video, size) as page:
        page.get_by_role("button", name=NAMES[script.dealer]).click()
        # The play: the count and the turn in view, nothing to scroll.
        page.wait_for_function("Number(document.getElementById('count').textContent) >= 15")
        page.screenshot(path=str(tmp_path / f"table-{size}-play.png"))
        assert page.evaluate("document.scrollingElement.scrollHeight <= window.innerHeight + 1")
        # The crib turned face up beside the dealer is read and counted: the deal is done.
        crib = page.locator(".show[data-what=crib]")
        try:
            crib.wait_for()
        except sync_api.TimeoutError:
            raise stuck(page, server, created["id"], tmp_path / "stuck.png") from None
        page.screenshot(path=str(tmp_path / f"table-{size}-crib.png"))
        shown = page.locator(".scoreline .points").all_inner_texts()
        assert [int(s) for s in shown] == list(oracle.scores)
        assert crib.get_attribute("data-total") == str(oracle.events[-1].points)
        taps = int(page.evaluate("document.getElementById('table-mode').dataset.taps || '0'"))
        assert taps <= 3, f"{taps} taps for one deal"
