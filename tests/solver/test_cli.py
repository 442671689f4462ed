"""``fivedice solve`` and ``fivedice advise``."""

from __future__ import annotations

import json

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
