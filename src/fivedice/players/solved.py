"""Players driven by the solver: ``optimal``, the human-like ``easy``/``medium``/``hard`` and
the multiplayer-aware ``win``.

``easy``, ``medium`` and ``hard`` ask the advisor for every option's value and pick by a
softmax of the points each option loses (temperature ``T``), and with chance ``blunder``
pick any option at all; :data:`NOISE` holds the calibrated parameters.

``win`` lives in :mod:`fivedice.players.win`.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, ClassVar

import numpy as np
import numpy.typing as npt

from fivedice.engine.actions import Action, Roll, Score
from fivedice.engine.scorecard import Scorecard
from fivedice.engine.state import GameState
from fivedice.errors import FiveDiceError
from fivedice.i18n import _
from fivedice.players.basic import PlanPlayer, opening
from fivedice.players.levels import SOLVER_LEVELS
from fivedice.players.solvers import SolverCache
from fivedice.players.turn import FloatArray, IntArray
from fivedice.rules.ruleset import RuleSet

if TYPE_CHECKING:
    from fivedice.solver.advisor import Option, Solver

__all__ = [
    "NOISE",
    "SOLVERS",
    "ExpectedPlayer",
    "NoisyPlayer",
    "OptimalPlayer",
    "SolverUnavailableError",
    "filled",
    "make",
    "solver_for",
]

NOISE: dict[str, tuple[float, float]] = {
    "easy": (2.65, 0.03),
    "medium": (1.3, 0.01),
    "hard": (0.6, 0.002),
}
"""Level -> (softmax temperature in points, blunder chance), calibrated on official Yahtzee."""


class SolverUnavailableError(FiveDiceError):
    """A solver-based player asked for rules the solver does not handle (or no solver)."""


SOLVERS = SolverCache()
"""The computer players' solvers, one per rule set for the whole process (numba's kernels where installed)."""


def solver_for(rules: RuleSet) -> Solver:
    """The solver of ``rules`` (made once per process: :data:`SOLVERS`); raises
    :class:`SolverUnavailableError` if the solver cannot handle them."""
    if rules not in SOLVERS:
        reason = rules.solver_refusal()
        if reason is not None:
            raise SolverUnavailableError(reason)
    return SOLVERS.get(rules)


def _advice(state: GameState) -> list[Option]:
    assert state.dice is not None
    card = state.cards[state.current][0]
    return solver_for(state.rules).advise(card, state.dice, state.rolls_left)


def _act(state: GameState, option: Option) -> Action:
    """The intent that carries out an advisor option."""
    if option.action == "keep" and len(option.dice) < state.rules.dice:
        return Roll(state.positions_of(list(option.dice)))
    if option.action == "keep":
        raise SolverUnavailableError(
            _("The advisor proposed keeping every die ({dice}) instead of scoring.", dice=option.dice)
        )
    assert option.box is not None  # a score option names its box
    return Score(option.box, 0)


class OptimalPlayer:
    """The solver's best move: the highest expected final score."""

    name: ClassVar[str] = "optimal"

    def __init__(self, rules: RuleSet, seed: int | None = None) -> None:
        self.rules = rules
        self.solver = solver_for(rules)

    def choose(self, state: GameState) -> Action:
        """The solver's best option."""
        first = opening(state)
        if first is not None:
            return first
        assert state.dice is not None
        return _act(state, self.solver.best(state.cards[state.current][0], state.dice, state.rolls_left))


class NoisyPlayer:
    """Chooses among the advisor's options by a softmax of their loss, with blunders."""

    def __init__(self, rules: RuleSet, seed: int | None, temperature: float, blunder: float, name: str) -> None:
        self.rules = rules
        self.name = name
        self.temperature = temperature
        self.blunder = blunder
        self.rng = random.Random(seed)
        solver_for(rules)

    def pick(self, options: list[Option]) -> Option:
        """One option: any at all with chance ``blunder``, else by ``exp(-loss / T)``."""
        if len(options) == 1:
            return options[0]
        if self.rng.random() < self.blunder:
            return self.rng.choice(options)
        best = options[0].value
        weights = [math.exp(-(best - o.value) / self.temperature) for o in options]
        return self.rng.choices(options, weights)[0]

    def choose(self, state: GameState) -> Action:
        """A noisy choice among the advisor's options."""
        first = opening(state)
        if first is not None:
            return first
        return _act(state, self.pick(_advice(state)))


class ValuePlayer(PlanPlayer):
    """A turn planner that knows the solver's value of every score card after this turn."""

    def __init__(self, rules: RuleSet, seed: int | None = None) -> None:
        super().__init__(rules, seed)
        self.solver = solver_for(rules)

    def future(self, card: Scorecard) -> float:
        """Expected points still to come on ``card`` under optimal play."""
        return float(self.solver.state_value(card))

    def after(self, card: Scorecard, legal_gains: IntArray, points: IntArray, legal: npt.NDArray[np.bool_],
              f: Callable[[Scorecard], float]) -> FloatArray:  # fmt: skip
        """``f(card after filling box i with the points of roll j)`` for every legal ``(j, i)``."""
        rules = self.rules
        out = np.zeros(points.shape)
        upper = set(rules.upper_indices)
        ybox = rules.box_index(rules.yahtzee_box) if rules.yahtzee_box else -1
        for i in range(len(rules.boxes)):
            rows = np.flatnonzero(legal[:, i])
            if not len(rows):
                continue
            column = points[rows, i]
            if i in upper or i == ybox:
                keys = column if i in upper else (column > 0).astype(np.int64) * max(1, int(column.max()))
                for value in np.unique(keys).tolist():
                    out[rows[keys == value], i] = f(filled(card, i, int(value)))
            else:
                out[rows, i] = f(filled(card, i, int(column[0])))
        return out


def filled(card: Scorecard, box: int, points: int) -> Scorecard:
    """A copy of ``card`` with ``points`` in box ``box`` (bonus count unchanged)."""
    entries = list(card.entries)
    entries[box] = points
    return Scorecard(card.rules, card.order, tuple(entries), card.yahtzee_bonuses)


class ExpectedPlayer(ValuePlayer):
    """Plans each turn for the expected final score from the solver's card values; it plays
    as ``optimal`` does (ties aside) and checks that the two agree."""

    name: ClassVar[str] = "expected"

    def utility(self, state: GameState, k: int, card: Scorecard, legal_gains: IntArray, roll: int) -> FloatArray:
        """This turn's points plus the solver's value of the card afterwards."""
        from fivedice.players.turn import option_table

        table = option_table(card, roll)
        return legal_gains + self.after(card, legal_gains, table.points, table.legal, self.future)


def prepare(levels: Sequence[str], rules: RuleSet, workers: int = 1) -> None:
    """Build what solver-based ``levels`` need (solver tables, spread model) once, e.g.
    before worker processes are forked so that they share it."""
    if any(level in SOLVER_LEVELS for level in levels):
        solver_for(rules)


def make(level: str, rules: RuleSet, seed: int | None) -> OptimalPlayer | NoisyPlayer:
    """The solver-based player of ``level``."""
    if level == "optimal":
        return OptimalPlayer(rules, seed)
    temperature, blunder = NOISE[level]
    return NoisyPlayer(rules, seed, temperature, blunder, level)
