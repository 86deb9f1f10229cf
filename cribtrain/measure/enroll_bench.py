"""Benchmark: enrol deck designs kept out of training, tune, and read them before and after.

    python benchmarks/bench_enroll.py [--decks dondorf] [--seed N] [--scene-seed M] [--out
    FILE]

For each held-out design (`datasets/decks.json`): four enrolment shots are rendered (one suit
each, A..K in rows, top-down photo effects), the shipped detector finds the indices, `propose`
proposes identities, a simulated player corrects the wrong ones (counted as taps), the reader
is tuned on the CPU, and both readers read every labelled index of fresh synthetic game scenes
of that deck (random layouts, perspective, photo effects) at each `--scene-px` width (1280: the
frames the page's camera asks for; 640: a 640-px camera). Reported per deck: proposals right
before any tap, taps, held-out crop accuracy, game-scene accuracy per index and per card,
before and after, the cards the whole app names in those scenes (precision, recall, wrong
cards; "after_no_small": the tuned reader without the small-index reader), and the tune time.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from cribtrain.data.cardart import CLASSES
from cribtrain.data.synth import (
    Deck,
    Placement,
    SynthConfig,
    _affine,
    load_decks,
    make_scene,
    scene_rng,
)
from cribtrain.fit.tune import TuneSettings, tune_profile
from cribtrain.fit.tune_data import CARDART
from cribtrain.measure.evaluate import CardSetCounts
from vision.config import ReadingConfig
from vision.decks.enroll import READ_PX, Candidate, Enrollment, Shot, propose
from vision.decks.layout import RANKS
from vision.decks.profiles import ProfileStore
from vision.detection.crops import crop_index
from vision.detection.models import MODELS_DIR, READER_FILE
from vision.reading import CardReader

Image = npt.NDArray[np.uint8]
Boxes = npt.NDArray[np.float32]
SHOT = SynthConfig(size=800, effects=True, perspective=False, board=0.0)


class ReaderSetup(NamedTuple):
    """One way the app reads a bench's cards: its reading stage, and whether the small-index
    reader reads small boxes beside it (otherwise as the app reads)."""

    path: Path
    small: bool = True

    def app(self, models: Path) -> CardReader:
        config = ReadingConfig(small_reader=self.small)
        return CardReader(models, reader_path=self.path, config=config)


def enrollment_shot(deck: Deck, suit: str, seed: int) -> tuple[Image, Boxes, list[int]]:
    """A top-down photo of one suit laid out A..K, 5 to a row; BGR image, index boxes, classes."""
    rng = np.random.default_rng([seed, ord(suit)])
    places = []
    for k, rank in enumerate(RANKS):
        centre = (100 + 150 * (k % 5) + rng.normal(0, 4), 110 + 190 * (k // 5) + rng.normal(0, 4))
        matrix = _affine(deck.size, centre, 150, float(rng.normal(0, 0.04)))
        places.append(Placement(0, rank + suit, True, matrix))
    scene = make_scene([deck], scene_rng(seed, ord(suit)), SHOT, placements=places)
    boxes, classes = _label_boxes(scene.labels, SHOT.size)
    return np.ascontiguousarray(scene.image[..., ::-1]), boxes, classes


def _label_boxes(labels: list[tuple[int, float, float, float, float]],
                 size: int) -> tuple[Boxes, list[int]]:  # fmt: skip
    boxes = np.array([[(x - w / 2) * size, (y - h / 2) * size, (x + w / 2) * size,
                       (y + h / 2) * size] for _, x, y, w, h in labels], np.float32)  # fmt: skip
    return boxes.reshape(-1, 4), [c for c, *_ in labels]


def true_card(candidate: Candidate, truth: list[tuple[Image, Boxes, list[int]]]) -> str | None:
    """The card really lying where a candidate was found (None: no labelled index there).

    Any of its indices may be the labelled one: glare can wash one index out of the labels
    while the detector still finds it, and the player still sees the card."""
    _, boxes, classes = truth[candidate.shot]
    if not len(boxes):
        return None
    centres = (boxes[:, :2] + boxes[:, 2:]) / 2
    for found in candidate.boxes:
        distance = np.hypot(*(centres - (found[:2] + found[2:]) / 2).T)
        nearest = int(distance.argmin())
        glyph = float(max(np.ptp(boxes[nearest, 0::2]), np.ptp(boxes[nearest, 1::2])))
        if distance[nearest] < glyph:
            return CLASSES[classes[nearest]]
    return None


def play_the_player(enrollment: Enrollment, truth: list[tuple[Image, Boxes, list[int]]]) -> int:
    """Correct every proposal that is wrong, as the player would; returns the taps needed.

    A second candidate on a card already named (the detector boxed a court figure's letter,
    or split a card's indices) is marked "not a card", as the page's duplicate warning asks."""
    taps = 0
    named: set[str] = set()
    for candidate in enrollment.candidates:
        actual = true_card(candidate, truth)
        if actual in named:
            actual = None
        if actual is not None:
            named.add(actual)
        if candidate.card != actual:
            enrollment.correct(candidate.number, actual)
            taps += 1
    return taps


def app_summary(photos: list[tuple[set[str], set[str]]]) -> dict[str, float | int]:
    """What the app named over (cards there, cards named) frames: precision, recall, wrong."""
    counts = CardSetCounts.of(photos)
    return {"precision": round(counts.precision, 4), "recall": round(counts.recall, 4),
            "wrong": counts.read - counts.right, "cards": counts.there}  # fmt: skip


#: Index sizes (longer box side, px) the game-scene accuracy is broken down by.
SIZE_BANDS = ((0, 12), (12, 16), (16, 20), (20, 28), (28, 40), (40, 10_000))
#: Game scenes are as wide as the frames the page's camera asks for (1280 px): the detector
#: sees them shrunk to 640, the reader cuts its crops from the full frame. Their indices are
#: 8-40 px tall at 640, so 16-80 px here.
GAME_PX = 1280


def game_accuracy(deck: Deck, models: Path, readers: dict[str, ReaderSetup], scenes: int,
                  seed: int, px: int = GAME_PX) -> dict[str, dict[str, Any]]:  # fmt: skip
    """Per-index and per-card accuracy of each reader (`readers`: name -> how it reads,
    `ReaderSetup`; the per-index figures are the reading stage's alone) on labelled indices of
    game scenes `px` wide, read as the app reads them (every quarter turn), and per index
    size: the smallest indices carry too few pixels for any reader. `app`: the cards the whole
    app names (detector, reader, calibrated threshold, pairing) against the face-up cards with
    a labelled index: what a player sees, where an unsure reading names no card at all (a card
    named from an index too covered to be labelled counts as wrong: an upper bound)."""
    config = SynthConfig.seen_at(px)
    apps = {name: reading.app(models) for name, reading in readers.items()}
    named: dict[str, list[tuple[set[str], set[str]]]] = {name: [] for name in readers}
    crops: list[Image] = []
    truth: list[int] = []
    card_of: list[int] = []
    sizes: list[float] = []
    for i in range(scenes):
        scene = make_scene([deck], scene_rng(seed, 10_000 + i), config)
        frame = np.ascontiguousarray(scene.image[..., ::-1])
        on_table = {card["code"] for card in scene.cards if card["labelled"]}
        for name, app in apps.items():
            named[name].append((on_table, {str(seen.card) for seen in app.cards(frame).cards}))
        boxes, classes = _label_boxes(scene.labels, px)
        owners = [k for k, card in enumerate(scene.cards) for _ in card["labelled"]]
        for box, cls, owner in zip(boxes, classes, owners, strict=True):
            crops.append(crop_index(frame, box.astype(np.float64), READ_PX))
            truth.append(cls)
            card_of.append(i * 1000 + owner)
            sizes.append(float(max(box[2] - box[0], box[3] - box[1])))
    out = {}
    batch, expected, cards = np.stack(crops), np.array(truth), np.array(card_of)
    size = np.array(sizes)
    for name, probabilities in stage_probabilities(apps, readers, batch).items():
        right = probabilities.argmax(1) == expected
        per_card = [
            int(probabilities[cards == c].mean(axis=0).argmax()) == int(expected[cards == c][0])
            for c in np.unique(cards)
        ]
        by_size = {
            f"{lo}-{hi}px" if hi < 10_000 else f"{lo}px+": [round(float(right[band].mean()), 4),
                                                             int(band.sum())]
            for lo, hi in SIZE_BANDS
            if (band := (size >= lo) & (size < hi)).any()
        }  # fmt: skip
        out[name] = {"per_index": round(float(right.mean()), 4),
                     "per_card": round(float(np.mean(per_card)), 4),
                     "indices": len(expected), "cards": len(per_card),
                     "per_index_by_size": by_size, "app": app_summary(named[name])}  # fmt: skip
    return out


def stage_probabilities(
    apps: dict[str, CardReader], readers: dict[str, ReaderSetup], batch: Image
) -> dict[str, npt.NDArray[np.float32]]:
    """Each reading's class probabilities of `batch`, classified once per reading stage: the
    second readers beside a stage (small-index, base) change the cards the app names, not
    these."""
    by_stage: dict[Path, npt.NDArray[np.float32]] = {}
    for name, app in apps.items():
        if readers[name].path not in by_stage:
            by_stage[readers[name].path] = app.classify(batch)
    return {name: by_stage[readers[name].path] for name in apps}


def compared_readers(models: Path, tuned: Path) -> dict[str, ReaderSetup]:
    """The readings a bench compares: the base models ("before"), a deck's tuned reader as the
    app reads with it, beside the small-index reader ("after"), and that reader alone."""
    return {
        "before": ReaderSetup(models / READER_FILE),
        "after": ReaderSetup(tuned),
        "after_no_small": ReaderSetup(tuned, small=False),
    }


def bench_deck(name: str, models: Path, settings: TuneSettings, scenes: int, seed: int,
               truth_boxes: bool = False, scene_px: tuple[int, ...] = (GAME_PX,),
               scene_seed: int | None = None,
               keep: Path | None = None) -> dict[str, Any]:  # fmt: skip
    """One deck's enrolment, tune and game-scene reading (`truth_boxes`: the labelled index
    boxes stand in for the detector, to measure the reading stage alone). `scene_seed` (default
    `seed`) draws the game scenes apart from the enrolment shots: a hard enrolment and a hard
    sample of scenes are told apart by crossing them. `keep`: a profile folder to leave the
    tuned deck in (for a closer look), else a temporary one."""
    deck = load_decks([CARDART / name])[0]
    scenes_from = seed if scene_seed is None else scene_seed
    reader = CardReader(models)
    truth = [enrollment_shot(deck, suit, seed) for suit in "CDHS"]
    shots = [Shot(image, suit) for (image, _, _), suit in zip(truth, "CDHS", strict=True)]
    boxes_of = {id(image): boxes for image, boxes, _ in truth}

    def find(frame: Image) -> Boxes:
        return boxes_of[id(frame)] if truth_boxes else reader.index_boxes(frame)

    found = sum(len(find(image)) for image, _, _ in truth)
    enrollment = propose(shots, find, reader.classify, reader.index_facing)
    proposed_ok = sum(c.proposed == true_card(c, truth) for c in enrollment.candidates)
    taps = play_the_player(enrollment, truth)
    with tempfile.TemporaryDirectory() as root:
        store = ProfileStore(keep or Path(root))
        start = time.monotonic()
        result = tune_profile(store, name, enrollment.labelled(), base_models=models,
                              settings=settings, progress=None)  # fmt: skip
        seconds = time.monotonic() - start
        readers = compared_readers(models, result.profile.reader)
        game = {px: game_accuracy(deck, models, readers, scenes, scenes_from, px)
                for px in scene_px}  # fmt: skip
    return {
        "deck": name, "finder": "labels" if truth_boxes else "detector", "seed": seed,
        "scene_seed": scenes_from,
        "indices_labelled": sum(len(b) for _, b, _ in truth),
        "indices_found": found, "cards_found": len(enrollment.candidates),
        "proposals_right": proposed_ok, "player_taps": taps,
        "problems": enrollment.problems().lines(),
        "held_out_crops_before": result.accuracy_before,
        "held_out_crops_after": result.accuracy_after, "tune_seconds": round(seconds, 1),
        "game": {f"{px}px": g for px, g in game.items()},
    }  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    from cribtrain.data.cardart import held_out

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--decks", nargs="+", help="decks (default: the held-out designs)")
    parser.add_argument("--models", type=Path, default=MODELS_DIR)
    parser.add_argument("--budget", type=float, default=180.0, help="tune seconds per deck")
    parser.add_argument("--scenes", type=int, default=30, help="game scenes per deck")
    parser.add_argument(
        "--scene-px",
        type=int,
        nargs="+",
        default=[GAME_PX, 640],
        help="game scene widths, each read by the same tuned reader (640: a 640-px camera)",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--scene-seed", type=int, help="game scenes' seed (default: --seed)")
    parser.add_argument("--out", type=Path, help="also write the results here (JSON)")
    parser.add_argument("--keep", type=Path, help="leave the tuned decks in this folder")
    parser.add_argument("--truth-boxes", action="store_true",
                        help="use the labelled index boxes instead of the detector")  # fmt: skip
    args = parser.parse_args(argv)
    names = args.decks or sorted(d for d in held_out() if (CARDART / d / "boxes.json").exists())
    settings = TuneSettings(budget_s=args.budget)
    return report(
        (bench_deck(name, args.models, settings, args.scenes, args.seed, args.truth_boxes,
                    tuple(args.scene_px), args.scene_seed, args.keep)
         for name in names),
        args.out,
    )  # fmt: skip


def report(results: Iterable[dict[str, Any]], out: Path | None,
           show: Callable[[dict[str, Any]], list[str]] | None = None) -> int:  # fmt: skip
    """Print each result as soon as it is measured, as `show`'s lines (default: one JSON line);
    `out` also gets them all (JSON)."""
    kept = []
    for result in results:
        print("\n".join(show(result)) if show else json.dumps(result), flush=True)
        kept.append(result)
    if out:
        out.write_text(json.dumps(kept, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
