"""Discard advice checked against plain enumeration over `score_show`.

The brute force below shares nothing with `scorer.advice` except `score_show` itself: it loops
over every starter, and every (unknown crib cards, starter) deal, in plain Python.
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
from collections.abc import Sequence
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cribcam.commands.advice import register
from scorer.advice import Advice, DiscardOption, Role, advise
from scorer.cards import DECK, Card, parse_cards
from scorer.errors import CribbageError, DuplicateCardError, InvalidCardError, InvalidHandError
from scorer.settings import Settings, Variant
from scorer.show import score_show


def deal(text: str) -> list[Card]:
    return parse_cards(text.split())


SIX = deal("5H 5D JC 6S 9H QD")


def unseen(dealt: Sequence[Card]) -> list[Card]:
    return [card for card in DECK if card not in dealt]


def brute_hand(keep: Sequence[Card], dealt: Sequence[Card]) -> tuple[Fraction, int, int]:
    scores = [score_show(keep, starter).total for starter in unseen(dealt)]
    return Fraction(sum(scores), len(scores)), min(scores), max(scores)


def brute_crib(discard: Sequence[Card], dealt: Sequence[Card]) -> Fraction:
    """Mean crib over every set of unknown crib cards and every starter from the rest."""
    rest = unseen(dealt)
    total = count = 0
    for others in itertools.combinations(rest, 4 - len(discard)):
        crib = (*discard, *others)
        for starter in rest:
            if starter not in others:
                total += score_show(crib, starter, crib=True).total
                count += 1
    return Fraction(total, count)


def option(advice: Advice, discard: str) -> DiscardOption:
    wanted = set(parse_cards(discard.split()))
    (found,) = [o for o in advice.options if set(o.discard) == wanted]
    return found


def check_hands(advice: Advice) -> None:
    for opt in advice.options:
        mean, low, high = brute_hand(opt.keep, advice.dealt)
        assert opt.hand_mean == pytest.approx(float(mean), rel=1e-12)
        assert (opt.hand_min, opt.hand_max) == (low, high)


@pytest.mark.parametrize(
    "dealt",
    ["5H 5D JC 6S 9H QD", "JH 5H 2H 8H KS 3S", "AC 2C 3C 4C 5C 6C", "7D 7S 8H 8C 9D KH"],
)
def test_hand_figures_match_brute_force_for_every_discard(dealt: str) -> None:
    check_hands(advise(dealt.split(), role=Role.DEALER))


@pytest.mark.parametrize(
    ("dealt", "discard"),
    [
        ("5H 5D JC 6S 9H QD", "5H 5D"),  # pair: fifteens, pairs, runs in the crib
        ("JH 5H 2H 8H KS 3S", "JH 5H"),  # same suit with a jack: crib flush and nobs
        ("JH 5H 2H 8H KS 3S", "KS 3S"),  # same suit, no jack
        ("AC 2C 3C 4C JD 6C", "JD 6C"),  # a jack in another suit than the other card
    ],
)
def test_expected_crib_matches_brute_force(dealt: str, discard: str) -> None:
    advice = advise(dealt.split())
    expected = brute_crib(parse_cards(discard.split()), advice.dealt)
    assert option(advice, discard).crib_mean == pytest.approx(float(expected), rel=1e-12)
    assert advice.crib_deals == math.comb(46, 2) * 44 == 45_540


def test_five_card_variant_keeps_three_and_matches_brute_force() -> None:
    settings = Settings(players=2, variant=Variant.FIVE_CARD)
    advice = advise(deal("JS 5S 5C 9S 4S"), settings=settings, role=Role.PONE)
    assert len(advice.options) == math.comb(5, 2)
    assert all(len(o.keep) == 3 and len(o.discard) == 2 for o in advice.options)
    assert (advice.starters, advice.crib_deals) == (47, math.comb(47, 2) * 45)
    check_hands(advice)  # three-card hands, with their three-card flush
    for discard in ("JS 9S", "5S 5C"):
        expected = brute_crib(parse_cards(discard.split()), advice.dealt)
        assert option(advice, discard).crib_mean == pytest.approx(float(expected), rel=1e-12)


def test_three_players_crib_with_three_unknown_cards_matches_brute_force() -> None:
    # 713,460 score_show calls: the one slow test (a few seconds), kept because the
    # three-unknown-card path is otherwise unchecked.
    advice = advise(deal("JD 5C 10H 4D 7S"), settings=Settings(players=3))
    assert len(advice.options) == 5
    assert advice.crib_deals == math.comb(47, 3) * 44
    check_hands(advice)
    expected = brute_crib(parse_cards(["JD"]), advice.dealt)
    assert option(advice, "JD").crib_mean == pytest.approx(float(expected), rel=1e-12)


def test_options_are_every_split_ranked_by_net() -> None:
    advice = advise(SIX, role=Role.DEALER)
    splits = {(frozenset(o.discard), frozenset(o.keep)) for o in advice.options}
    assert len(splits) == math.comb(6, 2)
    assert all(d | k == frozenset(SIX) and not d & k for d, k in splits)
    nets = [o.net for o in advice.options]
    assert nets == sorted(nets, reverse=True)
    for o in advice.options:
        assert o.net == pytest.approx(o.hand_mean + o.crib_mean)
    assert advice.best is advice.options[0]


def test_pone_subtracts_the_crib_and_can_change_the_choice() -> None:
    dealer = advise(SIX, role=Role.DEALER)
    pone = advise(SIX, role=Role.PONE)
    assert (dealer.crib_sign, pone.crib_sign) == (1, -1)
    for o in pone.options:
        same = option(dealer, " ".join(map(str, o.discard)))
        assert (o.hand_mean, o.crib_mean) == (same.hand_mean, same.crib_mean)
        assert o.net == pytest.approx(o.hand_mean - o.crib_mean)
    nets = [o.net for o in pone.options]
    assert nets == sorted(nets, reverse=True)
    # Throwing the pair of fives is generous to an opponent: it ranks lower as pone.
    assert pone.options.index(option(pone, "5H 5D")) > dealer.options.index(option(dealer, "5H 5D"))


def test_four_players_partner_owns_the_crib_too() -> None:
    settings = Settings(players=4)
    partner = advise(deal("5H 5D JC 6S 9H"), settings=settings, role=Role.PARTNER)
    dealer = advise(deal("5H 5D JC 6S 9H"), settings=settings, role=Role.DEALER)
    assert partner.crib_sign == 1
    assert [o.net for o in partner.options] == [o.net for o in dealer.options]


@given(st.lists(st.sampled_from(DECK), min_size=6, max_size=6, unique=True))
@settings(max_examples=10, deadline=None)
def test_hand_figures_on_random_deals(dealt: list[Card]) -> None:
    check_hands(advise(dealt))


@pytest.mark.parametrize(
    ("cards", "settings", "role", "error"),
    [
        ("5H 5D JC 6S 9H", Settings(), Role.DEALER, InvalidHandError),
        ("5H 5D JC 6S 9H QD 2C", Settings(), Role.DEALER, InvalidHandError),
        ("5H 5D JC 6S 9H QD", Settings(players=3), Role.DEALER, InvalidHandError),
        ("5H 5D JC 6S 5H QD", Settings(), Role.DEALER, DuplicateCardError),
        ("5H 5D JC 6S 9X QD", Settings(), Role.DEALER, InvalidCardError),
        ("5H 5D JC 6S 9H QD", Settings(), Role.PARTNER, CribbageError),
    ],
)
def test_bad_input_is_a_domain_error(
    cards: str, settings: Settings, role: Role, error: type[CribbageError]
) -> None:
    with pytest.raises(error):
        advise(cards.split(), settings=settings, role=role)


def test_impossible_games_are_refused() -> None:
    with pytest.raises(CribbageError):
        Settings(players=3, variant=Variant.FIVE_CARD)
    with pytest.raises(CribbageError):
        Settings(players=5)


def run_cli(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="cribcam")
    register(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["advise", *argv])
    code: int = args.run(args)
    return code


def test_cli_json_lists_the_options_ranked(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(["5H", "5D", "JC", "6S", "9H", "QD", "--pone", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["role"], report["crib_sign"], report["players"]) == ("pone", -1, 2)
    options = report["options"]
    assert len(options) == 15
    assert [o["rank"] for o in options] == list(range(1, 16))
    assert [o["net"] for o in options] == sorted((o["net"] for o in options), reverse=True)
    first = options[0]
    assert first["net"] == pytest.approx(first["hand"]["mean"] - first["crib"])
    keep = parse_cards(first["keep"])
    mean, low, high = brute_hand(keep, SIX)
    assert (first["hand"]["min"], first["hand"]["max"]) == (low, high)
    assert first["hand"]["mean"] == pytest.approx(float(mean))


def test_cli_table_and_variant_options(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(["5H,5D,JC,6S,9H", "--variant", "five-card"]) == 0
    out = capsys.readouterr().out
    assert "five-card" in out
    rows = [line for line in out.splitlines() if line[:2].strip().isdigit()]
    assert len(rows) == math.comb(5, 2)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["5H", "5D", "JC", "6S", "9H"], "deals 6 cards, got 5"),
        (["5H", "5D", "JC", "6S", "9H", "5D"], "5D appears twice"),
        (["5H", "5D", "JC", "6S", "9H", "ZZ"], "'ZZ' is not a card"),
        (
            ["5H", "5D", "JC", "6S", "9H", "--players", "3", "--variant", "five-card"],
            "for two players",
        ),
        (["5H", "5D", "JC", "6S", "9H", "QD", "--partner"], "partners"),
    ],
)
def test_cli_bad_input_exits_2_with_a_message(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_cli(argv) == 2
    captured = capsys.readouterr()
    assert message in captured.err
    assert "Traceback" not in captured.err
    assert captured.out == ""
