"""The player's page: the record's figures, the charts beside every deal's distribution, the
best hands with their cards, head to head and recent games, in each language."""

from __future__ import annotations

import re

from flask.testing import FlaskClient

from tests.webui.records.conftest import Games


def test_the_player_page(client: FlaskClient, games: Games) -> None:
    page = client.get("/players/ann")
    assert page.status_code == 200
    text = page.text
    assert '<h1 class="player-name">ANN</h1>' in text
    assert '<span class="big" id="wins">1</span>' in text
    assert '<span class="big" id="losses">1</span>' in text
    assert "2 finished games" in text and "2 deals" in text
    assert "<dt>Points a deal</dt><dd>60.5</dd>" in text
    assert "<dt>Hand, on average</dt><dd>14.0</dd>" in text
    assert "<dt>Crib, on average</dt><dd>–</dd>" in text
    # the best hand with its cards and the starter, suits as symbols
    best = re.search(r'<ol class="best">(.*?)</ol>', text, re.S)
    assert best is not None
    assert re.findall(r'class="card[^"]*"[^>]*>([^<]+)<', best.group(1)) == ["5♥", "5♦", "J♣", "6♠",
                                                                         "5♠"]  # fmt: skip
    # a bar for the one hand (14 points) and the expected line over 0..29
    hands = re.search(r'id="chart-hands".*?</section>', text, re.S)
    assert hands is not None
    assert hands.group(0).count('<rect class="bar"') == 1 and "14 points: 1 time" in hands.group(0)
    assert "every possible deal: average 4.8" in hands.group(0)
    assert '<th>Bob</th><td class="n">1 – 1</td>' in text
    assert f'href="/games/{games.a}"' in text and f'href="/games/{games.b}"' in text
    assert "/api/export?player=ANN&amp;format=csv" in text


def test_the_player_page_in_danish(client: FlaskClient, games: Games) -> None:
    client.set_cookie("cribcam-lang", "da")
    text = client.get("/players/Bob").text
    assert "Bedste hænder" in text and "<dt>Point pr. giv</dt><dd>102,0</dd>" in text
    assert "alle mulige giv: i snit 4,8" in text


def test_an_unknown_player_is_404(client: FlaskClient) -> None:
    page = client.get("/players/Nobody")
    assert page.status_code == 404
