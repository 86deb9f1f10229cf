"""The `cribcam` command: one parser whose subcommands each package registers itself."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from cribcam import __version__
from scorer import cli as scorer_cli
from scorer.errors import CribbageError
from vision import cli as vision_cli
from vision import detect_cli, enroll_cli, train_cli
from vision.errors import VisionError
from webui import cli as webui_cli


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cribcam",
        description="A companion for a real cribbage table: exact scores, muggins, card reading.",
    )
    parser.add_argument("--version", action="version", version=f"cribcam {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    scorer_cli.register(commands)
    vision_cli.register(commands)
    detect_cli.register(commands)
    train_cli.register(commands)
    enroll_cli.register(commands)
    webui_cli.register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        result: int = args.run(args)
    except (CribbageError, VisionError, OSError) as error:  # OSError: a path that cannot be used
        print(f"cribcam {args.command}: error: {error}", file=sys.stderr)
        return 2
    return result


if __name__ == "__main__":
    sys.exit(main())
