"""The "settle it" view: the current count step by step with points and reasons; once a count
ends, the finished one."""

from __future__ import annotations

from collections.abc import Callable

from flask.testing import FlaskClient

from tests.webui.conftest import Act, play_to_pegging


def test_no_count_yet(client: FlaskClient, new_game: Callable[..., str]) -> None:
    game_id = new_game()
    view = client.get(f"/api/games/{game_id}/count").json
    assert view == {"game": game_id, "deal": 0, "phase": "cut for deal", "count": 0,
                    "finished": False, "points": 0, "steps": []}  # fmt: skip
    assert client.get("/api/games/nope/count").status_code == 404


def test_each_card_of_the_count_with_its_points_and_reason(
    client: FlaskClient, new_game: Callable[..., str], act: Act
) -> None:
    game_id = new_game(first_dealer=1, names=["Ann", "Bob"])
    play_to_pegging(act, game_id)
    for card in ("5H", "4D", "6S"):
        act(game_id, kind="play", card=card)
    view = client.get(f"/api/games/{game_id}/count").json
    assert view["count"] == 15 and view["finished"] is False  # type: ignore[index]
    steps = view["steps"]  # type: ignore[index]
    assert [(s["name"], s["card"], s["count"]) for s in steps] == [
        ("Ann", "5H", 5), ("Bob", "4D", 9), ("Ann", "6S", 15)]  # fmt: skip
    assert steps[2]["points"] == 5 and steps[2]["reason"] == "15 for 2, run of 3 for 3"
    assert steps[0]["reason"] == "" and steps[0]["frame"] is None
    log = client.get(f"/api/games/{game_id}").json["log"]  # type: ignore[index]
    assert all(log[s["action_index"]]["cards"] == [s["card"]] for s in steps)
    assert view["points"] == 5  # type: ignore[index]


def test_a_finished_count_is_shown_until_the_next_card(
    client: FlaskClient, new_game: Callable[..., str], act: Act
) -> None:
    game_id = new_game(first_dealer=1, names=["Ann", "Bob"])
    play_to_pegging(act, game_id)
    for card in ("5H", "4D", "6S", "7C", "5D", "3C"):  # 30: neither JC nor 2C fits: a go
        act(game_id, kind="play", card=card)
    view = client.get(f"/api/games/{game_id}/count").json
    assert view["finished"] is True and view["count"] == 30  # type: ignore[index]
    last = view["steps"][-1]  # type: ignore[index]
    assert (last["action"], last["name"], last["points"]) == ("go point", "Bob", 1)
    assert last["card"] is None
    assert [s["card"] for s in view["steps"] if s["card"]] == [  # type: ignore[index]
        "5H", "4D", "6S", "7C", "5D", "3C"]  # fmt: skip
    act(game_id, kind="play", card="JC")
    view = client.get(f"/api/games/{game_id}/count").json
    assert view["finished"] is False and [s["card"] for s in view["steps"]] == ["JC"]  # type: ignore[index]
