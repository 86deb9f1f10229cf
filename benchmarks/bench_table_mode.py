"""Table mode on whole-deal videos: taps per deal, per-event accuracy with and without the deal
prior, and the time from a card laid to the page showing it.

Run from the repository root: ``python benchmarks/bench_table_mode.py [--seeds N] [--art DIR]``.
Each held-out deck (rendered under ``--art`` by ``cribcam cardart``; the committed small Dondorf
otherwise) deals ``--seeds`` random deals of 2 and of 3 players (``--players``: 2, 3 or 4;
`deal_clip`), seen by the clips' webcam and by a poor one (looking straight down, and ``--poses``
from where a phone stands: propped at the near edge, at the side, at a corner; ``--sizes`` 720p,
1080p), followed frame by frame by the shipped reader, the smoother and table mode, a player
answering each question (`cribtrain.measure.table_mode`). Printed per deck, pose, camera and player
count (``--five-card``: five-card cribbage's deals too; ``--knock``: the phone nudged mid-deal,
`knocked`): deals whose scores match the deal
entered by hand; taps per deal (mean, max) and a game at that rate; events (starter, each play,
each crib card) right by the reader's first choice and with the deal prior; the questions asked,
and the events never seen (each entered on the form); frames and seconds from a card's first
frame to its step (the page posts a frame every
`PAGE_INTERVAL` s, or as fast as frames are read when slower); ms per frame.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bench_clips import FIXTURE, random_deal
from cribtrain.data.cardart import held_out
from cribtrain.data.clips import DEFAULT_CAMERA, CameraConfig
from cribtrain.data.deal_clips import deal_clip, knocked
from cribtrain.data.poses import FRAME_SIZES, POSES, View, view
from cribtrain.data.synth import Deck, load_decks
from cribtrain.measure.table_mode import by_hand, follow_clip
from vision.config import DEFAULT_READING
from vision.reading import CardReader

#: The page's least frame interval in table mode (webui/static/table.js TABLE_FRAME_MS).
PAGE_INTERVAL = 0.1
#: Deals in a two-player game to 121 (about 9: each deal scores some 26-28 points all told), and
#: in five-card cribbage's game to 61 (about 6: 10-12 points a deal, 3 for last to start).
DEALS_PER_GAME = 9
DEALS_PER_FIVE_CARD_GAME = 6


#: The clips' webcam, and a worse one (smaller, blurred, noisier corners) where the reader errs
#: more and the deal prior has more to correct.
CAMERAS = {
    "webcam": DEFAULT_CAMERA,
    "poor webcam": CameraConfig(glyph=13.0, blur=1.2, noise=5.0, jpeg_quality=60),
    "poor webcam, half light": CameraConfig(
        glyph=13.0, blur=1.2, noise=5.0, jpeg_quality=60, light=0.5
    ),
}


def bench(deck: Deck, reader: CardReader, seeds: int, players: int, camera: str,
          sight: View | None = None, plane: bool = True, changes: bool = False,
          five_card: bool = False, knock: tuple[float, float] | None = None
          ) -> dict[str, object]:  # fmt: skip
    right_scores = events = first = prior = 0
    taps: list[int] = []
    frames: list[int] = []
    times: list[float] = []
    questions: list[str] = []
    missed: list[str] = []
    for seed in range(seeds):
        script = random_deal(players, np.random.default_rng([seed, players, 11]),
                             five_card=five_card)  # fmt: skip
        clip = deal_clip(deck, script, seed=seed, camera=CAMERAS[camera], sight=sight)
        if knock is not None:
            clip = knocked(clip, *knock)
        followed = follow_clip(clip, reader, plane=plane, changes=changes)
        right_scores += followed.game.scores == by_hand(script).scores
        taps.append(followed.taps)
        events += followed.events
        first += followed.first_choice_right
        prior += followed.prior_right
        frames += followed.frames_to_step
        times += followed.seconds_per_frame
        questions += followed.questions
        missed += followed.missed
    per_frame = statistics.median(times)
    period = max(PAGE_INTERVAL, per_frame)
    seconds = [f * period + per_frame for f in frames]
    game, deals = ("121", DEALS_PER_GAME)
    if five_card:
        game, deals = "five-card, 61", DEALS_PER_FIVE_CARD_GAME
    return {
        "deck": deck.name,
        "pose": "overhead, square" if sight is None else _pose_name(sight),
        "table plane": plane,
        "reads what changed": changes,
        "counts pips": reader.config.pips.enabled,
        "camera": camera,
        "players": players,
        "game": game,
        "camera knocked mid-deal (degrees, px)": knock,
        "scores right": f"{right_scores}/{seeds}",
        "taps per deal (mean, max)": [round(statistics.mean(taps), 2), max(taps)],
        "taps for a game at that rate (+1 to choose the dealer)": round(
            statistics.mean(taps) * deals + 1, 1),
        "events right, reader's first choice": f"{first}/{events}",
        "events right, with the deal prior": f"{prior}/{events}",
        "questions": questions,
        "events never seen (entered on the form)": missed,
        "frames from a card laid to its step (median, max)": _median_max(frames),
        "seconds from a card laid to the page (median, max)": _median_max(seconds),
        "ms per frame": round(per_frame * 1000, 1),
    }  # fmt: skip


def _median_max(values: list[int] | list[float]) -> list[float] | None:
    """None where no card reached its step."""
    if not values:
        return None
    return [round(statistics.median(values), 2), round(max(values), 2)]


def _pose_name(sight: View) -> str:
    name = next(name for name, pose in POSES.items() if pose == sight.pose)
    size = next(name for name, size in FRAME_SIZES.items() if size == sight.size)
    return f"{name}, {size}"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=4, help="deals of each size per deck (4)")
    parser.add_argument("--art", type=Path, help="rendered card art (cribcam cardart)")
    parser.add_argument("--poses", nargs="*", choices=sorted(POSES), default=[],
                        help="also from these poses of a phone (cribtrain.data.poses)")  # fmt: skip
    parser.add_argument("--sizes", nargs="+", choices=sorted(FRAME_SIZES), default=["720p"],
                        help="the posed camera's frame sizes (720p)")  # fmt: skip
    parser.add_argument("--players", nargs="+", type=int, choices=(2, 3, 4), default=[2, 3])
    parser.add_argument("--five-card", action="store_true",
                        help="five-card cribbage's deals too (2 players)")  # fmt: skip
    parser.add_argument("--knock", nargs=2, type=float, metavar=("DEGREES", "PX"),
                        help="knock the camera before the 4th play: turned, moved")  # fmt: skip
    parser.add_argument("--cameras", nargs="+", choices=sorted(CAMERAS), default=sorted(CAMERAS))
    parser.add_argument("--no-square", action="store_true",
                        help="only the --poses, no square overhead clips")  # fmt: skip
    parser.add_argument("--picture-edges", action="store_true",
                        help="seats at the picture's edges, off the table's plane (the app "
                             "places cards on the plane: vision.table.plane)")  # fmt: skip
    parser.add_argument("--changes", action="store_true",
                        help="read what changed in each frame (vision.table.changes)")  # fmt: skip
    parser.add_argument("--pips", choices=("on", "off"),
                        help="count number cards' pips on their faces (vision.detection.pips; "
                             "default: as ReadingConfig has it)")  # fmt: skip
    args = parser.parse_args()
    folders = [args.art / name for name in held_out()] if args.art else [FIXTURE]
    sights: list[View | None] = [] if args.no_square else [None]
    sights += [view(POSES[pose], FRAME_SIZES[size]) for pose in args.poses for size in args.sizes]
    config = DEFAULT_READING
    if args.pips:
        config = replace(config, pips=replace(config.pips, enabled=args.pips == "on"))
    reader = CardReader(config=config)
    plane = not args.picture_edges
    for deck in load_decks([f for f in folders if f.exists()]):
        for sight in sights:
            for camera in args.cameras:
                games = [(p, False) for p in args.players] + [(2, True)] * args.five_card
                for players, five_card in games:
                    figures = bench(deck, reader, args.seeds, players, camera, sight, plane,
                                    args.changes, five_card, args.knock)  # fmt: skip
                    print(json.dumps(figures), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
