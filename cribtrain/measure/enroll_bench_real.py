"""Benchmark: teach each real deck of dev-real as a player teaches it, then read its held-out
photos with the base reader and with the taught one.

    python benchmarks/bench_enroll_real.py DATASET --split FILE [--relabel DIR] [--groups
    webcam] [--teach player|labels] [--photos 20] [--budget SECONDS] [--keep DIR] [--out FILE]

Each capture group of dev-real is one table's deck (`cribtrain.data.realsplit`). By default
(`--teach player`) the deck is taught from photos of its training part that show each of its
cards (`covering_photos`: each photo shows a card not shown yet; they were taken for play, so
some cards show in more than one): the app proposes their cards with the shipped detector and
reader, as the teaching page and `cribcam enroll` do, and a stand-in player corrects each
proposal that is wrong against the labels (`player_teaching`): the corrections typed, and the
proposals mixing two cards, are counted. `--teach labels` takes every labelled corner of up to
`--photos` ordinary photos instead (`teaching_photos`, `enrolment_patches`: the labels stand
in for the detector and the player). The reading stage is tuned on them as the app tunes.
Then the whole app reads each of the group's held-out photos (never taught on) with the base
models and with the taught deck, one after the other on each photo, so both meet the machine in
the same state: per card, what it names against the labelled cards (precision, recall, cards
named that are not there, cards seen at places that cannot be one card, photos fully right),
and the median milliseconds a photo. The reading stage alone is in the JSON too (`per_corner`,
`per_card`: a card's corners in one photo read together). Caveat: the shipped reader was itself
fine-tuned on the training part, so the base already knows these decks a little.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from cribtrain.data.realsplit import read_shots, split_part
from cribtrain.fit.tune import TuneSettings, tune_profile
from cribtrain.measure.enroll_bench import ReaderSetup, report, stage_probabilities
from cribtrain.measure.evaluate import CardSetCounts, labelled_photos
from vision.decks.enroll import READ_PX, Enrollment, Shot, cut_patch, pooled_patches, propose
from vision.decks.profiles import ProfileStore
from vision.detection.crops import crop_index
from vision.detection.detections import CLASS_NAMES, Detections
from vision.detection.models import MODELS_DIR, READER_FILE
from vision.reading import CardReader

Image = npt.NDArray[np.uint8]
#: Game photos' cards are grouped by the photo they lie in.
CARD_KEY = 1000
#: The photos a player teaches a deck from, at most.
TEACHING_PHOTOS = 20
GROUPS = ("phoneA", "phoneB", "webcam")


def teaching_photos(cards: dict[str, frozenset[int]], limit: int = TEACHING_PHOTOS) -> list[str]:
    """Up to `limit` of the photos `cards` names (photo -> the card classes labelled in it), as
    a player would take them to show the deck: each next one the photo showing the most cards
    not yet shown, then the most cards (ties: by name). Once every card is shown, photos
    showing many cards again follow: repeats, as any player's photos hold."""
    left = sorted(name for name, shown in cards.items() if shown)
    chosen: list[str] = []
    seen: set[int] = set()
    while left and len(chosen) < limit:
        best = min(left, key=lambda name: (-len(cards[name] - seen), -len(cards[name]), name))
        chosen.append(best)
        seen |= cards[best]
        left.remove(best)
    return chosen


def covering_photos(cards: dict[str, frozenset[int]]) -> list[str]:
    """Photos that show each card the part holds, as a player shows a deck once: each next one
    the photo showing the most cards not yet shown (`teaching_photos`' order), none that shows
    no card not yet shown. (A photo showing a new card may show shown ones too: the part's
    photos were taken for play, not for teaching.)"""
    everything = frozenset().union(*cards.values()) if cards else frozenset()
    chosen: list[str] = []
    seen: set[int] = set()
    for name in teaching_photos(cards, len(cards)):
        if seen >= everything:
            break
        chosen.append(name)
        seen |= cards[name]
    return chosen


@dataclass(frozen=True)
class PlayerTeaching:
    """A deck taught as the app teaches it: the detector's proposals on the teaching photos,
    each corrected by the player where it is wrong. `proposals`: cards proposed; `corrections`:
    those the player had to change (a wrong card named, or "not a card"); `mixed`: proposals
    whose corners belong to two labelled cards; `unseen`: labelled cards of the photos that no
    proposal holds (they cannot be taught from these photos)."""

    enrollment: Enrollment
    proposals: int
    corrections: int
    mixed: int
    unseen: int


def _card_at(box: npt.NDArray[np.float32], truth: Detections) -> int | None:
    """The labelled card whose corner lies at `box` (its centre within an index size), else
    None."""
    if not len(truth):
        return None
    centres = (truth.boxes[:, :2] + truth.boxes[:, 2:]) / 2
    distance = np.hypot(*(centres - (box[:2] + box[2:]) / 2).T)
    nearest = int(distance.argmin())
    glyph = float(np.max(truth.boxes[nearest, 2:] - truth.boxes[nearest, :2]))
    return int(truth.class_ids[nearest]) if distance[nearest] < glyph else None


def player_teaching(dataset: Path, photos: Sequence[str], reader: CardReader,
                    relabel: Path | None = None) -> PlayerTeaching:  # fmt: skip
    """`photos` proposed by `reader` as the page and `cribcam enroll` propose them, each
    proposal corrected as a player would: to the labelled card its corners lie on (the first
    of them on one: a proposal mixing two cards is named as one of them), to "not a card"
    where none lies there or where the photo's card is named already by another proposal."""
    frames, truths = [], []
    for _, frame, truth in labelled_photos(dataset, photos, relabel):
        frames.append(frame)
        truths.append(truth)
    enrollment = propose([Shot(f) for f in frames], reader.index_boxes, reader.classify,
                         reader.index_facing)  # fmt: skip
    corrections = mixed = 0
    named: dict[int, set[int]] = {}
    for candidate in enrollment.candidates:
        truth = truths[candidate.shot]
        cards = [c for box in candidate.boxes if (c := _card_at(box, truth)) is not None]
        mixed += len(set(cards)) > 1
        shown = named.setdefault(candidate.shot, set())
        actual = cards[0] if cards and cards[0] not in shown else None
        if actual is not None:
            shown.add(actual)
        answer = None if actual is None else CLASS_NAMES[actual]
        if candidate.card != answer:
            enrollment.correct(candidate.number, answer)
            corrections += 1
    unseen = sum(len(set(t.class_ids.tolist()) - named.get(k, set()))
                 for k, t in enumerate(truths))  # fmt: skip
    return PlayerTeaching(enrollment, len(enrollment.candidates), corrections, mixed, unseen)


def enrolment_patches(
    dataset: Path, photos: Sequence[str], relabel: Path | None = None
) -> list[tuple[str, list[Image]]]:
    """Every labelled corner of every card in `photos`, each card once with all its patches
    (card-class order), pooled as `Enrollment.labelled` pools them (`pooled_patches`)."""
    seen: dict[str, list[list[Image]]] = {}
    for _, frame, truth in labelled_photos(dataset, photos, relabel):
        for class_id in np.unique(truth.class_ids).tolist():
            boxes = truth.boxes[truth.class_ids == class_id]
            patches = [cut_patch(frame, box) for box in boxes]
            seen.setdefault(CLASS_NAMES[class_id], []).append(patches)
    return [(card, pooled_patches(seen[card])) for card in CLASS_NAMES if card in seen]


@dataclass(frozen=True)
class PhotoCards:
    """What the app named in one photo against what is there: the labelled cards, the cards
    named, and the cards it saw at places that cannot be one card (`FrameCards.conflicts`)."""

    there: frozenset[str]
    named: frozenset[str]
    twice: frozenset[str] = frozenset()


def card_summary(photos: Sequence[PhotoCards]) -> dict[str, float | int]:
    """Per card over `photos`: precision and recall of the cards named (%), cards named that are
    not there (`wrong`), cards seen at places that cannot be one card (`double`: the page
    warns of each), and photos fully right (every card there named, nothing else, no card
    seen twice)."""
    counts = CardSetCounts.of((p.there, p.named) for p in photos)
    return {
        "precision": round(100 * counts.precision, 2),
        "recall": round(100 * counts.recall, 2),
        "wrong": counts.read - counts.right,
        "double": sum(len(p.twice) for p in photos),
        "fully_right": sum(p.there == p.named and not p.twice for p in photos),
        "photos": len(photos),
        "cards": counts.there,
    }


def read_photos(dataset: Path, photos: Sequence[str], models: Path,
                readers: dict[str, ReaderSetup], relabel: Path | None = None,
                rounds: int = 1) -> dict[str, dict[str, Any]]:  # fmt: skip
    """Each reading's cards named in `photos` against the labelled ones (`card_summary`) and the
    median milliseconds a photo (`ms_per_photo`): the readings read each photo one after the
    other, their order turning from photo to photo, `rounds` times (the cards are taken from the
    first); and the reading stage's share of labelled corners, and of cards, read right
    (`per_corner`, `per_card`, at four quarter turns as the app reads)."""
    apps = {name: reading.app(models) for name, reading in readers.items()}
    named: dict[str, list[PhotoCards]] = {name: [] for name in readers}
    times: dict[str, list[float]] = {name: [] for name in readers}
    crops: list[Image] = []
    truth: list[int] = []
    card_of: list[int] = []
    order = list(apps)
    for k, (_, frame, labels) in enumerate(labelled_photos(dataset, photos, relabel)):
        if k == 0:
            for app in apps.values():  # compile every network before any timing
                app.read(frame)
        there = frozenset(CLASS_NAMES[class_id] for class_id in labels.class_ids.tolist())
        for turn in range(rounds):
            for name in order[k % len(order) :] + order[: k % len(order)]:
                start = time.perf_counter()
                reading = apps[name].read(frame)
                times[name].append((time.perf_counter() - start) * 1000)
                if turn == 0:
                    cards = reading.cards
                    named[name].append(PhotoCards(
                        there, frozenset(str(seen.card) for seen in cards.cards),
                        frozenset(str(conflict.card) for conflict in cards.conflicts),
                    ))  # fmt: skip
        _add_crops(frame, labels, k, crops, truth, card_of)
    batch, expected, cards_of = np.stack(crops), np.array(truth), np.array(card_of)
    stage = stage_probabilities(apps, readers, batch)
    out: dict[str, dict[str, Any]] = {}
    for name in readers:
        probabilities = stage[name]
        per_card = [
            int(probabilities[cards_of == c].mean(axis=0).argmax()) == c % CARD_KEY
            for c in np.unique(cards_of)
        ]
        out[name] = {
            **card_summary(named[name]),
            "ms_per_photo": round(statistics.median(times[name]), 1),
            "per_corner": round(100 * float(np.mean(probabilities.argmax(1) == expected)), 2),
            "per_card": round(100 * float(np.mean(per_card)), 2),
        }
    return out


def _add_crops(frame: Image, labels: Detections, photo: int, crops: list[Image], truth: list[int],
               card_of: list[int]) -> None:  # fmt: skip
    for box, class_id in zip(labels.boxes, labels.class_ids.tolist(), strict=True):
        crops.append(crop_index(frame, box.astype(np.float64), READ_PX))
        truth.append(class_id)
        card_of.append(photo * CARD_KEY + class_id)


def compared_readers(models: Path, taught: Path) -> dict[str, ReaderSetup]:
    """The base models ("base") and the taught deck as the app reads with it ("taught")."""
    return {"base": ReaderSetup(models / READER_FILE), "taught": ReaderSetup(taught)}


#: How the bench teaches: "player" proposes each covering photo's cards with the app's
#: detector and reader and corrects them as a player would (`covering_photos`,
#: `player_teaching`); "labels" takes every labelled corner of `--photos` ordinary photos
#: (`teaching_photos`, `enrolment_patches`: the labels stand in for detector and player).
TEACHING = ("player", "labels")


def bench_group(group: str, dataset: Path, split: dict[str, list[str]], models: Path,
                settings: TuneSettings, relabel: Path | None = None,
                photos: int = TEACHING_PHOTOS, rounds: int = 1, teach_by: str = "player",
                keep: Path | None = None) -> dict[str, Any]:  # fmt: skip
    """One group's teaching (`TEACHING`), tune and reading of its held-out photos
    (`read_photos`); `keep`: a profile folder to leave the taught deck in, else a temporary
    one."""
    shots = {shot.file: shot for shot in read_shots(dataset)}
    training = {name: shots[name].cards for name in split["train"] if shots[name].group == group}
    test = [name for name in split["holdout"] if shots[name].group == group]
    player: dict[str, int] = {}
    if teach_by == "player":
        teach = covering_photos(training)
        taught = player_teaching(dataset, teach, CardReader(models), relabel)
        cards = taught.enrollment.labelled()
        player = {"proposals": taught.proposals, "corrections": taught.corrections,
                  "mixed": taught.mixed, "unseen": taught.unseen}  # fmt: skip
    else:
        teach = teaching_photos(training, photos)
        cards = enrolment_patches(dataset, teach, relabel)
    with tempfile.TemporaryDirectory() as root:
        start = time.monotonic()
        result = tune_profile(ProfileStore(keep or Path(root)), group, cards, base_models=models,
                              settings=settings, progress=None)  # fmt: skip
        seconds = time.monotonic() - start
        readers = compared_readers(models, result.profile.reader)
        read = read_photos(dataset, test, models, readers, relabel, rounds)
    return {
        "group": group, "teaching": teach_by, "teaching_photos": len(teach),
        "cards_taught": len(cards), "patches": sum(len(p) for _, p in cards), **player,
        "test_photos": len(test),
        "held_back_before": result.accuracy_before, "held_back_after": result.accuracy_after,
        "kept_base": result.kept_base, "tune_seconds": round(seconds, 1), "read": read,
    }  # fmt: skip


#: The table's columns: heading, width, and the key of a reading's figures.
COLUMNS = (("precision %", 11, "precision"), ("recall %", 8, "recall"), ("wrong", 5, "wrong"),
           ("double", 6, "double"), ("fully right", 11, "fully_right"),
           ("ms/photo", 8, "ms_per_photo"))  # fmt: skip
NAME_WIDTH = 8


def table(result: dict[str, Any]) -> list[str]:
    """One group's result as lines of text: what the deck was taught from, then a row per
    reading."""
    before, after = (
        "-" if value is None else f"{100 * value:.1f}"
        for value in (result["held_back_before"], result["held_back_after"])
    )
    kept = " (kept the base reader)" if result["kept_base"] else ""
    lines = [
        f"{result['group']}: taught from {result['teaching_photos']} photos "
        f"({result['cards_taught']} cards, {result['patches']} corners; tune "
        f"{result['tune_seconds']:.0f} s, held-back corners {before} -> {after} %{kept}); "
        f"{result['test_photos']} held-out photos",
        *_player_line(result),
        "  " + " ".join([f"{'reader':<{NAME_WIDTH}}", *(f"{h:>{w}}" for h, w, _ in COLUMNS)]),
    ]
    for name, read in result["read"].items():
        cells = {**read, "fully_right": f"{read['fully_right']}/{read['photos']}"}
        row = [f"{name:<{NAME_WIDTH}}", *(f"{cells[key]:>{w}}" for _, w, key in COLUMNS)]
        lines.append("  " + " ".join(row))
    return lines


def _player_line(result: dict[str, Any]) -> list[str]:
    """What the player had to do, where the bench taught as a player teaches."""
    if "corrections" not in result:
        return []
    return [f"  the player corrected {result['corrections']} of {result['proposals']} proposals "
            f"({result['mixed']} mixing two cards; {result['unseen']} labelled cards proposed "
            "by none)"]  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset", type=Path, help="dev-real (images/, labels/, provenance.csv)")
    parser.add_argument("--split", type=Path, required=True, help="train/holdout JSON")
    parser.add_argument(
        "--relabel", type=Path, metavar="DIR", help="corrected labels (dev-real-relabel/labels)"
    )
    parser.add_argument("--groups", nargs="+", default=list(GROUPS))
    parser.add_argument("--models", type=Path, default=MODELS_DIR)
    parser.add_argument("--teach", choices=TEACHING, default="player",
                        help="player: the app's proposals on photos showing each card, "
                        "corrected; labels: every labelled corner of --photos photos")  # fmt: skip
    parser.add_argument("--photos", type=int, default=TEACHING_PHOTOS,
                        help="--teach labels: photos a deck is taught from, at most")  # fmt: skip
    parser.add_argument("--keep", type=Path, help="leave the taught decks in this folder")
    parser.add_argument("--budget", type=float, default=180.0, help="tune seconds per deck")
    parser.add_argument("--rounds", type=int, default=1,
                        help="times each reading reads each photo (for the timing)")  # fmt: skip
    parser.add_argument("--out", type=Path, help="also write the results here (JSON)")
    args = parser.parse_args(argv)
    os.environ.setdefault("YOLO_VERBOSE", "false")  # the tunes' training logs: only the table
    split = {part: split_part(args.split, part) for part in ("train", "holdout")}
    settings = TuneSettings(budget_s=args.budget)
    return report(
        (bench_group(group, args.dataset, split, args.models, settings, args.relabel,
                     args.photos, args.rounds, args.teach, args.keep)
         for group in args.groups),
        args.out,
        table,
    )  # fmt: skip


if __name__ == "__main__":
    raise SystemExit(main())
