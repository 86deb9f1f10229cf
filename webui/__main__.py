"""`python -m webui serve ...`: the same as `cribcam serve`, without the rest of the CLI."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from scorer.errors import CribbageError
from webui import cli


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m webui")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    cli.register(commands)
    args = parser.parse_args(argv)
    try:
        result: int = args.run(args)
    except CribbageError as error:
        print(f"cribcam {args.command}: error: {error}", file=sys.stderr)
        return 2
    return result


if __name__ == "__main__":
    sys.exit(main())
