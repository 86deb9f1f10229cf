"""`cribcam export` and `cribcam import`: games to take away and to bring back, from the shell,
as `GET /api/export` and `POST /api/import` do (the same JSON and CSV, the same checks)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from cribcam.errors import CommandError
from webui.errors import ApiError
from webui.games.store import GamesDatabaseError, GameStore
from webui.paths import default_db
from webui.records.transfer import chosen, csv_text, imported


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    export = commands.add_parser("export", help="write the stored games as JSON or CSV")
    export.add_argument("--db", type=Path, help=f"games database (default {default_db()})")
    export.add_argument("--format", choices=("json", "csv"), default="json",
                        help="JSON (replays, imports) or CSV (a row per deal)")  # fmt: skip
    export.add_argument("--player", help="only the games of this player (a name at the table)")
    export.add_argument("--game", help="only this game (its id)")
    export.add_argument("-o", "--output", type=Path, help="the file to write (default stdout)")
    export.set_defaults(run=run_export)

    take = commands.add_parser("import", help="add games from an export (JSON), merged by id")
    take.add_argument("file", type=Path, help="an export of cribcam export or GET /api/export")
    take.add_argument("--db", type=Path, help=f"games database (default {default_db()})")
    take.set_defaults(run=run_import)


def _store(path: Path | None) -> GameStore:
    try:
        return GameStore(path or default_db())
    except GamesDatabaseError as error:
        raise CommandError(str(error)) from None


def run_export(args: argparse.Namespace) -> int:
    games = chosen(_store(args.db).logs(), args.player, args.game)
    if args.game is not None and not games:
        raise CommandError(f"no game {args.game!r}")
    text = csv_text(games) if args.format == "csv" else json.dumps(games, indent=1) + "\n"
    if args.output is None:
        sys.stdout.write(text)
    else:
        args.output.write_text(text, encoding="utf-8", newline="")
    return 0


def run_import(args: argparse.Namespace) -> int:
    try:
        data = json.loads(args.file.read_text(encoding="utf-8"))
    except json.JSONDecodeError as error:
        raise CommandError(f"{args.file} is not valid JSON: {error}") from None
    try:
        done = _store(args.db).merge(imported(data))
    except ApiError as error:
        raise CommandError(f"{args.file}: {error}") from None
    print(", ".join(f"{len(ids)} {what}" for what, ids in done.items()))
    return 0
