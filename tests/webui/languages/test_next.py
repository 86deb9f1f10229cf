"""Issue #65: `next=` sends the browser only to a path of this site, read as the browser reads
it (tabs and line breaks dropped, a backslash a slash): the language switch and pairing."""

from __future__ import annotations

from pathlib import Path

import pytest
from flask.testing import FlaskClient

from webui import create_app

#: Each would lead a browser to another site (or, with a line break, answered 500 before).
OTHER_SITES = [
    "/\t/evil.example", "/\n/evil.example", "/\r/evil.example", "\t//evil.example",
    "/\\evil.example", "\\/evil.example", "\\\\evil.example", "/\t\\evil.example",
    "https://evil.example", "//evil.example", "evil.example", "/\r\n/evil.example",
    "/\x00/evil.example", "",
]  # fmt: skip


@pytest.mark.parametrize("target", OTHER_SITES)
def test_the_language_switch_goes_nowhere_else(client: FlaskClient, target: str) -> None:
    answer = client.get("/language/da", query_string={"next": target})
    assert answer.status_code == 302 and answer.headers["Location"] == "/"


@pytest.mark.parametrize(
    ("target", "location"),
    [("/games/3f9a", "/games/3f9a"), ("/games/3f9a?x=1", "/games/3f9a?x=1"),
     ("/games\t/3f9a", "/games/3f9a")],
)  # fmt: skip
def test_the_language_switch_goes_back_to_this_sites_page(
    client: FlaskClient, target: str, location: str
) -> None:
    answer = client.get("/language/da", query_string={"next": target})
    assert answer.status_code == 302 and answer.headers["Location"] == location


@pytest.mark.parametrize("target", OTHER_SITES)
def test_pairing_goes_nowhere_else(db_path: Path, target: str) -> None:
    app = create_app({"TESTING": True, "DATABASE": db_path, "PAIRING_CODE": "123456"})
    phone = app.test_client()
    phone.environ_base.update({"REMOTE_ADDR": "192.0.2.7"})  # a documentation address
    paired = phone.post("/pair", data={"code": "123456", "next": target})
    assert paired.status_code == 302 and paired.headers["Location"] == "/"
    page = phone.get("/pair", query_string={"next": target})
    assert '<input type="hidden" name="next" value="/">' in page.get_data(as_text=True)
