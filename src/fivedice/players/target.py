"""The ``target:T`` player: the best chance of finishing with at least ``T`` points (solitaire
threshold play). By default it rates its options with the fast chances (:mod:`fivedice.solver.fast`:
shipped per-state moments, exact in the late game; nothing to build); ``exact=True`` uses the exact
threshold table (:mod:`fivedice.solver.chances`, built once: minutes and hundreds of MB), which it
also reads by itself when that table is already at hand (in memory or in the user cache, e.g. after
``fivedice solve --target``): then it plays exact threshold play at no cost.

Once ``T`` is reached (or out of reach) every move has the same chance, so it plays as ``optimal``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fivedice.engine.actions import Action
from fivedice.engine.state import GameState
from fivedice.players.basic import opening
from fivedice.players.solved import OptimalPlayer, _act, solver_for
from fivedice.rules.ruleset import RuleSet

__all__ = ["TargetPlayer", "target_table"]


def target_table(rules: RuleSet, target: int, progress: Callable[[float], None] | None = None) -> Any:
    """The (cached) chance table of ``rules`` covering ``target`` (one of the next multiple of
    :data:`~fivedice.solver.chances.STEP`, unless a larger one is at hand)."""
    from fivedice.solver.chances import table_for

    return table_for(solver_for(rules), target, progress=progress)


class TargetPlayer:
    """Maximises the chance of a final score of at least :attr:`target`."""

    def __init__(self, rules: RuleSet, target: int, seed: int | None = None, exact: bool = False) -> None:
        self.rules = rules
        self.target = target
        self.exact = exact
        self.name = f"target:{target}"
        self.optimal = OptimalPlayer(rules, seed)
        self._table: Any = None
        self._exact: bool | None = None

    @property
    def uses_exact(self) -> bool:
        """Whether it plays from the exact table: asked for, or already at hand (looked at once)."""
        if self._exact is None:
            from fivedice.solver.chances import is_ready, target_cap

            solver = self.optimal.solver
            self._exact = self.exact or is_ready(solver, target_cap(solver, self.target))
        return self._exact

    @property
    def table(self) -> Any:
        """The chance table (loaded or built on first use)."""
        if self._table is None:
            self._table = target_table(self.rules, self.target)
        return self._table

    def choose(self, state: GameState) -> Action:
        """The option with the best chance of reaching the target (``optimal``'s once it is sure or lost)."""
        first = opening(state)
        if first is not None:
            return first
        assert state.dice is not None
        card = state.cards[state.current][0]
        need = self.target - card.total
        if need <= 0:
            return self.optimal.choose(state)
        if self.uses_exact:
            from fivedice.solver.chances import chance_options

            options = chance_options(self.table, card, state.dice, state.rolls_left, self.target)
        else:
            from fivedice.solver.fast import fast_options

            options = fast_options(self.optimal.solver, card, state.dice, state.rolls_left, self.target)
        if options[0].value <= 0.0:
            return self.optimal.choose(state)
        return _act(state, options[0])
