"""Procedural font decks: the deck folder format, exact index boxes, scenes drawn from them.

Needs only the fonts every install has (matplotlib's bundled DejaVu), no apt packages.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from cribcam.cli import main
from cribtrain.data.cardart import CLASS_ID, CLASSES, DeckArt, _ink_mask, check_face, load_deck
from cribtrain.data.deck_fonts import fallback_font_dir, font_ok, usable_fonts
from cribtrain.data.fontdecks import check_generated, deck_seed, make_font_deck, make_font_decks
from cribtrain.data.synth import (
    Deck,
    Placement,
    Scene,
    SynthConfig,
    _affine,
    load_decks,
    make_scene,
    scene_rng,
)
from tests.ink import assert_labels_on_ink, ink
from vision.errors import FontDeckError, VisionError

CLEAN = SynthConfig(size=320, effects=False, perspective=False, board=0.0)
SMALL = 120  # face height for the tests that only need the files, not full-size faces


@pytest.fixture(scope="module")
def fonts() -> list[Path]:
    return usable_fonts()


@pytest.fixture(scope="module")
def two_corner(tmp_path_factory: pytest.TempPathFactory, fonts: list[Path]) -> Path:
    out = tmp_path_factory.mktemp("decks") / "font-two"
    make_font_deck(out, deck_seed(0, 1), fonts, four_corners=False)
    return out


@pytest.fixture(scope="module")
def four_corner(tmp_path_factory: pytest.TempPathFactory, fonts: list[Path]) -> Path:
    out = tmp_path_factory.mktemp("decks") / "font-four"
    make_font_deck(out, deck_seed(0, 2), fonts, height=250, four_corners=True)
    return out


# ----------------------------------------------------------------------------- fonts


def test_fonts_found_and_checked(fonts: list[Path]) -> None:
    """The list always holds matplotlib's DejaVu fonts; a font lacking digits is refused."""
    names = {f.name for f in fonts}
    assert "DejaVuSans.ttf" in names and "DejaVuSerif-Bold.ttf" in names
    mpl = fallback_font_dir()
    assert mpl is not None
    assert not font_ok(str(mpl / "DejaVuSansDisplay.ttf"))  # no digits in this cut
    assert not font_ok(str(mpl / "no-such-font.ttf"))


# ----------------------------------------------------------------------------- deck files


def test_deck_has_52_card_faces_with_boxes(two_corner: Path) -> None:
    art, faces = load_deck(two_corner)
    assert art.ok and art.usable and art.name == "font-two"
    assert sorted(faces) == sorted(CLASSES) and set(art.boxes) == set(CLASSES)
    assert art.backs == ["back.png"] and (two_corner / "back.png").exists()
    w, h = art.size
    assert h == 350 and w in (225, 250)
    for code, face in faces.items():
        assert face.shape == (h, w, 4)
        assert face[0, 0, 3] == 0 and face[h // 2, w // 2, 3] == 255  # rounded, filled
        assert set(art.boxes[code]) == {"tl", "br"}
        assert check_face(code, face, art.boxes[code]) == []
    stored = json.loads((two_corner / "boxes.json").read_text())
    assert stored["meta"]["format"] == "fontdeck" and stored["n_ok"] == 52


def test_boxes_tight_around_the_indexink(two_corner: Path, four_corner: Path) -> None:
    """Ink reaches every side of each box (exactly, by the scene generator's ink test; within
    a pixel by a stricter one); a ring just outside it is paper."""
    for deck in (two_corner, four_corner):
        art, faces = load_deck(deck)
        for code, face in faces.items():
            inked = ink(face[:, :, :3]) & (face[:, :, 3] == 255)
            same = _ink_mask(face)  # the test the scene generator measures hulls with
            for key, (x0, y0, x1, y1) in art.boxes[code].items():
                box = inked[y0:y1, x0:x1]
                assert box.mean() > 0.12, (code, key)
                assert box[:2].any() and box[-2:].any() and box[:, :2].any() and box[:, -2:].any()
                m = same[y0:y1, x0:x1]
                assert m[0].any() and m[-1].any() and m[:, 0].any() and m[:, -1].any()
                ring = np.zeros_like(inked)
                ring[y0 - 3 : y1 + 3, x0 - 3 : x1 + 3] = True
                ring[y0:y1, x0:x1] = False
                assert not inked[ring].any(), (code, key)


def test_index_sits_where_the_index_is_drawn(two_corner: Path) -> None:
    """The bottom-right index is the top-left one turned 180 degrees, pixel for pixel."""
    art, faces = load_deck(two_corner)
    h, w = art.size[1], art.size[0]
    for code in ("AS", "10H", "QD", "7C"):
        tl, br = art.boxes[code]["tl"], art.boxes[code]["br"]
        assert br == (w - tl[2], h - tl[3], w - tl[0], h - tl[1])
        turned = faces[code][::-1, ::-1]
        a = faces[code][tl[1] : tl[3], tl[0] : tl[2], :3].astype(int)
        b = turned[tl[1] : tl[3], tl[0] : tl[2], :3].astype(int)
        assert np.abs(a - b).max() <= 2


def test_deterministic_by_seed(tmp_path: Path, fonts: list[Path]) -> None:
    for run in ("one", "two"):
        make_font_deck(tmp_path / run / "deck", 42, fonts, height=SMALL)
    make_font_deck(tmp_path / "other" / "deck", 43, fonts, height=SMALL)
    files = sorted(p.name for p in (tmp_path / "one" / "deck").iterdir())
    assert len(files) == 54  # 52 faces, back, boxes.json
    for name in files:
        one = (tmp_path / "one" / "deck" / name).read_bytes()
        assert one == (tmp_path / "two" / "deck" / name).read_bytes(), name
    other = (tmp_path / "other" / "deck" / "boxes.json").read_text()
    assert other != (tmp_path / "one" / "deck" / "boxes.json").read_text()
    assert deck_seed(0, 1) == deck_seed(0, 1) != deck_seed(0, 2) != deck_seed(1, 1)


def test_four_corner_deck(four_corner: Path) -> None:
    """Four indices: top ones upright and mirrored in place, bottom ones the top turned."""
    art, faces = load_deck(four_corner)
    assert art.ok
    w, h = art.size
    for code, face in faces.items():
        b = art.boxes[code]
        assert set(b) == {"tl", "tr", "bl", "br"}
        assert check_generated(code, face, b) == []
        tl, tr = b["tl"], b["tr"]
        assert tr[1] == tl[1] and tr[3] == tl[3] and abs((w - tr[2]) - tl[0]) <= 1
        assert b["bl"] == (w - tr[2], h - tr[3], w - tr[0], h - tr[1])
        assert b["br"] == (w - tl[2], h - tl[3], w - tl[0], h - tl[1])
    # the checks see a broken corner: a top-right box around paper only
    code = "9S"
    bad = {**art.boxes[code], "tr": (w // 2, 5, w // 2 + 20, 60)}
    assert any(p.startswith("9S/tr:") for p in check_generated(code, faces[code], bad))
    deck = load_decks([four_corner])[0]
    assert all(set(deck.hulls[c]) == {"tl", "tr", "bl", "br"} for c in CLASSES)


# ----------------------------------------------------------------------------- scenes


@pytest.fixture(scope="module")
def decks(two_corner: Path, four_corner: Path) -> list[Deck]:
    return load_decks([two_corner, four_corner])


def _single(decks: list[Deck], k: int, code: str, angle: float) -> Scene:
    p = Placement(k, code, True, _affine(decks[k].size, (160, 160), 210, angle))
    return make_scene(decks, scene_rng(0, 0), CLEAN, placements=[p])


@pytest.mark.parametrize(("k", "code", "angle"), [(0, "10D", 0.0), (0, "QS", 0.7), (1, "7H", 2.5)])
def test_scene_labels_sit_on_the_glyphs(decks: list[Deck], k: int, code: str, angle: float) -> None:
    """A lone clean card from a generated deck: each label box is tight around index ink."""
    sc = _single(decks, k, code, angle)
    assert len(sc.labels) == (2, 4)[k] and {lab[0] for lab in sc.labels} == {CLASS_ID[code]}
    assert_labels_on_ink(sc, min_ink=0.12)


def test_random_scenes_from_generated_decks(decks: list[Deck]) -> None:
    total = 0
    for i in range(3):
        sc = make_scene(decks, scene_rng(5, i), SynthConfig(size=320))
        assert sc.image.shape == (320, 320, 3)
        for c, x, y, w, h in sc.labels:
            assert 0 <= c < 52 and 0 < w <= 1 and 0 < h <= 1
            assert x - w / 2 > -1e-6 and x + w / 2 < 1 + 1e-6
            assert y - h / 2 > -1e-6 and y + h / 2 < 1 + 1e-6
        assert sum(len(card["labelled"]) for card in sc.cards) == len(sc.labels)
        total += len(sc.labels)
    assert total > 0


# ----------------------------------------------------------------------------- input, CLI


def test_bad_input_is_a_vision_error(tmp_path: Path) -> None:
    with pytest.raises(FontDeckError, match=r"\b0\b"):
        make_font_decks(tmp_path / "out", 0, seed=1)
    not_a_font = tmp_path / "notes.ttf"
    not_a_font.write_text("not a font")
    with pytest.raises(VisionError, match=r"notes\.ttf"):
        make_font_deck(tmp_path / "deck", 1, [not_a_font])
    with pytest.raises(FontDeckError, match="none"):
        make_font_deck(tmp_path / "deck", 1, [])
    with pytest.raises(FontDeckError, match="40"):
        make_font_deck(tmp_path / "deck", 1, usable_fonts()[:1], height=40)
    assert not (tmp_path / "out").exists() and not (tmp_path / "deck").exists()


def test_cli_writes_numbered_decks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "fd"
    assert main(["fontdecks", str(out), "--count", "2", "--seed", "3", "--height", "120"]) == 0
    assert sorted(p.name for p in out.iterdir()) == ["font-000", "font-001", "index.json"]
    art = DeckArt.from_json(json.loads((out / "font-001" / "boxes.json").read_text()))
    assert art.name == "font-001" and art.meta["style"]["seed"] == deck_seed(3, 1)
    assert art.size[1] == 120
    assert Image.open(out / "font-000" / "KH.png").mode == "RGBA"
    assert main(["fontdecks", str(tmp_path / "none"), "--count", "0"]) == 2
    assert "at least 1, got 0" in capsys.readouterr().err
