"""The `cribcam` command: one parser; each module of `cribcam.commands` adds its subcommands."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from cribcam import __version__
from cribcam.commands import art, decks, reading, records, scoring, serve, train
from cribcam.errors import CommandError
from scorer.errors import CribbageError
from vision.errors import VisionError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cribcam",
        description="A companion for a real cribbage table: exact scores, muggins, card reading.",
    )
    parser.add_argument("--version", action="version", version=f"cribcam {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    scoring.register(commands)
    art.register(commands)
    reading.register(commands)
    train.register(commands)
    decks.register(commands)
    serve.register(commands)
    records.register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        result: int = args.run(args)
    except (CribbageError, CommandError, VisionError, OSError) as error:  # OSError: a bad path
        print(f"cribcam {args.command}: error: {error}", file=sys.stderr)
        return 2
    return result


if __name__ == "__main__":
    sys.exit(main())
