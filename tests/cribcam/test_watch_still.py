"""`cribcam watch` on a still table filmed by a hand-held camera: nothing moved, so nothing is
laid, and no card changes its role (TABLE-MODE.md: a card present from the first frame is not
a play; a card's role changes only when the card moves)."""

from __future__ import annotations

import re
from pathlib import Path

import cv2
import pytest

from cribcam.cli import main
from cribtrain.data.clips import still_clip
from cribtrain.data.synth import load_decks
from tests.helpers import FIXTURES

HELD_OUT = FIXTURES / "deck-dondorf"
TABLE_LINE = re.compile(r"frame \d+: table: (.*)")
ROWS = {"bottom": ["5H", "9C", "KD"], "top": ["7S", "2D"]}


def test_a_still_table_lays_nothing_and_keeps_every_role(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The starter lies beside the pack, on the centre's edge: read a pixel apart, one frame's
    grouping calls it the starter, the next the bottom seat's play row."""
    deck = load_decks([HELD_OUT])[0]
    clip = still_clip(deck, ROWS, "JC", beside=(13.0, 73.0), seed=5)
    folder = tmp_path / "frames"
    folder.mkdir()
    for i, frame in enumerate(clip.frames):
        cv2.imwrite(str(folder / f"{i:04d}.png"), frame)
    assert main(["watch", str(folder), "--seats", "bottom", "top"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line for line in lines if " laid " in line] == []
    roles: dict[str, set[str]] = {}
    for line in lines:
        if (match := TABLE_LINE.fullmatch(line)) is not None:
            for entry in match[1].split(", "):
                card, role = entry.split(" ")
                roles.setdefault(card, set()).add(role)
    assert {card: seen for card, seen in roles.items() if len(seen) > 1} == {}
    assert clip.roles is not None
    assert set(roles) == {str(card) for card in clip.roles}
    for seat, cards in ROWS.items():
        assert all(roles[card] == {f"play:{seat}"} for card in cards)
