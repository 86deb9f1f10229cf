"""`ReadingConfig`: one frozen object holding every setting of the reading path."""

from __future__ import annotations

import dataclasses

import pytest

from vision.config import DEFAULT_READING, ReadingConfig, ReadingConfigError
from vision.detection.models import ModelSizeError
from vision.table.cards import PairingConfig


def test_the_default_reading_is_the_apps() -> None:
    assert ReadingConfig() == DEFAULT_READING
    assert DEFAULT_READING.pairing == PairingConfig()
    with pytest.raises(dataclasses.FrozenInstanceError):
        DEFAULT_READING.read_turns = 1  # type: ignore[misc]


@pytest.mark.parametrize(
    ("setting", "value"),
    [("read_turns", 0), ("read_turns", 5), ("reader_px", 4), ("min_box_score", 1.5),
     ("small_reader_weight", -0.1), ("deck_base_weight", 2.0),
     ("min_orientation_confidence", 1.1)],
)  # fmt: skip
def test_a_setting_outside_what_the_reading_can_use_is_named(setting: str, value: float) -> None:
    with pytest.raises(ReadingConfigError, match=rf"{setting}.*{value}"):
        ReadingConfig(**{setting: value})


def test_a_detector_side_off_the_stride_is_refused_as_the_config_is_made() -> None:
    with pytest.raises(ModelSizeError, match="650"):
        ReadingConfig(detector_side=650)
    assert ReadingConfig(detector_side=640).detector_side == 640
