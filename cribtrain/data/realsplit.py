"""Split the real dev-real photos into a fine-tuning part and a held-out part.

Photos come in bursts of near-duplicates (the same layout shot a few seconds apart), so the
split is made by burst, within each capture group: a burst is a run of shots whose capture
times (or file numbers) lie close together. Whole bursts go to one side, so no near-duplicate of
a held-out photo is ever trained on. The split is deterministic.
"""

from __future__ import annotations

import csv
import json
import random
import re
from collections import defaultdict
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from vision.errors import SplitError

#: Shots closer than this (seconds, or file numbers for phoneB) that share a card are one burst.
BURST_GAP = {"phoneA": 60.0, "phoneB": 4.0, "webcam": 120.0}
HOLDOUT_SHARE = 0.4
SEED = 2026


@dataclass(frozen=True)
class Shot:
    file: str
    group: str
    when: float  # seconds, or the camera's file number
    cards: frozenset[int]  # class ids labelled in the photo


def _shot(file: str, subset: str, source: str, cards: frozenset[int]) -> Shot:
    name = source.rsplit("/", 1)[-1]
    if match := re.match(r"IMG_(\d{8}_\d{6})", name):
        when = datetime.strptime(match[1], "%Y%m%d_%H%M%S").timestamp()
        return Shot(file, "phoneA", when, cards)
    if match := re.match(r"WIN_(\d{8}_\d{2}_\d{2}_\d{2})", name):
        when = datetime.strptime(match[1], "%Y%m%d_%H_%M_%S").timestamp()
        return Shot(file, "webcam", when, cards)
    if match := re.match(r"IMG_(\d+)", name):
        return Shot(file, "phoneB", float(match[1]), cards)
    raise ValueError(f"{file}: cannot read a capture time from {name!r} ({subset})")


def read_shots(dataset: Path) -> list[Shot]:
    with open(dataset / "provenance.csv", newline="", encoding="utf-8") as source:
        rows = list(csv.DictReader(source))
    return [
        _shot(row["file"], row["subset"], row["source_path"], _classes(dataset, row["file"]))
        for row in rows
    ]


def _classes(dataset: Path, image: str) -> frozenset[int]:
    label = dataset / "labels" / (Path(image).stem + ".txt")
    lines = label.read_text().split("\n") if label.exists() else []
    return frozenset(int(line.split()[0]) for line in lines if line.strip())


def bursts(shots: list[Shot]) -> list[list[Shot]]:
    """Consecutive shots of one group closer than the group's burst gap."""
    groups: dict[str, list[Shot]] = defaultdict(list)
    for shot in shots:
        groups[shot.group].append(shot)
    result: list[list[Shot]] = []
    for group, members in sorted(groups.items()):
        members.sort(key=lambda s: s.when)
        current = [members[0]]
        for shot in members[1:]:
            previous = current[-1]
            apart = shot.when - previous.when > BURST_GAP[group]
            if apart or not shot.cards & previous.cards:
                result.append(current)
                current = []
            current.append(shot)
        result.append(current)
    return result


def split(dataset: Path) -> dict[str, list[str]]:
    """`{"train": [...], "holdout": [...]}`: up to 40% of each group's photos held out."""
    rng = random.Random(SEED)
    by_group: dict[str, list[list[Shot]]] = defaultdict(list)
    for burst in bursts(read_shots(dataset)):
        by_group[burst[0].group].append(burst)
    chosen: dict[str, list[str]] = {"train": [], "holdout": []}
    for group in sorted(by_group):
        group_bursts = by_group[group]
        rng.shuffle(group_bursts)
        target = round(HOLDOUT_SHARE * sum(len(b) for b in group_bursts))
        held = 0
        for burst in group_bursts:
            side = "holdout" if held + len(burst) <= target else "train"
            held += len(burst) if side == "holdout" else 0
            chosen[side].extend(shot.file for shot in burst)
    return {side: sorted(files) for side, files in chosen.items()}


def split_part(split_file: Path, part: str) -> list[str]:
    """The file names of one part of a split file (`{part: [file names]}`), as `split` writes."""
    try:
        parts = json.loads(split_file.read_text())
    except (OSError, ValueError) as error:
        raise SplitError(f"cannot read the split {split_file}: {error}") from error
    if not isinstance(parts, dict) or part not in parts:
        found = ", ".join(parts) if isinstance(parts, dict) and parts else "none"
        raise SplitError(f"{split_file} has no part {part!r}; it has {found}")
    names = parts[part]
    if not isinstance(names, list) or not all(isinstance(name, str) for name in names):
        raise SplitError(f"{split_file}: part {part!r} is not a list of file names")
    return names
