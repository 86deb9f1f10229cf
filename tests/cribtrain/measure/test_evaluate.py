"""Measuring on labelled photos: corrected label files replace a dataset's own, and reach the
card-set figures of `cribcam eval`."""

from __future__ import annotations

import builtins
import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from cribcam.cli import main
from cribcam.commands.reading import CONDITION_NAMES
from cribtrain.data.synth import SynthConfig, generate
from cribtrain.measure.evaluate import (
    CONDITIONS,
    WORST_TILE,
    ImageResult,
    Report,
    card_set_intervals,
    compare_runs,
    evaluate,
    labelled_photos,
    read_photos,
    recall_by_deck,
    recall_by_face_shown,
    recall_by_index_size,
    worst_tile,
)
from cribtrain.measure.scene_meta import SceneCard, face_shown, scene_cards
from scorer.cards import parse_card
from tests.helpers import FIXTURES, REPO
from tests.tabletop import card_detections
from vision.detection.detections import CLASS_NAMES, Detections
from vision.errors import EvaluationError
from vision.reading import Reading, StageTimes
from vision.table.cards import Conflict, FrameCards, cards_from_detections

SAMPLES = REPO / "datasets" / "samples"
#: The samples' first photo, a small one.
SAMPLE = "dev_0075.jpg"
SYNTH_DECK = FIXTURES / "deck-standard"


def _classes(dataset: Path, relabel: Path | None = None) -> dict[str, list[str]]:
    return {
        path.name: [CLASS_NAMES[c] for c in truth.class_ids.tolist()]
        for path, _, truth in labelled_photos(dataset, relabel=relabel)
    }


def test_a_relabel_file_replaces_the_dataset_labels_of_its_photo_only(tmp_path: Path) -> None:
    relabel = tmp_path / "relabel"
    relabel.mkdir()
    (relabel / "dev_0075.txt").write_text("0 0.5 0.5 0.1 0.1\n51 0.2 0.2 0.05 0.1\n")
    own, fixed = _classes(SAMPLES), _classes(SAMPLES, relabel)
    assert fixed["dev_0075.jpg"] == ["AC", "KS"] != own["dev_0075.jpg"]
    assert {k: v for k, v in fixed.items() if k != "dev_0075.jpg"} == {
        k: v for k, v in own.items() if k != "dev_0075.jpg"
    }


def test_a_missing_relabel_folder_is_named(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match=str(tmp_path / "nowhere")):
        next(labelled_photos(SAMPLES, relabel=tmp_path / "nowhere"))


@pytest.mark.slow  # reads many frames end to end: the full run covers it
def test_cribcam_eval_measures_against_the_corrected_labels(tmp_path: Path) -> None:
    """The same readings, scored against labels naming other cards, lose their recall."""
    relabel = tmp_path / "relabel"
    relabel.mkdir()
    for label in (SAMPLES / "labels").iterdir():  # every box renamed to a card not on the table
        lines = label.read_text().split("\n")
        present = {line.split()[0] for line in lines if line.strip()}
        absent = next(str(c) for c in range(52) if str(c) not in present)
        boxes = [" ".join([absent, *line.split()[1:]]) for line in lines if line.strip()]
        (relabel / label.name).write_text("\n".join(boxes) + "\n")
    summaries = []
    for extra in ([], ["--relabel", str(relabel)]):
        out = tmp_path / f"out{len(extra)}"
        assert main(["eval", str(SAMPLES), "--out", str(out), *extra]) == 0
        summaries.append(json.loads((out / "report.json").read_text()))
    own, renamed = summaries
    assert own["card_set_recall"] > 0.5
    assert renamed["card_set_recall"] < own["card_set_recall"] / 3


RELABEL = REPO / "datasets" / "dev-real-relabel"


def test_the_shipped_dev_real_corrections_are_valid_labels_and_match_their_log() -> None:
    """Each corrected file parses as YOLO corner labels inside the photo, and every photo the
    change log names has its corrected file (and no file is there without a logged change)."""
    changes = json.loads((RELABEL / "changes.json").read_text())
    files = {p.name for p in (RELABEL / "labels").glob("*.txt")}
    assert files == {c["photo"].replace(".jpg", ".txt") for c in changes}
    for name in files:
        labels = Detections.from_yolo_labels((RELABEL / "labels" / name).read_text(), 640, 640)
        assert len(labels) and (labels.boxes >= -0.5).all() and (labels.boxes <= 640.5).all()
    for change in changes:
        card = change.get("now") or change.get("card")
        assert card is None or card in CLASS_NAMES, change


def _result(truth: list[tuple[str, float]], read: set[str]) -> ImageResult:
    """A photo whose cards each have one index of the given size (px, square at 100, 100)."""
    boxes = np.array([[100, 100, 100 + side, 100 + side] for _, side in truth], np.float32)
    classes = np.array([CLASS_NAMES.index(card) for card, _ in truth], np.int64)
    labelled = Detections(boxes, np.ones(len(truth), np.float32), classes)
    cards = frozenset(card for card, _ in truth)
    return ImageResult("photo.jpg", labelled, labelled, cards, frozenset(read), 1.0, (640, 640))


def test_recall_is_broken_down_by_each_cards_largest_index() -> None:
    photos = [
        _result([("5H", 10), ("6H", 20), ("7H", 23.9), ("KS", 60)], {"6H", "KS"}),
        _result([("AC", 12), ("AC", 30), ("2C", 47)], {"AC"}),  # AC's larger index counts
    ]
    assert recall_by_index_size(photos) == {
        "<12 px": {"cards": 1, "recall": 0.0},
        "16-24 px": {"cards": 2, "recall": 0.5},
        "24-32 px": {"cards": 1, "recall": 1.0},
        "32-48 px": {"cards": 1, "recall": 0.0},
        ">=48 px": {"cards": 1, "recall": 1.0},
    }


@pytest.mark.slow  # reads many frames end to end: the full run covers it
def test_cribcam_eval_reports_recall_by_index_size_over_every_labelled_card(
    tmp_path: Path,
) -> None:
    assert main(["eval", str(SAMPLES), "--out", str(tmp_path)]) == 0
    summary = json.loads((tmp_path / "report.json").read_text())
    by_size = summary["recall_by_index_size"]
    cards = sum(len(set(truth.class_ids.tolist())) for _, _, truth in labelled_photos(SAMPLES))
    assert sum(v["cards"] for v in by_size.values()) == cards
    read = sum(v["cards"] * v["recall"] for v in by_size.values())
    assert read == pytest.approx(summary["card_set_recall"] * cards, abs=0.01)
    assert 0 < summary["in_view"]["cards"] <= cards
    for figures in (summary, summary["in_view"]):
        low, high = figures["card_set_interval_95"]["recall"]
        assert low <= figures["card_set_recall"] <= high
    assert "recall_by_deck" not in summary  # photos, not synth scenes: no deck is known
    photos = json.loads((tmp_path / "photos.json").read_text())
    assert sorted(p["image"] for p in photos) == sorted(_classes(SAMPLES))
    right = sum(len(set(p["there"]) & set(p["read"])) for p in photos)
    assert right / sum(len(p["there"]) for p in photos) == summary["card_set_recall"]
    import cv2

    grid = cv2.imread(str(tmp_path / "worst.png"))
    assert grid is not None and grid.shape[1] == 4 * WORST_TILE and grid.shape[0] % WORST_TILE == 0


def test_a_worst_tile_keeps_a_wide_photos_shape_and_draws_its_boxes_to_scale() -> None:
    """A 1920 x 1080 frame fills the tile's width and 270 of its 480 rows; the right card's box
    is drawn green, the wrong one red, where they lie in the scaled picture."""
    frame = np.full((1080, 1920, 3), 128, np.uint8)
    found = Detections([[400, 400, 480, 560], [1200, 200, 1280, 360]], np.ones(2, np.float32),
                       [CLASS_NAMES.index("5H"), CLASS_NAMES.index("KS")])  # fmt: skip
    photo = ImageResult("wide.jpg", found, found, frozenset({"5H", "6C"}),
                        frozenset({"5H", "KS"}), 1.0, (1920, 1080))  # fmt: skip
    tile = worst_tile(frame, photo)
    scale = WORST_TILE / 1920
    assert tile.shape == (WORST_TILE, WORST_TILE, 3)
    assert (tile[round(1080 * scale) + 1 :] == 0).all() and (tile[200, 5] == 128).all()
    right_left_edge = tile[round(480 * scale), round(400 * scale)]
    wrong_left_edge = tile[round(280 * scale), round(1200 * scale)]
    assert right_left_edge.tolist() == [0, 200, 0] and wrong_left_edge.tolist() == [0, 0, 255]


def test_cards_seen_only_at_the_frames_edge_are_left_out_of_the_in_view_figures() -> None:
    """5H is wholly in view; 6H shows one index in view and one cut; 7H and 8H are cut only.
    In view, 7H is not required and the 8H read is not held against the reader."""
    boxes = [[100, 100, 110, 120], [200, 100, 210, 120], [0, 300, 10, 320],
             [630, 50, 640, 70], [400, 0, 410, 15]]  # fmt: skip
    truth = Detections(boxes, np.ones(5, np.float32), [CLASS_NAMES.index(c) for c in
                                                       ("5H", "6H", "6H", "7H", "8H")])  # fmt: skip
    photo = ImageResult("p.jpg", truth, truth, frozenset({"5H", "6H", "7H", "8H"}),
                        frozenset({"5H", "6H", "8H", "KS"}), 1.0, (640, 480))  # fmt: skip
    assert photo.cut_cards == {"7H", "8H"}
    summary = Report([photo]).summary()
    assert (summary["card_set_precision"], summary["card_set_recall"]) == (0.75, 0.75)
    assert summary["in_view"] == {
        "cards": 2, "card_set_precision": 2 / 3, "card_set_recall": 1.0,
        "card_set_interval_95": {"precision": [0.6667, 0.6667], "recall": [1.0, 1.0]},
    }  # fmt: skip


def _photo(there: set[str], read: set[str], decks: dict[str, str] | None = None) -> ImageResult:
    scene = {card: SceneCard(deck, 1.0) for card, deck in (decks or {}).items()}
    return ImageResult("photo.jpg", Detections.empty(), Detections.empty(), frozenset(there),
                       frozenset(read), 1.0, (640, 640), scene)  # fmt: skip


class _Conflicted:
    """A reader that sees every photo's 8D at two places that cannot be one card, and a 9D."""

    def read(self, frame: np.ndarray) -> Reading:
        eight = card_detections("8D", (100, 100), corners="tl")
        both = Detections.concatenate([eight, card_detections("8D", (400, 100), corners="tl")])
        conflict = Conflict(parse_card("8D"), ((100, 100), (400, 100)), both)
        nine = cards_from_detections(card_detections("9D", (100, 400)))
        return Reading(both, FrameCards(nine.cards, (conflict,)), StageTimes(), looks=1)


def test_cribcam_eval_counts_the_conflicts_and_those_naming_a_card_there(tmp_path: Path) -> None:
    """The page reports each conflict: one naming a card that is there is a false alarm."""
    for name, labels in (("a", ["8D", "9D"]), ("b", ["9D"])):
        (tmp_path / "images").mkdir(exist_ok=True)
        (tmp_path / "labels").mkdir(exist_ok=True)
        cv2.imwrite(str(tmp_path / "images" / f"{name}.jpg"), np.zeros((64, 64, 3), np.uint8))
        lines = [f"{CLASS_NAMES.index(card)} 0.5 0.5 0.1 0.1" for card in labels]
        (tmp_path / "labels" / f"{name}.txt").write_text("\n".join(lines) + "\n")
    report = evaluate(_Conflicted(), tmp_path)
    assert report.summary()["conflicts"] == {"photos": 2, "conflicts": 2, "naming_a_card_there": 1}
    assert [p["conflicts"] for p in report.photos()] == [["8D"], ["8D"]]
    assert report.summary()["card_set_recall"] == pytest.approx(2 / 3)  # a conflict is no card


def test_card_set_intervals_resample_whole_photos() -> None:
    """Ten photos, five read whole and five not at all: recall 0.5 over 40 cards. Resampling
    photos gives a 95 % interval about twice as wide as 40 independent cards would (0.35-0.65);
    photos all alike leave no spread."""
    read = ({"AC", "2C", "3C", "4C"}, {"AC", "2C", "3C", "4C"})
    missed: tuple[set[str], set[str]] = ({"5C", "6C", "7C", "8C"}, set())
    low, high = card_set_intervals([read, missed] * 5)["recall"]
    assert low < 0.5 < high and high - low > 0.45
    alike = card_set_intervals([({"AC", "2C"}, {"AC", "KS"})] * 10)
    assert alike == {"precision": [0.5, 0.5], "recall": [0.5, 0.5]}
    assert card_set_intervals([({"AC"}, set())])["precision"] == [1.0, 1.0]  # none read


def test_recall_is_broken_down_by_deck_design_where_the_scene_names_it() -> None:
    decks = {"AC": "dondorf", "2C": "penguins", "3C": "penguins"}
    photos = [
        _photo({"AC", "2C", "3C"}, {"AC", "2C", "KS"}, decks),
        _photo({"4D", "5D"}, {"4D"}, {"4D": "dondorf"}),  # 5D's deck unknown: not counted
    ]
    assert recall_by_deck(photos) == {
        "dondorf": {"cards": 2, "recall": 1.0},
        "penguins": {"cards": 2, "recall": 0.5},
    }


def test_a_synth_scenes_meta_names_the_deck_of_every_labelled_card(tmp_path: Path) -> None:
    generate(tmp_path, 3, seed=5, deck_dirs=[SYNTH_DECK], cfg=SynthConfig(size=256),
             progress=False)  # fmt: skip
    scenes = list(labelled_photos(tmp_path))
    assert any(len(truth) for _, _, truth in scenes)
    for path, _, truth in scenes:
        cards = scene_cards(tmp_path, path, (256, 256))
        assert set(cards) == {CLASS_NAMES[c] for c in truth.class_ids.tolist()}, path.name
        assert {card.deck for card in cards.values()} <= {"standard"}
        assert all(0 < card.face_shown <= 1 for card in cards.values())
    assert scene_cards(SAMPLES, SAMPLES / "images" / "dev_0075.jpg", (640, 640)) == {}
    for other in ("not json", '{"cards": 3}', '["a list"]'):  # a meta/ folder of something else
        (tmp_path / "meta" / "other.json").write_text(other)
        assert scene_cards(tmp_path, tmp_path / "images" / "other.jpg", (256, 256)) == {}


def _card(x: float, y: float, width: float = 40, height: float = 56) -> np.ndarray:
    return np.array([[x, y], [x + width, y], [x + width, y + height], [x, y + height]], float)


def test_the_face_shown_is_what_later_cards_and_the_frames_edge_leave() -> None:
    under, over = _card(100, 100), _card(120, 100)  # over covers under's right half
    assert face_shown([under, over], 0, (640, 640)) == pytest.approx(0.5, abs=0.02)
    assert face_shown([under, over], 1, (640, 640)) == 1.0  # drawn last: nothing lies on it
    assert face_shown([over, under], 0, (640, 640)) == pytest.approx(0.5, abs=0.02)
    assert face_shown([_card(620, 100)], 0, (640, 640)) == pytest.approx(0.5, abs=0.02)
    assert face_shown([_card(10, 10, 8, 11)], 0, (640, 640)) == 1.0  # a tiny card, rasterised fine
    tiny = [_card(10, 10, 8, 11), _card(14, 10, 8, 11), _card(10, 15.5, 8, 11)]
    assert face_shown(tiny, 0, (640, 640)) == pytest.approx(0.25, abs=0.03)
    assert face_shown([under, _card(0, 0, 640, 640)], 0, (640, 640)) == 0.0


def test_recall_is_broken_down_by_the_face_shown_then_by_index_size() -> None:
    scenes = [
        ({"5H": (10, 0.9), "6H": (20, 0.3), "7H": (13, 0.2)}, {"5H", "6H"}),
        ({"AC": (11, 0.95), "2C": (30, 0.6), "3C": (40, 0.5)}, {"2C"}),
    ]
    photos = []
    for cards, read in scenes:
        photo = _result([(card, px) for card, (px, _) in cards.items()], read)
        photo.scene = {card: SceneCard("dondorf", share) for card, (_, share) in cards.items()}
        photos.append(photo)
    assert recall_by_face_shown(photos) == {
        "<50 %": {"cards": 2, "recall": 0.5, "by_index_size": {
            "12-16 px": {"cards": 1, "recall": 0.0}, "16-24 px": {"cards": 1, "recall": 1.0}}},
        "50-80 %": {"cards": 2, "recall": 0.5, "by_index_size": {
            "24-32 px": {"cards": 1, "recall": 1.0}, "32-48 px": {"cards": 1, "recall": 0.0}}},
        ">=80 %": {"cards": 2, "recall": 0.5, "by_index_size": {
            "<12 px": {"cards": 2, "recall": 0.5}}},
    }  # fmt: skip
    assert recall_by_face_shown([_result([("5H", 10)], {"5H"})]) == {}  # a photo: no scene


def test_two_runs_are_compared_photo_by_photo_by_the_later_runs_labels() -> None:
    before = {
        "a.jpg": ({"AC", "2C"}, {"AC", "KS"}),
        "b.jpg": ({"3C"}, {"3C"}),
        "c.jpg": ({"4C"}, set()),
    }
    after = {
        "a.jpg": ({"AC", "2C"}, {"AC", "2C", "QH"}),
        "b.jpg": ({"3C"}, set()),
        "d.jpg": ({"5C"}, set()),
    }
    assert compare_runs(before, after) == {
        "photos_compared": 2,
        "photos_in_one_run_only": 2,
        "cards_gained": 1,
        "cards_lost": 1,
        "cards_wrong_added": 1,
        "cards_wrong_dropped": 1,
        "changed": [
            {"image": "a.jpg", "gained": ["2C"], "lost": [], "wrong_added": ["QH"],
             "wrong_dropped": ["KS"]},
            {"image": "b.jpg", "gained": [], "lost": ["3C"], "wrong_added": [],
             "wrong_dropped": []},
        ],
    }  # fmt: skip


def test_an_earlier_run_to_compare_against_must_be_an_eval_folder(tmp_path: Path) -> None:
    with pytest.raises(EvaluationError, match=f"no photos.json in {tmp_path}"):
        read_photos(tmp_path)
    (tmp_path / "report.json").write_text("{}")  # a file given for the folder
    with pytest.raises(EvaluationError, match=r"no photos\.json in"):
        read_photos(tmp_path / "report.json")
    for bad in ("not json", '[{"image": "a.jpg"}]', '["a.jpg"]'):
        (tmp_path / "photos.json").write_text(bad)
        with pytest.raises(EvaluationError, match="does not list photos"):
            read_photos(tmp_path)
    (tmp_path / "photos.json").write_text("[]")
    with pytest.raises(EvaluationError, match="lists no photos"):
        read_photos(tmp_path)


def test_pooled_draws_count_as_one_set_of_photos(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    draws = {
        "d1": [{"image": "a.jpg", "there": ["AS", "2C", "3D"], "read": ["AS", "2C", "9H"],
                "cut_by_edge": ["3D"]}],
        "d2": [{"image": "a.jpg", "there": ["KH", "QS"], "read": ["KH"], "cut_by_edge": []},
               {"image": "b.jpg", "there": ["5S"], "read": [], "cut_by_edge": ["5S"]}],
    }  # fmt: skip
    for name, photos in draws.items():
        (tmp_path / name).mkdir()
        (tmp_path / name / "photos.json").write_text(json.dumps(photos))
    assert main(["pool", str(tmp_path / "d1"), str(tmp_path / "d2")]) == 0
    pooled = json.loads(capsys.readouterr().out)
    assert pooled["images"] == 3 and pooled["cards"] == 6
    assert pooled["card_set_precision"] == pytest.approx(3 / 4)
    assert pooled["card_set_recall"] == pytest.approx(3 / 6)
    in_view = pooled["in_view"]  # 3D and 5S are cut by the edge
    assert in_view["cards"] == 4
    assert in_view["card_set_recall"] == pytest.approx(3 / 4)
    low, high = in_view["card_set_interval_95"]["recall"]
    assert low <= 3 / 4 <= high
    assert main(["pool", str(tmp_path / "d1"), str(tmp_path / "nowhere")]) == 2
    assert "no photos.json in" in capsys.readouterr().err


@pytest.mark.slow  # reads many frames end to end: the full run covers it
def test_cribcam_eval_against_an_earlier_run_writes_what_changed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Read once at one look and again with the closer look, the large sample table gains
    cards and loses none."""
    assert main(["eval", str(SAMPLES), "--out", str(tmp_path / "one"), "--one-look"]) == 0
    argv = ["eval", str(SAMPLES), "--out", str(tmp_path / "two"), "--against"]
    assert main([*argv, str(tmp_path / "one")]) == 0
    comparison = json.loads((tmp_path / "two" / "against.json").read_text())
    assert comparison["photos_compared"] == len(_classes(SAMPLES))
    changed = {c["image"]: c for c in comparison["changed"]}
    table = changed["syn1280_77_000067.jpg"]
    assert table["gained"] and not table["lost"] and not table["wrong_added"]
    assert comparison["cards_gained"] == sum(len(c["gained"]) for c in changed.values())
    assert comparison["cards_lost"] == sum(len(c["lost"]) for c in changed.values())
    capsys.readouterr()
    assert main([*argv, str(tmp_path / "nowhere")]) == 2
    assert f"no photos.json in {tmp_path / 'nowhere'}" in capsys.readouterr().err


def test_cribcam_eval_names_a_folder_without_photos_and_a_split_it_cannot_use(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = ["--out", str(tmp_path / "out")]
    for folder in (tmp_path / "nowhere", tmp_path):
        assert main(["eval", str(folder), *out]) == 2
        assert f"no photos in {folder / 'images'}" in capsys.readouterr().err
    split = tmp_path / "split.json"
    split.write_text(json.dumps({"holdout": ["not-a-sample.jpg"]}))
    assert main(["eval", str(SAMPLES), "--split", str(split), *out]) == 2
    assert "no photos named in the split" in capsys.readouterr().err
    for text, message in (
        ("{}", "has no part 'holdout'; it has none"),
        ("[", "cannot read the split"),
        ('{"holdout": "dev_0594.jpg"}', "part 'holdout' is not a list of file names"),
    ):
        split.write_text(text)
        assert main(["eval", str(SAMPLES), "--split", str(split), *out]) == 2
        assert message in capsys.readouterr().err


class _Recording:
    """A reader that reads no card and keeps each frame it was given."""

    def __init__(self) -> None:
        self.frames: list[np.ndarray] = []

    def read(self, frame: np.ndarray) -> Reading:
        self.frames.append(frame)
        return Reading(Detections.empty(), FrameCards(), StageTimes(), looks=1)


def test_each_condition_changes_the_photos_before_they_are_read() -> None:
    """Blurred: a Gaussian blur of sigma 1.5 px; half light: every pixel value halved."""
    assert [c.name for c in CONDITIONS] == list(CONDITION_NAMES) == ["as-is", "blurred",
                                                                     "half-light"]  # fmt: skip
    photo = next(labelled_photos(SAMPLES))[1]
    seen = {}
    for condition in CONDITIONS:
        reader = _Recording()
        evaluate(reader, SAMPLES, [SAMPLE], change=condition.change)
        (seen[condition.name],) = reader.frames
    assert np.array_equal(seen["as-is"], photo)
    assert np.array_equal(seen["blurred"], cv2.GaussianBlur(photo, (0, 0), 1.5))
    assert np.array_equal(seen["half-light"], np.round(photo / 2).astype(np.uint8))
    sharpness = {name: cv2.Laplacian(frame, cv2.CV_64F).var() for name, frame in seen.items()}
    assert sharpness["blurred"] < sharpness["as-is"] / 2


def test_the_headline_gives_precision_recall_and_the_photos_read_exactly() -> None:
    report = Report([_photo({"5H", "6H"}, {"5H", "6H"}), _photo({"7H", "8H"}, {"7H", "KS"})])
    assert report.headline() == {"photos": 2, "precision": 75.0, "recall": 75.0,
                                 "photos_fully_right": 50.0}  # fmt: skip


def test_cribcam_eval_prints_each_condition_in_one_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    split = tmp_path / "split.json"
    split.write_text(json.dumps({"holdout": [SAMPLE]}))
    out = tmp_path / "out"
    assert main(["eval", str(SAMPLES), "--split", str(split), "--out", str(out)]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert list(printed["conditions"]) == ["as-is", "blurred", "half-light"]
    for figures in printed["conditions"].values():
        assert set(figures) == {"photos", "precision", "recall", "photos_fully_right"}
        assert figures["photos"] == 1 and 0 <= figures["recall"] <= 100
    as_is = printed["conditions"]["as-is"]
    assert as_is["recall"] == pytest.approx(100 * printed["card_set_recall"], abs=0.01)
    assert json.loads((out / "report.json").read_text())["conditions"] == printed["conditions"]
    assert main(["eval", str(SAMPLES), "--split", str(split), "--out", str(out),
                 "--conditions", "half-light"]) == 0  # fmt: skip
    printed = json.loads(capsys.readouterr().out)
    assert printed["condition"] == "half-light" and list(printed["conditions"]) == ["half-light"]


@pytest.mark.slow  # reads the sample photos end to end
def test_cribcam_eval_without_matplotlib_writes_its_figures_and_says_what_it_left_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A player's install has no `plots` extra: the figures come, the picture is named."""
    real_import = builtins.__import__

    def no_matplotlib(name: str, *args: Any, **kwargs: Any) -> Any:
        if name.split(".")[0] == "matplotlib":
            raise ImportError("No module named 'matplotlib'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    assert main(["eval", str(SAMPLES), "--out", str(tmp_path)]) == 0
    assert json.loads((tmp_path / "report.json").read_text())["images"] == 5
    assert not (tmp_path / "confusion.png").exists()
    assert 'pip install -e ".[plots]"' in capsys.readouterr().err
