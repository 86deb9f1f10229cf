"""Measuring card reading on labelled photos: what a player would notice, and the usual mAP.

Per image, the set of cards read is compared with the set labelled (precision and recall of the
card *set*: a card counts once however many corners show). Per corner box, the 52-class mAP50
and per-class recall are computed, and the worst confusions listed; card recall is also broken
down by the pixel size of each card's largest index, by deck design and by the share of its
face that shows where the folder is a `cribcam synth` set (`cribtrain.measure.scene_meta`), and
given again
for the cards in view: a card whose every labelled box reaches the frame's edge is then neither
required nor, read, held against the reader (the app reads a cut index only when surer than a
whole one). The card-set figures come with 95 % intervals from resampling whole photos, and two
runs can be compared photo by photo (`compare_runs`). The photos can be read changed the way a
camera spoils them (`CONDITIONS`: blurred, at half light), to see how the reading holds up
where the camera is out of focus or the room is dim. Works for any folder of YOLO-labelled
photos (corner or whole-card boxes: identities are compared per image).
"""

from __future__ import annotations

import itertools
import json
import statistics
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence, Set
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple, Protocol

import cv2
import numpy as np
import numpy.typing as npt
from tqdm import tqdm

from cribtrain.measure.scene_meta import SceneCard, scene_cards
from vision.detection.detections import CLASS_NAMES, Detections, at_frame_edge, iou_matrix
from vision.detection.models import Image
from vision.errors import EvaluationError
from vision.reading import Reading
from vision.table.sources import read_image

IOU_MATCH = 0.5
#: Edges (px, the longer side of a card's largest labelled index) of the size classes that
#: recall is broken down by: reading depends on an index's pixels more than on anything else.
INDEX_SIZE_EDGES = (12, 16, 24, 32, 48)
#: Edges (%) of the classes of the share of a card's face that shows (`recall_by_face_shown`).
FACE_SHOWN_EDGES = (50, 80)


def _class_names(edges: Sequence[int], unit: str) -> tuple[str, ...]:
    """Names of the classes below, between and above `edges`: "<12 px", "12-16 px", ..."""
    between = [f"{a}-{b}{unit}" for a, b in itertools.pairwise(edges)]
    return (f"<{edges[0]}{unit}", *between, f">={edges[-1]}{unit}")


SIZE_CLASSES = _class_names(INDEX_SIZE_EDGES, " px")
FACE_CLASSES = _class_names(FACE_SHOWN_EDGES, " %")
#: Resamples of the photos behind the card-set intervals (`card_set_intervals`).
BOOTSTRAP_DRAWS = 2000
#: The file of an evaluation folder holding each photo's cards (`Report.photos`).
PHOTOS_FILE = "photos.json"
#: The Gaussian blur (sigma, px of the photo) of the `blurred` condition: a camera a little out
#: of focus, or a hand moving.
BLUR_SIGMA = 1.5
#: What the `half_light` condition keeps of each pixel value: a dim room at the same exposure.
HALF_LIGHT = 0.5


def blurred(frame: Image, sigma: float = BLUR_SIGMA) -> Image:
    """`frame` under a Gaussian blur of `sigma` px."""
    return np.asarray(cv2.GaussianBlur(frame, (0, 0), sigma), np.uint8)


def half_light(frame: Image, light: float = HALF_LIGHT) -> Image:
    """`frame` with every pixel value scaled by `light` (rounded)."""
    return np.asarray(np.round(frame.astype(np.float32) * light), np.uint8)


class Condition(NamedTuple):
    """A way of reading the photos: its name and what it does to each photo first."""

    name: str
    change: Callable[[Image], Image]


#: The conditions `cribcam eval` reads the photos in, each measured on its own.
CONDITIONS = (
    Condition("as-is", lambda frame: frame),
    Condition("blurred", blurred),
    Condition("half-light", half_light),
)


class FrameReader(Protocol):
    """What reads a frame's cards: the app's two stages (`CardReader`), or the single-stage
    detector they are compared with."""

    def read(self, frame: Image) -> Reading:
        """The frame's index readings kept, the cards they make, and the time it took."""
        ...


@dataclass
class ImageResult:
    name: str
    truth: Detections
    found: Detections
    truth_cards: frozenset[str]
    read_cards: frozenset[str]
    milliseconds: float
    #: The photo's width and height.
    frame_size: tuple[int, int]
    #: Each labelled card's deck design and face shown, where the scene's meta says.
    scene: Mapping[str, SceneCard] = field(default_factory=dict)
    #: The cards seen at places that cannot be one card (`FrameCards.conflicts`): the page
    #: reports each, so one naming a card that is there once is a false alarm.
    conflicts: frozenset[str] = frozenset()

    @property
    def cut_cards(self) -> frozenset[str]:
        """The labelled cards whose every box reaches the frame's edge."""
        whole = ~at_frame_edge(self.truth.boxes, *self.frame_size)
        return self.truth_cards - {CLASS_NAMES[c] for c in self.truth.class_ids[whole].tolist()}

    def in_view(self) -> tuple[frozenset[str], frozenset[str]]:
        """The cards there and the cards read, both less the cut ones (`cut_cards`)."""
        cut = self.cut_cards
        return self.truth_cards - cut, self.read_cards - cut

    @property
    def precision(self) -> float:
        return (
            len(self.truth_cards & self.read_cards) / len(self.read_cards)
            if self.read_cards
            else 1.0
        )

    @property
    def recall(self) -> float:
        return (
            len(self.truth_cards & self.read_cards) / len(self.truth_cards)
            if self.truth_cards
            else 1.0
        )


@dataclass(frozen=True)
class CardSetCounts:
    """Cards read right, cards read and cards really there, summed over photos."""

    right: int
    read: int
    there: int

    @classmethod
    def of(cls, photos: Iterable[tuple[Set[str], Set[str]]]) -> CardSetCounts:
        """From each photo's (cards there, cards read)."""
        right = read = there = 0
        for truth, cards in photos:
            right += len(truth & cards)
            read += len(cards)
            there += len(truth)
        return cls(right, read, there)

    @property
    def precision(self) -> float:
        """Share of the cards read that are right (0 when none was read)."""
        return self.right / max(self.read, 1)

    @property
    def recall(self) -> float:
        """Share of the cards there that were read right (0 when none was there)."""
        return self.right / max(self.there, 1)


@dataclass
class Report:
    images: list[ImageResult] = field(default_factory=list)

    def photos(self) -> list[dict[str, Any]]:
        """Each photo's cards there, read, and cut by its edge: to compare two runs photo by
        photo, or to pool several folders' figures (`card_set_intervals` takes the pairs)."""
        return [
            {"image": r.name, "there": sorted(r.truth_cards), "read": sorted(r.read_cards),
             "cut_by_edge": sorted(r.cut_cards), "conflicts": sorted(r.conflicts)}
            for r in self.images
        ]  # fmt: skip

    def headline(self) -> dict[str, Any]:
        """The figures a player would notice: card-set precision and recall and the share of
        photos read exactly (no card wrong or missed), all in %."""
        counts = CardSetCounts.of((r.truth_cards, r.read_cards) for r in self.images)
        exact = sum(r.truth_cards == r.read_cards for r in self.images)
        return {
            "photos": len(self.images),
            "precision": round(100 * counts.precision, 2),
            "recall": round(100 * counts.recall, 2),
            "photos_fully_right": round(100 * exact / max(len(self.images), 1), 1),
        }

    def summary(self) -> dict[str, Any]:
        every = [(r.truth_cards, r.read_cards) for r in self.images]
        seen = [r.in_view() for r in self.images]
        counts = CardSetCounts.of(every)
        ap, recall = corner_metrics(self.images)
        confusions = confusion_counts(self.images)
        return {
            "images": len(self.images),
            "card_set_precision": counts.right / counts.read if counts.read else 1.0,
            "card_set_recall": counts.right / counts.there if counts.there else 1.0,
            "mean_image_precision": statistics.fmean(r.precision for r in self.images),
            "mean_image_recall": statistics.fmean(r.recall for r in self.images),
            "perfect_images": sum(r.truth_cards == r.read_cards for r in self.images),
            "corner_map50": float(np.mean([v for v in ap.values()])) if ap else 0.0,
            "per_class_recall": {CLASS_NAMES[c]: round(v, 3) for c, v in sorted(recall.items())},
            "worst_confusions": [
                {"truth": CLASS_NAMES[t], "read": CLASS_NAMES[p], "count": n}
                for (t, p), n in confusions.most_common(12)
            ],
            "card_set_interval_95": card_set_intervals(every),
            "recall_by_index_size": recall_by_index_size(self.images),
            **({"recall_by_deck": by_deck} if (by_deck := recall_by_deck(self.images)) else {}),
            **(
                {"recall_by_face_shown": by_face}
                if (by_face := recall_by_face_shown(self.images))
                else {}
            ),
            "in_view": card_set_figures(seen),
            "conflicts": {
                "photos": sum(bool(r.conflicts) for r in self.images),
                "conflicts": sum(len(r.conflicts) for r in self.images),
                "naming_a_card_there": sum(len(r.conflicts & r.truth_cards) for r in self.images),
            },
            "median_ms_per_image": statistics.median(r.milliseconds for r in self.images),
        }


def labelled_photos(
    dataset: Path, names: Iterable[str] | None = None, relabel: Path | None = None
) -> Iterator[tuple[Path, Image, Detections]]:
    """Each photo of a YOLO folder (images/, labels/; `names` only, when given), decoded, with
    its labelled boxes; a photo without a label file shows no card. Progress is shown.

    `relabel`: a folder of corrected label files (same names and format) that replace the
    dataset's own for the photos they cover: a shared dataset stays read-only, its known
    label mistakes are fixed beside the code that measures on it.
    """
    images = photo_files(dataset, names)
    labels = label_files(dataset, images, relabel)
    for path, label in tqdm(list(zip(images, labels, strict=True)), desc=f"reading {dataset.name}",
                            unit="img"):  # fmt: skip
        frame = read_image(path)
        height, width = frame.shape[:2]
        text = label.read_text() if label.exists() else ""
        yield path, frame, Detections.from_yolo_labels(text, width, height)


def photo_files(dataset: Path, names: Iterable[str] | None = None) -> list[Path]:
    """A YOLO folder's photos (images/*.jpg, *.png), only those named in `names` when given."""
    folder = dataset / "images"
    images = sorted(folder.glob("*.jpg")) + sorted(folder.glob("*.png"))
    if names is None:
        return images
    wanted = set(names)
    return [path for path in images if path.name in wanted]


def label_files(dataset: Path, images: Sequence[Path], relabel: Path | None) -> list[Path]:
    """Each image's YOLO label file: the corrected one in `relabel` where it has one, else the
    dataset's own (`labels/`, which may not exist for a photo showing no card)."""
    if relabel is not None and not relabel.is_dir():
        raise FileNotFoundError(f"relabel folder not found: {relabel}")
    files = []
    for image in images:
        own = dataset / "labels" / (image.stem + ".txt")
        fixed = relabel / own.name if relabel is not None else None
        files.append(fixed if fixed is not None and fixed.exists() else own)
    return files


def evaluate(
    reader: FrameReader,
    dataset: Path,
    names: Iterable[str] | None = None,
    relabel: Path | None = None,
    change: Callable[[Image], Image] | None = None,
) -> Report:
    """Read every labelled photo of a YOLO folder (images/, labels/) and compare; `change`:
    what to do to each photo before it is read (a `Condition`'s)."""
    if not photo_files(dataset, names):
        chosen = " named in the split" if names is not None else ""
        raise EvaluationError(f"no photos{chosen} in {dataset / 'images'} (*.jpg, *.png)")
    report = Report()
    for path, frame, truth in labelled_photos(dataset, names, relabel):
        if change is not None:
            frame = change(frame)
        reading = reader.read(frame)
        found, cards = reading.indices, reading.cards
        report.images.append(
            ImageResult(
                path.name,
                truth,
                found,
                frozenset(CLASS_NAMES[c] for c in truth.class_ids.tolist()),
                frozenset(str(seen.card) for seen in cards.cards),
                reading.times.total(),
                (frame.shape[1], frame.shape[0]),
                scene_cards(dataset, path, (frame.shape[1], frame.shape[0])),
                frozenset(str(conflict.card) for conflict in cards.conflicts),
            )
        )
    return report


def card_set_intervals(
    photos: Sequence[tuple[Set[str], Set[str]]], draws: int = BOOTSTRAP_DRAWS, seed: int = 0
) -> dict[str, list[float]]:
    """95 % intervals of card-set precision and recall over photos given as (cards there, cards
    read), from `draws` resamples of the photos.

    Whole photos are resampled, not cards: a photo's cards share a deck, a view and a light, and
    move together (one scene can cost a dozen cards), so an interval over independent cards
    would be too narrow. Seeded, so a report reads the same every time.
    """
    if not photos:
        return {"precision": [1.0, 1.0], "recall": [1.0, 1.0]}
    counts = np.array(
        [(len(there & read), len(read), len(there)) for there, read in photos], np.float64
    )
    picks = np.random.default_rng(seed).integers(0, len(photos), (draws, len(photos)))
    right, read, there = counts[picks].sum(axis=1).T
    precision = np.divide(right, read, out=np.ones(draws), where=read > 0)
    recall = np.divide(right, there, out=np.ones(draws), where=there > 0)
    return {
        name: [round(float(v), 4) for v in np.percentile(values, [2.5, 97.5])]
        for name, values in (("precision", precision), ("recall", recall))
    }


def recall_by_deck(results: Iterable[ImageResult]) -> dict[str, dict[str, float]]:
    """Card recall for each deck design the scenes name (`ImageResult.scene`): how each design,
    held out or not, is read."""
    records = [
        (scene.deck, card in result.read_cards)
        for result in results
        for card in result.truth_cards
        if (scene := result.scene.get(card)) is not None
    ]
    return _recall_by(sorted({deck for deck, _ in records}), records)


def card_set_figures(photos: Sequence[tuple[Set[str], Set[str]]]) -> dict[str, Any]:
    """Cards there, card-set precision and recall, and their 95 % intervals, over photos given
    as (cards there, cards read)."""
    counts = CardSetCounts.of(photos)
    return {
        "cards": counts.there,
        "card_set_precision": counts.precision,
        "card_set_recall": counts.recall,
        "card_set_interval_95": card_set_intervals(photos),
    }


class PhotoCards(NamedTuple):
    """One photo of an earlier evaluation (its `PHOTOS_FILE`)."""

    image: str
    there: frozenset[str]
    read: frozenset[str]
    cut_by_edge: frozenset[str]


def read_photos(folder: Path) -> list[PhotoCards]:
    """An earlier evaluation's photos (its `PHOTOS_FILE`), in the file's order."""
    path = folder / PHOTOS_FILE
    try:
        entries = json.loads(path.read_text())
        photos = [
            PhotoCards(e["image"], frozenset(e["there"]), frozenset(e["read"]),
                       frozenset(e["cut_by_edge"]))
            for e in entries
        ]  # fmt: skip
    except OSError as error:
        message = f"no {PHOTOS_FILE} in {folder}: not a cribcam eval --out folder"
        raise EvaluationError(message) from error
    except (ValueError, LookupError, TypeError) as error:
        message = f"{path} does not list photos as cribcam eval writes them: {error}"
        raise EvaluationError(message) from error
    if not photos:  # cribcam eval never reads an empty folder
        raise EvaluationError(f"{path} lists no photos")
    return photos


def pooled_figures(folders: Sequence[Path]) -> dict[str, Any]:
    """Card-set figures over the photos of several evaluations as one set, all cards and the
    cards in view: draws of a synthetic set judged together, as one draw's interval spans
    several points."""
    photos = [photo for folder in folders for photo in read_photos(folder)]
    every = [(p.there, p.read) for p in photos]
    seen = [(p.there - p.cut_by_edge, p.read - p.cut_by_edge) for p in photos]
    return {
        "runs": [str(folder) for folder in folders],
        "images": len(every),
        **card_set_figures(every),
        "in_view": card_set_figures(seen),
    }


def compare_runs(
    before: Mapping[str, tuple[Set[str], Set[str]]], after: Mapping[str, tuple[Set[str], Set[str]]]
) -> dict[str, Any]:
    """What changed from one run to another on the photos both read: cards gained and lost,
    wrong cards added and dropped (right and wrong by the later run's labels), in total and for
    each photo that changed."""
    totals: Counter[str] = Counter()
    changed = []
    for image in sorted(before.keys() & after.keys()):
        there, read = after[image]
        earlier = before[image][1]
        change = {
            "gained": sorted((read - earlier) & there),
            "lost": sorted((earlier - read) & there),
            "wrong_added": sorted((read - earlier) - there),
            "wrong_dropped": sorted((earlier - read) - there),
        }
        totals.update({k: len(v) for k, v in change.items()})
        if any(change.values()):
            changed.append({"image": image, **change})
    return {
        "photos_compared": len(before.keys() & after.keys()),
        "photos_in_one_run_only": len(before.keys() ^ after.keys()),
        **{f"cards_{k}": totals[k] for k in ("gained", "lost", "wrong_added", "wrong_dropped")},
        "changed": changed,
    }


def corner_metrics(results: list[ImageResult]) -> tuple[dict[int, float], dict[int, float]]:
    """Per-class AP at IoU 0.5 (all-point interpolation) and per-class recall of corner boxes."""
    scored: dict[int, list[tuple[float, bool]]] = {c: [] for c in range(52)}
    positives: Counter[int] = Counter()
    hits: Counter[int] = Counter()
    for result in results:
        truth, found = result.truth, result.found
        positives.update(truth.class_ids.tolist())
        for cls in set(found.class_ids.tolist()) | set(truth.class_ids.tolist()):
            t = truth.boxes[truth.class_ids == cls]
            mask = found.class_ids == cls
            f, s = found.boxes[mask], found.scores[mask]
            order = np.argsort(-s)
            ious = iou_matrix(f[order], t)
            taken = np.zeros(len(t), bool)
            for row, score in zip(ious, s[order], strict=True):
                best = int(row.argmax()) if len(t) else -1
                ok = best >= 0 and row[best] >= IOU_MATCH and not taken[best]
                if ok:
                    taken[best] = True
                scored[cls].append((float(score), ok))
            hits[cls] += int(taken.sum())
    ap: dict[int, float] = {}
    for cls, n in positives.items():
        entries = sorted(scored[cls], key=lambda e: -e[0])
        tp = np.cumsum([ok for _, ok in entries]) if entries else np.zeros(0)
        precision = tp / np.arange(1, len(entries) + 1) if entries else np.zeros(0)
        recall = tp / n if entries else np.zeros(0)
        ap[cls] = _average_precision(recall, precision)
    return ap, {cls: hits[cls] / n for cls, n in positives.items()}


def recall_by_index_size(results: Iterable[ImageResult]) -> dict[str, dict[str, float]]:
    """Card recall by the pixel size of the card's largest labelled index (its box's longer
    side), in the classes of `INDEX_SIZE_EDGES`: which cards a camera set further away, or one
    of lower resolution, would lose. Classes holding no card are left out."""
    return _recall_by(
        SIZE_CLASSES,
        (
            (_class_of(px, INDEX_SIZE_EDGES, SIZE_CLASSES), card in result.read_cards)
            for result in results
            for card, px in _largest_indices(result).items()
        ),
    )


def recall_by_face_shown(results: Iterable[ImageResult]) -> dict[str, dict[str, Any]]:
    """Card recall by the share of the card's face that shows (`SceneCard.face_shown`, in the
    classes of `FACE_SHOWN_EDGES`), each class also by index size: a card whose face shows could
    be named from its pips or picture however small its index, one under other cards only from
    its index. Empty where no scene says (photos)."""
    records = [
        (
            _class_of(scene.face_shown * 100, FACE_SHOWN_EDGES, FACE_CLASSES),
            _class_of(px, INDEX_SIZE_EDGES, SIZE_CLASSES),
            card in result.read_cards,
        )
        for result in results
        for card, px in _largest_indices(result).items()
        if (scene := result.scene.get(card)) is not None
    ]
    by_face = _recall_by(FACE_CLASSES, ((face, read) for face, _, read in records))
    return {
        face: {
            **figures,
            "by_index_size": _recall_by(
                SIZE_CLASSES, ((size, read) for f, size, read in records if f == face)
            ),
        }
        for face, figures in by_face.items()
    }


def _largest_indices(result: ImageResult) -> dict[str, float]:
    """Each labelled card's largest index (px, the longer side of its box)."""
    sides, classes = result.truth.sizes, result.truth.class_ids
    return {CLASS_NAMES[cls]: float(sides[classes == cls].max()) for cls in set(classes.tolist())}


def _class_of(value: float, edges: Sequence[float], names: Sequence[str]) -> str:
    """The name of the class between `edges` that `value` falls in."""
    return names[int(np.searchsorted(edges, value, side="right"))]


def _recall_by(
    names: Sequence[str], records: Iterable[tuple[str, bool]]
) -> dict[str, dict[str, float]]:
    """Cards and recall of each class of (class name, card read) records, in the order of
    `names`; classes holding no card are left out."""
    there, read = Counter[str](), Counter[str]()
    for name, was_read in records:
        there[name] += 1
        read[name] += was_read
    return {
        name: {"cards": there[name], "recall": round(read[name] / there[name], 4)}
        for name in names
        if there[name]
    }


def _average_precision(recall: npt.NDArray[Any], precision: npt.NDArray[Any]) -> float:
    if not len(recall):
        return 0.0
    r = np.concatenate([[0.0], recall, [1.0]])
    p = np.concatenate([[1.0], precision, [0.0]])
    p = np.maximum.accumulate(p[::-1])[::-1]
    steps = np.flatnonzero(r[1:] != r[:-1])
    return float(np.sum((r[steps + 1] - r[steps]) * p[steps + 1]))


def matched_classes(results: list[ImageResult]) -> Counter[tuple[int, int]]:
    """(true class, read class) for each labelled corner overlapped (IoU 0.5) by a reading."""
    counts: Counter[tuple[int, int]] = Counter()
    for result in results:
        ious = iou_matrix(result.truth.boxes, result.found.boxes)
        for i, row in enumerate(ious):
            if len(row) and row.max() >= IOU_MATCH:
                read = int(result.found.class_ids[row.argmax()])
                counts[(int(result.truth.class_ids[i]), read)] += 1
    return counts


def confusion_counts(results: list[ImageResult]) -> Counter[tuple[int, int]]:
    """(true class, read class) for each labelled corner overlapped by a read of another class."""
    return Counter({pair: n for pair, n in matched_classes(results).items() if pair[0] != pair[1]})


def save_confusion_png(results: list[ImageResult], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    matrix = np.zeros((52, 52), dtype=np.int64)
    for (truth, read), count in matched_classes(results).items():
        matrix[truth, read] = count
    figure, axes = plt.subplots(figsize=(12, 12))
    axes.imshow(np.log1p(matrix), cmap="viridis")
    axes.set_xticks(range(52), CLASS_NAMES, rotation=90, fontsize=6)
    axes.set_yticks(range(52), CLASS_NAMES, fontsize=6)
    axes.set_xlabel("read as")
    axes.set_ylabel("labelled")
    axes.set_title("corner-index confusions (log scale), matched at IoU 0.5")
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)


#: Each photo's tile in the worst-images grid: its longer side, in px.
WORST_TILE = 480


def worst_tile(frame: Image, result: ImageResult, side: int = WORST_TILE) -> Image:
    """One photo scaled to fit a `side`-px square (its aspect kept, black around it), then its
    cards drawn at that scale so names stay legible: green right, red wrong, the missed ones
    written at the top."""
    height, width = frame.shape[:2]
    scale = side / max(height, width)
    tile = np.zeros((side, side, 3), np.uint8)
    shown = cv2.resize(frame, (round(width * scale), round(height * scale)),
                       interpolation=cv2.INTER_AREA)  # fmt: skip
    tile[: shown.shape[0], : shown.shape[1]] = shown
    for box, cls in zip(result.found.boxes, result.found.class_ids, strict=True):
        name = CLASS_NAMES[int(cls)]
        colour = (0, 200, 0) if name in result.truth_cards else (0, 0, 255)
        x1, y1, x2, y2 = (round(float(v) * scale) for v in box)
        cv2.rectangle(tile, (x1, y1), (x2, y2), colour, 2)
        cv2.putText(tile, name, (x1, max(y1 - 3, 10)), cv2.FONT_HERSHEY_SIMPLEX, 0.5, colour, 1)
    missed = " ".join(sorted(result.truth_cards - result.read_cards))
    cv2.putText(tile, f"{result.name} missed: {missed}"[:70], (5, 20), cv2.FONT_HERSHEY_SIMPLEX,
                0.45, (255, 0, 255), 1)  # fmt: skip
    return tile


def save_worst_grid(results: list[ImageResult], dataset: Path, path: Path, count: int = 12) -> None:
    """A PNG grid, four across, of the images with the lowest card-set F1 (`worst_tile`)."""

    def f1(r: ImageResult) -> float:
        p, q = r.precision, r.recall
        return 2 * p * q / (p + q) if p + q else 0.0

    tiles = [worst_tile(read_image(dataset / "images" / result.name), result)
             for result in sorted(results, key=f1)[:count]]  # fmt: skip
    while len(tiles) % 4:
        tiles.append(np.zeros((WORST_TILE, WORST_TILE, 3), np.uint8))
    rows = [np.hstack(tiles[i : i + 4]) for i in range(0, len(tiles), 4)]
    cv2.imwrite(str(path), np.vstack(rows))
