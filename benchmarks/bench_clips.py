"""The whole pipeline on synthetic video: play events and show roles on deck designs kept out of
training, through the installed models, pairing, roles and smoothing.

Run from the repository root: ``python benchmarks/bench_clips.py [--seeds N] [--art DIR]``.
Each held-out deck (rendered under ``--art`` by ``cribcam cardart``; the committed small Dondorf
otherwise) plays ``--seeds`` two-player clips of eight cards and shows ``--seeds`` layouts (two
hands, crib, starter). Printed per deck: clips whose events came out complete, in order and
once; events right (in the longest common order); show layouts with every card in its role;
cards in the right role; and the median time per frame.

Then ``--seeds`` whole deals each of 2 and 3 players (`deal_clip`: pack, starter, the play,
show, crib, clear; random hands, dealer and light): deals whose play events came out complete
and in order; events right; the median frames from a card's first frame to its event; deals
whose table at the show (the last frame before the clear) has every card in its role; the
starter and crib cards in theirs; and the median time per frame.
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
from cribtrain.data.deal_clips import SEATINGS, DealClip, DealScript, deal_clip
from cribtrain.data.synth import Deck, load_decks
from scorer.cards import DECK
from vision.reading import CardReader
from vision.table.roles import Seat, TableLayout, TableState
from vision.table.smoothing import PlayEvent, TableSmoother

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "deck-dondorf"


def run(clip: Clip | DealClip, reader: CardReader, dealer: Seat | None, times: list[float],
        seats: tuple[Seat, ...] = ("bottom", "top"), until: int | None = None,
        ) -> tuple[TableState, list[PlayEvent]]:  # fmt: skip
    """The smoothed table on the last frame before `until` (None: the clip's last), and every
    play event of the clip."""
    smoother = TableSmoother(TableLayout(seats))
    events: list[PlayEvent] = []
    state = None
    for number, frame in enumerate(clip.frames):
        start = time.perf_counter()
        seen = reader.cards(frame)
        smoothed = smoother.update(seen, (frame.shape[1], frame.shape[0]), dealer=dealer)
        times.append(time.perf_counter() - start)
        events.extend(smoothed.events)
        if until is None or number < until:
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


def random_deal(players: int, rng: np.random.Generator, *, five_card: bool = False) -> DealScript:
    """A deal of random cards: four kept by each player (three in five-card cribbage), the
    crib, the starter; random dealer."""
    kept = 3 if five_card else 4
    cards = [DECK[i] for i in rng.permutation(52)[: kept * players + 5]]
    seats = SEATINGS[players]
    hands = {seat: tuple(cards[kept * i : kept * i + kept]) for i, seat in enumerate(seats)}
    crib = tuple(cards[kept * players : kept * players + 4])
    return DealScript(seats, int(rng.integers(players)), hands, crib, cards[-1], five_card)


def bench_deals(deck: Deck, reader: CardReader, seeds: int, players: int) -> dict[str, object]:
    times: list[float] = []
    latencies: list[int] = []
    perfect = right_events = all_events = shows = key_right = key_all = goes = 0
    for seed in range(seeds):
        script = random_deal(players, np.random.default_rng([seed, players, 11]))
        clip = deal_clip(deck, script, seed=seed)
        clear = clip.marks[-1].frame
        dealer = script.dealer_seat
        state, events = run(clip, reader, dealer, times, script.seats, until=clear)
        got = [(e.seat, e.card) for e in events]
        perfect += got == list(clip.plays)
        matcher = difflib.SequenceMatcher(None, got, list(clip.plays), autojunk=False)
        right_events += sum(block.size for block in matcher.get_matching_blocks())
        all_events += len(clip.plays)
        goes += len(script.goes)
        laid_at = {m.cards[0]: m.frame for m in clip.marks if m.kind == "play"}
        latencies += [e.frame - laid_at[e.card] for e in events if e.card in laid_at]
        roles = state.roles()
        shows += roles == clip.roles
        key = [script.starter, *script.crib]
        key_right += sum(1 for card in key if roles.get(card) == clip.roles[card])
        key_all += len(key)
    return {
        "deck": deck.name,
        "players": players,
        "deals perfect": f"{perfect}/{seeds}",
        "events right": f"{right_events}/{all_events}",
        "goes in the deals": goes,
        "median frames to event": statistics.median(latencies) if latencies else None,
        "shows perfect": f"{shows}/{seeds}",
        "starter and crib right": f"{key_right}/{key_all}",
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
        deck = load_decks([folder])[0]
        print(json.dumps(bench_deck(deck, reader, args.seeds)), flush=True)
        for players in (2, 3):
            print(json.dumps(bench_deals(deck, reader, args.seeds, players)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
