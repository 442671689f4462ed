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
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from fivedice.actions import Action, Roll, Score
from fivedice.errors import FiveDiceError
from fivedice.players import SOLVER_LEVELS
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
    "easy": (2.8, 0.03),
    "medium": (1.4, 0.01),
    "hard": (0.6, 0.002),
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

    ``box_var[i]`` is the variance of box ``i``'s points over a game, ``bonus_var`` of the
    upper bonus, ``extra_var`` of the extra-Yahtzee bonuses; a card's variance is the sum
    over its open boxes (the bonus while still pending, the extra bonuses while the
    Yahtzee box is open or holds points, in proportion to the boxes left), times
    ``scale[n]`` for ``n`` open boxes, measured so that the model matches the observed
    variance of the points still to come at that stage of a game.
    """

    box_var: tuple[float, ...]
    bonus_var: float
    extra_var: float
    scale: tuple[float, ...]

    def base(self, card: Scorecard) -> float:
        """The unscaled sum of the parts still open on ``card``."""
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
        return var

    def variance(self, card: Scorecard) -> float:
        """The variance of ``card``'s points still to come."""
        return self.scale[len(card.open_indices)] * self.base(card)


@cache
def spread_model(rules: RuleSet, games: int = 1500, seed: int = 12345) -> SpreadModel:
    """Measure a :class:`SpreadModel` from ``games`` solitaire games of ``optimal``."""
    from fivedice.dice import RandomRoller

    player = OptimalPlayer(rules)
    solver = player.solver
    roller = RandomRoller(random.Random(seed))
    nbox = len(rules.boxes)
    boxes = np.zeros((games, nbox))
    bonus = np.zeros(games)
    extra = np.zeros(games)
    snapshots: list[tuple[int, int, Scorecard, float]] = []  # game, open boxes, card, total + value
    for g in range(games):
        state = GameState.new(rules, ("A",))
        while not state.is_over:
            card = state.cards[0][0]
            if state.dice is None:
                snapshots.append((g, len(card.open_indices), card, card.total + solver.state_value(card)))
            action = player.choose(state)
            rolled = roller.roll(rules.dice - len(action.held)) if isinstance(action, Roll) else None
            state = state.apply(state.complete(action, rolled))
        card = state.cards[0][0]
        boxes[g] = [e or 0 for e in card.entries]
        bonus[g] = card.upper_bonus
        extra[g] = card.yahtzee_bonus
        snapshots.append((g, 0, card, float(card.total)))
    finals = np.array([s[3] for s in snapshots if s[1] == 0])
    partial = SpreadModel(tuple(boxes.var(axis=0).tolist()), float(bonus.var()), float(extra.var()), ())
    scale = [1.0] * (nbox + 1)
    for n in range(1, nbox + 1):
        rows = [s for s in snapshots if s[1] == n]
        if len(rows) < 2:
            continue
        resid = np.array([finals[g] - expected for g, _, _, expected in rows])
        base = float(np.mean([partial.base(card) for _, _, card, _ in rows]))
        scale[n] = float(resid.var()) / base if base > 0 else 1.0
    return SpreadModel(partial.box_var, partial.bonus_var, partial.extra_var, tuple(scale))


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

    def __init__(self, rules: RuleSet, seed: int | None = None, model: SpreadModel | None = None) -> None:
        super().__init__(rules, seed)
        self._model = model

    @property
    def model(self) -> SpreadModel:
        """The spread model (measured on first use in a game with opponents)."""
        if self._model is None:
            self._model = spread_model(self.rules)
        return self._model

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


def prepare(levels: Sequence[str], rules: RuleSet, workers: int = 1) -> None:
    """Build what solver-based ``levels`` need (solver tables, spread model) once, e.g.
    before worker processes are forked so that they share it."""
    if any(level in SOLVER_LEVELS for level in levels):
        solver_for(rules)
    if "win" in levels:
        spread_model(rules)


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
