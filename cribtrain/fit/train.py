"""Training both stages with ultralytics, strictly offline, then exporting ONNX for the app.

Only this module imports ultralytics (and through it torch); the app never does. Ultralytics is
kept from the network: no downloads, no telemetry, no auto-installs, models built from YAML,
its font shipped from matplotlib, and its settings kept in a folder of ours.
"""

from __future__ import annotations

import contextlib
import copy
import importlib
import logging
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt

from vision.detection.detections import CLASS_NAMES
from vision.detection.reader_classes import NOT_AN_INDEX
from vision.errors import TrainingError, WeightsError

if TYPE_CHECKING:
    import torch

#: What `store_weights_half` appends to a weight's name, and `weights_from_onnx` takes off.
HALF_SUFFIX = ".half"
#: Where ultralytics keeps its settings (instead of the user's home).
CONFIG_DIR = Path(os.environ.get("CRIBCAM_YOLO_CONFIG", "runs/ultralytics-config")).resolve()


#: The settings folder `offline_ultralytics` set last (empty: none yet).
_SET_HERE: list[Path] = []


def offline_ultralytics(config_dir: Path | None = None, *, quiet: bool = False) -> Any:
    """Import ultralytics with every network path switched off; returns the YOLO class. Its
    settings and font go to `config_dir` (default `CONFIG_DIR`; a deck tune passes a folder in
    the decks folder, so nothing lands in the current folder). Ultralytics reads the folder on
    its first import: a later call with another folder only gets the font copied there too,
    and a later call without one keeps the folder an earlier call set. `quiet` keeps its first
    import from logging (its settings file's creation, three lines): its verbosity is read then,
    for the process (`YOLO_VERBOSE`, unless already set; warnings still show)."""
    if quiet:
        os.environ.setdefault("YOLO_VERBOSE", "False")
    if config_dir is None:
        config_dir = _SET_HERE[0] if _SET_HERE else CONFIG_DIR
    config_dir = config_dir.resolve()
    _SET_HERE[:] = [config_dir]
    os.environ["YOLO_OFFLINE"] = "1"
    os.environ["YOLO_AUTOINSTALL"] = "false"
    os.environ["YOLO_CONFIG_DIR"] = str(config_dir)
    font_dir = config_dir / "Ultralytics"
    font_dir.mkdir(parents=True, exist_ok=True)
    font = font_dir / "Arial.ttf"
    if not font.exists():
        import matplotlib

        bundled = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"
        shutil.copy(bundled, font)
    return importlib.import_module("ultralytics").YOLO


@contextlib.contextmanager
def quiet_ultralytics() -> Iterator[None]:
    """Ultralytics' log (hundreds of lines a training) and its progress bars silenced while
    inside, its warnings still said: its bars follow its logger's level. For the deck tune,
    whose caller shows its own progress (a tqdm bar on the CLI, `GET /api/tune` on the server)."""
    logger = logging.getLogger("ultralytics")
    level = logger.level
    logger.setLevel(logging.WARNING)
    try:
        yield
    finally:
        logger.setLevel(level)


#: Stage 1: one class, no mirror images (a mirrored glyph is no glyph). The scenes already hold
#: every in-plane rotation; rotating windows again (which loosens every box) and mosaic cost
#: more than they gave: measured here, one epoch without them lifted val mAP50 from 0.06 to
#: 0.19. Warm-up is short because a CPU budget allows only a few epochs.
DETECTOR_ARGS: dict[str, Any] = dict(
    imgsz=320, batch=16, optimizer="SGD", lr0=0.02, warmup_epochs=0.1, close_mosaic=0,
    mosaic=0.0, degrees=0.0, fliplr=0.0, single_cls=True,
)  # fmt: skip
#: Stage 2: rotations are baked into the crops; no flips; a gentle random-resized crop so the
#: glyph is never cut out of its own picture.
READER_ARGS: dict[str, Any] = dict(
    imgsz=64, batch=64, optimizer="SGD", lr0=0.02, warmup_epochs=0.5, fliplr=0.0, flipud=0.0,
    scale=0.15, erasing=0.0, auto_augment=None, hsv_h=0.02, hsv_s=0.5, hsv_v=0.4,
)  # fmt: skip


#: The single 52-class detector the two stages are compared with: stage 1's settings, each
#: index labelled with its card.
CARDS_ARGS: dict[str, Any] = {**DETECTOR_ARGS, "single_cls": False}
STAGE_ARGS = {"detector": DETECTOR_ARGS, "reader": READER_ARGS, "cards": CARDS_ARGS}


def train_stage(
    stage: str,
    data: Path,
    project: Path,
    *,
    hours: float,
    resume: bool = False,
    init: Path | None = None,
    device: str = "cpu",
    lr: float | None = None,
    plots: bool = True,
) -> Path:
    """Train the `detector` (YOLO26n, data = a data.yaml), the `reader` (YOLO26n-cls, data = a
    class-folder tree) or the single-stage `cards` detector (YOLO26n, 52 classes) for a
    wall-clock budget, from scratch or from `init` weights; `lr` replaces the stage's starting
    learning rate (a fine-tune from `init` wants a smaller one). `plots` off leaves out the PNG
    curves (they need polars, which a bare GPU machine may lack).

    Ultralytics fits its schedule to `hours`; `resume` continues an interrupted run from its
    last.pt. results.csv and the curves are written beside the weights. Returns best.pt.
    Checked before ultralytics starts: it would try to download a data set it cannot find.
    """
    if hours <= 0:
        raise TrainingError(f"the time budget must be more than 0 hours, got {hours}")
    needed = data / "train" if stage == "reader" else data
    if not needed.exists():
        raise TrainingError(f"no {stage} training set at {needed}: made by `cribcam train sets`")
    if init is not None and not init.is_file():
        raise TrainingError(f"no weights to start from at {init}")
    yolo = offline_ultralytics()
    last = project / stage / "weights" / "last.pt"
    trainer = _network_keeping_trainer() if stage == "detector" else None
    if resume and last.exists():
        yolo(str(last)).train(resume=True, trainer=trainer)
    else:
        architecture = "yolo26n-cls.yaml" if stage == "reader" else "yolo26n.yaml"
        model = yolo(str(init) if init else architecture)
        # Absolute: ultralytics files a relative project under its own runs/<task>/ folder.
        model.train(
            data=str(data), time=hours, epochs=1000, device=device, project=str(project.resolve()),
            name=stage, exist_ok=True, pretrained=init is not None, amp=False, plots=plots,
            patience=0, verbose=False, trainer=trainer,
            **{**STAGE_ARGS[stage], **loader_settings(stage, device),
               **({"lr0": lr} if lr is not None else {})},
        )  # fmt: skip
    return project / stage / "weights" / "best.pt"


def loader_settings(stage: str, device: str) -> dict[str, int]:
    """Batch and loader processes: on the CPU one process (ultralytics' own choice there); on a
    GPU larger batches, fed by several processes, or the GPU waits on the loader. Ultralytics
    accumulates gradients up to 64 images a step either way, so the optimisation is the same."""
    batch = int(STAGE_ARGS[stage]["batch"])
    if device == "cpu":
        return {"batch": batch, "workers": 0}
    return {"batch": max(batch, 64), "workers": min(8, os.cpu_count() or 1)}


def _network_keeping_trainer() -> type:
    """Ultralytics' detection trainer, training the network it is given as it is.

    Given weights, ultralytics builds a fresh network from their YAML and copies in what fits:
    a pruned detector (`cribtrain.fit.prune`) would silently grow back to full width, most of its
    weights left random. Unpruned weights train the same either way.
    """
    from ultralytics.models.yolo.detect import DetectionTrainer

    class NetworkKeepingTrainer(DetectionTrainer):
        def get_model(self, cfg: Any = None, weights: Any = None, verbose: bool = True) -> Any:
            if weights is None:
                return super().get_model(cfg, weights, verbose)
            network = copy.deepcopy(weights).float()
            network.names = self.data["names"]
            for parameter in network.parameters():
                parameter.requires_grad_(True)
            return network

    return NetworkKeepingTrainer


def load_checkpoint(path: Path) -> tuple[dict[str, Any], Any]:
    """An ultralytics checkpoint and its network in float32 (the EMA copy where there is one)."""
    import torch

    checkpoint = torch.load(path, map_location="cpu", weights_only=False)
    return checkpoint, (checkpoint.get("ema") or checkpoint["model"]).float()


def save_checkpoint(checkpoint: dict[str, Any], network: Any, path: Path) -> Path:
    """`checkpoint` with `network` as its weights (half precision, as ultralytics stores them)."""
    import torch

    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save({**checkpoint, "model": network.half(), "ema": None}, path)
    return path


def blend_weights(base: Path, tuned: Path, share: float, target: Path) -> Path:
    """Weights `share` of the way from `base` to `tuned` (same network), saved at `target`.

    A short fine-tune learns its few crops' look and forgets some of what made the base read
    other decks; averaging the two networks' weights keeps most of the gain and most of the
    generality (Wortsman et al. 2022, "Robust fine-tuning of zero-shot models").
    """
    import torch

    if not 0.0 <= share <= 1.0:
        raise WeightsError(f"the tuned share must lie between 0 and 1, got {share}")
    checkpoint, model = load_checkpoint(tuned)
    start = load_checkpoint(base)[1].state_dict()
    state = model.state_dict()
    if state.keys() != start.keys():
        raise WeightsError(f"{base} and {tuned} are not the same network")
    model.load_state_dict({
        name: torch.lerp(start[name], value, share) if value.is_floating_point() else value
        for name, value in state.items()
    })  # fmt: skip
    return save_checkpoint(checkpoint, model, target)


def add_none_class(weights: Path, target: Path) -> Path:
    """A 52-class reader's weights with a 53rd class, `NOT_AN_INDEX`, saved at `target`: the
    start of a reader that learns to set aside what stage 1 boxes that is no index.

    The card rows of the head are copied, so the widened reader reads every card as before;
    the new row starts with no weights and a bias 2 below the cards' mean, so a crop starts out
    unlikely to be "none" and the fine-tune only has to learn where it is. The class sits last,
    where ultralytics puts its folder ("none" sorts after every card's name).
    """
    import torch

    if not weights.is_file():
        raise WeightsError(f"no reader weights at {weights}")
    checkpoint, model = load_checkpoint(weights)
    head, old, cards = model.model[-1], _card_layer(weights, model), len(CLASS_NAMES)
    head.linear = torch.nn.Linear(old.in_features, cards + 1)
    with torch.no_grad():
        head.linear.weight[:cards] = old.weight
        head.linear.bias[:cards] = old.bias
        head.linear.weight[cards] = 0.0
        head.linear.bias[cards] = old.bias.mean() - 2.0
    model.nc = model.yaml["nc"] = cards + 1
    model.names = {**{int(k): v for k, v in model.names.items()}, cards: NOT_AN_INDEX}
    # The set it was trained on has no "none" folder: train it on a new one.
    checkpoint["train_args"] = {**(checkpoint.get("train_args") or {}), "data": None}
    return save_checkpoint(checkpoint, model, target)


def weights_from_onnx(exported: Path, like: Path, target: Path, images: Path) -> Path:
    """Trainable weights rebuilt from an exported model, saved at `target`: `like`'s network
    (the same architecture: a reader's .pt for a reader) with the exported file's weights.

    Only the small-index reader's ONNX file ships (`models/` must stay under 25 MB), so going on
    training what the app reads would otherwise start from weights rebuilt by hours of training.
    Export folds each batch norm into the convolution before it. Each is unfolded so that the
    network computes what the export does, and keeps computing it once training normalises by
    the batch: the batch norm is given the mean and variance the convolution's outputs have on
    a sample of `images` (the training images, `sample_images`), its scale and shift set to undo
    them.
    """
    import onnx
    import torch
    from onnx import numpy_helper

    for path, what in ((exported, "exported model"), (like, "weights")):
        if not path.is_file():
            raise WeightsError(f"no {what} at {path}")
    stored = {tensor.name.removesuffix(HALF_SUFFIX): numpy_helper.to_array(tensor)
              for tensor in onnx.load(str(exported)).graph.initializer}  # fmt: skip
    checkpoint, network = load_checkpoint(like)
    inputs = sample_images(images, int((checkpoint.get("train_args") or {}).get("imgsz", 64)))
    folded = {name: module for name, module in network.named_modules()
              if isinstance(getattr(module, "conv", None), torch.nn.Conv2d)
              and isinstance(getattr(module, "bn", None), torch.nn.BatchNorm2d)}  # fmt: skip
    state = network.state_dict()
    for key in state:
        prefix, _, field = key.rpartition(".bn.")
        if field == "num_batches_tracked":
            continue
        if prefix in folded:
            value = _pass_through(stored, prefix, folded[prefix].bn, field, exported)
        else:
            value = _stored(stored, key, exported)
        there, here = tuple(value.shape), tuple(state[key].shape)
        if there != here:
            raise WeightsError(
                f"{exported} is no copy of {like}'s network: {key} is {there} there, {here} here"
            )
        state[key] = torch.tensor(np.asarray(value), dtype=torch.float32)
    network.load_state_dict(state)
    _match_batch_statistics(network, folded, torch.from_numpy(inputs))
    checkpoint["train_args"] = {**(checkpoint.get("train_args") or {}), "data": None}
    return save_checkpoint(checkpoint, network, target)


def _pass_through(
    stored: dict[str, Any], prefix: str, norm: Any, field: str, exported: Path
) -> npt.NDArray[Any]:
    """A value of the batch norm at `prefix` that passes its input through, shifted by the
    bias export folded into the convolution before it."""
    if field == "bias":
        bias: npt.NDArray[Any] = _stored(stored, f"{prefix}.conv.bias", exported)
        return bias
    fill = {"weight": 1.0, "running_mean": 0.0, "running_var": 1.0 - norm.eps}[field]
    return np.full(norm.num_features, fill)


def sample_images(folder: Path, size: int, count: int = 512) -> npt.NDArray[np.float32]:
    """Up to `count` images under `folder` (any depth, evenly spread over the sorted names),
    each resized to `size` square, as a network's input (`model_input`)."""
    import cv2

    from vision.detection.models import model_input
    from vision.table.sources import IMAGE_SUFFIXES, read_image

    paths = sorted(p for p in folder.rglob("*") if p.suffix.lower() in IMAGE_SUFFIXES)
    if len(paths) < 2:
        raise TrainingError(f"fewer than 2 images under {folder}: the unfolding needs a sample")
    chosen = [paths[i] for i in np.linspace(0, len(paths) - 1, min(count, len(paths))).astype(int)]
    images = [cv2.resize(read_image(path), (size, size), interpolation=cv2.INTER_AREA)
              for path in chosen]  # fmt: skip
    return model_input(np.stack(images))


def _match_batch_statistics(network: Any, folded: dict[str, Any], inputs: torch.Tensor) -> None:
    """Give the pass-through batch norm of each block in `folded` (convolution and batch norm,
    by name) the statistics its convolution's outputs have on `inputs`, with the scale and
    shift that keep its output. Per channel sums are kept, not the outputs."""
    import torch

    moments: dict[str, torch.Tensor] = {}  # per channel: count, sum, sum of squares

    def add(name: str, out: torch.Tensor) -> None:
        values = out.double().transpose(0, 1).flatten(1)
        seen = torch.stack([torch.full_like(values[:, 0], values.shape[1]), values.sum(dim=1),
                            (values * values).sum(dim=1)])  # fmt: skip
        moments[name] = moments[name] + seen if name in moments else seen

    hooks = [block.conv.register_forward_hook(lambda _m, _i, out, name=name: add(name, out))
             for name, block in folded.items()]  # fmt: skip
    network.eval()
    with torch.no_grad():
        for batch in torch.split(inputs, 64):
            network(batch)
        for hook in hooks:
            hook.remove()
        for name, block in folded.items():
            count, total, squares = moments[name]
            mean = total / count
            variance = (squares / count - mean * mean).clamp(min=0)
            norm = block.bn
            norm.running_mean.copy_(mean)
            norm.running_var.copy_(variance)
            norm.weight.copy_((variance + norm.eps).sqrt())
            norm.bias.add_(mean)


def _stored(stored: dict[str, Any], key: str, exported: Path) -> Any:
    """The exported weights named `key`; `WeightsError` where the file has none."""
    if key not in stored:
        raise WeightsError(f"{exported} has no weights {key}: not an export of this network")
    return stored[key]


def _card_layer(weights: Path, model: Any) -> torch.nn.Linear:
    """The final layer of a 52-class reader; `WeightsError` for any other network."""
    import torch

    layer = getattr(model.model[-1], "linear", None)
    if not isinstance(layer, torch.nn.Linear):
        raise WeightsError(f"{weights} is no reader: it has no classifier head")
    if layer.out_features != len(CLASS_NAMES):
        raise WeightsError(
            f"{weights} is no {len(CLASS_NAMES)}-class reader: its head has "
            f"{layer.out_features} outputs"
        )
    return layer


def export_onnx(
    weights: Path, target: Path, *, imgsz: int, dynamic: bool = False, half_weights: bool = False
) -> Path:
    """Export weights to ONNX (opset 17, NMS-free head where there is one); `dynamic` lets the
    reader take every crop of a frame in one batch; `half_weights` stores the weights in half
    precision (`store_weights_half`)."""
    if not weights.is_file():
        raise TrainingError(f"no weights to export at {weights}: train that stage first")
    yolo = offline_ultralytics()
    model = yolo(str(weights))
    exported = Path(model.export(format="onnx", imgsz=imgsz, opset=17, simplify=True,
                                 dynamic=dynamic, nms=False))  # fmt: skip
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(exported, target)  # ultralytics writes beside the weights: leave nothing there
    if half_weights:
        store_weights_half(target)
    return target


def store_weights_half(path: Path) -> None:
    """Store an ONNX file's float32 weights as float16, each cast back to float32 in the graph.

    The file halves (the models folder must stay under 25 MB) while the network still computes
    in float32: both runtimes fold the casts when they load it. The training weights are half
    precision already; only what export folds into them (batch norm) is rounded, which moved
    the detector's box scores by about 0.005 at most on the real photos.
    """
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    model = onnx.load(str(path))
    graph = model.graph
    kept, casts = [], []
    for tensor in graph.initializer:
        values = numpy_helper.to_array(tensor)
        if values.dtype != np.float32 or values.size < 16:  # shapes, scalars: as they are
            kept.append(tensor)
            continue
        half = numpy_helper.from_array(values.astype(np.float16), tensor.name + HALF_SUFFIX)
        kept.append(half)
        casts.append(helper.make_node("Cast", [half.name], [tensor.name], to=TensorProto.FLOAT))
    nodes = [*casts, *graph.node]
    del graph.initializer[:], graph.node[:]
    graph.initializer.extend(kept)
    graph.node.extend(nodes)
    onnx.checker.check_model(model)
    _save_in_place(model, path)


def set_metadata(path: Path, values: dict[str, str]) -> None:
    """Add (or replace) custom metadata entries of an ONNX file, in place."""
    import onnx

    model = onnx.load(str(path))
    kept = [p for p in model.metadata_props if p.key not in values]
    del model.metadata_props[:]
    model.metadata_props.extend(kept)
    for key, value in values.items():
        model.metadata_props.add(key=key, value=value)
    _save_in_place(model, path)


def _save_in_place(model: Any, path: Path) -> None:
    """Write an edited ONNX model over its file through a temporary one (a crash leaves the
    old file whole)."""
    import onnx

    staged = path.with_suffix(".tmp")
    onnx.save(model, str(staged))
    staged.replace(path)
