"""The table-mode measurement answers each proposal as the players would (`_act`)."""

from __future__ import annotations

from cribtrain.measure.table_mode import FORM_TAPS, Followed, _act
from scorer.cards import parse_card
from tablemode.view import LaidCard, TableView
from tests.tablemode.test_follow import PLAYS, STARTER, apply_sure, play_ready, sure, view


def test_a_play_offered_by_the_wrong_seat_is_entered_for_the_seat_that_laid_it() -> None:
    """The 5C that made 31 was seen in seat 0's row: offered as seat 0's, it is not what was
    played (seat 0 said go, seat 1 laid it), whatever its card: the players enter it."""
    game, follower = play_ready()
    apply_sure(game, follower, view(PLAYS[:3]))  # 10S, JH, 6D: 26, seat 0 to play
    seen = TableView(sure(STARTER), (*view(PLAYS[:3]).plays, LaidCard(0, sure("5C"))))
    (proposal,) = follower.proposals(game, seen)
    assert proposal.sure and proposal.options[0].steps[-1].seat == 0
    result = Followed(game)
    truth = {proposal.key: (parse_card("5C"),)}
    assert _act(result, game, follower, proposal, truth, {proposal.key: 1})
    assert result.taps == 1 + FORM_TAPS
    assert game.deal_state is not None and game.deal_state.pegging is not None
    assert [str(c) for c in game.deal_state.pegging.played[1]][-1] == "5C"


def test_a_card_the_camera_missed_by_the_seat_asked_is_one_tap_in_the_question_s_picker() -> None:
    """Seat 1's 6D laid where it is seat 0's turn (seat 0's JH unseen): the question is seat
    0's, and the JH, offered by no button, is the picker's tap."""
    game, follower = play_ready()
    apply_sure(game, follower, view(PLAYS[:1]))
    seen = view([PLAYS[0], PLAYS[2]])
    for _ in range(follower.config.order_patience + 1):
        found = follower.proposals(game, seen)
    (proposal,) = found
    assert proposal.doubt_code == "not next" and proposal.seat == 0
    assert parse_card("JH") not in {o.cards[0] for o in proposal.options}
    result = Followed(game)
    assert _act(result, game, follower, proposal, {proposal.key: (parse_card("JH"),)},
                {proposal.key: 0})  # fmt: skip
    assert result.taps == 1
