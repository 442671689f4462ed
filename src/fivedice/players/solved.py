"""Players driven by the solver: ``optimal``, the human-like ``easy``/``medium``/``hard`` and
the multiplayer-aware ``win``.

``easy``, ``medium`` and ``hard`` ask the advisor for every option's value and pick by a
softmax of the points each option loses (temperature ``T``), and with chance ``blunder``
pick any option at all; :data:`NOISE` holds the calibrated parameters.

``win`` plans each turn like the solver, but scores the end of the turn by its chance of
finishing first rather than by points: its own final score and each opponent's are taken
as normal, with mean ``total + solver value`` and a spread from :class:`SpreadModel`
(the variance each still-open box, the pending upper bonus and further extra-Yahtzee
bonuses add under optimal play, measured by simulation); the chance of beating opponent
``o`` is ``Phi((mu_me - mu_o) / sqrt(var_me + var_o))``, multiplied over the opponents.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from fivedice.actions import Action, Roll, Score
from fivedice.errors import FiveDiceError
from fivedice.players.basic import PlanPlayer, opening
from fivedice.players.turn import FloatArray, IntArray
from fivedice.rules.ruleset import RuleSet
from fivedice.scorecard import Scorecard
from fivedice.state import GameState

__all__ = [
    "NOISE",
    "ExpectedPlayer",
    "NoisyPlayer",
    "OptimalPlayer",
    "SolverUnavailableError",
    "SpreadModel",
    "WinPlayer",
    "make",
    "simulate_optimal_fast",
    "solver_for",
]

NOISE: dict[str, tuple[float, float]] = {
    "easy": (12.0, 0.10),
    "medium": (5.0, 0.02),
    "hard": (1.5, 0.0),
}
"""Level -> (softmax temperature in points, blunder chance), calibrated on official Yahtzee."""


class SolverUnavailableError(FiveDiceError):
    """A solver-based player asked for rules the solver does not handle (or no solver)."""


@cache
def solver_for(rules: RuleSet) -> Any:
    """The (cached) solver of ``rules``; raises if the solver cannot handle them."""
    if len(rules.cards) != 1:
        raise SolverUnavailableError(
            f"Rule set {rules.spec!r} uses {len(rules.cards)} score cards; the solver handles one-card rule sets."
        )
    try:
        from fivedice.solver import solve
    except ImportError as exc:
        raise SolverUnavailableError(f"The solver is not available ({exc}).") from None
    return solve(rules)


def _advice(state: GameState) -> list[Any]:
    assert state.dice is not None
    card = state.cards[state.current][0]
    options: list[Any] = solver_for(state.rules).advise(card, state.dice, state.rolls_left)
    return options


def _act(state: GameState, option: Any) -> Action:
    """The intent that carries out an advisor option."""
    if option.action == "keep" and len(option.dice) < state.rules.dice:
        return Roll(state.positions_of(list(option.dice)))
    if option.action == "keep":
        raise SolverUnavailableError(f"The advisor proposed keeping every die ({option.dice}) instead of scoring.")
    return Score(option.box, 0)


class OptimalPlayer:
    """The solver's best move: the highest expected final score."""

    name: ClassVar[str] = "optimal"

    def __init__(self, rules: RuleSet, seed: int | None = None) -> None:
        self.rules = rules
        self.solver = solver_for(rules)

    def choose(self, state: GameState) -> Action:
        """The advisor's first option."""
        first = opening(state)
        if first is not None:
            return first
        return _act(state, _advice(state)[0])


class NoisyPlayer:
    """Chooses among the advisor's options by a softmax of their loss, with blunders."""

    def __init__(self, rules: RuleSet, seed: int | None, temperature: float, blunder: float, name: str) -> None:
        self.rules = rules
        self.name = name
        self.temperature = temperature
        self.blunder = blunder
        self.rng = random.Random(seed)
        solver_for(rules)

    def pick(self, options: list[Any]) -> Any:
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
                    out[rows[keys == value], i] = f(_filled(card, i, int(value)))
            else:
                out[rows, i] = f(_filled(card, i, int(column[0])))
        return out


def _filled(card: Scorecard, box: int, points: int) -> Scorecard:
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


@dataclass(frozen=True, slots=True)
class SpreadModel:
    """The variance of the points still to come on a card, under optimal play.

    ``box_var[i]`` is the variance of box ``i``'s points, ``bonus_var`` of the upper bonus,
    ``extra_var`` of the extra-Yahtzee bonuses over a whole game; ``scale`` makes an empty
    card's variance that of the whole game (the parts are positively correlated).
    """

    box_var: tuple[float, ...]
    bonus_var: float
    extra_var: float
    scale: float

    def variance(self, card: Scorecard) -> float:
        """The variance of ``card``'s points still to come."""
        rules = card.rules
        open_ = card.open_indices
        var = sum(self.box_var[i] for i in open_)
        pending = rules.upper_bonus and card.upper_bonus < rules.upper_bonus[-1].points
        if pending and any(i in open_ for i in rules.upper_indices):
            var += self.bonus_var
        if rules.yahtzee_box and rules.yahtzee_bonus:
            held = card.entries[rules.box_index(rules.yahtzee_box)]
            if held is None or held > 0:
                var += self.extra_var * len(open_) / len(rules.boxes)
        return self.scale * var


@cache
def spread_model(rules: RuleSet, games: int = 20_000, seed: int = 12345) -> SpreadModel:
    """Measure a :class:`SpreadModel` from ``games`` optimal games."""
    from fivedice.sim import simulate

    result = simulate(rules, ["optimal"], games, seed, workers=1)
    boxes = result.boxes[:, 0, 0].astype(np.float64)
    box_var = tuple(float(v) for v in boxes.var(axis=0))
    bonus_var = float(result.upper_bonus[:, 0, 0].astype(np.float64).var())
    extra_var = float((result.extra_yahtzees[:, 0, 0] * rules.yahtzee_bonus).astype(np.float64).var())
    total_var = float(result.totals[:, 0].astype(np.float64).var())
    parts = sum(box_var) + bonus_var + extra_var
    return SpreadModel(box_var, bonus_var, extra_var, total_var / parts if parts > 0 else 1.0)


def _phi(d: FloatArray, s: FloatArray) -> FloatArray:
    """P(X > Y) + P(X = Y) / 2 for normal X - Y with mean ``d`` and spread ``s``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(s > 1e-9, d / np.where(s > 1e-9, s, 1.0), np.sign(d) * np.inf)
    from math import erf

    verf = np.vectorize(erf, otypes=[np.float64])
    result: FloatArray = np.where(np.isinf(z), (np.sign(z) + 1) / 2, 0.5 * (1 + verf(np.nan_to_num(z) / math.sqrt(2))))
    return np.where((s <= 1e-9) & (d == 0), 0.5, result)


class WinPlayer(ValuePlayer):
    """Plays to finish first (see the module docstring); alone it plays for points."""

    name: ClassVar[str] = "win"

    def __init__(self, rules: RuleSet, seed: int | None = None) -> None:
        super().__init__(rules, seed)
        self.model = spread_model(rules)

    def utility(self, state: GameState, k: int, card: Scorecard, legal_gains: IntArray, roll: int) -> FloatArray:
        """The chance of finishing ahead of every opponent after scoring each (roll, box)."""
        from fivedice.players.turn import option_table

        table = option_table(card, roll)
        future = self.after(card, legal_gains, table.points, table.legal, self.future)
        me = state.current
        mean = card.total + legal_gains + future
        others = [s for s in range(len(state.players)) if s != me]
        if not others:
            return mean.astype(np.float64)
        var = self.after(card, legal_gains, table.points, table.legal, self.model.variance)
        chance = np.ones(mean.shape)
        for o in others:
            opp = state.cards[o][0]
            mu = opp.total + self.future(opp)
            chance *= _phi(mean - mu, np.sqrt(var + self.model.variance(opp)))
        # Break ties (e.g. a sure win or loss) by points, which never outweigh a real chance.
        return chance + 1e-7 * mean


def make(level: str, rules: RuleSet, seed: int | None) -> Any:
    """The solver-based player of ``level``."""
    if level == "optimal":
        return OptimalPlayer(rules, seed)
    if level == "win":
        return WinPlayer(rules, seed)
    temperature, blunder = NOISE[level]
    return NoisyPlayer(rules, seed, temperature, blunder, level)


def simulate_optimal_fast(
    rules: RuleSet, games: int, seed: int, workers: int, progress: Callable[[int], None] | None
) -> tuple[IntArray, Any, Any, Any] | None:
    """Solitaire optimal games through the solver's compiled simulator, as arrays shaped like
    :class:`fivedice.sim.SimResult`'s, or None if that simulator cannot run them."""
    return None
