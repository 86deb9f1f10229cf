"""What a player's install carries: every package of the code and the shipped models."""

from __future__ import annotations

import tomllib
from pathlib import Path

from vision.detection.models import DETECTOR_FILE, READER_FILE
from vision.detection.orientation import ORIENTATION_FILE

ROOT = Path(__file__).resolve().parents[1]
SETUPTOOLS = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
CODE = ("cribcam", "cribtrain", "scorer", "tablemode", "vision", "webui")


def test_every_package_of_the_code_is_listed_for_the_wheel() -> None:
    found = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for package in CODE
        for init in (ROOT / package).glob("**/__init__.py")
    }
    assert set(SETUPTOOLS["packages"]) == found | {"vision.models"}


def test_the_wheel_carries_the_shipped_models_as_vision_models() -> None:
    folder = ROOT / SETUPTOOLS["package-dir"]["vision.models"]
    patterns = SETUPTOOLS["package-data"]["vision.models"]
    carried = {path.name for pattern in patterns for path in folder.glob(pattern)}
    assert {DETECTOR_FILE, READER_FILE, ORIENTATION_FILE, "calibration.json"} <= carried
