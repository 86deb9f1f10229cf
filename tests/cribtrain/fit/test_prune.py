"""Pruning stage 1: the CSP blocks cut for the pruner compute what they did, the pruned network
is thinner and holds ultralytics' own modules, and training it keeps it thin. The shipped stage
1 is pruned already (preview 8), so the widths are checked on a full-width YOLO26n: they depend
on the channel counts, not on the weights."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import torch

from cribcam.cli import main
from cribtrain.fit.prune import _join_blocks, _split_blocks, kept_width, prune_detector
from cribtrain.fit.train import load_checkpoint, offline_ultralytics, save_checkpoint, train_stage
from tests.samples import SAMPLES
from vision.detection.models import MODELS_DIR
from vision.errors import TrainingError

pytestmark = pytest.mark.slow  # training: left out of the fast loop

DETECTOR_WEIGHTS = MODELS_DIR / "detector.pt"


@pytest.fixture(scope="module")
def full_width(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A one-class YOLO26n at full width (random weights) in the shipped checkpoint's form."""
    offline_ultralytics()
    from ultralytics.nn.tasks import DetectionModel

    checkpoint, shipped = load_checkpoint(DETECTOR_WEIGHTS)
    network = DetectionModel("yolo26n.yaml", nc=1, verbose=False)
    network.names, network.args = shipped.names, shipped.args
    return save_checkpoint(checkpoint, network, tmp_path_factory.mktemp("full") / "full.pt")


def _outputs(network: torch.nn.Module, image: torch.Tensor) -> list[torch.Tensor]:
    with torch.no_grad():
        boxes, features = network.eval()(image)
    return [boxes, *features["one2one"]["feats"]]


def _widths(network: torch.nn.Module) -> list[int]:
    return [m.out_channels for m in network.modules() if isinstance(m, torch.nn.Conv2d)]


def test_blocks_cut_in_two_and_joined_again_compute_what_they_did() -> None:
    _, network = load_checkpoint(DETECTOR_WEIGHTS)
    image = torch.rand(1, 3, 128, 96)
    before = _outputs(network, image)
    split = _split_blocks(network)
    assert len(split) == 9  # eight C3k2 blocks and one C2PSA
    for ours, theirs in zip(_outputs(network, image), before, strict=True):
        assert torch.allclose(ours, theirs, atol=1e-4)
    _join_blocks(network, split)
    assert {type(layer).__name__ for layer in network.model} >= {"C3k2", "C2PSA"}
    for ours, theirs in zip(_outputs(network, image), before, strict=True):
        assert torch.allclose(ours, theirs, atol=1e-4)


def test_a_pruned_detector_is_thinner_and_still_answers_as_a_detector(
    tmp_path: Path, full_width: Path
) -> None:
    result = prune_detector(full_width, tmp_path / "pruned.pt", 0.25)
    assert 0.4 < result.macs_kept < 0.7 and result.params_after < 0.7 * result.params_before
    _, original = load_checkpoint(full_width)
    _, pruned = load_checkpoint(tmp_path / "pruned.pt")
    assert sum(_widths(pruned)) < 0.85 * sum(_widths(original))
    assert all(width % 8 == 0 or width in (1, 4) for width in _widths(pruned))
    image = torch.rand(1, 3, 160, 160)
    for ours, theirs in zip(_outputs(pruned, image), _outputs(original, image), strict=True):
        assert ours.shape[0] == theirs.shape[0] and ours.shape[2:] == theirs.shape[2:]
    assert _outputs(pruned, image)[0].shape == (1, 5, 20 * 20 + 10 * 10 + 5 * 5)  # box, score


def test_kept_widths_are_the_nearest_multiple_of_8_and_never_fewer_than_8() -> None:
    assert [kept_width(c, 0.25) for c in (8, 16, 32, 64, 128, 256)] == [8, 16, 24, 48, 96, 192]
    assert [kept_width(c, 0.15) for c in (16, 32, 64, 128, 256)] == [16, 24, 56, 112, 216]
    assert kept_width(16, 0.9) == 8 and kept_width(24, 0.01) == 24
    assert kept_width(48, 0.25) == 40  # half way between 32 and 40: the larger


def test_pruning_keeps_the_widths_it_promises(tmp_path: Path, full_width: Path) -> None:
    """The full-size layers at the stem stay 16 wide at 25 %: rounding down would halve them."""
    prune_detector(full_width, tmp_path / "pruned.pt", 0.25)
    _, original = load_checkpoint(full_width)
    _, pruned = load_checkpoint(tmp_path / "pruned.pt")
    assert _widths(pruned)[:4] == [16, 24, 32, 48]
    changed = [(o, p) for o, p in zip(_widths(original), _widths(pruned), strict=True) if o != p]
    assert changed and all(p == kept_width(o, 0.25) for o, p in changed)


def test_pruning_refuses_a_share_outside_0_1_missing_weights_and_a_reader(tmp_path: Path) -> None:
    for share in (0.0, 1.0):
        with pytest.raises(TrainingError, match=f"between 0 and 1, got {share}"):
            prune_detector(DETECTOR_WEIGHTS, tmp_path / "out.pt", share)
    with pytest.raises(TrainingError, match=f"no detector weights at {tmp_path / 'none.pt'}"):
        prune_detector(tmp_path / "none.pt", tmp_path / "out.pt", 0.25)
    with pytest.raises(TrainingError, match="ClassificationModel, not a detector"):
        prune_detector(MODELS_DIR / "reader.pt", tmp_path / "out.pt", 0.25)
    assert not (tmp_path / "out.pt").exists()


def test_a_pruned_detector_trains_at_its_own_width(tmp_path: Path, full_width: Path) -> None:
    """Ultralytics rebuilds a network from its YAML before training: the pruned one must not
    grow back to full width with random weights."""
    assert main(["train", "prune", str(full_width), str(tmp_path / "pruned.pt"),
                 "--share", "0.4"]) == 0  # fmt: skip
    data = tmp_path / "detector"
    for part in ("train", "val"):
        shutil.copytree(SAMPLES, data / part)
    (data / "data.yaml").write_text(
        f"path: {data}\ntrain: train/images\nval: val/images\nnc: 52\nnames: {list(range(52))}\n"
    )
    best = train_stage("detector", data / "data.yaml", tmp_path / "runs", hours=0.001,
                       init=tmp_path / "pruned.pt", lr=0.001)  # fmt: skip
    _, pruned = load_checkpoint(tmp_path / "pruned.pt")
    _, trained = load_checkpoint(best)
    assert _widths(trained) == _widths(pruned)
