"""``fivedice solve`` and ``fivedice advise``."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from fivedice.cli import main


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_solve_prints_expected_score_time_and_size() -> None:
    code, out, err = run("solve", "yacht")
    assert code == 0
    assert "Preparing the solver for Yacht (once, about" in err  # a build: said on stderr first
    assert "yacht: expected score 169.77389" in out
    assert "time:" in out
    assert "states" in out
    assert "MB on disk" in out
    code, out, err = run("solve", "yacht", "--json")
    assert err == ""  # cached: nothing on stderr
    data = json.loads(out)
    assert data["source"] == "cache"
    assert data["rules"] == "yacht"
    assert data["expected_score"] == pytest.approx(169.773889, abs=1e-6)
    assert 0 < data["file_bytes"] <= 8_000_000


def test_solve_refuses_bad_rule_sets() -> None:
    assert run("solve", "yahtzee", "-o", "cards=jetsi")[0] == 2
    assert run("solve", "nosuchgame")[0] == 2
    assert run("solve", "yahtzee", "-o", "joker=maybe")[0] == 2


def test_advise_json() -> None:
    code, out, _ = run("advise", "yacht", "--dice", "6", "6", "6", "6", "6", "--rolls-left", "0", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["rules"] == "yacht"
    first = data["options"][0]
    assert (first["action"], first["box"], first["points"], first["loss"]) == ("score", "yacht", 50, 0.0)
    assert data["expected_final"] == pytest.approx(first["value"])
    code, out, _ = run(
        "advise", "yacht", "--card", "ones=3,fives=15,yacht=50", "--dice", "1 3 3 5 6", "--rolls-left", "2", "--json"
    )
    data = json.loads(out)
    assert data["expected_final"] == pytest.approx(68 + data["options"][0]["value"])
    kinds = {o["action"] for o in data["options"]}
    assert kinds == {"keep", "score"}
    keep = next(o for o in data["options"] if o["action"] == "keep")
    assert set(keep) == {"action", "dice", "value", "loss"}


def test_advise_text() -> None:
    code, out, _ = run("advise", "yacht", "--dice", "1", "3", "3", "5", "6", "--rolls-left", "1")
    assert code == 0
    assert "keep 3 3" in out
    assert "score" in out


@pytest.mark.parametrize(
    "args",
    [
        ("--card", "fives=3", "--dice", "1 3 3 5 6", "--rolls-left", "2"),
        ("--card", "ones=7", "--dice", "1 3 3 5 6", "--rolls-left", "2"),
        ("--card", "nosuchbox=3", "--dice", "1 3 3 5 6", "--rolls-left", "2"),
        ("--card", "ones=x", "--dice", "1 3 3 5 6", "--rolls-left", "2"),
        ("--card", "ones", "--dice", "1 3 3 5 6", "--rolls-left", "2"),
        ("--dice", "1 3 3 5 7", "--rolls-left", "2"),
        ("--dice", "1 3 3 5", "--rolls-left", "2"),
        ("--dice", "1 3 3 5 6", "--rolls-left", "3"),
    ],
)
def test_advise_impossible_situations_exit_2(args: tuple[str, ...]) -> None:
    code, _, err = run("advise", "yacht", *args)
    assert code == 2
    assert err.splitlines()[-1].startswith("Error: ")  # after "Preparing the solver..." where it was built


def test_solve_distribution_json_and_text() -> None:
    code, out, _ = run("solve", "yacht", "--distribution", "--json")
    assert code == 0
    data = json.loads(out)
    dist = {int(k): v for k, v in data["distribution"].items()}
    assert sum(dist.values()) == pytest.approx(1.0, abs=1e-12)
    assert sum(k * v for k, v in dist.items()) == pytest.approx(169.773889, abs=1e-6)
    code, out, _ = run("solve", "yacht", "--distribution")
    assert "yacht: final score of optimal play, mean 169.77389" in out
    assert "percentile 50: 169" in out


def test_solve_target_json_and_text() -> None:
    code, out, _err = run("solve", "yacht", "--target", "200", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["target"] == 200
    assert 0.2 < data["probability"] < 0.3  # expectation play reaches 200 less often (tested in test_chances)
    code, out, _ = run("solve", "yacht", "--target", "0")
    assert "best chance of at least 0 points: 100.000%" in out


@pytest.mark.parametrize("bad", ["-1", "-20"])
def test_negative_targets_are_refused_in_one_sentence(bad: str) -> None:
    code, _out, err = run("solve", "yacht", "--target", bad)
    assert code == 2
    assert err.strip() == f"Error: Target {bad} is not valid; expected a whole number of points, 0 or more."
    code, _out, err = run("advise", "yacht", "--dice", "1 2 3 4 5", "--rolls-left", "1", "--target", bad)
    assert code == 2
    assert "is not valid; expected a whole number of points" in err


def test_advise_target_ranks_by_chance() -> None:
    args = ("advise", "yacht", "--card", "ones=3,twos=6", "--dice", "6 6 6 5 2", "--rolls-left", "2")
    code, out, _ = run(*args, "--target", "200", "--json")
    assert code == 0
    data = json.loads(out)
    chances = [o["probability"] for o in data["options"]]
    assert chances == sorted(chances, reverse=True)
    assert data["probability"] == chances[0]
    assert data["options"][0]["dice"] == [6, 6, 6]
    code, out, _ = run(*args, "--target", "200", "--exact")
    assert "best chance of at least 200 points: 19.194%" in out  # threshold play, exact
    code, out, _ = run(*args, "--target", "200")
    fast = re.search(r"best chance of at least 200 points: ([0-9.]+)%", out)  # optimal play after this turn
    assert fast is not None
    assert float(fast.group(1)) == pytest.approx(14.622, abs=0.002)  # the last digit: the numpy or numba path


def test_simulate_reach_json() -> None:
    code, out, _ = run("simulate", "yacht", "--strategies", "target:180,optimal", "--games", "60", "--workers", "1",
                       "--reach", "180", "--json")  # fmt: skip
    assert code == 0
    seats = json.loads(out)["seats"]
    assert [s["strategy"] for s in seats] == ["target:180", "optimal"]
    assert all(0.0 <= s["reach"]["180"] <= 1.0 for s in seats)
    code, out, _ = run("simulate", "yacht", "--games", "50", "--reach", "150")
    assert "at least 150" in out
    code, _out, err = run("simulate", "yacht", "--games", "50", "--reach", "-4")
    assert code == 2
    assert "Target -4 is not valid" in err


def test_simulate_says_when_a_chance_table_is_built_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from fivedice.solver import fast

    monkeypatch.setenv("FIVEDICE_CACHE_DIR", str(tmp_path))  # no moments cached (and none shipped in tests/solver)
    monkeypatch.setattr(fast, "_MOMENTS", {})  # nor in this process's memory
    code, _out, err = run("simulate", "yacht", "--strategy", "target:123", "--games", "5", "--workers", "1")
    assert code == 0
    assert "Preparing the chances for yacht (once, a minute or a few)..." in err
    code, _out, err = run("simulate", "yacht", "--strategy", "target:123", "--games", "5", "--workers", "1")
    assert "Preparing the chances" not in err  # cached now
