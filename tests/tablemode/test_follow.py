"""Table mode's follower on hand-made table views: a whole hidden-hands deal, the deal prior,
go's inferred from the order cards are laid, and what it refuses to guess."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from cribtrain.data.deal_clips import DealScript
from cribtrain.measure.table_mode import by_hand, settings_of
from scorer.cards import parse_card, parse_cards
from scorer.game import Game, Phase
from scorer.settings import Settings
from tablemode.config import TableModeConfig
from tablemode.follow import Follower, Proposal, option_for
from tablemode.view import CardReading, LaidCard, TableView
from tests.cribtrain.data.test_clips import THREE_DEAL, TWO_DEAL

# Seat 0 deals; seat 1 leads. 10+J = 20, +6 = 26: seat 0 cannot play under 31 (holds 7, 9):
# seat 1 plays on alone (26+5 = 31).
PLAYS = [(1, "10S"), (0, "JH"), (1, "6D"), (1, "5C"), (0, "7H"), (1, "2S"), (0, "9C"), (0, "AD")]
STARTER, CRIB = "4H", ["QD", "3C", "8S", "KC"]


def sure(card: str, chance: float = 0.95) -> CardReading:
    return CardReading(((parse_card(card), chance),))


def reading(*choices: tuple[str, float]) -> CardReading:
    return CardReading(tuple((parse_card(c), p) for c, p in choices))


def view(plays: Sequence[tuple[int, str]] = (), starter: str | None = STARTER,
         crib: Sequence[str] = (), clear: bool = False) -> TableView:  # fmt: skip
    return TableView(
        starter=None if starter is None else sure(starter),
        plays=tuple(LaidCard(seat, sure(card)) for seat, card in plays),
        crib=tuple(sure(c) for c in crib),
        clear=clear,
    )


def apply_sure(game: Game, follower: Follower, table: TableView) -> list[Proposal]:
    """Apply every sure proposal the table gives, as table mode does; the ones applied."""
    applied: list[Proposal] = []
    for _ in range(20):
        found = follower.proposals(game, table)
        if not found or not found[0].sure:
            return applied
        for step in found[0].options[0].steps:
            step.apply(game)
        applied.append(found[0])
    raise AssertionError("the follower kept proposing")


def entered_by_hand() -> Game:
    """The same deal entered through the engine, the oracle for the scores."""
    game = Game(Settings(), first_dealer=0)
    game.deal(None)
    game.discard(0, None)
    game.discard(1, None)
    game.cut_starter(parse_card(STARTER))
    played: list[int] = []
    for seat, card in PLAYS:
        while game.turn != seat:
            game.go(game.turn)  # type: ignore[arg-type]
        game.play(seat, parse_card(card))
        played.append(seat)
    for seat in (1, 0):
        game.show([parse_card(c) for s, c in PLAYS if s == seat])
    game.show(parse_cards(CRIB))
    return game


def test_a_hidden_hands_deal_follows_the_table_to_the_same_scores_as_entered_by_hand() -> None:
    game, follower = Game(Settings(), first_dealer=0), Follower()
    assert apply_sure(game, follower, view(starter=None, clear=True)) == []
    applied = apply_sure(game, follower, view())
    assert [p.kind for p in applied] == ["starter"] and game.phase is Phase.PLAY
    texts = []
    for laid in range(1, len(PLAYS) + 1):
        applied = apply_sure(game, follower, view(PLAYS[:laid]))
        assert [p.kind for p in applied][:1] == ["play"], laid
        texts += [p.text for p in applied]
    assert texts[3] == "seat 0 said go, seat 1 played 5C"
    # The hands are the cards each player laid: both are shown without any reading.
    assert game.next_show() == ("crib", 0)
    assert apply_sure(game, follower, view(PLAYS, crib=CRIB))[0].kind == "crib"
    assert game.scores == entered_by_hand().scores
    assert game.next_show() is None and game.deals_played == 1


def test_the_next_deal_waits_for_the_table_to_be_cleared() -> None:
    game, follower = Game(Settings(), first_dealer=0), Follower()
    for table in (view(), view(PLAYS), view(PLAYS, crib=CRIB)):
        apply_sure(game, follower, table)
    assert game.phase is Phase.DEAL
    assert follower.proposals(game, view(PLAYS, crib=CRIB)) == []  # last deal's starter
    apply_sure(game, follower, view(starter=None, clear=True))
    applied = apply_sure(game, follower, view(starter="9D"))
    assert [p.key for p in applied] == ["deal 2 starter"]
    assert game.deal_state is not None and game.deal_state.starter == parse_card("9D")


def play_ready() -> tuple[Game, Follower]:
    game, follower = Game(Settings(), first_dealer=0), Follower()
    apply_sure(game, follower, view())
    return game, follower


def test_a_first_choice_already_placed_takes_the_likeliest_possible_card_and_asks() -> None:
    game, follower = play_ready()
    apply_sure(game, follower, view(PLAYS[:1]))  # 10S played
    misread = LaidCard(0, reading(("10S", 0.6), ("10C", 0.3)))
    table = TableView(sure(STARTER), (LaidCard(1, sure("10S")), misread))
    proposal = follower.proposals(game, table)[0]
    assert not proposal.sure and proposal.options[0].cards == (parse_card("10C"),)
    assert "cannot be there" in proposal.doubt


def test_a_card_the_camera_laid_undecided_is_asked_about_however_likely() -> None:
    """The camera's evidence stayed thin (`PlayEvent.sure`): its likeliest card is offered
    first, not applied."""
    game, follower = play_ready()
    undecided = CardReading(((parse_card("10S"), 0.85), (parse_card("10C"), 0.1)), sure=False)
    proposal = follower.proposals(game, TableView(sure(STARTER), (LaidCard(1, undecided),)))[0]
    assert not proposal.sure and proposal.doubt == "not surely read"
    assert [o.cards for o in proposal.options[:2]] == [(parse_card("10S"),), (parse_card("10C"),)]


def test_a_card_that_would_pass_31_is_not_a_choice() -> None:
    game, follower = play_ready()
    apply_sure(game, follower, view(PLAYS[:3]))  # count 26, seat 1 to play on after a go
    laid = LaidCard(1, reading(("KD", 0.8), ("5C", 0.15), ("4C", 0.05)))
    table = TableView(sure(STARTER), (*(LaidCard(s, sure(c)) for s, c in PLAYS[:3]), laid))
    proposal = follower.proposals(game, table)[0]
    assert [o.cards[0] for o in proposal.options] == parse_cards(["5C", "4C"])
    assert not proposal.sure and proposal.options[0].steps[0].kind == "go"


def test_a_card_laid_out_of_turn_at_a_low_count_is_asked_about_not_guessed() -> None:
    game, follower = play_ready()
    # Seat 1 leads, but the table shows seat 0's row first: at count 0 nobody says go. The
    # card seat 1 laid before it may still be seen: the question waits a few views for it.
    table = TableView(sure(STARTER), (LaidCard(0, sure("JH")),))
    patience = follower.config.order_patience
    assert [follower.proposals(game, table) for _ in range(patience)] == [[]] * patience
    proposal = follower.proposals(game, table)[0]
    assert not proposal.sure and proposal.seat == 1 and "not next" in proposal.doubt


def test_a_declined_proposal_is_asked_again_not_applied() -> None:
    game, follower = play_ready()
    first = follower.proposals(game, view(PLAYS[:1]))[0]
    follower.decline(first.key)
    again = follower.proposals(game, view(PLAYS[:1]))[0]
    assert again.key == first.key and not again.sure


@pytest.mark.parametrize("muggins", [False, True])
def test_muggins_games_ask_each_show_for_the_players_claim(muggins: bool) -> None:
    game, follower = Game(Settings(muggins=muggins), first_dealer=0), Follower()
    apply_sure(game, follower, view())
    shown = [p for p in apply_sure(game, follower, view(PLAYS)) if p.kind == "show"]
    if not muggins:  # both hands are counted by themselves: the crib is next
        assert [p.seat for p in shown] == [1, 0] and game.next_show() == ("crib", 0)
        return
    proposal = follower.proposals(game, view(PLAYS))[0]
    assert shown == [] and proposal.claim and not proposal.sure
    assert proposal.options[0].cards == tuple(parse_card(c) for s, c in PLAYS if s == 1)


def test_a_crib_card_already_placed_is_read_as_its_next_choice() -> None:
    game, follower = play_ready()
    apply_sure(game, follower, view(PLAYS))
    crib = (sure("QD"), sure("3C"), sure("8S"), reading(("JH", 0.7), ("KC", 0.25)))
    table = TableView(sure(STARTER), tuple(LaidCard(s, sure(c)) for s, c in PLAYS), crib)
    proposal = follower.proposals(game, table)[0]
    assert proposal.kind == "crib" and not proposal.sure
    assert proposal.options[0].cards == tuple(parse_cards(CRIB))


def test_a_crib_card_read_surely_as_another_suit_is_among_the_options() -> None:
    """A far 8S read 8C at 0.986 beside an unsure KC: the crib with the 8S is offered too,
    though the 8C is not the least sure card read."""
    game, follower = play_ready()
    apply_sure(game, follower, view(PLAYS))
    crib = (sure("QD", 1.0), sure("3C", 1.0), reading(("8C", 0.986), ("8S", 0.013)),
            reading(("KC", 0.68), ("KD", 0.3)))  # fmt: skip
    table = TableView(sure(STARTER), tuple(LaidCard(s, sure(c)) for s, c in PLAYS), crib)
    proposal = follower.proposals(game, table)[0]
    offered = [set(o.cards) for o in proposal.options]
    assert offered[0] == set(parse_cards(["QD", "3C", "8C", "KC"])) and not proposal.sure
    assert set(parse_cards(CRIB)) in offered[1:]


def test_five_crib_cards_seen_ask_which_four_the_crib_is() -> None:
    """A fanned card's two index columns read as two cards: five turned up where the crib
    lies. Not applied: each four is offered, the dealt crib among them."""
    game, follower = play_ready()
    apply_sure(game, follower, view(PLAYS))
    table = view(PLAYS, crib=[*CRIB[:3], "KS", CRIB[3]])
    proposal = follower.proposals(game, table)[0]
    assert proposal.kind == "crib" and not proposal.sure
    offered = [set(o.cards) for o in proposal.options]
    assert len(offered) == 5 and set(parse_cards(CRIB)) in offered


def test_a_crib_with_a_card_unread_asks_for_that_card_and_scores_as_entered_by_hand() -> None:
    """Three crib cards seen (the fourth never read): nothing applied, the three read (through
    the deal prior) and no option; the card the players name completes the crib."""
    game, follower = play_ready()
    apply_sure(game, follower, view(PLAYS))
    crib = (sure("QD"), sure("3C"), reading(("JH", 0.9), ("8S", 0.1)))  # JH is laid: 8S
    table = TableView(sure(STARTER), tuple(LaidCard(s, sure(c)) for s, c in PLAYS), crib)
    proposal = follower.proposals(game, table)[0]
    assert proposal.kind == "crib" and not proposal.sure and proposal.options == ()
    assert proposal.doubt_code == "crib card unseen"
    assert proposal.partial == tuple(parse_cards(["QD", "3C", "8S"]))
    assert option_for(game, proposal, parse_cards(["QD", "3C", "8S", "JH"])) is None  # laid
    answer = option_for(game, proposal, parse_cards(CRIB))
    assert answer is not None
    for step in answer.steps:
        step.apply(game)
    assert game.scores == entered_by_hand().scores and game.deals_played == 1


def test_three_crib_cards_one_of_them_only_a_card_laid_are_no_crib() -> None:
    game, follower = play_ready()
    apply_sure(game, follower, view(PLAYS))
    crib = (sure("QD"), sure("3C"), sure("JH"))  # JH was laid in the play
    table = TableView(sure(STARTER), tuple(LaidCard(s, sure(c)) for s, c in PLAYS), crib)
    proposal = follower.proposals(game, table)[0]
    assert proposal.doubt_code == "not a crib" and not proposal.partial and not proposal.options


def test_a_card_that_does_not_fit_the_count_follows_a_round_of_goes() -> None:
    game, follower = play_ready()
    laid = [(1, "10H"), (0, "KD"), (1, "9C")]  # 29: neither can play on; seat 0 leads again
    apply_sure(game, follower, view(laid))
    proposal = follower.proposals(game, view([*laid, (0, "5C")]))[0]
    assert proposal.text == "seat 0 said go, seat 1 said go, seat 0 played 5C"
    assert proposal.sure


@pytest.mark.parametrize("script", [TWO_DEAL, THREE_DEAL], ids=["2 players", "3 players"])
def test_deals_laid_card_by_card_score_as_entered_by_hand(script: DealScript) -> None:
    players = len(script.seats)
    game, follower = Game(Settings(players=players), first_dealer=script.dealer), Follower()
    laid = [(script.seats.index(edge), str(card)) for edge, card in script.plays]
    starter = str(script.starter)
    for count in range(len(laid) + 1):
        apply_sure(game, follower, view(laid[:count], starter=starter))
    apply_sure(game, follower, view(laid, starter=starter, crib=[str(c) for c in script.crib]))
    assert game.scores == by_hand(script).scores and game.deals_played == 1


def test_two_cards_seen_in_the_other_order_are_played_in_turn() -> None:
    game, follower = play_ready()
    # Seat 1 leads 10S and seat 0 lays JH, but the camera settles on JH first.
    swapped = TableView(sure(STARTER), (LaidCard(0, sure("JH")), LaidCard(1, sure("10S"))))
    applied = apply_sure(game, follower, swapped)
    assert [p.text for p in applied] == ["seat 1 played 10S", "seat 0 played JH"]
    assert game.deal_state is not None and game.deal_state.pegging is not None
    assert game.deal_state.pegging.count == 20


def test_a_card_unsurely_read_is_still_the_first_laid_before_a_sure_one_after_it() -> None:
    """Issue #59 (4 players, a corner, seed 0): left's AS, read AS or AC for a while, then
    right's AD. The AD is no play before the AS: its seat said no go, its card lies there."""
    game, follower = play_ready()
    apply_sure(game, follower, view(PLAYS[:3]))  # 10S, JH, 6D: 26, seat 0 to play
    doubtful = CardReading(((parse_card("4D"), 0.6), (parse_card("4C"), 0.35)), sure=False)
    table = TableView(sure(STARTER), (*view(PLAYS[:3]).plays, LaidCard(0, doubtful),
                                      LaidCard(1, sure("5C"))))  # fmt: skip
    proposal = follower.proposals(game, table)[0]
    assert (proposal.seat, proposal.options[0].cards) == (0, (parse_card("4D"),))
    assert not proposal.sure and proposal.doubt_code == "unsure"


# Five-card cribbage: top leads 10C, bottom KD, top 9H (29); bottom cannot play on: go, and the
# single count ends with cards left in hand, turned up in their rows for the show.
FIVE_PAST_31 = DealScript.of(
    ("bottom", "top"), 0, {"top": ["10C", "9H", "5S"], "bottom": ["KD", "8C", "4H"]},
    ["QC", "JH", "6D", "7S"], "AC", single_count=True,
)  # fmt: skip
# Bottom's 2C makes 31: the count ends there, 5S and 4H left in hand.
FIVE_AT_31 = DealScript.of(
    ("bottom", "top"), 0, {"top": ["10C", "9H", "5S"], "bottom": ["KD", "2C", "4H"]},
    ["QC", "JH", "6D", "7S"], "AC", single_count=True,
)  # fmt: skip


@pytest.mark.parametrize(
    ("script", "first_shown"),
    [(FIVE_PAST_31, "bottom"), (FIVE_PAST_31, "top"), (FIVE_AT_31, "bottom")],
    ids=["ended at a go, dealer first", "ended at a go, leader first", "ended at 31"],
)
def test_five_card_hands_left_after_the_count_are_shown_from_the_table(
    script: DealScript, first_shown: str
) -> None:
    game = Game(settings_of(script), first_dealer=script.dealer)
    follower = Follower()
    laid = [(script.seats.index(edge), str(card)) for edge, card in script.plays]
    starter = str(script.starter)
    for count in range(len(laid) + 1):
        apply_sure(game, follower, view(laid[:count], starter=starter))
    order = sorted(script.seats, key=lambda edge: edge != first_shown)
    for edge in order:
        laid += [(script.seats.index(edge), str(card)) for card in script.unplayed[edge]]
        for _ in range(TableModeConfig().order_patience + 2):  # a card laid out of turn waits
            apply_sure(game, follower, view(laid, starter=starter))
    assert game.phase is Phase.SHOW and game.next_show() == ("crib", 0)
    apply_sure(game, follower, view(laid, starter=starter, crib=[str(c) for c in script.crib]))
    assert game.scores == by_hand(script).scores and game.deals_played == 1


def test_a_five_card_hand_not_all_turned_up_is_not_shown() -> None:
    script = FIVE_PAST_31
    game = Game(settings_of(script), first_dealer=script.dealer)
    follower = Follower()
    laid = [(script.seats.index(edge), str(card)) for edge, card in script.plays]
    for count in range(len(laid) + 1):
        apply_sure(game, follower, view(laid[:count], starter="AC"))
    one = [*laid, (0, "8C")]  # bottom turns up one of its two cards; top none yet
    for _ in range(4):
        assert apply_sure(game, follower, view(one, starter="AC")) == []
    assert game.phase is Phase.PLAY


def test_a_card_the_camera_missed_entered_by_the_players_leaves_the_next_card_to_follow() -> None:
    """Seat 0's JH is never seen: seat 1's 6D comes next on the table, out of turn. The players
    answer the question with the JH; the 6D is then the next play, applied by itself."""
    game, follower = play_ready()
    apply_sure(game, follower, view(PLAYS[:1]))
    seen = view([PLAYS[0], PLAYS[2]])
    for _ in range(follower.config.order_patience + 1):
        found = follower.proposals(game, seen)
    question = found[0]
    assert question.doubt_code == "not next" and question.seat == 0
    answer = option_for(game, question, [parse_card("JH")])
    assert answer is not None
    for step in answer.steps:
        step.apply(game)
    applied = apply_sure(game, follower, seen)
    assert [(p.seat, p.options[0].cards) for p in applied] == [(1, (parse_card("6D"),))]


def test_a_card_laid_before_seen_again_is_asked_once_not_at_every_play() -> None:
    """Seat 1's 10S, laid, is seen again as a new event (read 10S or 10C): asked about, the
    players name seat 0's JH instead; the event is spent, and seat 1's 6D follows by itself."""
    game, follower = play_ready()
    apply_sure(game, follower, view(PLAYS[:1]))
    again = LaidCard(1, reading(("10S", 0.9), ("10C", 0.1)))
    seen = TableView(sure(STARTER), (*view(PLAYS[:1]).plays, again))
    for _ in range(follower.config.order_patience + 1):
        found = follower.proposals(game, seen)
    (question,) = found
    assert not question.sure and question.options[0].cards == (parse_card("10C"),)
    answer = option_for(game, question, [parse_card("JH")])
    assert answer is not None
    for step in answer.steps:
        step.apply(game)
    applied = apply_sure(game, follower, TableView(seen.starter, (*seen.plays, *view(
        [PLAYS[2]]).plays)))  # fmt: skip
    assert [(p.seat, p.options[0].cards) for p in applied] == [(1, (parse_card("6D"),))]


def test_a_card_the_players_entered_then_seen_laid_is_nothing_new() -> None:
    """Play 1 read as 10C, a player put 10S on the form; the camera then lays the 10S it sees
    at last: no question (no button could answer it), and the next card is the next play."""
    game, follower = play_ready()
    proposal = follower.proposals(game, view([(1, "10C")]))[0]
    for step in option_for(game, proposal, [parse_card("10S")]).steps:  # type: ignore[union-attr]
        step.apply(game)
    seen = view([(1, "10C"), (1, "10S")])
    patience = follower.config.order_patience
    assert [follower.proposals(game, seen) for _ in range(patience + 2)] == [[]] * (patience + 2)
    applied = apply_sure(game, follower, view([(1, "10C"), (1, "10S"), (0, "JH")]))
    assert [p.options[0].cards for p in applied] == [(parse_card("JH"),)]
