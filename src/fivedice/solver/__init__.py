"""The exact optimal solver and advisor for every single-card rule set.

``solve(rules)`` returns a :class:`Solver` (its table loaded from the cache or built):
``expected_score``, ``state_value(card)``, ``advise(card, dice, rolls_left)`` and
``best(...)``. The objective is the expected final score of one player (solitaire).
"""

from __future__ import annotations

from fivedice.solver.advisor import Option, Solver, solve

__all__ = ["Option", "Solver", "solve"]
