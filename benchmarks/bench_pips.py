"""The pip reader (`vision.detection.pips`) on whole-deal clips: how often a card's face is cut,
and its count and colour against the card.

Run from the repository root: ``python benchmarks/bench_pips.py [--art DIR] [--seeds N]``. Each
deck (the committed small Dondorf, or each held-out deck rendered under ``--art``) deals
``--seeds`` random 2-player deals seen by ``--camera``; every second frame is read by the shipped
reader, and each card it names at ``--sure`` or more stands as the truth for its face. Printed
per deck: cards, faces cut, number cards counted right / wrong / untold, figures (J, Q, K) called
figures / counted as pips / untold, aces called figures (a pictured ace), and colours right /
wrong / untold.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.bench_clips import FIXTURE, random_deal
from benchmarks.bench_table_mode import CAMERAS
from cribtrain.data.cardart import held_out
from cribtrain.data.deal_clips import deal_clip
from cribtrain.data.synth import Deck, load_decks
from vision.detection.pips import count_pips, cut_face
from vision.reading import CardReader


def bench(deck: Deck, reader: CardReader, seeds: int, camera: str, sure: float
          ) -> dict[str, object]:  # fmt: skip
    tally: Counter[str] = Counter()
    for seed in range(seeds):
        script = random_deal(2, np.random.default_rng([seed, 2, 11]))
        clip = deal_clip(deck, script, seed=seed, camera=CAMERAS[camera])
        for frame in clip.frames[::2]:
            for seen in reader.cards(frame).cards:
                if seen.confidence < sure:
                    continue
                tally["cards"] += 1
                cut = cut_face(frame, seen.detections)
                if cut is None:
                    continue
                tally["faces cut"] += 1
                count = count_pips(cut)
                rank = seen.card.rank
                kind = "figure" if rank > 10 else "ace" if rank == 1 else "number"
                if count is None:
                    said = "untold"
                elif count.pips == 0:
                    said = "a figure"
                else:
                    said = "right" if count.pips == rank else "wrong"
                tally[f"{kind}: {said}"] += 1
                red = seen.card.suit.value in "DH"
                colour = "untold" if count is None or count.red is None else (
                    "right" if count.red == red else "wrong")  # fmt: skip
                tally[f"colour {colour}"] += 1
    return {"deck": deck.name, "camera": camera, "deals": seeds, **dict(sorted(tally.items()))}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5, help="deals per deck (5)")
    parser.add_argument("--art", type=Path, help="rendered card art (cribcam cardart)")
    parser.add_argument("--camera", choices=sorted(CAMERAS), default="poor webcam")
    parser.add_argument("--sure", type=float, default=0.99,
                        help="a card named this surely stands as the truth (0.99)")  # fmt: skip
    args = parser.parse_args()
    folders = [args.art / name for name in held_out()] if args.art else [FIXTURE]
    reader = CardReader()
    for deck in load_decks([f for f in folders if f.exists()]):
        print(json.dumps(bench(deck, reader, args.seeds, args.camera, args.sure)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
