"""`cribcam score`, `cribcam peg` and `cribcam stats`: the rules engine on the command line.

The JSON-lines modes are the machine interface other tools (and the web API) rely on: one
output line per input line, in order, and a bad line answers `{"error": ...}` without
stopping the rest.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterable
from typing import Any, TextIO

from cribcam.commands import advice as advice_cli
from cribcam.errors import CommandError
from scorer.cards import parse_card, parse_cards
from scorer.errors import CribbageError
from scorer.json_api import peg_request, score_request, show_to_json
from scorer.replay import format_event, replay, replay_report
from scorer.show import score_show
from scorer.stats import Distribution, show_distribution


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    score = commands.add_parser("score", help="count a hand or crib with the starter")
    score.add_argument("cards", nargs="*", help="the 4 cards of the hand (3 in five-card)")
    score.add_argument("--starter", help="the starter (cut) card")
    score.add_argument("--crib", action="store_true", help="count as the crib (5-card flush only)")
    score.add_argument("--json", action="store_true", help="print one JSON object")
    score.add_argument(
        "--jsonl", action="store_true", help="read JSON lines on stdin, answer one line each"
    )
    score.set_defaults(run=run_score)

    peg = commands.add_parser("peg", help="score the play (pegging) from JSON lines on stdin")
    peg.add_argument("--jsonl", action="store_true", help="answer one JSON line per input line")
    peg.set_defaults(run=run_peg)

    stats = commands.add_parser("stats", help="exact distribution of all 12,994,800 shows")
    stats.add_argument("--crib", action="store_true", help="score every deal as a crib")
    stats.add_argument("--json", action="store_true", help="print the table as JSON")
    stats.add_argument("--plot", metavar="FILE", help="also write a PNG bar chart")
    stats.set_defaults(run=run_stats)

    replay = commands.add_parser("replay", help="score a complete recorded game (JSON file)")
    replay.add_argument("file", help="the recorded game; see the README for the format")
    replay.add_argument("--json", action="store_true", help="print the report as JSON")
    replay.set_defaults(run=run_replay)

    advice_cli.register(commands)


# -- score --------------------------------------------------------------------------------
def run_score(args: argparse.Namespace) -> int:
    if args.jsonl:
        return answer_lines(sys.stdin, sys.stdout, score_request)
    if args.starter is None or not args.cards:
        raise CommandError("give the hand's cards and --starter CARD (or use --jsonl)")
    cards = parse_cards(args.cards)
    show = score_show(cards, parse_card(args.starter), crib=args.crib)
    if args.json:
        print(json.dumps(show_to_json(show)))
    else:
        print(show)
        print(f"  said: {show.spoken()}")
    return 0


# -- peg ----------------------------------------------------------------------------------
def run_peg(args: argparse.Namespace) -> int:
    if args.jsonl:
        return answer_lines(sys.stdin, sys.stdout, peg_request)
    for line in _non_blank(sys.stdin):
        try:
            answer = peg_request(json.loads(line))
        except (CribbageError, ValueError) as error:
            print(f"error: {error}")
            continue
        for event in answer["events"]:
            print(_describe_event(event))
        print("totals: " + ", ".join(f"seat {s} {p}" for s, p in enumerate(answer["totals"])))
    return 0


def _describe_event(event: dict[str, Any]) -> str:
    items = ", ".join(f"{item['name']} for {item['points']}" for item in event["items"])
    if event["action"] == "play":
        text = f"seat {event['seat']} plays {event['card']}: {event['count']}"
    else:
        text = f"seat {event['seat']}: {event['action']}"
    return f"{text} ({items})" if items else text


# -- replay -------------------------------------------------------------------------------
def run_replay(args: argparse.Namespace) -> int:
    try:
        with open(args.file, encoding="utf-8") as source:
            data = json.load(source)
    except OSError as error:
        raise CommandError(f"cannot read {args.file}: {error.strerror}") from None
    except json.JSONDecodeError as error:
        raise CommandError(f"{args.file} is not valid JSON: {error}") from None
    game = replay(data)
    report = replay_report(game)
    if args.json:
        print(json.dumps(report))
        return 0
    for event, line in zip(game.events, report["events"], strict=True):
        print(format_event(event, line["scores"]))
    outcome = game.outcome
    if outcome is None:
        print(f"not finished: {'-'.join(map(str, game.scores))}")
    else:
        skunks = ", ".join(f"side {s} {level.name.lower()}" for s, level in outcome.skunks.items())
        print(f"side {outcome.winner} wins {'-'.join(map(str, outcome.scores))} ({skunks}); "
              f"match points {list(outcome.match_points)}")  # fmt: skip
    return 0


# -- stats --------------------------------------------------------------------------------
def run_stats(args: argparse.Namespace) -> int:
    distribution = show_distribution(crib=args.crib)
    if args.json:
        data = distribution.to_json()
        del data["crib"]
        print(json.dumps(data))
    else:
        print(_format_distribution(distribution))
    if args.plot:
        plot_distribution(distribution, args.plot)
    return 0


def _format_distribution(distribution: Distribution) -> str:
    what = "cribs" if distribution.crib else "hands"
    lines = [f"{what}: {distribution.count:,} deals, mean {distribution.mean:.4f}", "points  deals"]
    lines += [f"{points:>6}  {n:>10,}" for points, n in enumerate(distribution.histogram)]
    return "\n".join(lines)


def plot_distribution(distribution: Distribution, path: str) -> None:
    """A PNG bar chart of the distribution (matplotlib, no display needed)."""
    try:
        import matplotlib
    except ImportError:
        needed = "cribcam stats --plot needs matplotlib: pip install -e '.[plots]'"
        raise SystemExit(needed) from None

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(10, 4.5))
    axes.bar(range(len(distribution.histogram)), distribution.histogram, color="#2e7d32")
    axes.set_xlabel("points")
    axes.set_ylabel("deals")
    axes.set_xticks(range(len(distribution.histogram)))
    what = "crib" if distribution.crib else "hand"
    axes.set_title(
        f"Cribbage {what} scores over all {distribution.count:,} deals "
        f"(mean {distribution.mean:.3f})"
    )
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


# -- shared -------------------------------------------------------------------------------
def _non_blank(stream: Iterable[str]) -> Iterable[str]:
    return (line for line in stream if line.strip())


def answer_lines(source: TextIO, sink: TextIO, answer: Callable[[Any], dict[str, Any]]) -> int:
    """Answer each JSON line of `source` with one JSON line on `sink`; errors stay per line."""
    for line in _non_blank(source):
        try:
            result = answer(json.loads(line))
        except json.JSONDecodeError as error:
            result = {"error": f"not valid JSON: {error}"}
        except CribbageError as error:
            result = {"error": str(error)}
        sink.write(json.dumps(result) + "\n")
        sink.flush()
    return 0
