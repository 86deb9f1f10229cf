from __future__ import annotations

import json

import pytest

from scorer.game import Game, Phase
from scorer.settings import Settings, SettingsError, Skunk, Variant


# -- each variant's own target and skunk lines (issue 53) ---------------------------------------
def test_five_card_is_a_61_point_game_with_the_scaled_skunk_lines() -> None:
    five = Settings(variant=Variant.FIVE_CARD)
    assert five.target == 61
    assert five.skunk_lines() == (46, 31, None)
    assert Settings(variant="five-card").target == 61  # type: ignore[arg-type]
    assert Settings.from_json({"variant": "five-card"}).target == 61


def test_six_card_and_three_or_four_players_keep_121() -> None:
    for settings in (Settings(), Settings(players=3), Settings(players=4),
                     Settings.from_json({})):  # fmt: skip
        assert settings.target == 121 and settings.skunk_lines() == (91, 61, None)


def test_a_target_or_skunk_line_given_wins_over_the_variants() -> None:
    long_five = Settings(variant=Variant.FIVE_CARD, target=121)
    assert long_five.target == 121 and long_five.skunk_lines() == (91, 61, None)
    assert Settings.from_json({"variant": "five-card", "target": 121}).target == 121
    house = Settings(variant=Variant.FIVE_CARD, skunk_line=41, triple_skunk_line=11)
    assert house.skunk_lines() == (41, 31, 11)
    assert Settings(target=61).skunk_lines() == (46, 31, None)


def test_skunk_lines_are_checked_against_the_variants_target() -> None:
    with pytest.raises(SettingsError, match="skunk_line must be between 1 and 60: 91"):
        Settings(variant=Variant.FIVE_CARD, skunk_line=91)
    with pytest.raises(SettingsError, match="target must be 61 or 121, not 0"):
        Settings(target=0)
    with pytest.raises(SettingsError, match="target must be 61 or 121, not 0"):
        Settings.from_json({"variant": "five-card", "target": 0})
    with pytest.raises(SettingsError, match="target must be an integer, not None"):
        Settings.from_json({"variant": "five-card", "target": None})


@pytest.mark.parametrize(
    "data",
    [{}, {"variant": "five-card"}, {"variant": "five-card", "target": 121},
     {"variant": "five-card", "target": 61, "skunk_line": 40}, {"players": 3, "target": 61}],
)  # fmt: skip
def test_settings_round_trip_through_json(data: dict[str, object]) -> None:
    settings = Settings.from_json(data)
    saved = json.loads(json.dumps(settings.to_json()))
    assert saved["target"] == settings.target  # stored games always carry the target
    assert Settings.from_json(saved) == settings


def test_a_stored_five_card_game_with_target_121_still_loads_as_121() -> None:
    # Stored games (webui) save `Settings.to_json()`, which always names the target.
    stored = Settings(variant=Variant.FIVE_CARD, target=121).to_json()
    assert stored["target"] == 121
    game = Game.from_json({"settings": stored, "first_dealer": 0, "actions": []})
    assert game.settings.target == 121 and game.settings.skunk_lines() == (91, 61, None)


def test_a_five_card_game_without_a_target_ends_at_61() -> None:
    game = Game(Settings(variant=Variant.FIVE_CARD), first_dealer=0)
    assert game.scores == (0, 3)  # three for last
    game.correct(0, 30)
    game.correct(1, 58)
    assert game.phase is Phase.OVER and game.outcome is not None
    assert game.outcome.winner == 1 and game.outcome.scores == (30, 61)
    assert game.outcome.skunks == {0: Skunk.DOUBLE}  # under 31
