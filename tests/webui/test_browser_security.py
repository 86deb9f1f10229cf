"""Issue #51 in a real browser: the page works under its content security policy from its own
origin, another origin's page cannot change a game, and over `--lan` a device pairs, plays and
is unpaired from the host's page."""

from __future__ import annotations

import functools
import http.server
import re
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright import sync_api
from playwright.sync_api import expect

from tests.webui.guard.test_server_limits import running
from tests.webui.test_browser import chromium, phone_page
from tests.webui.test_serve import Server

pytestmark = pytest.mark.slow  # a real browser: left out of the fast loop

DEMO = Path(__file__).resolve().parents[2] / "webui" / "static" / "demo" / "table.jpg"
#: Collects what the content security policy blocks (an init script is not subject to it).
WATCH_CSP = """
window.__violations = [];
document.addEventListener("securitypolicyviolation",
  (e) => window.__violations.push(`${e.violatedDirective} ${e.blockedURI}`));
"""


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    running = Server(tmp_path / "games.sqlite3", tmp_path / "data",
                     ["--camera", str(DEMO), "--decks", str(tmp_path / "decks")])  # fmt: skip
    yield running
    running.stop()


def watched(page: sync_api.Page, errors: list[str]) -> sync_api.Page:
    page.add_init_script(WATCH_CSP)
    page.on("console", lambda m: errors.append(m.text) if "Content Security" in m.text else None)
    return page


def test_the_page_works_under_its_policy(server: Server) -> None:
    with chromium() as browser:
        errors: list[str] = []
        page = watched(phone_page(browser, errors), errors)
        response = page.goto(server.url + "/")
        assert response is not None and "script-src 'self'" in response.headers[
            "content-security-policy"]  # fmt: skip
        page.fill("input[name=names]", "Ann, Bob")
        page.click("button[value=form]")
        page.wait_for_url("**/games/*")
        page.wait_for_selector("#live.on")  # the live stream (EventSource)
        page.get_by_role("button", name="Bob deals").click()
        page.get_by_role("button", name="Dealt (hands stay hidden)").click()
        page.click("#demo-photo")  # the demo photo: fetch, blob: and data: images, canvas
        expect(page.locator("#camera-status")).to_have_text(
            re.compile("demo photo:|no card model installed")
        )  # waits without eval, which the policy forbids (wait_for_function needs it)
        assert page.evaluate("document.getElementById('demo-img').naturalWidth") == 640
        page.goto(server.url + "/enroll")
        page.wait_for_load_state("networkidle")
        page.goto(server.url + "/")
        assert page.locator("ul.games li").count() == 1
        assert page.evaluate("window.__violations") == []
        assert errors == []


def test_table_mode_works_under_the_policy(server: Server) -> None:
    with chromium() as browser:
        errors: list[str] = []
        page = watched(phone_page(browser, errors), errors)
        page.goto(server.url + "/")
        page.fill("input[name=names]", "Ann, Bob")
        page.click("button[value=table]")
        page.wait_for_url("**/games/*/table")
        page.get_by_role("button", name="Ann").click()
        expect(page.locator("#turn")).to_have_text("Ann deals")
        # the server camera's frame, drawn over (an image from the API, a canvas)
        expect(page.locator("#server-img")).to_be_visible()
        expect(page.locator("#camera-status")).to_have_text(re.compile("Server camera"))
        assert page.evaluate("window.__violations") == []
        assert errors == []


@pytest.fixture
def other_site() -> Iterator[str]:
    """Another site on this machine (loopback only): a blank page on another port, whose
    name is localhost, not 127.0.0.1."""
    handler = functools.partial(http.server.SimpleHTTPRequestHandler,
                                directory=str(Path(__file__).parent / "other_site"))  # fmt: skip
    site = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=site.serve_forever, daemon=True).start()
    yield f"http://localhost:{site.server_address[1]}"
    site.shutdown()
    site.server_close()


def test_a_page_of_another_origin_cannot_change_a_game(server: Server, other_site: str) -> None:
    """Its page's requests, the kind any site can send without asking (text/plain, no-cors),
    are refused and change nothing; it cannot read the API either."""
    other = other_site
    status, created = server.call("POST", "/api/games", {"players": 2})
    assert status == 201
    game = f"{server.url}/api/games/{created['id']}"
    before = server.call("GET", f"/api/games/{created['id']}")[1]
    with chromium() as browser:
        errors: list[str] = []
        page = phone_page(browser, errors)
        page.goto(other + "/")
        statuses = page.evaluate(
            """async ([url, game]) => {
                const send = (path, method, body) => fetch(path, {method, mode: "no-cors",
                    headers: {"Content-Type": "text/plain"}, body})
                    .then((r) => r.type).catch(() => "blocked");
                return [
                    await send(url + "/api/games", "POST", '{"players": 2}'),
                    await send(game + "/actions", "POST",
                               '{"kind": "correct", "seat": 0, "points": 121}'),
                    await send(url + "/api/decks/use", "POST", '{"name": null}'),
                    await fetch(game).then((r) => r.status).catch(() => "blocked"),
                ];
            }""",
            [server.url, game],
        )
        # the requests reach the server (it refuses them); the browser shows the page no
        # answer (Cross-Origin-Resource-Policy), and a readable fetch fails (no CORS)
        assert statuses == ["blocked"] * 4
    assert server.call("GET", f"/api/games/{created['id']}")[1] == before
    assert len(server.call("GET", "/api/games")[1]["games"]) == 1


def test_a_device_pairs_over_lan_plays_and_is_unpaired(tmp_path: Path) -> None:
    """TRUST_LOOPBACK off: the browser (on this machine) is treated as another device."""
    lan_server = running(tmp_path, tls=True, PAIRING_CODE="123456", TRUST_LOOPBACK=False)
    with lan_server as lan, chromium() as launched:
        context = launched.new_context(
            ignore_https_errors=True, viewport={"width": 420, "height": 900}
        )
        errors: list[str] = []
        page = watched(context.new_page(), errors)
        page.set_default_timeout(90_000)
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(lan.url + "/")
        page.wait_for_url(re.compile(r".*/pair\?next=.*"))
        page.fill("input[name=code]", "000000")
        page.click("button[type=submit]")
        assert "That is not the code" in page.inner_text("main")
        page.fill("input[name=code]", "123456")
        page.click("button[type=submit]")
        page.wait_for_url(lan.url + "/")
        page.fill("input[name=names]", "Ann, Bob")
        page.click("button[value=form]")
        page.wait_for_url("**/games/*")
        page.wait_for_selector("#live.on")
        page.get_by_role("button", name="Bob deals").click()
        page.wait_for_selector("text=Dealt (hands stay hidden)")

        host = context.new_page()  # the host's page (this machine is loopback)
        host.goto(lan.url + "/devices")
        assert host.locator("#devices li[data-device]").count() == 1
        host.click("button.unpair")
        expect(host.locator("#devices li[data-device]")).to_have_count(0)
        answer = page.evaluate("fetch('/api/games').then((r) => r.status)")
        assert answer == 401  # the device's cookie pairs it no more
        page.reload()
        page.wait_for_url(re.compile(r".*/pair\?next=.*"))
        assert page.evaluate("window.__violations") == []
        assert errors == []
