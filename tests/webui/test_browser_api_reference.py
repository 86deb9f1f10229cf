"""The API's reference page in a real browser (Debian's Chromium through Playwright), at phone
and desktop size: every route of the description listed, no line wider than the screen (tables
scroll inside themselves), no script error; screenshots kept in CRIBCAM_SHOTS when set."""

from __future__ import annotations

import json
import os
import urllib.request
from pathlib import Path

import pytest
from playwright import sync_api

from tests.webui.test_browser import BYPASS_CSP, chromium
from tests.webui.test_serve import Server

pytestmark = pytest.mark.slow  # a real browser: left out of the fast loop

SIZES: dict[str, sync_api.ViewportSize] = {
    "phone": {"width": 390, "height": 844},
    "desktop": {"width": 1280, "height": 900},
}


def test_the_reference_page_at_phone_and_desktop_size(server: Server, tmp_path: Path) -> None:
    with urllib.request.urlopen(server.url + "/api/openapi.json") as answer:
        spec = json.load(answer)
    operations = sum(len(methods) for methods in spec["paths"].values())
    shots = Path(os.environ.get("CRIBCAM_SHOTS", tmp_path))
    errors: list[str] = []
    with chromium() as browser:
        for size, viewport in SIZES.items():
            page = browser.new_page(viewport=viewport, bypass_csp=BYPASS_CSP)
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.goto(server.url + "/api")
            assert page.locator("article.op").count() == operations
            page.click("nav.api-toc >> text=Table mode")
            assert page.locator("#api_act h3").inner_text().startswith("POST")
            wide = page.evaluate("document.documentElement.scrollWidth > window.innerWidth")
            assert not wide, f"wider than the {size} screen"
            page.screenshot(path=str(shots / f"api-{size}.png"))
            page.locator("#api_act").screenshot(path=str(shots / f"api-act-{size}.png"))
            page.close()
    assert not errors
