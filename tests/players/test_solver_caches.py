"""The two process-wide solver caches (the computer players' and the hints'): typed, one solver per rule set."""

from __future__ import annotations

from typing import assert_type

import pytest

from fivedice import rules
from fivedice.players.solved import SOLVERS, SolverUnavailableError, solver_for
from fivedice.players.solvers import SolverCache
from fivedice.rules import RuleSet
from fivedice.services import advice
from fivedice.solver import Solver


def test_each_rule_set_gets_one_solver_made_once(monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[tuple[str, bool | None]] = []

    def solve(ruleset: RuleSet, progress: object = None, jit: bool | None = None) -> object:
        made.append((ruleset.spec, jit))
        if callable(progress):
            progress(1.0)
        return object()

    monkeypatch.setattr("fivedice.solver.solve", solve)
    cache = SolverCache(jit=False)
    yacht, yatzy = rules.get("yacht"), rules.get("yatzy")
    assert yacht not in cache
    shares: list[float] = []
    first = cache.get(yacht, shares.append)
    assert yacht in cache
    assert cache.get(yacht) is first
    assert cache.get(yatzy) is not first
    assert shares == [1.0]  # a build reports its progress
    assert made == [("yacht", False), ("yatzy", False)]


def test_rules_the_solver_cannot_handle_are_refused_each_time_and_never_cached() -> None:
    jetsi = rules.get("yahtzee", cards="jetsi")
    for _attempt in range(2):
        with pytest.raises(SolverUnavailableError, match="single-card"):
            solver_for(jetsi)
    assert jetsi not in SOLVERS


def test_the_caches_take_a_rule_set_and_give_a_solver() -> None:
    yacht = rules.get("yacht")
    assert_type(advice.solver(yacht), Solver)
    assert_type(solver_for(yacht), Solver)
    assert advice.solver(yacht) is advice.solver(yacht)
    assert solver_for(yacht) is solver_for(yacht)
    with pytest.raises(AttributeError):
        solver_for("yacht")  # type: ignore[arg-type]  # (mypy --strict: the ignore is needed, so the call is checked)
