"""Training both stages with ultralytics, strictly offline, then exporting ONNX for the app.

Only this module imports ultralytics (and through it torch); the app never does. Ultralytics is
kept from the network: no downloads, no telemetry, no auto-installs, models built from YAML,
its font shipped from matplotlib, and its settings kept in a folder of ours.
"""

from __future__ import annotations

import importlib
import os
import shutil
from pathlib import Path
from typing import Any

#: Where ultralytics keeps its settings (instead of the user's home).
CONFIG_DIR = Path(os.environ.get("CRIBCAM_YOLO_CONFIG", "runs/ultralytics-config")).resolve()


def offline_ultralytics() -> Any:
    """Import ultralytics with every network path switched off; returns the YOLO class."""
    os.environ["YOLO_OFFLINE"] = "1"
    os.environ["YOLO_AUTOINSTALL"] = "false"
    os.environ["YOLO_CONFIG_DIR"] = str(CONFIG_DIR)
    font_dir = CONFIG_DIR / "Ultralytics"
    font_dir.mkdir(parents=True, exist_ok=True)
    font = font_dir / "Arial.ttf"
    if not font.exists():
        import matplotlib

        bundled = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"
        shutil.copy(bundled, font)
    return importlib.import_module("ultralytics").YOLO


def train_detector(
    data_yaml: Path,
    project: Path,
    *,
    hours: float,
    imgsz: int = 320,
    batch: int = 16,
    resume: bool = False,
    device: str = "cpu",
    name: str = "detector",
) -> Path:
    """Train the one-class corner-index detector (YOLO26n from YAML) for a wall-clock budget.

    Ultralytics fits its schedule to `hours`; `resume` continues from last.pt after a stop.
    Results (results.csv, curves) are written beside the weights. Returns best.pt.
    """
    yolo = offline_ultralytics()
    last = project / name / "weights" / "last.pt"
    if resume and last.exists():
        model = yolo(str(last))
        model.train(resume=True)
    else:
        model = yolo("yolo26n.yaml")
        model.train(
            data=str(data_yaml), time=hours, epochs=1000, imgsz=imgsz, batch=batch, device=device,
            project=str(project), name=name, exist_ok=True, pretrained=False, amp=False,
            plots=True, optimizer="SGD", lr0=0.01, close_mosaic=0, mosaic=0.5,
            degrees=180.0, fliplr=0.0, single_cls=True, workers=0, patience=0,
            verbose=False,
        )  # fmt: skip
    return project / name / "weights" / "best.pt"


def train_classifier(
    data_dir: Path,
    project: Path,
    *,
    hours: float,
    imgsz: int = 64,
    batch: int = 64,
    resume: bool = False,
    device: str = "cpu",
    name: str = "reader",
) -> Path:
    """Train the 52-way corner-index reader (YOLO26n-cls from YAML); returns best.pt.

    Rotations are baked into the crops; flips are off because a mirrored glyph is no glyph,
    and the random-resized crop is gentle so the glyph is never cut out of its own picture.
    """
    yolo = offline_ultralytics()
    last = project / name / "weights" / "last.pt"
    if resume and last.exists():
        model = yolo(str(last))
        model.train(resume=True)
    else:
        model = yolo("yolo26n-cls.yaml")
        model.train(
            data=str(data_dir), time=hours, epochs=1000, imgsz=imgsz, batch=batch, device=device,
            project=str(project), name=name, exist_ok=True, pretrained=False, amp=False,
            plots=True, optimizer="SGD", lr0=0.02, fliplr=0.0, flipud=0.0, scale=0.15,
            erasing=0.0, auto_augment=None, hsv_h=0.02, hsv_s=0.5, hsv_v=0.4,
            workers=0, patience=0, verbose=False,
        )  # fmt: skip
    return project / name / "weights" / "best.pt"


def export_onnx(weights: Path, target: Path, *, imgsz: int, dynamic: bool = False) -> Path:
    """Export weights to ONNX (opset 17, NMS-free head where there is one); `dynamic` lets the
    reader take every crop of a frame in one batch."""
    yolo = offline_ultralytics()
    model = yolo(str(weights))
    exported = Path(model.export(format="onnx", imgsz=imgsz, opset=17, simplify=True,
                                 dynamic=dynamic, nms=False))  # fmt: skip
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy(exported, target)
    return target
