"""The `advise` subcommand: rank the discards of a dealt hand, as a table or as JSON."""

from __future__ import annotations

import argparse
import json
import re
import sys

from scorer.advice import Advice, Role, advise, describe_game, unknown_crib_cards
from scorer.cards import format_cards
from scorer.errors import CribbageError
from scorer.settings import Settings, Variant

#: Exit status for input the settings engine refuses, as argparse uses for bad usage.
EXIT_BAD_INPUT = 2


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `advise` to the `cribcam` command's subcommands."""
    parser = commands.add_parser(
        "advise",
        help="rank every discard of a dealt hand by exact expected points",
        description=(
            "Rank every discard by exact expected points: the kept hand over every possible "
            "starter, plus (your crib) or minus (an opponent's) the expected crib over every "
            "possible set of unknown crib cards and starter, all unseen cards equally likely."
        ),
    )
    parser.add_argument(
        "cards", nargs="+", metavar="CARD", help="the dealt cards, e.g. 5H 5D JC 6S 9H QD"
    )
    whose = parser.add_mutually_exclusive_group()
    whose.add_argument(
        "--dealer",
        dest="role",
        action="store_const",
        const=Role.DEALER,
        help="you deal: the crib is yours (the default)",
    )
    whose.add_argument(
        "--pone",
        dest="role",
        action="store_const",
        const=Role.PONE,
        help="an opponent deals: the crib counts against you",
    )
    whose.add_argument(
        "--partner", dest="role", action="store_const", const=Role.PARTNER,
        help="four players: your partner deals, so the crib is your side's",
    )  # fmt: skip
    parser.add_argument(
        "--players", type=int, choices=(2, 3, 4), default=2, help="number of players (2)"
    )
    parser.add_argument(
        "--variant",
        choices=[v.value for v in Variant],
        default=Variant.SIX_CARD.value,
        help="two players: six-card (default) or five-card cribbage",
    )
    parser.add_argument("--json", action="store_true", help="print a JSON object")
    parser.set_defaults(run=run, role=Role.DEALER)


def run(args: argparse.Namespace) -> int:
    """Print the advice; refused input gets one line on stderr and exit status 2."""
    cards = [text for arg in args.cards for text in re.split(r"[\s,]+", arg) if text]
    try:
        settings = Settings(players=args.players, variant=Variant(args.variant))
        advice = advise(cards, role=args.role, settings=settings)
    except CribbageError as error:
        print(f"cribcam advise: error: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if args.json:
        print(json.dumps(advice.to_json(), indent=2))
    else:
        print(render(advice))
    return 0


def render(advice: Advice) -> str:
    """The options as a table, best first, with a header saying what was assumed."""
    owner = {
        Role.DEALER: "you deal: net = hand + crib",
        Role.PARTNER: "your partner deals: net = hand + crib",
        Role.PONE: "an opponent deals: net = hand - crib",
    }[advice.role]
    unknown = unknown_crib_cards(advice.settings)
    lines = [
        f"{format_cards(advice.dealt)} ({describe_game(advice.settings)}; {owner})",
        f"hand over {advice.starters} starters; crib over {advice.crib_deals:,} deals of "
        f"{unknown} unknown crib cards and the starter",
        "",
    ]
    discard_width = max(len("discard"), *(len(format_cards(o.discard)) for o in advice.options))
    keep_width = max(len("keep"), *(len(format_cards(o.keep)) for o in advice.options))
    lines.append(
        f"{'#':>2}  {'discard':<{discard_width}}  {'keep':<{keep_width}}  "
        f"{'hand':>6} {'min':>3} {'max':>3}  {'crib':>6}  {'net':>6}"
    )
    for rank, option in enumerate(advice.options, 1):
        crib = advice.crib_sign * option.crib_mean
        lines.append(
            f"{rank:>2}  {format_cards(option.discard):<{discard_width}}  "
            f"{format_cards(option.keep):<{keep_width}}  "
            f"{option.hand_mean:6.2f} {option.hand_min:3d} {option.hand_max:3d}  "
            f"{crib:+6.2f}  {option.net:6.2f}"
        )
    return "\n".join(lines)
