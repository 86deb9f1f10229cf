"""Synthetic scenes: deterministic, labels on the glyphs, covered corners unlabelled.

Uses only the committed small deck (tests/fixtures/deck-standard): no apt needed.
"""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from cribtrain.data.cardart import CLASS_ID, CLASSES, DeckArt, check_face, load_deck
from cribtrain.data.synth import (
    Deck,
    Placement,
    Scene,
    SynthConfig,
    _affine,
    _keyboard,
    contrast_kept,
    generate,
    load_decks,
    make_scene,
    scene_rng,
)
from tests.helpers import FIXTURES
from tests.ink import assert_labels_on_ink, box_px
from vision.errors import SynthConfigError

FIXTURE = FIXTURES / "deck-standard"
CLEAN = SynthConfig(size=320, effects=False, perspective=False, board=0.0)


@pytest.fixture(scope="module")
def decks() -> list[Deck]:
    return load_decks([FIXTURE])


def _single(
    decks: list[Deck], code: str, centre: tuple[float, float], height: float, angle: float
) -> Scene:
    p = Placement(0, code, True, _affine(decks[0].size, centre, height, angle))
    return make_scene(decks, scene_rng(0, 0), CLEAN, placements=[p])


def test_fixture_deck_is_complete() -> None:
    art, faces = load_deck(FIXTURE)
    assert art.ok and set(art.boxes) == set(CLASSES) and len(faces) == 52
    assert 0.65 < art.size[0] / art.size[1] < 0.78


def test_stored_boxes_pass_face_checks() -> None:
    """The committed boxes sit in the corners, upright and glyph-sized."""
    art, faces = load_deck(FIXTURE)
    for code in CLASSES:
        assert check_face(code, faces[code], art.boxes[code]) == []


def test_deterministic_by_seed(decks: list[Deck]) -> None:
    cfg = SynthConfig(size=256)
    a = make_scene(decks, scene_rng(7, 3), cfg)
    b = make_scene(decks, scene_rng(7, 3), cfg)
    c = make_scene(decks, scene_rng(8, 3), cfg)
    assert np.array_equal(a.image, b.image) and a.labels == b.labels and a.cards == b.cards
    assert not np.array_equal(a.image, c.image)


def test_generate_writes_same_files_twice(tmp_path: Path) -> None:
    for run in ("one", "two"):
        generate(
            tmp_path / run,
            3,
            seed=5,
            deck_dirs=[FIXTURE],
            cfg=SynthConfig(size=256),
            progress=False,
        )
    names = sorted(p.name for p in (tmp_path / "one" / "labels").iterdir())
    assert len(names) == 3
    for sub in ("labels", "meta", "images"):
        for n in sorted(p.name for p in (tmp_path / "one" / sub).iterdir()):
            assert (tmp_path / "one" / sub / n).read_bytes() == (
                tmp_path / "two" / sub / n
            ).read_bytes()
    meta = json.loads(next((tmp_path / "one" / "meta").iterdir()).read_text())
    assert all(len(c["corners"]) == 4 for c in meta["cards"])
    assert (tmp_path / "one" / "classes.txt").read_text().split() == list(CLASSES)


@pytest.mark.parametrize("angle", [0.0, 0.4, math.pi / 2, 2.5, math.pi])
def test_labels_sit_on_the_glyphs(decks: list[Deck], angle: float) -> None:
    """A lone clean card: each label box is tight around ink, with paper just outside."""
    sc = _single(decks, "AD", (160, 160), 200, angle)
    assert len(sc.labels) == 2 and {lab[0] for lab in sc.labels} == {CLASS_ID["AD"]}
    assert_labels_on_ink(sc)


def test_label_matches_known_box_upright(decks: list[Deck]) -> None:
    """Without rotation the label is the stored deck box scaled to the card's placement."""
    art = DeckArt.from_json(json.loads((FIXTURE / "boxes.json").read_text()))
    w, h = art.size
    scale = 240 / h
    sc = _single(decks, "10S", (160, 160), 240, 0.0)
    x_off, y_off = 160 - w * scale / 2, 160 - h * scale / 2
    got = sorted(box_px(lab, 320) for lab in sc.labels)
    want = sorted(
        tuple(
            round(v)
            for v in (
                b[0] * scale + x_off,
                b[1] * scale + y_off,
                b[2] * scale + x_off,
                b[3] * scale + y_off,
            )
        )
        for b in art.boxes["10S"].values()
    )
    assert np.abs(np.subtract(got, want)).max() <= 3


def test_covered_corner_is_not_labelled(decks: list[Deck]) -> None:
    """A second card laid over the first card's bottom-right corner hides that index."""
    size = decks[0].size
    under = Placement(0, "5D", True, _affine(size, (140, 140), 180, 0.0))
    over = Placement(0, "KC", True, _affine(size, (210, 220), 180, 0.0))
    sc = make_scene(decks, scene_rng(0, 0), CLEAN, placements=[under, over])
    assert sc.cards[0]["labelled"] == ["tl"]
    assert sorted(sc.cards[1]["labelled"]) == ["br", "tl"]
    assert sc.cards[0]["visible"] == [1.0] and sc.cards[1]["visible"] == [1.0, 1.0]
    assert sorted(lab[0] for lab in sc.labels) == sorted(
        [CLASS_ID["5D"], CLASS_ID["KC"], CLASS_ID["KC"]]
    )


def test_a_partly_covered_index_records_the_share_left_visible(decks: list[Deck]) -> None:
    """Slid up and left, the top card covers more and more of the bottom card's lower index: it
    is labelled while over 60 % shows, and its recorded share shrinks as the top card slides."""
    size = decks[0].size
    under = Placement(0, "5D", True, _affine(size, (140, 140), 180, 0.0))
    shares = []
    for dx in range(-16, 12):
        over = Placement(0, "KC", True, _affine(size, (260 - dx, 300 - dx), 180, 0.0))
        sc = make_scene(decks, scene_rng(0, 0), CLEAN, placements=[under, over])
        card = sc.cards[0]
        assert len(card["visible"]) == len(card["labelled"])
        assert all(0.6 <= share <= 1.0 for share in card["visible"])
        if "br" in card["labelled"]:
            shares.append(card["visible"][card["labelled"].index("br")])
    partial = [share for share in shares if share < 0.99]
    assert partial, f"no partial cover among {shares}"
    assert shares == sorted(shares, reverse=True)


def test_contrast_kept_measures_the_ink_left_by_the_photo(decks: list[Deck]) -> None:
    """Darkening keeps its share of the contrast; glare that whitens the paper and the ink
    alike leaves almost none; the same pixels keep all of it."""
    sc = _single(decks, "7S", (160, 160), 200, 0.0)
    clean = sc.image.astype(np.float32)
    box = box_px(sc.labels[0], 320)
    assert contrast_kept(clean, sc.image, box) == pytest.approx(1.0)
    darker = (clean * 0.6).astype(np.uint8)
    assert contrast_kept(clean, darker, box) == pytest.approx(0.6, abs=0.02)
    glare = np.clip(clean + 230, 0, 255).astype(np.uint8)
    assert contrast_kept(clean, glare, box) < CLEAN.min_contrast


def test_an_index_washed_out_by_the_photo_is_not_labelled(
    decks: list[Deck], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Scenes with effects record each label's kept contrast; an index the effects wash out
    (here: the whole photo whitened) loses its label, and its card lists no corner."""
    size = decks[0].size
    places = [Placement(0, "QH", True, _affine(size, (160, 160), 200, 0.3))]
    cfg = SynthConfig(size=320, perspective=False, board=0.0)
    kept = make_scene(decks, scene_rng(0, 0), cfg, placements=places)
    assert len(kept.labels) == 2 and len(kept.cards[0]["contrast"]) == 2
    assert all(cfg.min_contrast <= share for share in kept.cards[0]["contrast"])
    monkeypatch.setattr(
        "cribtrain.data.synth._effects", lambda clean, rng: np.full(clean.shape, 255, np.uint8)
    )
    washed = make_scene(decks, scene_rng(0, 0), cfg, placements=places)
    assert washed.labels == []
    assert washed.cards[0]["labelled"] == washed.cards[0]["visible"] == []


def test_face_down_and_off_image_cards_unlabelled(decks: list[Deck]) -> None:
    size = decks[0].size
    down = Placement(0, "AH", False, _affine(size, (100, 160), 150, 0.0))
    gone = Placement(0, "2H", True, _affine(size, (900, 900), 150, 0.0))
    sc = make_scene(decks, scene_rng(0, 0), CLEAN, placements=[down, gone])
    assert sc.labels == []


@pytest.mark.slow  # renders whole scenes
def test_a_wider_camera_sees_the_same_table_with_larger_indices(decks: list[Deck]) -> None:
    """`seen_at(640)` is the training default; at 1280 px the indices are about twice as tall
    (a wider frame draws other layouts, so the median over a dozen scenes is compared)."""
    assert SynthConfig.seen_at(640) == SynthConfig()
    assert SynthConfig.seen_at(1280).glyph_px == (16.0, 80.0)
    flat = {"perspective": False, "effects": False}  # the same sizes, rendered faster
    configs = ((640, SynthConfig()), (1280, SynthConfig.seen_at(1280)))
    heights = [
        np.median([h * w for i in range(12) for *_, h in make_scene(decks, scene_rng(4, i),
                                                                     replace(c, **flat)).labels])
        for w, c in configs
    ]  # fmt: skip
    assert 1.6 < heights[1] / heights[0] < 2.8, heights


def test_random_scenes_have_valid_labels(decks: list[Deck]) -> None:
    total = 0
    for i in range(6):
        sc = make_scene(decks, scene_rng(11, i), SynthConfig(size=320))
        assert sc.image.shape == (320, 320, 3)
        for c, x, y, w, h in sc.labels:
            assert 0 <= c < 52
            assert 0 < w <= 1 and 0 < h <= 1
            assert x - w / 2 + 1e-6 >= 0 and x + w / 2 <= 1 + 1e-6
            assert y - h / 2 + 1e-6 >= 0 and y + h / 2 <= 1 + 1e-6
        labelled = sum(len(card["labelled"]) for card in sc.cards)
        assert labelled == len(sc.labels)
        total += len(sc.labels)
    assert total > 0


def test_keyboard_keys_print_glyphs_about_a_card_index_tall() -> None:
    """Every key of the distractor keyboard carries one dark-on-light or light-on-dark glyph,
    shorter than a card's index (16 % of the card) at the same distance."""
    import cv2

    u = 200.0  # plane px per card height
    for i in range(6):
        keys = _keyboard(scene_rng(3, i), u)
        assert keys.shape[2] == 4 and (keys[:, :, 3] == 255).all()
        grey = keys[:, :, 0].astype(np.int16)
        caps = grey == np.bincount(grey.ravel()).argmax()  # the commonest shade: key caps
        cap_shade = int(grey[caps][0])
        body = grey == grey[0, 0]  # the frame around the keys
        ink = (np.abs(grey - cap_shade) > 90) & ~body
        _, _, stats, _ = cv2.connectedComponentsWithStats(ink.astype(np.uint8))
        glyphs = stats[1:][stats[1:, cv2.CC_STAT_AREA] > 4]
        assert len(glyphs) >= 24  # at least 3 rows of 8 keys
        tallest = glyphs[:, cv2.CC_STAT_HEIGHT].max()
        assert 0.02 * u < tallest < 0.16 * u


def test_a_keyboard_lies_under_the_cards_and_is_never_labelled(decks: list[Deck]) -> None:
    """With a keyboard in every scene the picture changes, but each label still lies on a
    card's own index (inside the card's outline)."""
    import cv2

    plain = replace(CLEAN, perspective=True)
    with_keys = replace(plain, keyboard=1.0)
    for i in range(4):
        scene = make_scene(decks, scene_rng(9, i), with_keys)
        assert not np.array_equal(scene.image, make_scene(decks, scene_rng(9, i), plain).image)
        outlines = [np.float32(c["corners"]) for c in scene.cards]
        for _, x, y, _, _ in scene.labels:
            at = (x * 320, y * 320)
            assert any(cv2.pointPolygonTest(o, at, False) >= 0 for o in outlines)


def _boxes_px(labels: list[tuple[int, float, float, float, float]], w: int, h: int) -> set[tuple]:
    return {
        (c, round((x - bw / 2) * w, 1), round((y - bh / 2) * h, 1),
         round((x + bw / 2) * w, 1), round((y + bh / 2) * h, 1))
        for c, x, y, bw, bh in labels
    }  # fmt: skip


def test_a_camera_frame_is_the_middle_of_the_square_scene_with_its_labels(
    decks: list[Deck],
) -> None:
    """`frame` keeps the middle of the same scene: the same pixels, the same labels for the
    indices wholly inside, clipped ones at its edge, the cards' corners in its pixels."""
    square_cfg = SynthConfig(size=320)
    framed_cfg = replace(square_cfg, frame=(320, 180))
    x0, y0, x1, y1 = framed_cfg.window()
    assert (x0, y0, x1, y1) == (0, 70, 320, 250)
    at_edge = 0
    for i in range(4, 8):  # scene 6 and 7 have indices cut by the frame's edge
        square = make_scene(decks, scene_rng(12, i), square_cfg)
        framed = make_scene(decks, scene_rng(12, i), framed_cfg)
        assert framed.image.shape == (180, 320, 3)
        assert np.array_equal(framed.image, square.image[y0:y1, x0:x1])
        in_square = {(c, bx0 - x0, by0 - y0, bx1 - x0, by1 - y0)
                     for c, bx0, by0, bx1, by1 in _boxes_px(square.labels, 320, 320)}  # fmt: skip
        in_frame = _boxes_px(framed.labels, 320, 180)
        inside = {b for b in in_square if b[2] > 0.5 and b[4] < 179.5}
        touching = {b for b in in_frame if b[2] < 0.5 or b[4] > 179.5}
        assert {(c, *map(round, b)) for c, *b in inside} == {
            (c, *map(round, b)) for c, *b in in_frame - touching
        }
        at_edge += len(touching)
        for a, b in zip(square.cards, framed.cards, strict=True):
            assert np.allclose(np.subtract(a["corners"], [x0, y0]), b["corners"], atol=0.011)
    assert at_edge > 0  # some index was cut by the frame's edge and still labelled


def test_a_config_no_scene_can_be_drawn_with_is_refused() -> None:
    with pytest.raises(SynthConfigError, match="frame 700x100 does not fit in a 640-px scene"):
        SynthConfig(frame=(700, 100))
    with pytest.raises(SynthConfigError, match=r"keyboard -0\.1 is not a probability"):
        SynthConfig(keyboard=-0.1)
    with pytest.raises(SynthConfigError, match="board 2 is not a probability"):
        replace(SynthConfig(), board=2)


def test_cribcam_synth_writes_camera_frames(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from cribcam.cli import main

    art = tmp_path / "art"
    art.mkdir()
    (art / "standard").symlink_to(FIXTURE)
    argv = ["synth", str(tmp_path / "out"), "--count", "1", "--art", str(art)]
    assert main([*argv, "--size", "320", "--frame", "320x180", "--decks", "standard"]) == 0
    from PIL import Image

    (image,) = (tmp_path / "out" / "images").iterdir()
    assert Image.open(image).size == (320, 180)
    (meta,) = (tmp_path / "out" / "meta").iterdir()
    assert json.loads(meta.read_text())["frame"] == [320, 180]
    assert main([*argv, "--size", "320", "--frame", "400x180", "--decks", "standard"]) == 2
    assert "cribcam synth: error: frame 400x180 does not fit in a 320-px scene" in (
        capsys.readouterr().err
    )
    with pytest.raises(SystemExit):
        main([*argv, "--frame", "wide"])
    assert "'wide' is not WxH" in capsys.readouterr().err
    assert main([*argv, "--keyboard", "1.5", "--decks", "standard"]) == 2
    assert "keyboard 1.5 is not a probability" in capsys.readouterr().err
    assert main([*argv, "--decks", "standard", "nosuch"]) == 2
    assert "cribcam synth: error: no usable deck nosuch in" in capsys.readouterr().err
    assert main([*argv[:-2], "--art", str(tmp_path / "empty")]) == 2
    assert "no usable decks in" in capsys.readouterr().err
    refused = [("--count", "0", "0 is under 1"), ("--start", "-1", "-1 is under 0"),
               ("--size", "100", "100 is under 256")]  # fmt: skip
    for option, value, message in refused:
        with pytest.raises(SystemExit):
            main([*argv, option, value])
        assert message in capsys.readouterr().err
