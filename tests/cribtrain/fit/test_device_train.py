"""What travels to a lent GPU machine: the training designs' art as WebP that reads back as the
faces it was made from, only the real training photos with their corrected labels; the runs
asked for there, checked before anything starts; and the readers' crops cut there as `cribcam
train sets` cuts them."""

from __future__ import annotations

import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from cribtrain.data.synth import SynthConfig, generate
from cribtrain.data.trainsets import PHOTO_TURNS, SCENE_CROPS, SCENE_TURNS, labelled_images
from cribtrain.fit.device_train import (
    READER_VIEWS,
    SCENES,
    STAGES,
    Run,
    _scene_part,
    main,
    pack,
    unpack_art,
    write_reader_crops,
)
from cribtrain.fit.small_index import CROP_MAX_PX, SCENE_LOOKS
from tests.helpers import FIXTURES
from vision.detection.detections import box_sizes
from vision.detection.reader_classes import NOT_AN_INDEX
from vision.errors import TrainingError

pytestmark = pytest.mark.slow  # training: left out of the fast loop

DECK = FIXTURES / "deck-standard"


def test_a_run_is_a_name_its_weights_and_a_learning_rate() -> None:
    assert Run.parse("p25:.gpu/p25.pt:0.01") == Run("p25", Path(".gpu/p25.pt"), 0.01)
    for bad in ("p25:.gpu/p25.pt", "p25:w.pt:fast", "p25:w.pt:2", "2x:w.pt:0.01"):
        with pytest.raises(TrainingError, match=r"p25|2x"):
            Run.parse(bad)


def test_packed_art_reads_back_as_its_faces_and_leaves_the_held_out_designs(
    tmp_path: Path,
) -> None:
    art = tmp_path / "art"
    shutil.copytree(DECK, art / "standard")
    shutil.copytree(DECK, art / "dondorf")  # a held-out design: never trained on
    real = tmp_path / "real"
    for sub in ("images", "labels"):
        (real / sub).mkdir(parents=True)
    for name in ("a", "b"):
        cv2.imwrite(str(real / "images" / f"{name}.jpg"), np.zeros((8, 8, 3), np.uint8))
        (real / "labels" / f"{name}.txt").write_text("0 0.5 0.5 0.1 0.1\n")
    relabel = tmp_path / "relabel"
    relabel.mkdir()
    (relabel / "a.txt").write_text("5 0.5 0.5 0.2 0.2\n")

    packed = tmp_path / "packed"
    size = pack(packed, art, real, ["a.jpg"], relabel)
    assert sorted(p.name for p in (packed / "art").iterdir()) == ["standard"]
    assert not list((packed / "art" / "standard").glob("*.png"))
    assert size == sum(f.stat().st_size for f in packed.rglob("*") if f.is_file())
    assert sorted(p.name for p in (packed / "real" / "images").iterdir()) == ["a.jpg"]
    assert (packed / "real" / "labels" / "a.txt").read_text() == "5 0.5 0.5 0.2 0.2\n"

    (deck,) = unpack_art(packed, tmp_path / "unpacked")
    assert (
        deck.name == "standard"
        and (deck / "boxes.json").read_bytes() == (DECK / "boxes.json").read_bytes()
    )
    for face in DECK.glob("*.png"):
        before = cv2.imread(str(face), cv2.IMREAD_UNCHANGED)
        after = cv2.imread(str(deck / face.name), cv2.IMREAD_UNCHANGED)
        assert before is not None and after is not None and after.shape == before.shape
        assert np.array_equal(after[..., 3], before[..., 3])  # the card's outline, exactly


def test_faces_at_the_size_they_are_rendered_travel_within_a_few_levels(tmp_path: Path) -> None:
    """Lossy WebP (a third of the PNG's size): colours move a little, most at red ink edges
    (the chroma is halved), and every scene shrinks a face far more than that."""
    art = tmp_path / "art" / "standard"
    art.mkdir(parents=True)
    shutil.copy(DECK / "boxes.json", art)
    for face in DECK.glob("*.png"):
        small = cv2.imread(str(face), cv2.IMREAD_UNCHANGED)
        assert small is not None
        cv2.imwrite(str(art / face.name), cv2.resize(small, None, fx=3, fy=3))  # ~ 350 px high
    real = tmp_path / "real"
    (real / "images").mkdir(parents=True)
    pack(tmp_path / "packed", tmp_path / "art", real, [], tmp_path)
    (deck,) = unpack_art(tmp_path / "packed", tmp_path / "unpacked")
    for face in art.glob("*.png"):
        before = cv2.imread(str(face), cv2.IMREAD_UNCHANGED)
        after = cv2.imread(str(deck / face.name), cv2.IMREAD_UNCHANGED)
        assert before is not None and after is not None
        opaque = before[..., 3] == 255
        change = np.abs(after.astype(np.int16) - before.astype(np.int16))[..., :3][opaque]
        assert change.mean() < 5, face.name


def test_a_run_without_its_folder_or_its_weights_stops_before_any_work(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run = ["run", str(tmp_path / "packed"), str(tmp_path / "out"), "--work", str(tmp_path / "w")]
    assert main([*run, "--runs", "a:none.pt:0.01"]) == 2
    assert f"no {tmp_path / 'packed' / 'art'}" in capsys.readouterr().err
    for sub in ("art", "real/images"):
        (tmp_path / "packed" / sub).mkdir(parents=True)
    assert main([*run, "--runs", f"a:{tmp_path / 'none.pt'}:0.01"]) == 2
    assert f"run a: no weights at {tmp_path / 'none.pt'}" in capsys.readouterr().err
    assert main([*run, "--runs", "a:w.pt"]) == 2
    assert "a run is NAME:WEIGHTS:LR, got 'a:w.pt'" in capsys.readouterr().err
    assert not (tmp_path / "w").exists()


def _crops(folder: Path) -> dict[str, int]:
    return {d.name: len(list(d.glob("*.jpg"))) for d in folder.iterdir() if any(d.iterdir())}


def _scene(folder: Path, glyph_px: tuple[float, float]) -> Path:
    generate(folder, 1, 5, [DECK], SynthConfig(glyph_px=glyph_px), progress=False)
    return folder


@pytest.fixture(scope="module")
def scene(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A scene where stage 1 also boxes what is no index (pips, the board)."""
    return _scene(tmp_path_factory.mktemp("scene"), (14.0, 30.0))


@pytest.fixture(scope="module")
def large_scene(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A scene whose indices are all larger than the small-index reader's."""
    return _scene(tmp_path_factory.mktemp("large"), (30.0, 40.0))


def test_the_readers_crops_are_each_labelled_index_turned_and_what_stage_1_boxes_beside(
    scene: Path, tmp_path: Path
) -> None:
    ((pixels, labelled),) = labelled_images(scene)
    sources = [(pixels, labelled)]
    made = write_reader_crops("reader", sources, tmp_path / "s", prefix="t", seed=1,
                              photos=False)  # fmt: skip
    crops = _crops(tmp_path / "s")
    assert made == sum(crops.values())
    indices = {name: n for name, n in crops.items() if name != NOT_AN_INDEX}
    assert sum(indices.values()) == SCENE_TURNS * min(SCENE_CROPS, len(labelled.boxes))
    assert 0 < crops.get(NOT_AN_INDEX, 0) <= SCENE_TURNS * 30  # write_none_crops' cap
    write_reader_crops("reader", sources, tmp_path / "p", prefix="t", seed=1, photos=True)
    photo = _crops(tmp_path / "p")
    assert sum(n for name, n in photo.items() if name != NOT_AN_INDEX) == PHOTO_TURNS * len(
        labelled.boxes
    )


def test_the_small_readers_crops_come_from_shrunk_copies_with_only_small_indices(
    large_scene: Path, tmp_path: Path
) -> None:
    sources = list(labelled_images(large_scene))
    ((_, labelled),) = sources
    assert box_sizes(labelled.boxes).min() > CROP_MAX_PX  # small only once shrunk
    made = write_reader_crops("small-reader", sources, tmp_path / "s", prefix="t", seed=1,
                              photos=False)  # fmt: skip
    crops = _crops(tmp_path / "s")
    assert made == sum(crops.values())
    indices = sum(n for name, n in crops.items() if name != NOT_AN_INDEX)
    assert 0 < indices <= SCENE_LOOKS * 2 * len(labelled.boxes)  # two turns a look
    for crop in (tmp_path / "s").rglob("*.jpg"):
        image = cv2.imread(str(crop))
        assert image is not None and image.shape == (64, 64, 3)


def test_reader_scenes_alternate_between_a_whole_table_and_a_camera_frame(
    tmp_path: Path,
) -> None:
    (deck,) = unpack_art(_packed(tmp_path), tmp_path / "art")
    for chunk in (0, 1):
        work = tmp_path / f"w{chunk}"
        _scene_part((work, "small-reader", "train", 501, 0, 1, [deck], chunk))
        (image,) = (work / "train_scenes" / "images").iterdir()
        pixels = cv2.imread(str(image))
        size, frame = READER_VIEWS[chunk]
        assert pixels is not None and pixels.shape[1::-1] == (frame or (size, size))
        assert any((work / "cls" / "train").rglob("*.jpg"))


def _packed(tmp_path: Path) -> Path:
    art = tmp_path / "deckart"
    shutil.copytree(DECK, art / "standard")
    (tmp_path / "real" / "images").mkdir(parents=True)
    pack(tmp_path / "packed", art, tmp_path / "real", [], tmp_path)
    return tmp_path / "packed"


def test_every_stage_has_its_own_number_of_scenes() -> None:
    """A reader's scene costs several of stage 1's (shrunk copies, each boxed by stage 1)."""
    assert set(SCENES) == set(STAGES)
    assert SCENES["reader"] == SCENES["small-reader"] < SCENES["detector"]


def test_a_stage_not_trained_there_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["run", "p", "o", "--runs", "a:w.pt:0.01", "--stage", "cards"])
    assert stopped.value.code == 2
    assert "invalid choice: 'cards'" in capsys.readouterr().err
