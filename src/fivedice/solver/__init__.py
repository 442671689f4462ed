"""The exact optimal solver and advisor for every single-card rule set.

``solve(rules)`` returns a :class:`Solver` (its table loaded from the cache or built):
``expected_score``, ``state_value(card)``, ``advise(card, dice, rolls_left)`` and
``best(...)``, ``values(...)`` (the options as arrays). ``readiness(rules)`` tells beforehand
whether the table is ready (cached or shipped) or how long a build will take, and
``solve(rules, progress=callback)`` reports a build's progress. The objective is the expected
final score of one player (solitaire). Nothing here imports numba until a kernel runs.
"""

from __future__ import annotations

from fivedice.solver.advisor import Option, OptionArrays, Solver, readiness, solve
from fivedice.solver.cache import Readiness

__all__ = ["Option", "OptionArrays", "Readiness", "Solver", "readiness", "solve"]
