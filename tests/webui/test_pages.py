"""The home page: the most recent games, and all of them when asked."""

from __future__ import annotations

from flask.testing import FlaskClient

from webui.pages import HOME_GAMES


def test_the_home_page_lists_the_latest_games_and_all_when_asked(client: FlaskClient) -> None:
    made = [client.post("/api/games", json={"players": 2}).json["id"]  # type: ignore[index]
            for _ in range(HOME_GAMES + 5)]  # fmt: skip
    page = client.get("/").get_data(as_text=True)
    assert page.count('<li data-game="') == HOME_GAMES
    assert f'data-game="{made[-1]}"' in page and f'data-game="{made[0]}"' not in page
    assert f"Show all {HOME_GAMES + 5} games" in page
    every = client.get("/?all=1").get_data(as_text=True)
    assert every.count('<li data-game="') == HOME_GAMES + 5 and "Show all" not in every
