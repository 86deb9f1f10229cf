"""Card art: per-card verdicts, the corner-index finder, deck folders.

Uses only committed fixtures (tests/fixtures): no apt, npm or rsvg-convert needed.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from cribtrain.data.cardart import (
    CLASSES,
    MIN_CARDS,
    NPM_DECKS,
    DeckArt,
    _stacked,
    card_of,
    check_face,
    find_deck_boxes,
    index_boxes,
    iter_deck_dirs,
    judge_cards,
    load_deck,
    mirrored_box,
    mirrored_corners,
    render_all,
)
from tests.helpers import FIXTURES
from vision.errors import CardArtError

FIX = FIXTURES
FACES = FIX / "cardart"
DECK = FIX / "deck-standard"
FOUR_INDEX_DECK = FIX / "deck-dondorf"


def _face(name: str) -> np.ndarray:
    return np.asarray(Image.open(FACES / f"{name}.png").convert("RGBA"))


def _inside(inner: tuple[int, int, int, int], outer: tuple[int, int, int, int]) -> bool:
    return (
        inner[0] >= outer[0]
        and inner[1] >= outer[1]
        and inner[2] <= outer[2]
        and inner[3] <= outer[3]
    )


# ----------------------------------------------------------------------------- verdicts


def test_card_of_reads_the_code() -> None:
    assert card_of("10H/br: index size 1x2") == "10H"
    assert card_of("QS: no index found") == "QS"
    assert card_of("some faces render empty") is None
    assert card_of("landscape faces 400x300") is None


def _all_boxes() -> dict[str, dict[str, tuple[int, int, int, int]]]:
    return {c: {"tl": (1, 1, 9, 20), "br": (40, 60, 48, 79)} for c in CLASSES}


def test_failing_cards_are_listed_and_the_rest_usable() -> None:
    boxes = _all_boxes()
    del boxes["QS"]
    probs = ["10H/br: index size 1x2", "10H/tl: index not upright", "AC: aspect 1.36"]
    cards, deck_probs, ok, usable = judge_cards(probs, boxes)
    assert not ok and usable and deck_probs == []
    failed = sorted(c for c, v in cards.items() if not v["ok"])
    assert failed == sorted(["10H", "AC", "QS"])
    assert cards["10H"]["problems"] == probs[:2]
    assert cards["QS"]["problems"] == ["QS: no index found"]
    assert cards["KD"] == {"ok": True, "problems": []}


def test_deck_problem_or_too_few_cards_make_it_unusable() -> None:
    _, deck_probs, ok, usable = judge_cards(["landscape faces 400x300"], _all_boxes())
    assert deck_probs == ["landscape faces 400x300"] and not ok and not usable
    bad = [f"{c}: no index found" for c in CLASSES[: 52 - MIN_CARDS + 1]]
    _, _, ok, usable = judge_cards(bad, _all_boxes())
    assert not ok and not usable
    _, _, ok, usable = judge_cards(bad[:-1], _all_boxes())
    assert usable


def test_all_pass_is_ok_and_exclusions_fail_cards() -> None:
    cards, _, ok, usable = judge_cards([], _all_boxes())
    assert ok and usable and all(v["ok"] for v in cards.values())
    cards, _, ok, usable = judge_cards([], _all_boxes(), exclude={"JH": "letter B"})
    assert not ok and usable and not cards["JH"]["ok"]
    assert "letter B" in cards["JH"]["problems"][0]


def test_deckart_roundtrip_and_per_card_view() -> None:
    cards, probs, ok, usable = judge_cards(["7D: no index found"], _all_boxes())
    boxes = _all_boxes()
    art = DeckArt("x", (50, 80), boxes, ok, probs, [], cards, usable, {"licence": "CC0-1.0"})
    back = DeckArt.from_json(json.loads(json.dumps(art.to_json())))
    assert back.failed == ["7D"] and len(back.ok_codes) == 51
    assert back.usable and not back.ok and back.meta["licence"] == "CC0-1.0"
    assert back.to_json()["n_ok"] == 51


def test_old_boxes_json_reads_as_before() -> None:
    data = json.loads((DECK / "boxes.json").read_text())
    data.pop("cards", None)
    data.pop("usable", None)
    art = DeckArt.from_json(data)
    assert art.usable == art.ok
    assert art.ok_codes == (list(CLASSES) if art.ok else [])


# ----------------------------------------------------------------------------- deck folders


def _partial_copy(tmp_path: Path) -> Path:
    d = tmp_path / "partial"
    shutil.copytree(DECK, d)
    data = json.loads((d / "boxes.json").read_text())
    cards, probs, ok, usable = judge_cards(
        ["2C: no index found", "KH/tl: index size 1x1"], data["boxes"]
    )
    data.update(ok=ok, usable=usable, cards=cards, problems=probs)
    (d / "boxes.json").write_text(json.dumps(data))
    return d


def test_load_deck_only_ok_leaves_failing_cards_out(tmp_path: Path) -> None:
    d = _partial_copy(tmp_path)
    art, faces = load_deck(d)
    assert len(faces) == 52  # backward compatible default
    art, faces = load_deck(d, only_ok=True)
    assert set(faces) == set(CLASSES) - {"2C", "KH"}
    assert all(c in art.boxes for c in faces)


def test_iter_deck_dirs_partial(tmp_path: Path) -> None:
    _partial_copy(tmp_path)
    assert list(iter_deck_dirs(tmp_path)) == []
    assert [p.name for p in iter_deck_dirs(tmp_path, partial=True)] == ["partial"]
    assert [p.name for p in iter_deck_dirs(tmp_path, only_ok=False)] == ["partial"]


# ----------------------------------------------------------------------------- box finder


@pytest.mark.parametrize(
    ("name", "code", "tl_core"),
    [
        # core: a region the top-left box must cover (rank + pip of the art)
        ("standard-10H", "10H", (14, 18, 40, 95)),
        ("konqi-modern-10C", "10C", (8, 16, 55, 100)),  # index printed at the very edge
        ("npm-heruka-2color-bf-KS", "KS", (14, 16, 54, 140)),  # big index
    ],
)
def test_finder_boxes_rank_and_pip(
    name: str, code: str, tl_core: tuple[int, int, int, int]
) -> None:
    face = _face(name)
    boxes = index_boxes(face, code)
    assert boxes is not None
    assert check_face(code, face, boxes) == []
    assert _inside(tl_core, boxes["tl"])
    h, w = face.shape[:2]
    _, _, x1, y1 = boxes["br"]
    assert x1 > 0.75 * w and y1 > 0.85 * h  # bottom-right copy found on the turned face
    assert _stacked(face, boxes["tl"]) and _stacked(face, boxes["br"])


def test_rank_alone_is_rejected() -> None:
    face = _face("standard-10H")
    boxes = index_boxes(face, "10H")
    assert boxes is not None
    x0, y0, x1, y1 = boxes["tl"]
    rank_only = {"tl": (x0, y0, x1, y0 + int(0.45 * (y1 - y0))), "br": boxes["br"]}
    probs = check_face("10H", face, rank_only)
    assert any("rank above pip" in p or "index size" in p for p in probs)


def test_big_index_found_through_its_pip() -> None:
    # nicu-white's A and club are 37% of the card tall together: the box holds both
    face = _face("nicu-white-AC")
    boxes = index_boxes(face, "AC")
    assert boxes is not None
    h = face.shape[0]
    assert boxes["tl"][3] - boxes["tl"][1] > 0.3 * h
    assert _stacked(face, boxes["tl"])


@pytest.mark.parametrize("usual_place", [False, True])
def test_index_touching_the_frame_takes_the_usual_place(usual_place: bool) -> None:
    # a frame line touching the rank (as on the penguins deck's aces and queens) makes the
    # finder box part of the index; checked-by-eye decks take the deck's usual index place
    _, faces = load_deck(DECK)
    x0 = index_boxes(faces["5H"], "5H")["tl"][0]  # type: ignore[index]
    framed = faces["5H"].copy()
    framed[:, : x0 + 1, :3] = 0
    boxes, probs = find_deck_boxes({**faces, "5H": framed}, usual_place)
    usual = np.median([b["tl"] for code, b in boxes.items() if code != "5H"], axis=0)
    mine = [p for p in probs if p.startswith("5H/tl")]
    if usual_place:
        assert mine == [] and np.abs(np.subtract(boxes["5H"]["tl"], usual)).max() <= 1
        assert _stacked(framed, boxes["5H"]["tl"])
    else:
        assert any("rank above pip" in p for p in mine)


def test_npm_specs_cover_the_deck() -> None:
    names = [d.name for d in NPM_DECKS]
    assert len(names) == len(set(names))
    for spec in NPM_DECKS:
        assert set(spec.faces) == set(CLASSES)
        assert len(set(spec.faces.values())) == 52
        assert spec.licence
    heruka = next(d for d in NPM_DECKS if d.name == "npm-heruka-4color")
    assert heruka.faces["10D"].endswith("/TD.svg")
    you = next(d for d in NPM_DECKS if d.name == "npm-younestouati")
    assert you.faces["QH"] == "cards/12h.svg"


@pytest.mark.parametrize(("deck", "four"), [(FOUR_INDEX_DECK, True), (DECK, False)])
def test_a_four_index_deck_gets_its_other_two_indices(deck: Path, four: bool) -> None:
    """Dondorf prints an index in every corner: tr and bl are tl and br mirrored, with the same
    glyphs there; a two-index deck's cards keep two, even a court card whose picture mirrors
    its own index (the small standard deck's QC)."""
    art, faces = load_deck(deck)
    pairs = {code: {k: art.boxes[code][k] for k in ("tl", "br")} for code in faces}
    boxes, _ = find_deck_boxes(faces)
    w = next(iter(faces.values())).shape[1]
    for code, found in boxes.items():
        assert set(found) == ({"tl", "br", "tr", "bl"} if four else {"tl", "br"}), code
        for source, target in (("tl", "tr"), ("br", "bl")):
            if four:  # within a few pixels of the mirrored box
                assert np.abs(np.subtract(found[target], mirrored_box(found[source], w))).max() <= 3
    assert sum(bool(mirrored_corners(faces[c], pairs[c])) for c in faces) == (52 if four else 1)


def test_a_mirrored_box_is_no_index_where_the_ink_differs() -> None:
    _, faces = load_deck(FOUR_INDEX_DECK)
    face = faces["7S"].copy()
    boxes = find_deck_boxes({"7S": face})[0]["7S"]
    x0, y0, x1, y1 = boxes["tr"]
    face[y0:y1, x0:x1, :3] = 255  # the top-right index wiped
    assert set(mirrored_corners(face, {k: boxes[k] for k in ("tl", "br")})) == {"bl"}


def test_rendering_refuses_an_unknown_deck_and_a_face_too_small(tmp_path: Path) -> None:
    """Both are refused before anything is rendered or written (no rsvg-convert needed)."""
    with pytest.raises(CardArtError, match="no deck named nosuch; the decks known here: npm-"):
        render_all(tmp_path / "art", ["nosuch", "npm-letele"], source=tmp_path)
    with pytest.raises(CardArtError, match="face height 40 px is too small"):
        render_all(tmp_path / "art", height=40, source=tmp_path)
    assert not (tmp_path / "art").exists()
