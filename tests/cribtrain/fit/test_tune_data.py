"""Training crops for a deck tune: the camera's ways of seeing a confirmed index."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from cribtrain.fit.tune_data import (
    FIXTURE_DECK,
    GREY_SHARE,
    covered_patch,
    far_card_side,
    fill_every_class,
    load_deck_faces,
    none_crops,
    photometric,
    write_class_tree,
)
from vision.decks.enroll import PATCH_PX, PATCH_SPAN, READ_PX
from vision.detection.detections import CLASS_NAMES
from vision.detection.reader_classes import NOT_AN_INDEX


def is_grey(crop: np.ndarray) -> bool:
    """Grey up to the sensor noise added after it."""
    channels = crop.astype(np.int16)
    return bool(np.abs(channels[..., 0] - channels[..., 2]).mean() < 6)


def test_about_a_quarter_of_the_crops_are_grey_and_red_ink_stays_darker_than_the_face() -> None:
    """Game scenes come grey about a quarter of the time (where a suit is told by its shape);
    a grey crop keeps the luminance, so red ink on white is still a darker mark."""
    crop = np.full((64, 64, 3), 235, np.uint8)
    crop[24:40, 24:40] = (40, 40, 200)  # red ink (BGR)
    rng = np.random.default_rng(0)
    crops = [photometric(crop, rng) for _ in range(400)]
    grey = [c for c in crops if is_grey(c)]
    assert abs(len(grey) / len(crops) - GREY_SHARE) < 0.07
    for c in grey:
        assert c[28:36, 28:36].mean() < c[2:10, 2:10].mean() - 30
    assert any(c[32, 32, 2] > c[32, 32, 0] + 60 for c in crops if not is_grey(c))


def test_far_cards_are_shrunk_as_often_to_small_glyphs_as_to_large_ones() -> None:
    """A whole table at 640 px shows most indices under 24 px: a tune that rarely saw a crop
    that small read them worse than the base reader, so half the far cards are shrunk under
    three eighths of the crop (a glyph under about 16 px), and none under 8 px."""
    rng = np.random.default_rng(3)
    sides = np.array([far_card_side(READ_PX, rng) for _ in range(4000)])
    assert sides.min() >= 8 and sides.max() < READ_PX
    assert 0.4 < np.mean(sides <= READ_PX * 3 / 8) < 0.6
    assert np.mean(sides <= READ_PX / 4) > 0.2
    assert np.mean(sides >= READ_PX * 3 / 4) > 0.05


def test_none_crops_fill_a_class_folder_of_their_own(tmp_path: Path) -> None:
    """A tune of a reader with a "not an index" class needs crops of that class (index-sized
    cuts of a face's middle); they go in a folder beside the 52 cards'."""
    rng = np.random.default_rng(1)
    crops = none_crops(load_deck_faces([FIXTURE_DECK]), 12, rng)
    assert len(crops) == 12
    assert all(crop.shape == (READ_PX, READ_PX, 3) for crop in crops)
    assert none_crops([], 5, rng) == []
    written = write_class_tree(tmp_path, {NOT_AN_INDEX: crops}, "none")
    assert written == 12 and len(list((tmp_path / NOT_AN_INDEX).iterdir())) == 12
    assert {p.name for p in tmp_path.iterdir()} == {*CLASS_NAMES, NOT_AN_INDEX}


def test_the_validation_tree_gets_one_crop_of_each_class_it_lacks(tmp_path: Path) -> None:
    """Ultralytics wants every training class in the validation tree; the held-back patches
    cover only some cards, so a training crop stands in for the others, and none is doubled."""
    crop = np.full((8, 8, 3), 200, np.uint8)
    write_class_tree(tmp_path / "train", {"5H": [crop, crop], "QS": [crop], NOT_AN_INDEX: [crop]},
                     "own")  # fmt: skip
    write_class_tree(tmp_path / "val", {"QS": [crop]}, "held")
    assert fill_every_class(tmp_path / "train", tmp_path / "val") == 2
    in_val = sorted(p.parent.name for p in (tmp_path / "val").rglob("*.jpg"))
    assert in_val == sorted(["5H", "QS", NOT_AN_INDEX])
    assert fill_every_class(tmp_path / "train", tmp_path / "val") == 0


def test_a_covered_patch_hides_up_to_a_third_of_the_index_and_never_its_centre() -> None:
    """A card lying over the index (a fan, a stack) covers beyond a straight edge: at most about
    a third of the index's square, never its middle, sometimes only the margin around it."""
    patch = np.zeros((PATCH_PX, PATCH_PX, 3), np.uint8)
    cover = np.full((PATCH_PX, PATCH_PX, 3), 255, np.uint8)
    rng = np.random.default_rng(5)
    half = PATCH_PX / PATCH_SPAN / 2
    inner = slice(round(PATCH_PX / 2 - half), round(PATCH_PX / 2 + half))
    shares, margins = [], []
    for _ in range(300):
        out = covered_patch(patch, cover, rng)
        assert out.shape == patch.shape and (out[PATCH_PX // 2, PATCH_PX // 2] == 0).all()
        covered = out[..., 0] > 127
        shares.append(covered[inner, inner].mean())
        margins.append(covered.mean())
    shares_ = np.array(shares)
    assert shares_.max() <= 0.36 and (shares_ > 0.15).any()
    assert (shares_ == 0).mean() > 0.2 and (np.array(margins)[shares_ == 0] > 0.05).all()
