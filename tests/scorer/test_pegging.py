from __future__ import annotations

import random

import pytest

from scorer.cards import DECK, Card
from scorer.errors import DuplicateCardError, IllegalPlayError
from scorer.pegging import PegAction, Pegging, score_play
from tests.helpers import card, cards


def kinds_points(count: str) -> list[tuple[str, int]]:
    return [(item.name, item.points) for item in score_play(cards(count))]


def test_thirty_one_and_a_run_by_the_same_card_both_score() -> None:
    assert kinds_points("9H 8D 3S 5C 4H 2D") == [("31", 2), ("run of 4", 4)]


def test_four_six_five_scores_fifteen_and_the_run() -> None:
    assert kinds_points("4H 6D 5S") == [("15", 2), ("run of 3", 3)]


def test_runs_in_any_order() -> None:
    assert kinds_points("5H 2D 4S 3C") == [("run of 4", 4)]
    assert kinds_points("AH 3D 2S") == [("run of 3", 3)]


def test_six_and_seven_card_runs() -> None:
    assert kinds_points("AH 2D 3S 4C 5H 6D") == [("run of 6", 6)]
    assert kinds_points("AH 2D 3S 4C 5H 7C 6D") == [("run of 7", 7)]


def test_an_earlier_repeated_rank_does_not_cancel_a_later_run() -> None:
    assert kinds_points("3C 6D 6S 6H 4D 5C") == [("run of 3", 3)]


def test_pairs_only_with_adjacent_equal_ranks() -> None:
    assert kinds_points("7H 7D") == [("pair", 2)]
    assert kinds_points("7H 7D 7S") == [("pair royal", 6)]
    assert kinds_points("AH AD AS AC") == [("double pair royal", 12)]
    assert kinds_points("7H 3D 7S") == []
    assert kinds_points("5H 5D") == [("pair", 2)]
    assert kinds_points("5H 5D 5S") == [("15", 2), ("pair royal", 6)]


def test_run_needs_distinct_consecutive_cards_at_the_end() -> None:
    assert kinds_points("3H 4D 4S 5C") == []  # the pair breaks the run
    assert kinds_points("3H 4D 6S 5C") == [("run of 4", 4)]
    assert kinds_points("2H 3D 5S") == []


def hands(*texts: str) -> list[list[Card]]:
    return [cards(text) for text in texts]


def play_all(peg: Pegging, plays: list[tuple[int, str]]) -> None:
    for seat, text in plays:
        peg.play(seat, card(text))


def test_go_thirty_one_reset_and_last_card() -> None:
    peg = Pegging(2, dealer=1, hands=hands("5D KH 4C 6S", "10C 5S 9H AD"))
    plays = [(0, "5D"), (1, "10C"), (0, "KH"), (1, "5S"), (1, "AD"), (0, "4C"), (1, "9H"),
             (0, "6S")]  # fmt: skip
    play_all(peg, plays)
    actions = [(e.action, e.seat, e.points) for e in peg.events]
    assert (PegAction.GO, 0, 0) in actions
    # 31 scores 2 and no go point follows it.
    assert actions[4:7] == [(PegAction.GO, 0, 0), (PegAction.PLAY, 1, 2), (PegAction.PLAY, 0, 0)]
    assert actions[-1] == (PegAction.LAST_CARD, 0, 1)
    assert peg.scores() == [1, 4]
    assert peg.finished and peg.turn is None


def test_no_pair_or_run_across_a_reset() -> None:
    peg = Pegging(2, dealer=1, hands=hands("10H 3S 8C 9C", "KC 8D 7D 2H"))
    play_all(peg, [(0, "10H"), (1, "KC"), (0, "3S")])
    assert [i.name for i in peg.play(1, card("8D"))] == ["31"]
    assert peg.count == 0 and peg.turn == 0
    assert peg.play(0, card("8C")) == ()  # the 8D before the reset is no pair
    assert [i.name for i in peg.play(1, card("7D"))] == ["15"]
    assert [i.name for i in peg.play(0, card("9C"))] == ["run of 3"]


def test_go_point_goes_to_the_last_player_and_the_next_seat_leads() -> None:
    peg = Pegging(2, dealer=1, hands=hands("10H JD 9S 8C", "KC 9D 7S 2H"))
    play_all(peg, [(0, "10H"), (1, "KC"), (0, "9S")])  # 29
    play_all(peg, [(1, "2H")])  # 31 for 2, reset; seat 0 leads
    play_all(peg, [(0, "JD"), (1, "9D"), (0, "8C")])  # 10, 19, 27
    # seat 1 has 7S: 34 is too much, so go; seat 0 has nothing; go point to seat 0.
    go_events = [e for e in peg.events if e.action is PegAction.GO_POINT]
    assert [(e.seat, e.points) for e in go_events] == [(0, 1)]
    assert peg.turn == 1 and peg.count == 0
    items = peg.play(1, card("7S"))  # a fresh count: no run or pair reaches back
    assert items == ()
    assert peg.events[-1].action is PegAction.LAST_CARD and peg.events[-1].seat == 1
    assert peg.scores() == [1 + 0, 2 + 1]


def test_illegal_actions_are_refused_and_change_nothing() -> None:
    peg = Pegging(2, dealer=1, hands=hands("10H JD 9S AC", "KC 9D 7S 2H"))
    with pytest.raises(IllegalPlayError, match="it is seat 0's turn"):
        peg.play(1, card("KC"))
    with pytest.raises(IllegalPlayError, match="does not hold 2H"):
        peg.play(0, card("2H"))
    with pytest.raises(IllegalPlayError, match="a renege"):
        peg.go(0)
    play_all(peg, [(0, "10H"), (1, "KC"), (0, "JD")])  # 30
    # seat 1 holds 9D 7S 2H, all too big: it said go automatically; seat 0 holds AC.
    assert peg.turn == 0 and peg.events[-1].action is PegAction.GO
    with pytest.raises(IllegalPlayError, match="past 31"):
        peg.play(0, card("9S"))
    assert peg.count == 30 and len(peg.played[0]) == 2
    with pytest.raises(IllegalPlayError, match="not a seat"):
        peg.play(5, card("9S"))


def test_hidden_hands_say_go_explicitly_three_players() -> None:
    peg = Pegging(3, dealer=0)
    play_all(peg, [(1, "7H"), (2, "8H"), (0, "9H")])  # 24
    with pytest.raises(IllegalPlayError, match="already been played"):
        peg.play(1, card("8H"))
    peg.go(1)
    peg.play(2, card("5C"))  # 29
    peg.go(0)
    peg.play(2, card("2C"))  # 31: 2 points, no go point
    assert peg.count == 0 and peg.turn == 0  # the seat after the one who made 31 leads
    assert peg.scores() == [3, 0, 2 + 2]  # run 7-8-9; 7+8 = 15 and 31


def test_four_players_take_turns_round_the_table() -> None:
    peg = Pegging(4, dealer=3, hands=hands("AH 2H 3H 4H", "AD 2D 3D 4D", "AS 2S 3S 4S",
                                           "AC 2C 3C 4C"))  # fmt: skip
    assert peg.turn == 0
    assert peg.play(0, card("AH")) == ()
    assert [i.name for i in peg.play(1, card("AD"))] == ["pair"]
    assert [i.name for i in peg.play(2, card("AS"))] == ["pair royal"]
    assert [i.name for i in peg.play(3, card("AC"))] == ["double pair royal"]
    assert peg.turn == 0


def test_single_count_ends_the_play_at_the_first_go() -> None:
    peg = Pegging(2, dealer=1, hands=hands("KH QH 5D", "JC 10C 9S"), single_count=True)
    play_all(peg, [(0, "KH"), (1, "JC"), (0, "5D")])  # 25: seat 1 cannot play 9 or 10
    assert peg.finished
    assert peg.events[-1].action is PegAction.GO_POINT and peg.events[-1].seat == 0


def test_duplicate_cards_across_hands_are_refused() -> None:
    with pytest.raises(DuplicateCardError, match="5H"):
        Pegging(2, dealer=0, hands=hands("5H 6H 7H 8H", "5H 2C 3C 4C"))


def brute_force_play(hands_: list[list[Card]], dealer: int, rng: random.Random) -> list[int]:
    """Independent play-out: random legal plays, scores by direct recomputation."""
    n = len(hands_)
    held = [list(h) for h in hands_]
    scores = [0] * n
    seat = (dealer + 1) % n
    count_cards: list[Card] = []
    last = None
    peg = Pegging(n, dealer, hands_)
    while any(held):
        said_go: set[int] = set()
        while True:
            options = [c for c in held[seat] if sum(x.value for x in count_cards) + c.value <= 31]
            if seat not in said_go and options:
                chosen = rng.choice(options)
                held[seat].remove(chosen)
                count_cards.append(chosen)
                assert peg.turn == seat
                peg.play(seat, chosen)
                total = sum(x.value for x in count_cards)
                scores[seat] += 2 * (total in (15, 31))
                same = 1
                while same < len(count_cards) and count_cards[-1 - same].rank == chosen.rank:
                    same += 1
                scores[seat] += {1: 0, 2: 2, 3: 6, 4: 12}[same]
                for length in range(len(count_cards), 2, -1):
                    ranks = sorted(x.rank for x in count_cards[-length:])
                    if ranks == list(range(ranks[0], ranks[0] + length)):
                        scores[seat] += length
                        break
                last = seat
                if total == 31:
                    break
            else:
                said_go.add(seat)
                if all(s in said_go or not held[s] for s in range(n)):
                    assert last is not None
                    scores[last] += 1
                    break
            seat = (seat + 1) % n
            while not held[seat] and any(held):
                seat = (seat + 1) % n
        assert last is not None
        count_cards = []
        seat = (last + 1) % n
        while any(held) and not held[seat]:
            seat = (seat + 1) % n
    assert peg.finished
    assert peg.scores() == scores
    return scores


@pytest.mark.parametrize("players", [2, 3, 4])
def test_random_plays_match_an_independent_play_out(players: int) -> None:
    rng = random.Random(players)
    for _ in range(300):
        dealt = rng.sample(DECK, 4 * players)
        hands_ = [dealt[i::players] for i in range(players)]
        brute_force_play(hands_, rng.randrange(players), rng)


@pytest.mark.parametrize("laid", ["", "KH", "KH AC", "KH AC QD", "5H 6D 5S 5C"])
def test_hidden_hands_cannot_say_go_at_21_or_less(laid: str) -> None:
    """Every card is worth 10 at most: a seat with cards left can always play on 21."""
    peg = Pegging(2, dealer=1)
    play_all(peg, [(index % 2, code) for index, code in enumerate(laid.split())])
    seat, count = peg.turn, peg.count
    assert seat is not None and count <= 21 and not peg.may_say_go(seat)
    with pytest.raises(IllegalPlayError, match=f"seat {seat} cannot say go at a count of "
                       f"{count}: any card can still be played"):  # fmt: skip
        peg.go(seat)
    assert peg.count == count and peg.turn == seat and peg.said_go == set()


def test_hidden_hands_may_say_go_from_22() -> None:
    peg = Pegging(2, dealer=1)
    play_all(peg, [(0, "KH"), (1, "AC"), (0, "QD"), (1, "AD")])  # 22
    assert peg.may_say_go(0) and not peg.may_say_go(1)  # only the seat whose turn it is
    peg.go(0)
    assert peg.may_say_go(1)
    peg.go(1)
    assert peg.count == 0 and peg.events[-1].action is PegAction.GO_POINT


def test_known_hands_never_leave_a_go_to_say() -> None:
    """The engine says go itself for a seat that cannot play, so a go is always a renege."""
    peg = Pegging(2, dealer=1, hands=hands("10H JD 9S AC", "KC 9D 7S 2H"))
    play_all(peg, [(0, "10H"), (1, "KC"), (0, "JD")])  # 30: seat 1 said go by itself
    assert peg.turn == 0 and not peg.may_say_go(0)
