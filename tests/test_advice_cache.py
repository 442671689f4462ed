"""Hints ask one solver per rule set for the whole process: the table is read from the solver's cache
once, not at every hint (it took 1.3 s per hint for Yahtzee)."""

from __future__ import annotations

import pytest

from fivedice import rules
from fivedice.engine.actions import Roll
from fivedice.engine.state import GameState
from fivedice.services.advice import advise


def test_hints_load_the_solver_table_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from fivedice.solver import advisor, cache

    loads: list[object] = []
    real = cache.load_or_build

    def counting(*args: object, **kwargs: object) -> object:
        loads.append(args)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(advisor, "load_or_build", counting)
    state = GameState.new(rules.get("generala", served_bonus="10"), ("Ann",))
    for dice in ((1, 2, 3, 4, 5), (6, 6, 6, 2, 2), (1, 1, 4, 4, 5)):
        advice = advise(state.apply(Roll((), dice)))
        assert advice.source == "solver"
    assert len(loads) <= 1
