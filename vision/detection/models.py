"""The card models' files and how they load: ONNX files from `models/`, compiled by OpenVINO
(the app's engine) or, where the `ort` extra is installed, ONNX Runtime. No torch, no
ultralytics."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from vision.errors import VisionError

#: The shipped models in a checkout (or an editable install): the repository's `models/`.
CHECKOUT_MODELS_DIR = Path(__file__).resolve().parents[2] / "models"
#: Where an installed wheel carries them: `models/` packaged as `vision.models`.
PACKAGED_MODELS_DIR = Path(__file__).resolve().parents[1] / "models"
MODELS_DIR = PACKAGED_MODELS_DIR if PACKAGED_MODELS_DIR.is_dir() else CHECKOUT_MODELS_DIR
#: Stage 1, the index finder: a one-class YOLO detector of corner indices.
DETECTOR_FILE = "corner-detector.onnx"
#: Stage 2, the index reader: a YOLO classifier of the 52 cards (and "not an index").
READER_FILE = "corner-reader.onnx"
#: A second reader for small indices (`cribtrain.fit.small_index`), optional: read on a crop
#: with the card around the index (its own margin), its reading combined with the main one's.
SMALL_READER_FILE = "corner-reader-small.onnx"
#: YOLO's coarsest stride: a detector input's sides are multiples of it.
STRIDE = 32
#: The largest side asked of stage 1: a 4K camera frame's pixels (3840 x 2160 is 2880²) fit.
MAX_DETECTOR_SIDE = 4096
#: Image sizes an OpenVINO model keeps compiled (a camera gives one; photos a few).
COMPILED_SIZES = 4
#: The command that installs ONNX Runtime, the optional engine.
ORT_INSTALL = 'pip install -e ".[ort]"'

Image = npt.NDArray[np.uint8]
Forward = Callable[[npt.NDArray[np.float32]], npt.NDArray[np.float32]]


class ModelMissingError(VisionError):
    """The card models are not installed where they were looked for."""


class ModelSizeError(VisionError, ValueError):
    """A detector input side off YOLO's stride, or not the one the detector was exported for."""


class EngineMissingError(VisionError, ImportError):
    """The engine asked to run a model is not installed."""


class LoadedModel(NamedTuple):
    """A compiled ONNX model: its forward pass, the runtime running it, and the side of the
    square input it was exported for (None where it takes any size)."""

    run: Forward
    runtime: str
    input_side: int | None


def checked_side(side: int) -> int:
    """A detector input side: YOLO's strides need a multiple of 32, and one past
    `MAX_DETECTOR_SIDE` would enlarge every frame into an input of gigabytes."""
    if not 64 <= side <= MAX_DETECTOR_SIDE or side % STRIDE:
        raise ModelSizeError(
            f"detector size must be a multiple of 32 from 64 to {MAX_DETECTOR_SIDE}, got {side}"
        )
    return side


def load_model(
    path: Path, backend: str, batch: int | None = None, *, exact: bool = False,
    threads: int | None = None,
) -> LoadedModel:  # fmt: skip
    """Compile an ONNX file with OpenVINO (`backend` "openvino", or "auto") or ONNX Runtime
    ("onnxruntime", or "auto" where OpenVINO is not installed); `EngineMissingError` names the
    package to install where the engine asked for is missing.

    A model exported for any image size takes any; OpenVINO compiles it once for each image
    size it meets (a fixed shape runs faster than a dynamic one), keeping the last few.
    `batch`: the batch size of every call, fixed in those compilations too (the detector: one
    frame); None leaves it free (the reader).

    On a CPU with bfloat16 units (Intel AMX) OpenVINO computes in bfloat16 unless told
    otherwise: faster there, and measured to read the same cards. `exact` keeps float32
    everywhere, for comparing two networks' outputs to the third decimal. `threads`: the
    threads one call may use (None: the runtime's choice, every core); processes that read side
    by side take 1 each, or each would start a thread per core and all would wait on one another.
    """
    if backend not in ("auto", "openvino", "onnxruntime"):
        raise VisionError(f"unknown backend {backend!r}: auto, openvino or onnxruntime")
    if backend in ("auto", "openvino"):
        try:
            import openvino
        except ImportError as error:
            if backend == "openvino":
                raise EngineMissingError(
                    f"backend 'openvino' asked for {path.name}, but the openvino package is "
                    "not installed: pip install openvino"
                ) from error
        else:
            return _load_openvino(openvino, path, batch, exact, threads)
    return _load_onnxruntime(path, backend, threads)


def _load_openvino(
    ov: Any, path: Path, batch: int | None, exact: bool, threads: int | None
) -> LoadedModel:
    core = ov.Core()
    config: dict[str, Any] = {"INFERENCE_PRECISION_HINT": "f32"} if exact else {}
    if threads is not None:
        config["INFERENCE_NUM_THREADS"] = threads
    network = core.read_model(str(path))
    shape = network.input(0).get_partial_shape()
    dims = [d.get_length() if d.is_static else None for d in shape]
    any_size = None in dims[-2:]
    compiled: OrderedDict[tuple[int, ...], Any] = OrderedDict()
    # Calling a compiled model reuses one infer request: the server camera and the photo
    # endpoint share this reader from two threads, so calls take turns.
    turn = threading.Lock()

    def compiled_for(image: tuple[int, ...]) -> Any:
        if image not in compiled:
            if any_size:
                network.reshape([batch or -1, dims[1] or 3, *image])
            compiled[image] = core.compile_model(network, "CPU", config)
            if len(compiled) > COMPILED_SIZES:
                compiled.popitem(last=False)
        compiled.move_to_end(image)
        return compiled[image]

    def run_ov(inputs: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        with turn:
            model = compiled_for(inputs.shape[-2:] if any_size else ())
            return np.asarray(model(inputs)[model.output(0)], dtype=np.float32)

    return LoadedModel(run_ov, "openvino", _square_side(dims))


def _load_onnxruntime(path: Path, backend: str, threads: int | None) -> LoadedModel:
    try:
        import onnxruntime as ort
    except ImportError as error:
        instead = (
            "no OpenVINO to run it with either: pip install openvino, or "
            if backend == "auto"
            else ""
        )
        raise EngineMissingError(
            f"backend {backend!r} needs ONNX Runtime to run {path.name}, and the onnxruntime "
            f"package is not installed ({instead}{ORT_INSTALL})"
        ) from error
    options = ort.SessionOptions()
    options.log_severity_level = 3
    if threads is not None:
        options.intra_op_num_threads = threads
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    name = session.get_inputs()[0].name

    def run_ort(inputs: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        return np.asarray(session.run(None, {name: inputs})[0], dtype=np.float32)

    dims = [d if isinstance(d, int) else None for d in session.get_inputs()[0].shape]
    return LoadedModel(run_ort, "onnxruntime", _square_side(dims))


def _square_side(dims: list[int | None]) -> int | None:
    """The side of an image input ``N × C × side × side`` fixed at export, else None."""
    height, width = dims[-2:]
    return height if height is not None and height == width else None


def model_input(images: Image) -> npt.NDArray[np.float32]:
    """BGR images (N × H × W × 3, uint8) as YOLO's input: N × 3 × H × W, RGB, 0-1.

    Written channel by channel into one array: numpy's transpose-then-convert is several times
    slower on a small CPU."""
    count, height, width = images.shape[:3]
    out = np.empty((count, 3, height, width), np.float32)
    for channel in range(3):
        np.multiply(images[..., 2 - channel], np.float32(1 / 255), out=out[:, channel],
                    casting="unsafe")  # fmt: skip
    return out
