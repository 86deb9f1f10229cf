"""The whole pipeline on synthetic video: play events and show roles on deck designs kept out of
training, through the installed models, pairing, roles and smoothing.

Run from the repository root: ``python benchmarks/bench_clips.py [--seeds N] [--art DIR]``.
Each held-out deck (rendered under ``--art`` by ``cribcam cardart``; the committed small Dondorf
otherwise) plays ``--seeds`` two-player clips of eight cards and shows ``--seeds`` layouts (two
hands, crib, starter). Printed per deck: clips whose events came out complete, in order and
once; events right (in the longest common order); show layouts with every card in its role;
cards in the right role; and the median time per frame.
"""

from __future__ import annotations

import argparse
import difflib
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cribtrain.data.clips import Clip, play_clip, show_clip
from cribtrain.data.synth import Deck, load_decks
from scorer.cards import DECK
from vision.reading import CardReader
from vision.table.roles import Seat, TableLayout, TableState
from vision.table.smoothing import PlayEvent, TableSmoother

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "deck-dondorf"


def run(clip: Clip, reader: CardReader, dealer: Seat | None, times: list[float]
        ) -> tuple[TableState, list[PlayEvent]]:  # fmt: skip
    smoother = TableSmoother(TableLayout(["bottom", "top"]))
    events: list[PlayEvent] = []
    state = None
    for frame in clip.frames:
        start = time.perf_counter()
        seen = reader.cards(frame)
        smoothed = smoother.update(seen, (frame.shape[1], frame.shape[0]), dealer=dealer)
        times.append(time.perf_counter() - start)
        events.extend(smoothed.events)
        state = smoothed.state
    assert state is not None
    return state, events


def deal(rng: np.random.Generator) -> list[str]:
    return [str(DECK[i]) for i in rng.permutation(52)[:17]]


def bench_deck(deck: Deck, reader: CardReader, seeds: int) -> dict[str, float | str]:
    times: list[float] = []
    perfect_plays = right_events = all_events = perfect_shows = right_roles = all_roles = 0
    for seed in range(seeds):
        cards = deal(np.random.default_rng([seed, 7]))
        seats: list[Seat] = ["bottom", "top"]
        plays = [(seats[i % 2], card) for i, card in enumerate(cards[:8])]
        clip = play_clip(deck, plays, seed=seed, starter=cards[8])
        _, events = run(clip, reader, None, times)
        got = [(e.seat, e.card) for e in events]
        perfect_plays += got == list(clip.plays)
        matcher = difflib.SequenceMatcher(None, got, list(clip.plays), autojunk=False)
        right_events += sum(block.size for block in matcher.get_matching_blocks())
        all_events += len(clip.plays)

        dealer: Seat = seats[seed % 2]
        hands: dict[Seat, list[str]] = {"bottom": cards[:4], "top": cards[4:8]}
        show = show_clip(deck, hands, cards[9:13], cards[13], dealer=dealer, seed=seed)
        state, _ = run(show, reader, dealer, times)
        roles = state.roles()
        assert show.roles is not None
        perfect_shows += roles == show.roles
        right_roles += sum(1 for card, role in show.roles.items() if roles.get(card) == role)
        all_roles += len(show.roles)
    return {
        "deck": deck.name,
        "plays perfect": f"{perfect_plays}/{seeds}",
        "events right": f"{right_events}/{all_events}",
        "shows perfect": f"{perfect_shows}/{seeds}",
        "roles right": f"{right_roles}/{all_roles}",
        "ms per frame": round(statistics.median(times) * 1000, 1),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5, help="clips of each kind per deck (5)")
    parser.add_argument("--art", type=Path, default=ROOT / "datasets" / "cardart")
    parser.add_argument("--models", type=Path, default=ROOT / "models")
    args = parser.parse_args()
    held_out = json.loads((ROOT / "datasets" / "decks.json").read_text())["held_out"]
    folders = [args.art / name for name in held_out if (args.art / name / "boxes.json").exists()]
    if not folders:
        print(f"no rendered held-out decks under {args.art}: using {FIXTURE.name}")
        folders = [FIXTURE]
    reader = CardReader(args.models)
    for folder in folders:
        print(json.dumps(bench_deck(load_decks([folder])[0], reader, args.seeds)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
