"""Training settings, exporting trained weights (the ONNX lands where asked, nothing is left
beside the weights), blending two readers' weights and widening a reader with a "none" class."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from cribcam.cli import main
from cribtrain.fit import train
from cribtrain.fit.small_index import CONTEXT_MARGIN
from cribtrain.fit.train import (
    DETECTOR_ARGS,
    READER_ARGS,
    add_none_class,
    blend_weights,
    export_onnx,
    load_checkpoint,
    save_checkpoint,
    train_stage,
    weights_from_onnx,
)
from tests.samples import SAMPLES, labelled
from vision.detection.crops import crop_index
from vision.detection.models import (
    DETECTOR_FILE,
    MODELS_DIR,
    READER_FILE,
    SMALL_READER_FILE,
    load_model,
)
from vision.detection.reader_classes import NOT_AN_INDEX, reader_info
from vision.errors import TrainingError, WeightsError
from vision.table.sources import read_image

pytestmark = pytest.mark.slow  # training: left out of the fast loop


@pytest.mark.parametrize("lr", [None, 0.003])
def test_a_stage_trains_with_its_settings_and_the_learning_rate_asked_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lr: float | None
) -> None:
    calls: list[tuple[str, dict[str, Any]]] = []

    class FakeYolo:
        def __init__(self, weights: str) -> None:
            self.weights = weights

        def train(self, **settings: Any) -> None:
            calls.append((self.weights, settings))

    monkeypatch.setattr(train, "offline_ultralytics", lambda: FakeYolo)
    (tmp_path / "reader" / "train").mkdir(parents=True)
    best = train_stage("reader", tmp_path / "reader", tmp_path / "runs", hours=0.5,
                       init=MODELS_DIR / "reader.pt", lr=lr)  # fmt: skip
    assert best == tmp_path / "runs" / "reader" / "weights" / "best.pt"
    ((weights, settings),) = calls
    assert weights == str(MODELS_DIR / "reader.pt") and settings["pretrained"]
    assert settings["time"] == 0.5 and settings["imgsz"] == READER_ARGS["imgsz"]
    assert settings["lr0"] == (lr if lr is not None else READER_ARGS["lr0"])
    assert settings["workers"] == 0 and settings["batch"] == READER_ARGS["batch"]


def test_a_gpu_is_fed_larger_batches_by_several_loader_processes_and_plots_can_be_off(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls: list[dict[str, Any]] = []

    class FakeYolo:
        def __init__(self, weights: str) -> None:
            pass

        def train(self, **settings: Any) -> None:
            calls.append(settings)

    monkeypatch.setattr(train, "offline_ultralytics", lambda: FakeYolo)
    monkeypatch.setattr(train.os, "cpu_count", lambda: 16)
    (tmp_path / "detector").mkdir()
    (tmp_path / "detector" / "data.yaml").write_text("nc: 1\n")
    train_stage("detector", tmp_path / "detector" / "data.yaml", tmp_path / "runs", hours=0.1,
                device="0", plots=False)  # fmt: skip
    (settings,) = calls
    assert settings["device"] == "0" and settings["workers"] == 8
    assert settings["batch"] == 64 > DETECTOR_ARGS["batch"] and settings["plots"] is False


def test_training_what_is_not_there_is_refused_before_ultralytics_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ultralytics would look for a missing data set online; a budget of no time, weights that
    are not there and a set that was never made are named instead."""
    monkeypatch.setattr(train, "offline_ultralytics", lambda: pytest.fail("ultralytics started"))
    (tmp_path / "detector").mkdir()
    (tmp_path / "detector" / "data.yaml").write_text("path: .\n")
    refused = [
        ("reader", {"hours": 1.0}, "no reader training set at"),
        ("detector", {"hours": 0.0}, "more than 0 hours, got 0.0"),
        ("detector", {"hours": 1.0, "init": tmp_path / "none.pt"}, "no weights to start from"),
    ]
    for stage, settings, message in refused:
        data = tmp_path / ("reader" if stage == "reader" else "detector/data.yaml")
        with pytest.raises(TrainingError, match=message):
            train_stage(stage, data, tmp_path / "runs", **settings)
    with pytest.raises(TrainingError, match="no weights to export at"):
        export_onnx(tmp_path / "best.pt", tmp_path / "out.onnx", imgsz=64)
    argv = ["train", "sets", str(tmp_path / "out"), "--synth", str(tmp_path / "none")]
    assert main([*argv, "--synth-val", str(tmp_path)]) == 2
    assert f"no images/ in {tmp_path / 'none'}" in capsys.readouterr().err
    (tmp_path / "images").mkdir()
    sets = ["--synth", str(tmp_path), "--synth-val", str(tmp_path), "--real", str(tmp_path)]
    split = ["--split", str(tmp_path / "split.json")]
    assert main(["train", "sets", str(tmp_path / "out"), *sets, *split]) == 2
    assert f"cannot read the split {tmp_path / 'split.json'}" in capsys.readouterr().err


def test_export_writes_only_the_target(tmp_path: Path) -> None:
    weights = tmp_path / "weights" / "reader.pt"
    weights.parent.mkdir()
    shutil.copy(MODELS_DIR / "reader.pt", weights)
    target = export_onnx(weights, tmp_path / "out" / "corner-reader.onnx", imgsz=64, dynamic=True)
    assert target == tmp_path / "out" / "corner-reader.onnx"
    assert sorted(p.name for p in weights.parent.iterdir()) == ["reader.pt"]
    forward = load_model(target, "auto").run
    out = forward(np.zeros((3, 3, 64, 64), np.float32))  # any batch size
    assert out.shape == (3, 53)  # the 52 cards and "not an index"


def test_export_of_one_stage_leaves_the_other_alone(tmp_path: Path) -> None:
    weights = tmp_path / "train" / "runs" / "reader" / "weights" / "best.pt"
    weights.parent.mkdir(parents=True)
    shutil.copy(MODELS_DIR / "reader.pt", weights)
    models = tmp_path / "models"
    argv = ["train", "export", str(tmp_path / "train"), "--models", str(models)]
    assert main([*argv, "--only", "reader"]) == 0
    assert sorted(p.name for p in models.iterdir()) == ["corner-reader.onnx"]
    assert main([*argv, "--only", "detector"]) == 2  # never trained in that folder
    assert main(argv) == 2
    assert sorted(p.name for p in models.iterdir()) == ["corner-reader.onnx"]
    assert main([*argv, "--only", "small-reader"]) == 0  # the same weights, stored half
    small = models / SMALL_READER_FILE
    assert sorted(p.name for p in models.iterdir()) == ["corner-reader-small.onnx",
                                                        "corner-reader.onnx"]  # fmt: skip
    assert small.stat().st_size < 0.6 * (models / "corner-reader.onnx").stat().st_size
    assert reader_info(small).margin == CONTEXT_MARGIN  # the app cuts its crops at this margin
    assert reader_info(models / "corner-reader.onnx").margin is None


def _shifted(source: Path, target: Path, by: float) -> Path:
    """`source` with every floating weight moved by `by` (a stand-in for a tuned reader)."""
    import torch

    checkpoint, model = load_checkpoint(source)
    with torch.no_grad():
        for value in model.state_dict().values():
            if value.is_floating_point():
                value += by
    return save_checkpoint(checkpoint, model, target)


def _weights(path: Path) -> dict[str, np.ndarray]:
    state = load_checkpoint(path)[1].state_dict()
    return {k: v.numpy() for k, v in state.items() if v.is_floating_point()}


def test_blend_lies_its_share_of_the_way_to_the_tuned_weights(tmp_path: Path) -> None:
    base = MODELS_DIR / "reader.pt"
    tuned = _shifted(base, tmp_path / "tuned.pt", 1.0)
    blended = blend_weights(base, tuned, 0.25, tmp_path / "blend.pt")
    before, after = _weights(base), _weights(blended)
    assert before.keys() == after.keys()
    for name, value in before.items():  # weights are stored in half precision
        gap = np.abs(after[name] - (value + 0.25))
        assert (gap <= 1e-2 * (1 + np.abs(value))).all(), name
    forward = load_model(export_onnx(blended, tmp_path / "blend.onnx", imgsz=64), "auto").run
    assert forward(np.zeros((1, 3, 64, 64), np.float32)).shape == (1, 53)


def test_blend_refuses_two_different_networks_and_a_share_outside_0_1(tmp_path: Path) -> None:
    reader, detector = MODELS_DIR / "reader.pt", MODELS_DIR / "detector.pt"
    with pytest.raises(WeightsError, match="not the same network"):
        blend_weights(reader, detector, 0.5, tmp_path / "x.pt")
    with pytest.raises(WeightsError, match="got 1"):
        blend_weights(reader, reader, 1.5, tmp_path / "x.pt")
    assert not (tmp_path / "x.pt").exists()


@pytest.fixture(scope="module")
def reader_weights(tmp_path_factory: pytest.TempPathFactory) -> Path:
    weights = tmp_path_factory.mktemp("weights") / "reader.pt"
    shutil.copy(MODELS_DIR / "reader.pt", weights)
    return weights


@pytest.mark.parametrize("backend", ["openvino", "onnxruntime"])
def test_a_model_tells_the_input_side_it_was_exported_for(
    reader_weights: Path, tmp_path: Path, backend: str
) -> None:
    fixed = export_onnx(reader_weights, tmp_path / "fixed.onnx", imgsz=96)
    any_size = export_onnx(reader_weights, tmp_path / "any.onnx", imgsz=64, dynamic=True)
    assert load_model(fixed, backend).input_side == 96
    assert load_model(any_size, backend).input_side is None


def test_half_weights_halve_the_file_and_keep_the_readings(
    reader_weights: Path, tmp_path: Path
) -> None:
    full = export_onnx(reader_weights, tmp_path / "full.onnx", imgsz=64, dynamic=True)
    half = export_onnx(reader_weights, tmp_path / "half.onnx", imgsz=64, dynamic=True,
                       half_weights=True)  # fmt: skip
    assert half.stat().st_size < 0.6 * full.stat().st_size
    crops = np.random.default_rng(0).random((8, 3, 64, 64), np.float32)
    for backend in ("openvino", "onnxruntime"):
        expected = load_model(full, backend, exact=True).run(crops)
        got = load_model(half, backend, exact=True).run(crops)
        assert np.abs(got - expected).max() < 0.01
        assert (got.argmax(axis=1) == expected.argmax(axis=1)).all()


@pytest.fixture
def cards_only(tmp_path: Path) -> Path:
    """The shipped reader's weights without their "none" row: a reader of the 52 cards, as
    readers were before that class (and as `add_none_class` takes them)."""
    import torch

    checkpoint, model = load_checkpoint(MODELS_DIR / "reader.pt")
    head = model.model[-1]
    assert head.linear.out_features == 53
    cards = torch.nn.Linear(head.linear.in_features, 52)
    with torch.no_grad():
        cards.weight[:] = head.linear.weight[:52]
        cards.bias[:] = head.linear.bias[:52]
    head.linear = cards
    model.yaml["nc"] = 52
    model.names = {k: v for k, v in model.names.items() if v != NOT_AN_INDEX}
    return save_checkpoint(checkpoint, model, tmp_path / "cards" / "reader.pt")


def test_a_widened_reader_reads_the_cards_as_before_and_learns_none_last(
    tmp_path: Path, cards_only: Path
) -> None:
    import torch

    weights = cards_only
    widened = add_none_class(weights, tmp_path / "reader53.pt")
    before, after = load_checkpoint(weights)[1].eval(), load_checkpoint(widened)[1].eval()
    layer = after.model[-1].linear
    assert layer.out_features == 53 and after.yaml["nc"] == 53
    assert after.names[52] == NOT_AN_INDEX and after.names[0] == before.names[0]
    crops = torch.rand((4, 3, 64, 64), generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        logits, wide = before(crops)[1], after(crops)[1]  # eval: (softmax, logits)
    torch.testing.assert_close(wide[:, :52], logits)
    weight, bias = layer.weight.detach(), layer.bias.detach()
    assert (weight[52] == 0).all()
    assert abs(float(bias[52] - (bias[:52].mean() - 2))) < 1e-2  # stored in half precision
    wide_info, info = (
        reader_info(export_onnx(path, tmp_path / f"{path.stem}.onnx", imgsz=64, dynamic=True))
        for path in (widened, weights)
    )
    assert wide_info.none_column == 52 and info.none_column is None
    assert wide_info.columns.tolist() == info.columns.tolist()  # the cards keep their columns
    with pytest.raises(WeightsError, match="its head has 53 outputs"):
        add_none_class(widened, tmp_path / "reader54.pt")
    assert not (tmp_path / "reader54.pt").exists()


def test_widen_on_the_command_line_and_what_it_refuses(
    tmp_path: Path, cards_only: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    weights = cards_only
    assert main(["train", "widen", str(weights), str(tmp_path / "out" / "w53.pt")]) == 0
    assert str(tmp_path / "out" / "w53.pt") in capsys.readouterr().out
    assert load_checkpoint(tmp_path / "out" / "w53.pt")[1].names[52] == NOT_AN_INDEX
    refused = [
        (tmp_path / "missing.pt", f"no reader weights at {tmp_path / 'missing.pt'}"),
        (MODELS_DIR / "detector.pt", "detector.pt is no reader: it has no classifier head"),
    ]
    for source, message in refused:
        assert main(["train", "widen", str(source), str(tmp_path / "x.pt")]) == 2
        assert message in capsys.readouterr().err
    assert not (tmp_path / "x.pt").exists()


@pytest.fixture(scope="module")
def context_crops(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The small-index reader's kind of crop (an index with the card around it) of every
    labelled index in the committed sample photos, a file each."""
    folder = tmp_path_factory.mktemp("crops")
    for path in sorted((SAMPLES / "images").iterdir()):
        photo = read_image(path)
        truth = labelled(path.name, photo.shape[1], photo.shape[0])
        for number, box in enumerate(truth.boxes):
            crop = crop_index(photo, box, 64, margin=CONTEXT_MARGIN)
            cv2.imwrite(str(folder / f"{path.stem}_{number}.png"), crop)
    return folder


def test_the_small_readers_weights_recovered_from_its_onnx_read_as_it_does(
    tmp_path: Path, context_crops: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import torch

    target = tmp_path / "small.pt"
    exported = MODELS_DIR / SMALL_READER_FILE
    assert main(["train", "recover", str(exported), str(target), "--images",
                 str(context_crops)]) == 0  # fmt: skip
    assert str(target) in capsys.readouterr().out
    crops = train.sample_images(context_crops, 64)
    assert len(crops) >= 20
    expected = load_model(exported, "onnxruntime").run(crops)
    network = load_checkpoint(target)[1]
    with torch.no_grad():
        read = network.eval()(torch.from_numpy(crops))[0].numpy()
        # Trained, the network normalises by the batch: on the sample the statistics came
        # from, that must change nothing either.
        logits = network.train()(torch.from_numpy(crops))
        batch_read = torch.softmax(logits, dim=1).numpy()
    for got in (read, batch_read):
        assert np.abs(got - expected).max() < 0.02
        assert (got.argmax(axis=1) == expected.argmax(axis=1)).all()
    # The main reader is another network's weights: recovered the same way it reads otherwise.
    assert np.abs(load_model(MODELS_DIR / READER_FILE, "onnxruntime").run(crops) - read).max() > 0.1


def test_recovering_weights_refuses_another_network_and_too_few_images(
    tmp_path: Path, context_crops: Path
) -> None:
    target, reader = tmp_path / "x.pt", MODELS_DIR / "reader.pt"
    with pytest.raises(WeightsError, match=r"is no copy of .*reader.pt.s network"):
        weights_from_onnx(MODELS_DIR / DETECTOR_FILE, reader, target, context_crops)
    with pytest.raises(WeightsError, match="no exported model at"):
        weights_from_onnx(tmp_path / "missing.onnx", reader, target, context_crops)
    with pytest.raises(WeightsError, match="no weights at"):
        weights_from_onnx(MODELS_DIR / SMALL_READER_FILE, tmp_path / "no.pt", target, context_crops)
    lone = tmp_path / "lone"
    lone.mkdir()
    shutil.copy(next(context_crops.iterdir()), lone / "one.png")
    with pytest.raises(TrainingError, match="fewer than 2 images"):
        weights_from_onnx(MODELS_DIR / SMALL_READER_FILE, reader, target, lone)
    assert not target.exists()
