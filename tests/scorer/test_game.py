from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from scorer.cards import Card
from scorer.errors import CribbageError, DuplicateCardError, GameError, IllegalPlayError
from scorer.events import EventKind
from scorer.game import Game, Phase
from scorer.match import Match
from scorer.replay import ReplayError, replay, replay_report
from scorer.settings import ACC_MATCH_POINTS, MatchPoints, Settings, SettingsError, Skunk, Variant
from tests.helpers import card, cards

DATA = Path(__file__).parent.parent / "data"


def two_player_deal(game: Game, *, starter: str = "5S") -> None:
    """Deal 1 of the example file: dealer 1, pone 0."""
    game.deal([cards("5H 5D JC 6S 9H QD"), cards("2C 3C 4D KH 8S 7C")])
    game.discard(0, cards("9H QD"))
    game.discard(1, cards("KH 8S"))
    game.cut_starter(card(starter))


def play_out(game: Game, order: str, holder: dict[Card, int] | None = None) -> None:
    hands = holder or {}
    for text in order.split():
        played = card(text)
        game.play(hands.get(played, game.turn or 0), played)


DEAL1_PLAYS = "5H 7C 5D 3C JC 2C 6S 4D"


def seats_of(*hands: str) -> dict[Card, int]:
    return {c: seat for seat, hand in enumerate(hands) for c in cards(hand)}


DEAL1_HOLDERS = seats_of("5H 5D JC 6S", "2C 3C 4D 7C")


def snapshot(game: Game) -> str:
    return json.dumps(game.state_json(), sort_keys=True)


# -- deals and phases ------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("settings", "dealt", "discards", "hand"),
    [
        (Settings(players=2), 6, 2, 4),
        (Settings(players=3), 5, 1, 4),
        (Settings(players=4), 5, 1, 4),
        (Settings(players=2, variant=Variant.FIVE_CARD, target=61), 5, 2, 3),
    ],
)
def test_deal_sizes_of_each_variant(
    settings: Settings, dealt: int, discards: int, hand: int
) -> None:
    assert (settings.dealt_per_player, settings.discards_per_player) == (dealt, discards)
    assert settings.hand_size == hand
    game = Game(settings, first_dealer=0)
    deck = [Card(rank, suit) for suit in "CDHS" for rank in range(1, 14)]
    with pytest.raises(GameError, match=r"are \d+ cards, got"):
        game.deal([deck[i * dealt : (i + 1) * dealt - 1] for i in range(settings.players)])
    extra = deck[50] if settings.players == 3 else None
    game.deal([deck[i * dealt : (i + 1) * dealt] for i in range(settings.players)], extra)
    for seat in range(settings.players):
        game.discard(seat, deck[seat * dealt : seat * dealt + discards])
    assert game.phase is Phase.STARTER
    game.cut_starter(deck[51])
    assert game.phase is Phase.PLAY


def test_counting_order_is_dealers_left_round_to_dealer_then_crib() -> None:
    game = Game(Settings(players=3), first_dealer=1)
    assert game.show_order() == [("hand", 2), ("hand", 0), ("hand", 1), ("crib", 1)]
    game4 = Game(Settings(players=4), first_dealer=3)
    assert game4.show_order() == [("hand", 0), ("hand", 1), ("hand", 2), ("hand", 3), ("crib", 3)]


def test_a_whole_deal_shows_in_order_and_the_deal_passes_left() -> None:
    game = Game(Settings(), first_dealer=1)
    two_player_deal(game)
    play_out(game, DEAL1_PLAYS, DEAL1_HOLDERS)
    assert game.phase is Phase.SHOW
    shown = [game.next_show()]
    assert game.show().total == 14  # pone 5H 5D JC 6S + 5S first
    shown.append(game.next_show())
    assert game.show().total == 6
    shown.append(game.next_show())
    assert game.show().total == 4
    assert shown == [("hand", 0), ("hand", 1), ("crib", 1)]
    assert game.phase is Phase.DEAL and game.dealer == 0
    assert game.scores == (1 + 14, 1 + 6 + 4)


def test_cut_for_deal_lowest_deals_and_ties_recut() -> None:
    game = Game(Settings())
    with pytest.raises(GameError, match="cut again"):
        game.cut_for_deal(cards("5H 5D"))
    assert game.phase is Phase.CUT_FOR_DEAL
    game.cut_for_deal(cards("KH 2D"))
    assert game.dealer == 1


def test_illegal_actions_raise_and_leave_the_state_untouched() -> None:
    game = Game(Settings(), first_dealer=1)
    game.deal([cards("5H 5D JC 6S 9H QD"), cards("2C 3C 4D KH 8S 7C")])
    before = snapshot(game)
    with pytest.raises(GameError, match="deal 1: seat 0 was not dealt 2C"):
        game.discard(0, cards("9H 2C"))
    with pytest.raises(GameError, match="lays away 2"):
        game.discard(0, cards("9H"))
    with pytest.raises(GameError, match="discard"):
        game.cut_starter(card("AS"))
    assert snapshot(game) == before
    game.discard(0, cards("9H QD"))
    game.discard(1, cards("KH 8S"))
    with pytest.raises(GameError, match="starter 5H was dealt"):
        game.cut_starter(card("5H"))
    game.cut_starter(card("5S"))
    before = snapshot(game)
    with pytest.raises(
        IllegalPlayError, match="deal 1: seat 1 cannot play 7C: it is seat 0's turn"
    ):
        game.play(1, card("7C"))
    with pytest.raises(GameError, match="9H is in the crib"):
        game.play(0, card("9H"))
    assert snapshot(game) == before


def test_duplicate_cards_in_a_deal_are_named() -> None:
    game = Game(Settings(), first_dealer=0)
    with pytest.raises(DuplicateCardError, match="5H appears twice"):
        game.deal([cards("5H 5D JC 6S 9H QD"), cards("2C 3C 4D KH 8S 5H")])


# -- the end of the game -----------------------------------------------------------------------
def test_his_heels_wins_the_game_at_once() -> None:
    game = Game(Settings(target=61), first_dealer=1)
    game.correct(1, 59)
    game.deal([cards("5H 5D JC 6S 9H QD"), cards("2C 3C 4D KH 8S 7C")])
    game.discard(0, cards("9H QD"))
    game.discard(1, cards("KH 8S"))
    game.cut_starter(card("JS"))
    assert game.phase is Phase.OVER
    assert game.outcome is not None and game.outcome.winner == 1
    assert game.outcome.scores == (0, 61)
    assert game.outcome.skunks == {0: Skunk.DOUBLE}
    with pytest.raises(GameError, match="game is over"):
        game.play(0, card("5H"))


def test_pone_wins_on_the_show_before_the_dealer_counts() -> None:
    game = Game(Settings(target=121), first_dealer=1)
    game.correct(0, 106)
    game.correct(1, 118)
    two_player_deal(game)
    play_out(game, DEAL1_PLAYS, DEAL1_HOLDERS)
    assert game.scores == (107, 119)  # a go each side: seat 0 go, seat 1 last card
    game.show()  # pone counts 14 first: 121
    assert game.phase is Phase.OVER and game.outcome is not None
    assert game.outcome.winner == 0 and game.scores == (121, 119)
    # The dealer's hand (6) and crib (4) would have won; they are counted for interest only.
    assert game.show().total == 6
    assert game.events[-1].for_interest and game.events[-1].points == 0
    assert game.show().total == 4
    assert game.scores == (121, 119)
    assert game.outcome.skunks == {1: Skunk.NONE}


def test_the_game_ends_mid_play() -> None:
    game = Game(Settings(target=61), first_dealer=1)
    game.correct(1, 59)
    two_player_deal(game)
    game.play(0, card("5H"))
    game.play(1, card("7C"))
    game.play(0, card("5D"))
    game.play(1, card("3C"))  # 20
    game.play(0, card("JC"))  # 30
    assert game.phase is Phase.PLAY  # seat 1 says go; seat 0 cannot play: go point to 0
    game.play(1, card("2C"))
    game.play(0, card("6S"))
    assert game.scores == (1, 59)
    game.play(1, card("4D"))  # last card: 60
    assert game.scores == (1, 60)
    game.show()
    assert game.phase is Phase.SHOW
    game.show()  # dealer's 6 wins
    assert game.phase is Phase.OVER and game.scores == (15, 66)


def test_skunk_levels_and_match_points() -> None:
    settings = Settings()
    assert [settings.skunk_level(s) for s in (91, 90, 61, 60, 30)] == [
        Skunk.NONE, Skunk.SKUNK, Skunk.SKUNK, Skunk.DOUBLE, Skunk.DOUBLE,
    ]  # fmt: skip
    house = Settings(triple_skunk_line=31, match_points=MatchPoints(double_skunk=4))
    assert house.skunk_level(30) is Skunk.TRIPLE
    assert house.match_points.for_winner(Skunk.DOUBLE) == 4
    assert Settings(target=61).skunk_lines() == (46, 31, None)
    assert ACC_MATCH_POINTS.for_winner(Skunk.NONE) == 2
    assert ACC_MATCH_POINTS.for_winner(Skunk.SKUNK) == 3


def finished_game(settings: Settings, winner: int, loser_points: int) -> Game:
    game = Game(settings, first_dealer=0)
    game.correct(1 - winner, loser_points)
    game.correct(winner, settings.target)
    return game


def test_match_standings_next_dealer_and_triple_skunk() -> None:
    settings = Settings(games_per_match=3, match_points=ACC_MATCH_POINTS)
    match = Match(settings)
    match.record_game(finished_game(settings, winner=0, loser_points=80))
    assert match.standings() == [3, 0] and match.next_first_dealer == 1
    match.record_game(finished_game(settings, winner=1, loser_points=100))
    assert match.standings() == [3, 2] and match.next_first_dealer == 0
    assert match.new_game().dealer == 0
    assert not match.over and match.winner() is None
    match.record_game(finished_game(settings, winner=0, loser_points=110))
    assert match.over and match.winner() == 0 and match.standings() == [5, 2]

    outright = Settings(games_per_match=5, triple_skunk_line=31,
                        match_points=MatchPoints(triple_skunk_wins_match=True))  # fmt: skip
    quick = Match(outright)
    quick.record_game(finished_game(outright, winner=1, loser_points=20))
    assert quick.over and quick.winner() == 1


# -- partnerships ------------------------------------------------------------------------------
def test_partners_share_a_score_and_keep_per_player_logs() -> None:
    game = Game(Settings(players=4), first_dealer=3)
    hands = [cards("AH 2H 3H 4H 5H"), cards("AD 2D 3D 4D 5D"), cards("AS 2S 3S 4S 5S"),
             cards("AC 2C 3C 4C 5C")]  # fmt: skip
    game.deal(hands)
    for seat in range(4):
        game.discard(seat, [hands[seat][4]])
    game.cut_starter(card("KD"))
    for seat, suit in enumerate("HDSC"):
        game.play(seat, card("A" + suit))
    # pair 2 (seat 1), pair royal 6 (seat 2), double pair royal 12 (seat 3)
    assert game.seat_points() == [0, 2, 6, 12]
    assert game.scores == (0 + 6, 2 + 12)
    for seat, suit in enumerate("HDSC"):
        game.play(seat, card("2" + suit))  # 6, 8 pair, 10 royal, 12 double royal
    game.play(0, card("3H"))  # 15 for 2
    assert game.seat_points() == [2, 4, 12, 24]
    assert game.scores == (2 + 12, 4 + 24)


# -- five-card cribbage ------------------------------------------------------------------------
def test_five_card_three_for_last_single_count_and_three_card_hands() -> None:
    game = Game(Settings(variant=Variant.FIVE_CARD, target=61), first_dealer=0)
    assert game.scores == (0, 3)
    assert game.events[0].kind is EventKind.THREE_FOR_LAST
    game.deal([cards("KH QH 5D 9C 2C"), cards("JC 10C 9S 3D 4D")])
    game.discard(0, cards("9C 2C"))
    game.discard(1, cards("3D 4D"))
    game.cut_starter(card("AS"))
    game.play(1, card("JC"))
    game.play(0, card("KH"))
    game.play(1, card("10C"))  # 30: seat 0 can't; seat 1 can't: go point, and the play ends
    assert game.phase is Phase.SHOW
    hand = game.show()  # seat 1's 3-card hand JC 10C 9S with AS
    assert len(hand.hand) == 3 and hand.total == 3  # run 9-10-J
    assert game.show().total == 4  # KH QH 5D with AS: K+5 and Q+5
    assert game.scores == (4, 3 + 1 + 3)  # three for last, the go, the run


# -- muggins -----------------------------------------------------------------------------------
def muggins_game(**settings: Any) -> Game:
    game = Game(Settings(muggins=True, **settings), first_dealer=1)
    two_player_deal(game)
    play_out(game, DEAL1_PLAYS, DEAL1_HOLDERS)
    return game


def test_short_claim_can_be_mugged_for_no_more_than_was_missed() -> None:
    game = muggins_game()
    before = game.scores
    game.show(claim=12)  # the count is 14
    assert game.scores[0] == before[0] + 12
    assert game.events[-1].claim is not None
    assert "missed: fifteen 5D+5H+5S for 2" in game.events[-1].claim.describe()
    game.muggins(1, 5)
    assert game.events[-1].kind is EventKind.MUGGINS and game.events[-1].points == 2
    assert game.scores == (before[0] + 12, before[1] + 2)


def test_muggins_window_closes_with_the_next_action() -> None:
    game = muggins_game()
    game.show(claim=12)
    game.show()  # the dealer counts: the call on the pone's hand is too late
    with pytest.raises(GameError, match="no claim is open"):
        game.muggins(1, 2)


def test_own_side_cannot_mug() -> None:
    game = muggins_game()
    game.show(claim=12)
    with pytest.raises(GameError, match="own side"):
        game.muggins(0, 2)


def test_wrong_muggins_call_pays_a_penalty_when_penalties_are_on() -> None:
    game = muggins_game()
    game.show(claim=14)  # exact
    before = game.scores
    game.muggins(1, 2)
    assert game.events[-1].kind is EventKind.PENALTY
    assert game.scores == (before[0] + 2, before[1])

    no_penalty = muggins_game(muggins_penalties=False)
    no_penalty.show(claim=14)
    before = no_penalty.scores
    no_penalty.muggins(1, 2)
    assert no_penalty.scores == before and "no penalty" in no_penalty.events[-1].note


def test_over_claim_is_corrected_and_flagged() -> None:
    game = muggins_game()
    before = game.scores
    game.show(claim=16)
    assert game.scores[0] == before[0] + 14
    check = game.events[-1].claim
    assert check is not None and check.outcome == "over" and check.over == 2


def test_false_claim_of_game_penalty_is_a_setting() -> None:
    for penalty in (False, True):
        game = Game(Settings(muggins=True, false_game_penalty=penalty), first_dealer=1)
        game.correct(0, 110)
        two_player_deal(game)
        play_out(game, DEAL1_PLAYS, DEAL1_HOLDERS)  # seat 0 pegs 1: 111
        game.show(claim=14)  # honest count: 125 wins
        assert game.phase is Phase.OVER
        game2 = Game(Settings(muggins=True, false_game_penalty=penalty), first_dealer=1)
        game2.correct(0, 100)
        two_player_deal(game2)
        play_out(game2, DEAL1_PLAYS, DEAL1_HOLDERS)  # 101; true count 14 -> 115
        game2.show(claim=20)  # claims 121: a false claim of game
        if penalty:
            assert game2.scores == (115 - 15, 1 + 6)  # opponent gets the 6 overclaimed
        else:
            assert game2.scores == (115, 1)


def test_without_muggins_a_short_claim_is_recorded_and_counted_in_full() -> None:
    game = Game(Settings(muggins=False), first_dealer=1)
    two_player_deal(game)
    play_out(game, DEAL1_PLAYS, DEAL1_HOLDERS)
    before = game.scores
    game.show(claim=12)
    assert game.scores[0] == before[0] + 14
    assert game.events[-1].claim is not None and game.events[-1].claim.missed == 2
    with pytest.raises(GameError, match="not being played"):
        game.muggins(1, 2)


def test_pegging_claims_can_be_mugged_and_his_heels_cannot() -> None:
    game = Game(Settings(muggins=True), first_dealer=1)
    game.deal([cards("5H 5D JC 6S 9H QD"), cards("2C 3C 4D KH 8S 7C")])
    game.discard(0, cards("9H QD"))
    game.discard(1, cards("2C 3C"))
    game.cut_starter(card("JS"))
    assert game.scores == (0, 2)  # his heels, scored without a claim
    with pytest.raises(GameError, match="no claim is open"):
        game.muggins(0, 2)
    game.play(0, card("5H"))
    game.play(1, card("KH"), claim=0)  # 15 for 2, unclaimed
    assert game.scores == (0, 2)
    game.muggins(0, 3)
    assert game.scores == (2, 2)
    assert game.events[-1].items == ("15 for 2",)


# -- undo and serialisation --------------------------------------------------------------------
def test_undo_restores_the_exact_previous_state() -> None:
    game = Game(Settings(muggins=True), first_dealer=1)
    states = [snapshot(game)]
    game.deal([cards("5H 5D JC 6S 9H QD"), cards("2C 3C 4D KH 8S 7C")])
    states.append(snapshot(game))
    game.discard(0, cards("9H QD"))
    states.append(snapshot(game))
    game.discard(1, cards("KH 8S"))
    states.append(snapshot(game))
    game.cut_starter(card("5S"))
    states.append(snapshot(game))
    game.play(0, card("5H"))
    states.append(snapshot(game))
    game.play(1, card("7C"))
    while game.actions:
        game.undo()
        assert snapshot(game) == states.pop()
    with pytest.raises(GameError, match="nothing to undo"):
        game.undo()


def test_a_game_round_trips_through_json() -> None:
    game = replay(json.loads((DATA / "game_two_players.json").read_text()))
    saved = json.loads(json.dumps(game.to_json()))
    again = Game.from_json(saved)
    assert snapshot(again) == snapshot(game)
    assert [str(e) for e in again.events] == [str(e) for e in game.events]


# -- replay ------------------------------------------------------------------------------------
def test_replay_of_the_example_file() -> None:
    game = replay(json.loads((DATA / "game_two_players.json").read_text()))
    report = replay_report(game)
    assert report["finished"] is False
    kinds = [(e["kind"], e["seat"], e["points"]) for e in report["events"]]
    assert ("muggins", 1, 2) in kinds
    hand_scores = [e["scores"] for e in report["events"] if e["kind"] == "hand"]
    assert hand_scores[0] == [13, 1]  # 1 go + 12 claimed of 14
    assert report["scores"] == list(game.scores) == [40, 20]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["deals"][0]["hands"][1].__setitem__(0, "5H"), "deal 1: 5H appears twice"),
        (lambda d: d["deals"][0]["discards"][0].__setitem__(0, "2C"),
         "deal 1: seat 0 was not dealt 2C"),
        (lambda d: d["deals"][1].__setitem__("plays", ["5C", "8D"]),
         "deal 2: seat 1 cannot play 8D: it is seat 0's turn"),
        (lambda d: d["deals"][0].__setitem__("starter", "ZZ"), "deal 1: 'ZZ' is not a card"),
        (lambda d: d.__setitem__("settings", {"players": 7}), "players must be 2, 3 or 4"),
    ],
)  # fmt: skip
def test_replay_errors_name_the_deal_and_the_card(change: Any, message: str) -> None:
    data = json.loads((DATA / "game_two_players.json").read_text())
    change(data)
    with pytest.raises(CribbageError, match=message):
        replay(data)


def test_settings_from_json_reject_bad_values() -> None:
    with pytest.raises(SettingsError, match="unknown setting"):
        Settings.from_json({"playerz": 2})
    with pytest.raises(SettingsError, match="target must be 61 or 121"):
        Settings.from_json({"target": 100})
    with pytest.raises(SettingsError, match="muggins must be true or false"):
        Settings.from_json({"muggins": "yes"})
    with pytest.raises(SettingsError, match="five-card cribbage is for two"):
        Settings.from_json({"players": 3, "variant": "five-card"})
    assert Settings.from_json({"match_points": "acc"}).match_points == ACC_MATCH_POINTS


def test_replay_error_type() -> None:
    with pytest.raises(ReplayError):
        replay([])


def _hidden_play(first_dealer: int = 1) -> Game:
    game = Game(Settings(), first_dealer=first_dealer)
    game.deal(None)
    game.discard(0, None)
    game.discard(1, None)
    game.cut_starter(card("5S"))
    return game


def test_an_impossible_go_is_refused_live_and_in_a_saved_log() -> None:
    game = _hidden_play()
    assert not game.go_possible
    with pytest.raises(IllegalPlayError, match="deal 1: seat 0 cannot say go at a count of 0"):
        game.go(0)
    game.play(0, card("KH"))
    with pytest.raises(IllegalPlayError, match="seat 1 cannot say go at a count of 10: any card"):
        game.go(1)
    assert game.turn == 1 and len(game.actions) == 5
    saved = game.to_json()
    saved["actions"].append({"kind": "go", "seat": 1})
    with pytest.raises(GameError, match=r"action 6 .* cannot say go at a count of 10"):
        Game.from_json(saved)


def test_go_possible_is_the_turns_go_at_22_or_more_with_hidden_hands() -> None:
    game = _hidden_play()
    for seat, code in [(0, "KH"), (1, "AC"), (0, "QD"), (1, "AD")]:
        assert not game.go_possible
        game.play(seat, card(code))
    assert game.go_possible  # 22, seat 0 to play
    game.go(0)
    assert game.go_possible
    game.go(1)
    assert not game.go_possible and game.turn == 0 and game.scores == (0, 1)
    assert game.state_json()["go_possible"] is False
