"""Deck enrolment through the tune: a laid-out deck proposed, one card corrected, the reading
stage fine-tuned on the CPU (ultralytics: the `train` extra, which the test extra installs),
the profile saved and then read with by `cribcam detect --deck`; a cancelled tune keeps the old
profile. The budgets are small: this checks the flow; `vision/enroll_bench.py` the accuracy."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

import cribtrain.fit.train
from cribcam.cli import build_parser, main
from cribcam.commands.reading import deck_reader
from cribtrain.data.synth import load_decks
from cribtrain.fit import tune
from cribtrain.fit.tune import (
    LIGHT_DECK_SHARE,
    TuneCancelled,
    TuneResult,
    TuneSettings,
    deck_ink,
    export_settings,
    tune_profile,
)
from tests.vision.decks.test_enroll import FIXTURE, MODELS, fixed, layout, uniform
from vision.decks.enroll import Shot, propose
from vision.decks.layout import RANKS
from vision.decks.profiles import ProfileStore, file_hash
from vision.detection.models import READER_FILE
from vision.detection.reader_classes import reader_info
from vision.reading import CardReader

pytestmark = pytest.mark.slow  # training: left out of the fast loop

QUICK = TuneSettings(budget_s=45, reserve_s=20, variants=2, general_per_class=1, eval_angles=2)
Tuned = tuple[ProfileStore, TuneResult, Path]


@pytest.fixture(scope="module")
def tuned(tmp_path_factory: pytest.TempPathFactory) -> Tuned:
    """Four suit shots proposed by layout order alone (as for an unreadable deck), one card
    confirmed by hand, tuned into profile "home"; plus a photo of the deck."""
    decks = load_decks([FIXTURE])
    root = tmp_path_factory.mktemp("decks")
    photo = root / "hearts.jpg"
    enrolments = []
    for suit in "CDHS":
        image, boxes = layout(decks, [rank + suit for rank in RANKS], seed=20)
        enrolments.append(propose([Shot(image, suit)], fixed(boxes), uniform))
        if suit == "H":
            assert cv2.imwrite(str(photo), image)
    clubs = enrolments[0]
    clubs.correct(clubs.candidates[0].number, "AC")  # the player confirms one card by hand
    assert clubs.candidates[0].confirmed == "AC" and clubs.problems().ok
    cards = [pair for enrolment in enrolments for pair in enrolment.labelled()]
    assert len(cards) == 52
    progress: list[float] = []
    store = ProfileStore(root)
    result = tune_profile(store, "home", cards, base_models=MODELS, settings=QUICK,
                          progress=lambda done, _: progress.append(done))  # fmt: skip
    assert progress and progress[-1] == 1.0
    return store, result, photo


def test_the_tune_saves_a_profile_with_its_accuracy(tuned: Tuned) -> None:
    store, result, _ = tuned
    profile = store.get("home")
    assert profile.tuned and store.names() == ["home"]
    assert result.held_out > 0 and result.accuracy_after is not None
    assert profile.record["accuracy_after"] == result.accuracy_after
    assert profile.record["base_model"] == file_hash(MODELS / "corner-reader.onnx")
    assert profile.record["ink"] == "dark" and reader_info(profile.reader).ink == "dark"
    # The base reader's "not an index" class survives the tune (it trained on face middles).
    assert reader_info(profile.reader).none_column == reader_info(MODELS / READER_FILE).none_column
    assert reader_info(profile.reader).none_column is not None


def test_the_tuned_reader_is_exported_as_the_base_reader(tuned: Tuned) -> None:
    """The same shapes and weight precision as the shipped reader (OpenVINO runs both alike),
    the base reader held in its weights; the base reader reads beside it unless the tune kept
    the base reader (then it is the base reader's own weights: one reading is enough)."""
    store, result, _ = tuned
    reader = store.get("home").reader
    assert export_settings(reader) == export_settings(MODELS / READER_FILE)
    share = 1.0 if result.kept_base else 1 - QUICK.tuned_share
    assert reader_info(reader).base_share == pytest.approx(share)
    assert (CardReader(MODELS, reader_path=reader).index_reader.base is None) == result.kept_base


def test_a_deck_printed_light_on_dark_is_told_from_its_patches(tuned: Tuned) -> None:
    store, _, _ = tuned
    folder = store.get("home").folder
    patches = [cv2.imread(str(folder / c["file"])) for c in store.get("home").crops()]
    ink, share = deck_ink(patches)
    assert ink == "dark" and share < LIGHT_DECK_SHARE
    ink, share = deck_ink([255 - p for p in patches])
    assert ink == "light" and share >= LIGHT_DECK_SHARE
    # such a deck is tuned on its patches as the reader reads them: as their negatives
    as_read = tune._as_read([("AC", 255 - p) for p in patches])
    back = [np.array_equal(seen, p) for (_, seen), p in zip(as_read, patches, strict=True)]
    assert np.mean(back) == share  # exactly the ones that look printed light on dark


def test_detect_reads_with_the_profile(tuned: Tuned) -> None:
    store, _, photo = tuned
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["detect", "--deck", "home", "--decks", str(store.root), "--json", str(photo)])
    assert code == 0
    answer = json.loads(out.getvalue().splitlines()[0])
    assert answer["image"] == str(photo) and isinstance(answer["cards"], list)
    args = build_parser().parse_args(["detect", "--deck", "home", "--decks", str(store.root),
                                      str(photo)])  # fmt: skip
    assert deck_reader(args).reader_path == store.get("home").reader
    errors = io.StringIO()
    with contextlib.redirect_stderr(errors):
        assert main(["detect", "--deck", "nobody", "--decks", str(store.root), str(photo)]) == 2
    assert "nobody" in errors.getvalue()


def test_a_cancelled_tune_keeps_the_previous_profile(tuned: Tuned) -> None:
    store, _, _ = tuned
    before = file_hash(store.get("home").reader)
    with pytest.raises(TuneCancelled):
        tune_profile(store, "home", None, base_models=MODELS, settings=QUICK,
                     cancel=lambda: True)  # fmt: skip
    assert file_hash(store.get("home").reader) == before
    assert store.names() == ["home"]


@pytest.mark.parametrize(("after", "kept_base"), [(0.5, True), (0.87, False)])
def test_only_a_clearly_worse_tune_keeps_the_base_reader(
    tuned: Tuned, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, after: float, kept_base: bool
) -> None:
    """A re-tune that reads the held-back corners clearly worse (0.9 -> 0.5) is not installed;
    a drop within the noise of so few corners (0.9 -> 0.87) is."""
    store, _, _ = tuned
    shutil.copytree(store.root, tmp_path / "decks")
    copy = ProfileStore(tmp_path / "decks")

    def export(weights: Path, target: Path, **_: object) -> Path:
        target.write_bytes(b"the tuned reader")
        return target

    def accuracy(onnx: Path, held: object, angles: int) -> float:
        return 0.9 if onnx == MODELS / READER_FILE else after

    monkeypatch.setattr(tune, "_train", lambda *_: MODELS / "reader.pt")
    monkeypatch.setattr(cribtrain.fit.train, "export_onnx", export)
    monkeypatch.setattr(cribtrain.fit.train, "set_metadata", lambda *_: None)
    monkeypatch.setattr(tune, "held_out_accuracy", accuracy)
    result = tune_profile(copy, "home", None, base_models=MODELS, settings=QUICK)
    assert result.kept_base == kept_base and result.accuracy_after == after
    reader = copy.get("home").reader
    assert (file_hash(reader) == file_hash(MODELS / READER_FILE)) == kept_base
    assert (reader.read_bytes() == b"the tuned reader") != kept_base
    assert copy.get("home").record["reader"] == ("base" if kept_base else "tuned")


def test_cribcam_enroll_tunes_quietly_and_writes_only_in_the_decks_folder(
    tmp_path: Path,
) -> None:
    """`cribcam enroll` without a terminal, run from an empty folder: the tune shows its tqdm
    bar, not ultralytics' training log, and nothing is written outside the decks folder (no
    `runs/ultralytics-config/`, no crop grid in the current folder)."""
    import os
    import subprocess
    import sys

    decks = load_decks([FIXTURE])
    image, _ = layout(decks, [rank + "C" for rank in RANKS], seed=20)
    shot = tmp_path / "clubs.png"
    assert cv2.imwrite(str(shot), image)
    here, root = tmp_path / "here", tmp_path / "decks"
    here.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "CRIBCAM_YOLO_CONFIG"}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[3])
    done = subprocess.run(
        [sys.executable, "-m", "cribcam", "enroll", "pub", str(shot), "--suits", "C", "--yes",
         "--budget", "60", "--models", str(MODELS), "--decks", str(root)],
        cwd=here, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
        timeout=600,
    )  # fmt: skip
    said = done.stdout + done.stderr
    assert done.returncode == 0, said
    assert list(here.rglob("*")) == [], "nothing is written in the current folder"
    assert sorted(p.name for p in root.iterdir() if p.name != "active") == [
        ".enroll-pub",
        ".ultralytics",
        "pub",
    ]
    assert "tuning" in done.stderr and "%" in done.stderr  # the tqdm bar
    for noise in ("Epoch", "Ultralytics", "optimizer:", "train: ", "Optimizer stripped"):
        assert noise not in said, f"ultralytics' log leaked: {noise!r} in\n{said}"
    assert len(done.stdout.splitlines()) < 40, done.stdout
