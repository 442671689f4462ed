"""A resumed solo challenge keeps its goal (the benchmark's total on the same dice) in the line mode: the goal
rule is one function (:func:`fivedice.table.challenge.aim_for`) whether the game is new or loaded."""

from __future__ import annotations

import io
from pathlib import Path

from fivedice.cli.plain import PlainSession, play_plain
from fivedice.rules import get
from fivedice.table import Table
from fivedice.table.challenge import AimKind, aim_for, aim_kind, goal

CODE = "resumed goal"


def saved_challenge(tmp_path: Path) -> tuple[Path, int]:
    """A solo challenge with two moves made, saved; and its goal."""
    table = Table(get("yacht"), ["Ann"], challenge=CODE)
    table.run_automatic()
    table.roll((0,))
    path = tmp_path / "challenge.json"
    table.save(path)
    return path, goal(get("yacht"), CODE).total


def test_the_goal_rule_is_one_function() -> None:
    assert aim_kind(Table("yacht", ["Ann"], challenge=CODE)) is AimKind.BENCHMARK
    assert aim_kind(Table("yacht", ["Ann"])) is AimKind.BEST
    assert aim_kind(Table("yacht", ["Ann", "Bob"], challenge=CODE)) is None
    assert aim_kind(Table("yacht", ["Max:greedy"])) is None
    assert aim_for(Table("yacht", ["Ann"])) is None  # no high scores kept: nothing to beat
    best = aim_for(Table("yacht", ["Ann"]), lambda name, rules: 150)
    assert best is not None
    assert (best.kind, best.total) == (AimKind.BEST, 150)


def test_a_resumed_solo_challenge_keeps_its_goal_in_the_line_mode(tmp_path: Path) -> None:
    path, bench = saved_challenge(tmp_path)
    table = Table.load(path)
    assert table.game.log  # resumed, not new
    out = io.StringIO()
    PlainSession(table, out, lambda prompt: None).run()
    assert table.goal == bench  # the hints play to beat the benchmark, as before the save
    assert f"Your goal: beat {bench}, what the optimal player scored on these dice." in out.getvalue()
    out = io.StringIO()
    play_plain(get("yacht"), None, out, lambda prompt: None, load=str(path))
    assert f"Your goal: beat {bench}, what the optimal player scored on these dice." in out.getvalue()
