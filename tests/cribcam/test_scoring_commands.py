from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from cribcam.cli import main
from cribcam.commands.scoring import answer_lines
from scorer.json_api import peg_request, score_request


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_score_prints_breakdown(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "score", "5H", "5D", "5S", "JC", "--starter", "5C")
    assert code == 0
    assert "29" in out.splitlines()[0] and "his nobs JC+5C for 1" in out


def test_score_json_has_items_and_spoken(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "score", "7H", "8C", "8D", "AS", "--starter", "KD", "--json")
    data = json.loads(out)
    assert code == 0 and data["total"] == 6
    assert data["spoken"] == "fifteen two, fifteen four, and a pair is six"
    assert [item["cards"] for item in data["items"]][-1] == ["8C", "8D"]


def test_score_error_goes_to_stderr_with_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, "score", "5H", "5H", "5S", "JC", "--starter", "5C")
    assert code == 2 and out == "" and "5H appears twice" in err


def test_score_jsonl_answers_each_line_in_order() -> None:
    lines = [
        {"hand": ["5H", "5D", "5S", "JC"], "starter": "5C", "crib": False},
        {"hand": ["2H", "4H", "6H", "8H"], "starter": "KD", "crib": True},
        {"hand": ["1X", "2H", "3H", "4H"], "starter": "KD"},
        {"hand": ["2H", "4H", "6H", "8H"], "starter": "KD"},
    ]
    source = io.StringIO("\n".join(json.dumps(x) for x in lines) + "\nnot json\n")
    sink = io.StringIO()
    answer_lines(source, sink, score_request)
    answers = [json.loads(line) for line in sink.getvalue().splitlines()]
    assert answers[0] == {
        "total": 29,
        "breakdown": {"fifteens": 16, "pairs": 12, "runs": 0, "flush": 0, "nobs": 1},
    }
    nothing = dict.fromkeys(["fifteens", "pairs", "runs", "flush", "nobs"], 0)
    assert answers[1] == {"total": 0, "breakdown": nothing}
    assert answers[2] == {"error": "'1X' is not a card"}
    assert answers[3]["breakdown"]["flush"] == 4
    assert "not valid JSON" in answers[4]["error"]
    assert len(answers) == 5


@pytest.mark.parametrize(
    "request_",
    [[], {"hand": "5H 5D", "starter": "5C"}, {"hand": ["5H"], "starter": 5},
     {"hand": ["5H", "5D", "5S", "JC"], "starter": "5C", "crib": "yes"},
     {"hand": ["5H", "5D", "5S", "JC"], "starter": "5C", "extra": 1}],
)  # fmt: skip
def test_score_request_rejects_malformed_objects(request_: object) -> None:
    sink = io.StringIO()
    answer_lines(io.StringIO(json.dumps(request_) + "\n"), sink, score_request)
    assert "error" in json.loads(sink.getvalue())


PEG_LINE = {
    "players": 2,
    "dealer": 1,
    "hands": [["5D", "KH", "4C", "6S"], ["10C", "5S", "9H", "AD"]],
    "plays": [[0, "5D"], [1, "10C"], [0, "KH"], [1, "5S"], [1, "AD"], [0, "4C"], [1, "9H"],
              [0, "6S"]],
}  # fmt: skip


def test_peg_request_reports_points_totals_and_events() -> None:
    answer = peg_request(PEG_LINE)
    assert answer["plays"] == [0, 2, 0, 0, 2, 0, 0, 0]
    assert answer["totals"] == [1, 4]
    assert [e["action"] for e in answer["events"]].count("go") == 1
    assert answer["events"][-1]["action"] == "last card"


def test_peg_jsonl_error_names_the_play_and_the_rest_continue() -> None:
    bad = dict(PEG_LINE, plays=[[0, "5D"], [0, "KH"]])
    sink = io.StringIO()
    answer_lines(io.StringIO(json.dumps(bad) + "\n" + json.dumps(PEG_LINE) + "\n"), sink,
                 peg_request)  # fmt: skip
    first, second = (json.loads(line) for line in sink.getvalue().splitlines())
    assert "play 2" in first["error"] and "seat 1's turn" in first["error"]
    assert second["totals"] == [1, 4]


def test_console_script_runs_as_a_module(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "cribcam", "score", "--jsonl"],
        input='{"hand": ["7H", "7D", "8S", "9C"], "starter": "8C"}\n',
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    assert json.loads(result.stdout)["total"] == 24


@pytest.mark.slow  # draws a plot with matplotlib
def test_stats_json_and_plot(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    plot = tmp_path / "hands.png"
    code, out, _ = run_cli(capsys, "stats", "--json", "--plot", str(plot))
    data = json.loads(out)
    assert code == 0
    assert data["count"] == 12_994_800 and data["histogram"]["0"] == 1_009_008
    assert abs(data["mean"] - 4.769) < 0.0005
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_help_lists_the_subcommands(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    for command in ("score", "peg", "stats"):
        assert command in out


def test_replay_prints_events_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    example = str(Path(__file__).parent.parent / "data" / "game_two_players.json")
    code, out, _ = run_cli(capsys, "replay", example)
    assert code == 0 and "muggins +2" in out and out.strip().endswith("not finished: 40-20")
    code, out, _ = run_cli(capsys, "replay", example, "--json")
    report = json.loads(out)
    assert report["scores"] == [40, 20] and report["events"][-1]["scores"] == [40, 20]


def test_replay_of_a_bad_file_is_a_clean_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"first_dealer": 0, "deals": [{"hands": [["5H"], ["5H"]]}]}')
    code, out, err = run_cli(capsys, "replay", str(bad))
    assert code == 2 and out == "" and err.startswith("cribcam replay: error: deal 1:")
    code, _, err = run_cli(capsys, "replay", str(tmp_path / "missing.json"))
    assert code == 2 and "cannot read" in err


def test_replay_shows_a_muggins_call_after_the_win_as_moot(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from tests.scorer.test_replay import MOOT_CALLS

    recorded = tmp_path / "moot.json"
    recorded.write_text(json.dumps(MOOT_CALLS))
    code, out, err = run_cli(capsys, "replay", str(recorded))
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert "deal 3: seat 1 muggins (called for 4; moot: the game was already won)  [76-48]" in lines
    assert lines[-1].startswith("side 0 wins 76-48")
