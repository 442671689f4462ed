"""The long commands show a progress bar on a terminal, and print nothing extra when stderr is not one."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from fivedice.cli import main

TINY = """\
name = "{name}"
base = "yacht"
drop_boxes = ["ones", "twos", "threes", "full_house", "four_of_a_kind", "small_straight", "large_straight"]
"""
TERMINAL = {"TTY_COMPATIBLE": "1", "COLUMNS": "100"}
"""Rich draws for a terminal with these (stderr under the test runner is a buffer)."""


def tiny(folder: Path, name: str) -> str:
    """A five-box rule set, whose tables build in a moment, named ``name`` (tables stay in memory for the
    process, by rule set)."""
    path = folder / f"{name}.toml"
    path.write_text(TINY.format(name=name))
    return str(path)


@pytest.mark.parametrize("terminal", [True, False])
def test_solve_and_its_target_chance_show_their_builds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, terminal: bool
) -> None:
    monkeypatch.setenv("FIVEDICE_CACHE_DIR", str(tmp_path / "cache"))  # a cache of its own: the tables are built
    name = f"tiny_{'terminal' if terminal else 'pipe'}"
    env = TERMINAL if terminal else {"TTY_COMPATIBLE": "0"}
    result = CliRunner().invoke(main, ["solve", tiny(tmp_path, name), "--target", "60"], env=env)
    assert result.exit_code == 0, result.output
    assert "Preparing the solver for " in result.stderr
    assert f"Preparing the chances for {name}" in result.stderr
    assert ("building" in result.stderr) is terminal
    assert ("100%" in result.stderr) is terminal
    if not terminal:
        assert result.stderr.count("\n") == 2, "the two notes, nothing more"
    assert f"{name}: best chance of at least 60 points" in result.stdout


@pytest.mark.parametrize("terminal", [True, False])
def test_simulate_of_a_python_level_shows_the_games_done(terminal: bool) -> None:
    env = TERMINAL if terminal else {"TTY_COMPATIBLE": "0"}
    args = ["simulate", "yacht", "--strategy", "greedy", "--games", "200", "--workers", "1", "--json", "--python"]
    result = CliRunner().invoke(main, args, env=env)
    assert result.exit_code == 0, result.output
    assert ("simulating" in result.stderr) is terminal
    assert ("200/200" in result.stderr) is terminal
    assert result.stderr == "" or terminal
