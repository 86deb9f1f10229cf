"""`cribcam cardart`, `cribcam synth` and `cribcam fontdecks`: render the deck art, generate
synthetic scenes, make procedural decks."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from cribtrain.data import fontdecks
from cribtrain.data.cardart import held_out

DEFAULT_ART = Path("datasets/cardart")
#: The smallest scene `cribcam synth` draws: its indices are then 3-16 px (8-40 at 640).
MIN_SCENE_SIZE = 256


def _run_cardart(args: argparse.Namespace) -> int:
    from cribtrain.data.cardart import render_all

    result = render_all(args.out_dir, args.decks or None, height=args.height)
    for name, art in result.items():
        status = "ok" if art.ok else f"FAILED ({len(art.problems)}: {'; '.join(art.problems[:3])})"
        print(f"{name}: {status}")
    return 0 if any(a.ok for a in result.values()) else 1


def _run_synth(args: argparse.Namespace) -> int:
    from cribtrain.data.cardart import iter_deck_dirs
    from cribtrain.data.synth import SynthConfig, generate
    from vision.errors import CardArtError

    config = replace(SynthConfig.seen_at(args.size, args.frame), keyboard=args.keyboard)
    dirs = list(iter_deck_dirs(args.art, partial=True))
    if args.decks:
        unknown = sorted(set(args.decks) - {d.name for d in dirs})
        if unknown and dirs:
            names = ", ".join(d.name for d in dirs)
            raise CardArtError(f"no usable deck {', '.join(unknown)} in {args.art}: {names}")
        dirs = [d for d in dirs if d.name in set(args.decks)]
    elif not args.include_held_out:
        skip = held_out()
        dirs = [d for d in dirs if d.name not in skip]
    if not dirs:
        raise CardArtError(f"no usable decks in {args.art}: run `cribcam cardart {args.art}` first")
    print("decks:", ", ".join(d.name for d in dirs))
    boxes = generate(args.out_dir, args.count, args.seed, dirs, config, start=args.start)
    print(f"{args.count} scenes, {boxes} labelled corner indices -> {args.out_dir}")
    return 0


def at_least(
    least: float, kind: type[int] | type[float] = int, most: float | None = None
) -> Callable[[str], float]:
    """An argparse type: a number of `kind` (a whole one by default) of at least `least` and,
    given `most`, at most `most`."""

    def parse(text: str) -> float:
        try:
            value = kind(text)
        except ValueError:
            what = "a whole number" if kind is int else "a number"
            raise argparse.ArgumentTypeError(f"{text!r} is not {what}") from None
        if not value >= least:  # also refuses nan
            raise argparse.ArgumentTypeError(f"{value} is under {least}")
        if most is not None and value > most:
            raise argparse.ArgumentTypeError(f"{value} is over {most}")
        return value

    return parse


def output_folder(text: str) -> Path:
    """An argparse type: a folder to write into, made when missing; refused, before any work,
    where a file of that name is in the way."""
    path = Path(text)
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"{text} is a file, not a folder")
    return path


def frame_size(text: str) -> tuple[int, int]:
    """``WxH`` as two positive ints (argparse type)."""
    try:
        width, height = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not WxH, e.g. 1920x1080") from None
    if width <= 0 or height <= 0:
        raise argparse.ArgumentTypeError(f"{text!r}: both sides must be positive")
    return width, height


def register(commands: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add the vision subcommands to the `cribcam` parser."""
    p = commands.add_parser("cardart", help="render the installed SVG card decks to PNG faces")
    p.add_argument("out_dir", nargs="?", type=output_folder, default=DEFAULT_ART)
    p.add_argument("--decks", nargs="*", help="deck names (default: all installed)")
    p.add_argument("--height", type=int, default=350, help="face height in px")
    p.set_defaults(run=_run_cardart)

    s = commands.add_parser("synth", help="generate synthetic table scenes with YOLO labels")
    s.add_argument("out_dir", type=output_folder)
    s.add_argument("--count", type=at_least(1), default=100)
    s.add_argument("--seed", type=int, default=0)
    s.add_argument(
        "--start", type=at_least(0), default=0, help="first scene index (to extend a set)"
    )
    s.add_argument(
        "--size",
        type=at_least(MIN_SCENE_SIZE),
        default=640,
        help=f"frame width, {MIN_SCENE_SIZE} or more (index heights scale: 8-40 px at 640)",
    )
    s.add_argument(
        "--frame",
        type=frame_size,
        metavar="WxH",
        help="keep the middle W x H of each scene, as a camera's 16:9 frame sees it "
        "(e.g. --size 1920 --frame 1920x1080)",
    )
    s.add_argument(
        "--keyboard",
        type=float,
        default=0.0,
        metavar="P",
        help="probability of a computer keyboard near a scene's edge (0: none, as before)",
    )
    s.add_argument("--art", type=Path, default=DEFAULT_ART, help="rendered decks folder")
    s.add_argument("--decks", nargs="*", help="only these decks (may include held-out ones)")
    s.add_argument("--include-held-out", action="store_true")
    s.set_defaults(run=_run_synth)

    fontdecks.register(commands)
