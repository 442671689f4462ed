"""The solvers a process has loaded, one per rule set: the two process-wide caches are of this type.

:func:`fivedice.players.solved.solver_for` keeps one for the computer players and the simulator (numba's
kernels when installed); :func:`fivedice.services.advice.solver` one for hints (numba-free). A solver is
made once, even when several threads ask for it at the same moment (a hint, a computer's turn and a
chances job), and shared after; rule sets are made independently of each other. Importing this module
does not import the solver: it is imported when a first solver is made.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from fivedice.rules.ruleset import RuleSet

if TYPE_CHECKING:
    from fivedice.solver.advisor import Solver

__all__ = ["SolverCache"]


class SolverCache:
    """Solvers by rule set, each made by :func:`fivedice.solver.solve` with ``jit`` on first asking."""

    def __init__(self, jit: bool | None = None) -> None:
        self.jit = jit
        """As in :class:`~fivedice.solver.Solver`: None uses numba's kernels where installed, False never."""
        self._solvers: dict[RuleSet, Solver] = {}
        self._making: dict[RuleSet, threading.Lock] = {}
        self._lock = threading.Lock()

    def __contains__(self, rules: RuleSet) -> bool:
        """Whether the solver of ``rules`` is made (asking for it answers at once)."""
        return rules in self._solvers

    def get(self, rules: RuleSet, progress: Callable[[float], None] | None = None) -> Solver:
        """The solver of ``rules``, made now if it is not yet (its table from the cache or shipped with fivedice,
        else built, calling ``progress(share_done)``); a caller asking while another makes it waits for that one."""
        found = self._solvers.get(rules)
        if found is not None:
            return found
        with self._lock:
            making = self._making.setdefault(rules, threading.Lock())
        with making:
            found = self._solvers.get(rules)
            if found is None:
                from fivedice.solver import solve  # imported on first use: the solver's modules are heavy

                found = self._solvers[rules] = solve(rules, progress=progress, jit=self.jit)
        with self._lock:
            self._making.pop(rules, None)
        return found
