"""A player's page in a real browser at phone and desktop size (Debian's Chromium through
Playwright): the record, the charts, the best hands and the recent games drawn without a
script error or a line wider than the screen; screenshots kept in CRIBCAM_SHOTS when set."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest
from playwright import sync_api

from benchmarks.bench_records import stored_games
from tests.webui.test_browser import BYPASS_CSP, chromium
from tests.webui.test_serve import Server
from webui.games.store import GameStore

pytestmark = pytest.mark.slow  # a real browser: left out of the fast loop

SIZES: dict[str, sync_api.ViewportSize] = {
    "phone": {"width": 390, "height": 844},
    "desktop": {"width": 1280, "height": 900},
}


@pytest.mark.parametrize("lang", ["en", "da", "ro"])
def test_the_player_page_at_phone_and_desktop_size(server: Server, tmp_path: Path,
                                                   lang: str) -> None:  # fmt: skip
    GameStore(server.db).merge(stored_games(40, seed=random.Random(lang).randrange(99)))
    shots = Path(os.environ.get("CRIBCAM_SHOTS", tmp_path))
    errors: list[str] = []
    with chromium() as browser:
        for size, viewport in SIZES.items():
            page = browser.new_page(viewport=viewport, bypass_csp=BYPASS_CSP)
            page.set_default_timeout(90_000)
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.context.add_cookies([{"name": "cribcam-lang", "value": lang,
                                       "url": server.url}])  # fmt: skip
            page.goto(server.url + "/")
            page.click("#players a >> text=Ann")
            page.wait_for_selector("#chart-hands rect.bar")
            assert page.inner_text("h1.player-name") == "Ann"
            assert int(page.inner_text("#wins")) + int(page.inner_text("#losses")) == 40
            assert page.locator("#best ol.best").first.locator("li").count() == 5  # hands
            wide = page.evaluate("document.documentElement.scrollWidth > window.innerWidth")
            assert not wide, f"wider than the {size} screen"
            page.screenshot(path=str(shots / f"player-{size}-{lang}.png"), full_page=True)
            page.close()
    assert not errors
