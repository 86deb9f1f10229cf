"""`cribcam detect` on photos: text and JSON lines, drawn cards, roles, and a bad photo among
good ones named without losing the others."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from cribcam.cli import main
from tests.samples import SAMPLES, cut_through, labelled_cards
from vision.table.sources import read_image

PHOTOS = [SAMPLES / "images" / name for name in ("dev_0594.jpg", "dev_0075.jpg")]


@pytest.fixture
def garbage(tmp_path: Path) -> Path:
    path = tmp_path / "garbage.jpg"
    path.write_bytes(bytes(range(256)))
    return path


@pytest.mark.slow  # reads whole frames through the shipped models
def test_json_lines_name_a_bad_photo_and_read_the_rest(
    garbage: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["detect", "--json", str(PHOTOS[0]), str(garbage), str(PHOTOS[1])]) == 2
    out, err = capsys.readouterr()
    first, bad, last = (json.loads(line) for line in out.splitlines())
    assert bad == {"image": str(garbage), "error": bad["error"]}
    assert "not a decodable image" in bad["error"] and str(garbage) in err
    for answer, photo in ((first, PHOTOS[0]), (last, PHOTOS[1])):
        assert answer["image"] == str(photo)
        read = {card["card"] for card in answer["cards"]}
        assert read and read <= labelled_cards(photo.name, 640, 640)
        assert answer["small_indices"] is False and answer["cut_at_edge"] is False


@pytest.mark.slow  # reads whole frames through the shipped models
def test_text_lines_say_when_a_card_cut_by_the_edge_was_not_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    frame, card = cut_through(PHOTOS[0].name, 5)  # a 5D's index, a reading set aside there
    assert card == "5D"
    cut = tmp_path / "cut.png"  # lossless: the pixels the reader sees
    cv2.imwrite(str(cut), frame)
    assert main(["detect", str(PHOTOS[0]), str(cut)]) == 0
    whole, cut_line = capsys.readouterr().out.splitlines()
    assert whole.startswith(f"{PHOTOS[0]}: ") and "cut by the picture's edge" not in whole
    assert cut_line.startswith(f"{cut}: ") and "5D" not in cut_line.split("(")[0]
    assert cut_line.endswith("; a card cut by the picture's edge was not read")


@pytest.mark.slow  # reads whole frames through the shipped models
def test_one_look_reads_a_large_table_once(capsys: pytest.CaptureFixture[str]) -> None:
    """`--one-look` turns the closer and the far look off: a 1280-px table with small indices
    reads fewer of its cards."""
    table = SAMPLES / "images" / "syn1280_77_000067.jpg"
    truth = labelled_cards(table.name, 1280, 1280)
    read = []
    for flags in ([], ["--one-look"]):
        assert main(["detect", "--json", *flags, str(table)]) == 0
        read.append({card["card"] for card in json.loads(capsys.readouterr().out)["cards"]})
    assert len(read[0] & truth) > len(read[1] & truth)


def test_annotate_draws_the_cards_read_and_seats_add_roles(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "drawn"
    argv = ["detect", str(PHOTOS[1]), "--json", "--annotate", str(out), "--seats", "bottom", "top"]
    assert main(argv) == 0
    answer = json.loads(capsys.readouterr().out)
    undecided = {card["card"] for card in answer["cards"] if card["role"] == "undecided"}
    grouped = [card for group in answer["undecided"] for card in group["cards"]]
    assert undecided and sorted(undecided) == sorted(grouped)  # each said why, once
    assert all(group["reason"] for group in answer["undecided"])
    drawn = read_image(out / "dev_0075.jpg")
    photo = read_image(PHOTOS[1])
    assert drawn.shape == photo.shape
    changed = np.abs(drawn.astype(int) - photo.astype(int)).max(axis=2) > 60
    x1, y1, x2, _ = (int(v) for v in answer["cards"][0]["box"])
    assert changed[y1 - 1 : y1 + 2, x1:x2].mean() > 0.5  # the card's box is drawn


def test_a_file_where_an_output_folder_should_be_is_refused_before_any_reading(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    in_the_way = tmp_path / "report.txt"
    in_the_way.write_text("not a folder")
    for argv in (["detect", str(PHOTOS[0]), "--annotate"], ["eval", str(SAMPLES), "--out"]):
        with pytest.raises(SystemExit):
            main([*argv, str(in_the_way)])
        assert f"{in_the_way} is a file, not a folder" in capsys.readouterr().err
    assert in_the_way.read_text() == "not a folder"
    with pytest.raises(SystemExit):
        main(["watch", str(PHOTOS[0]), "--frames", "0"])
    assert "--frames: 0 is under 1" in capsys.readouterr().err


def test_a_path_that_cannot_be_written_is_an_error_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Writing under a file fails in the operating system; the command names the path."""
    (tmp_path / "file").write_text("")
    assert main(["fontdecks", str(tmp_path / "file"), "--count", "1"]) == 2
    assert f"cribcam fontdecks: error: [Errno 20] Not a directory: '{tmp_path}/file" in (
        capsys.readouterr().err
    )
