"""The multiplayer-aware ``win`` player: it plays for the chance of finishing first.

With no rival it plays exactly as ``optimal``. Otherwise, at every decision:

- **All rivals done** (its last turn): *exact*. The best rival total ``D`` is known; the turn is
  planned for ``P(final > D) + P(final = D) / 2`` over the exact distribution of what the last
  turn adds (:func:`last_turn_distribution`, a forward pass of the within-turn policy).
- **Rivals still to play**, from :data:`HORIZON` boxes left: each option is rated by the
  *clairvoyant* approximation: as if the best rival's final score ``Y`` were revealed right after
  this turn and the rest of the game were then played to beat it, i.e.
  ``sum_y P(Y = y) * G(s', y - total')``, where ``G(s', n)`` is the chance of gaining more than ``n``
  points from state ``s'``, a tie counting half. By default ``G`` comes from the fast chances
  (:func:`fivedice.solver.fast.fast_mixture_options`: a fit to shipped per-state moments, exact when at
  most four boxes stay open; nothing to build); ``exact=True`` reads the exact beat table
  (:func:`fivedice.solver.chances.chance_table` with ``half = 0.5``, built once: minutes), and so
  does the default when that table is already at hand (in memory or in the user cache). ``Y``'s
  distribution: exact for a rival with one box left (:func:`last_turn_distribution`), and with up to
  :data:`EXACT_RIVAL` open boxes where numba is installed (a forward pass of ``optimal`` play); else fitted
  to the exact mean, standard deviation and skewness of the rival's final score under ``optimal``
  play (the shipped moments); several rivals give the distribution of their maximum (independent
  cards). Knowing ``Y`` early overrates flexible positions a little; it never misjudges what is
  already sure.

Measured figures (bench/chances.py) are in docs/README-chances.md.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from fivedice.dice import RandomRoller
from fivedice.engine.actions import Action
from fivedice.engine.scorecard import Scorecard
from fivedice.engine.state import GameState
from fivedice.players.basic import opening
from fivedice.players.solved import OptimalPlayer, ValuePlayer, _act, filled, solver_for
from fivedice.players.turn import FloatArray, IntArray, dice_space, gains, option_table, turn_plan
from fivedice.rules.ruleset import RuleSet

if TYPE_CHECKING:
    from fivedice.solver.advisor import Solver

__all__ = [
    "EXACT_RIVAL", "HORIZON", "Distribution", "SpreadModel", "WinPlayer", "beat_cap", "beat_table",
    "last_turn_distribution", "option_chances", "prepare_win", "rated_options", "rival_distribution", "spread_model",
]  # fmt: skip

HORIZON = 8
"""Boxes left (before the turn) from which ``win`` plays for the win chance while rivals still play."""
TIEBREAK = 1e-6
"""Chance that one expected point is worth when options are otherwise (nearly) equal."""

Distribution = tuple[IntArray, FloatArray]
"""Whole-point values (ascending) and their probabilities."""


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
def spread_model(rules: RuleSet, games: int = 1000, seed: int = 12345) -> SpreadModel:
    """Measure a :class:`SpreadModel` from ``games`` solitaire games of ``optimal``."""
    player = OptimalPlayer(rules)
    solver = player.solver
    roller = RandomRoller(random.Random(seed))
    nbox = len(rules.boxes)
    boxes = np.zeros((games, nbox))
    bonus = np.zeros(games)
    extra = np.zeros(games)
    snapshots: list[tuple[int, int, Scorecard, float]] = []  # game, open boxes, card, total + value
    finals = np.zeros(games)
    for g in range(games):
        state = GameState.new(rules, ("A",))
        while not state.is_over:
            card = state.cards[0][0]
            if state.dice is None:
                snapshots.append((g, len(card.open_indices), card, card.total + solver.state_value(card)))
            action = player.choose(state)
            state = state.step(action, roller)[0]
        card = state.cards[0][0]
        boxes[g] = [e or 0 for e in card.entries]
        bonus[g] = card.upper_bonus
        extra[g] = card.yahtzee_bonus
        finals[g] = card.total
    partial = SpreadModel(tuple(boxes.var(axis=0).tolist()), float(bonus.var()), float(extra.var()), ())
    scale = [1.0] * (nbox + 1)
    for n in range(1, nbox + 1):
        rows = [s for s in snapshots if s[1] == n]
        base = float(np.mean([partial.base(card) for _, _, card, _ in rows])) if rows else 0.0
        if len(rows) > 1 and base > 0:
            scale[n] = float(np.var([finals[g] - expected for g, _, _, expected in rows])) / base
    return SpreadModel(partial.box_var, partial.bonus_var, partial.extra_var, tuple(scale))


_LAST: dict[tuple[object, ...], Distribution] = {}
"""The last turns' distributions lately asked for (the rivals' cards repeat across decisions), at most
:data:`LAST_KEPT`, the oldest dropped first: a long simulation or server meets ever new cards."""
LAST_KEPT = 4096


def _kept(cache: dict[tuple[object, ...], Distribution], key: tuple[object, ...],
          make: Callable[[], Distribution]) -> Distribution:  # fmt: skip
    """``cache[key]``, made by ``make()`` when missing; past :data:`LAST_KEPT` entries the oldest go first."""
    found = cache.get(key)
    if found is None:
        found = make()
        while len(cache) >= LAST_KEPT:
            del cache[next(iter(cache))]
        cache[key] = found
    return found


def last_turn_distribution(card: Scorecard) -> Distribution:
    """The exact distribution of the points (bonuses included) that the last turn adds to a
    card with one open box, when that turn is played for the most points."""
    return _kept(_LAST, (id(card.rules), card.order, card.entries, card.upper_total), lambda: _last_turn(card))


def _last_turn(card: Scorecard) -> Distribution:
    rules = card.rules
    if len(card.open_indices) != 1:
        raise AssertionError(f"A card with {len(card.open_indices)} open boxes has more than one turn left.")
    space = dice_space(rules.dice)
    rolls = rules.rolls
    points = np.zeros((rolls, len(space.rolls)), dtype=np.int64)
    for m in range(1, rolls + 1):
        table = option_table(card, m)
        points[m - 1] = np.where(table.legal, gains(card, table), np.iinfo(np.int64).min).max(axis=1)
    plan = turn_plan(space, points.astype(np.float64))
    mass = np.zeros(int(points.max()) + 1)
    p = space.trans[space.keep_index[()]].copy()
    for m in range(1, rolls + 1):
        if m == rolls:
            stop = np.ones(len(space.rolls), dtype=bool)
        else:
            candidates = np.where(space.sub, plan.keep[m - 1][:, None], -np.inf)
            best_keep = candidates.argmax(axis=0)
            stop = plan.stop[m - 1] >= candidates.max(axis=0) - 1e-12
        np.add.at(mass, points[m - 1][stop], p[stop])
        if m < rolls:
            kept = np.zeros(len(space.keeps))
            np.add.at(kept, best_keep[~stop], p[~stop])
            p = kept @ space.trans
    values = np.flatnonzero(mass > 0)
    return values.astype(np.int64), mass[values]


def _normal(mean: float, var: float) -> Distribution:
    sd = math.sqrt(max(var, 0.0))
    if sd < 0.5:
        return np.array([round(mean)], dtype=np.int64), np.array([1.0])
    values = np.arange(math.floor(mean - 6 * sd), math.ceil(mean + 6 * sd) + 1, dtype=np.int64)
    weights = np.exp(-((values - mean) ** 2) / (2 * sd * sd))
    return values, weights / weights.sum()


def beat_chance(x: IntArray, other: Distribution) -> FloatArray:
    """``P(Y < x) + P(Y = x) / 2`` for each value in ``x``, ``Y`` distributed as ``other``.

    >>> beat_chance(np.array([9, 10, 11]), (np.array([10]), np.array([1.0]))).tolist()
    [0.0, 0.5, 1.0]
    """
    values, probs = other
    below = np.concatenate(([0.0], np.cumsum(probs)))
    lo = np.searchsorted(values, x, side="left")
    hi = np.searchsorted(values, x, side="right")
    result: FloatArray = below[lo] + 0.5 * (below[hi] - below[lo])
    return result


class WinPlayer(ValuePlayer):
    """Plays to finish first near the end of the game (see the module docstring)."""

    name: ClassVar[str] = "win"

    def __init__(
        self,
        rules: RuleSet,
        seed: int | None = None,
        model: SpreadModel | None = None,
        horizon: int | None = None,
        exact: bool = False,
    ) -> None:
        super().__init__(rules, seed)
        self.exact = exact
        self._model = model
        self.horizon = HORIZON if horizon is None else horizon
        self._optimal = OptimalPlayer(rules, seed)
        self._exact: bool | None = None

    @property
    def uses_exact(self) -> bool:
        """Whether it rates options with the exact beat table: asked for, or already at hand (looked at once)."""
        if self._exact is None:
            from fivedice.solver.chances import is_ready

            self._exact = self.exact or is_ready(solver_for(self.rules), beat_cap(self.rules), 0.5)
        return self._exact

    @property
    def model(self) -> SpreadModel:
        """The spread model (measured on first use)."""
        if self._model is None:
            self._model = spread_model(self.rules)
        return self._model

    def final(self, card: Scorecard, total: int) -> Distribution:
        """The distribution of the final score of a card now worth ``total``."""
        left = len(card.open_indices)
        if left == 0:
            return np.array([total], dtype=np.int64), np.array([1.0])
        if left == 1:
            values, probs = last_turn_distribution(card)
            return values + total, probs
        return _normal(total + self.future(card), self.model.variance(card))

    def choose(self, state: GameState) -> Action:
        """The move with the best chance of finishing first (see the module docstring)."""
        first = opening(state)
        if first is not None:
            return first
        assert state.dice is not None
        others = [s for s in range(len(state.players)) if s != state.current]
        card = state.cards[state.current][0]
        if not others or all(state.cards[o][0].is_full for o in others):
            return super().choose(state)
        if len(card.open_indices) > self.horizon:
            return self._optimal.choose(state)
        options = rated_options(state, self.uses_exact)
        points = {o.key: o.value for o in self.solver.advise(card, state.dice, state.rolls_left)}
        # Expected points break near-ties (e.g. a sure win or a lost cause) but never outweigh chance.
        best = max(options, key=lambda o: o.value + TIEBREAK * points[o.key])
        return _act(state, best)

    def utility(self, state: GameState, k: int, card: Scorecard, legal_gains: IntArray, roll: int) -> FloatArray:
        """Points (as ``optimal``) when alone; with every rival done, the chance of finishing first."""
        table = option_table(card, roll)
        others = [s for s in range(len(state.players)) if s != state.current]
        if not others:
            future = self.after(card, legal_gains, table.points, table.legal, self.future)
            result: FloatArray = legal_gains + future
            return result
        rivals = [self.final(state.cards[o][0], state.total(o)) for o in others]
        out = np.zeros(table.points.shape)
        cache: dict[tuple[int, int, int], float] = {}
        for j, i in zip(*np.nonzero(table.legal), strict=True):
            points, gain = int(table.points[j, i]), int(legal_gains[j, i])
            key = (int(i), points, gain)
            if key not in cache:
                values, probs = self.final(filled(card, int(i), points), card.total + gain)
                chance = probs.copy()
                for rival in rivals:
                    chance *= beat_chance(values, rival)
                # Points break ties between equal chances (e.g. a sure win) but never outweigh them.
                cache[key] = float(chance.sum()) + 1e-9 * float(values @ probs)
            out[j, i] = cache[key]
        return out


def beat_cap(rules: RuleSet) -> int:
    """The largest lead a beat table covers: 1.5 times the optimal mean, rounded up to tens."""
    return int(math.ceil(float(solver_for(rules).expected_score) * 1.5 / 10) * 10)


def beat_table(rules: RuleSet, progress: Callable[[float], None] | None = None) -> Any:
    """The (cached) beat table of ``rules`` (a tie counting half); ``progress`` hears a build's share done."""
    from fivedice.solver.chances import chance_table

    return chance_table(solver_for(rules), beat_cap(rules), half=0.5, progress=progress)


def prepare_win(rules: RuleSet, progress: Callable[[float], None] | None = None, exact: bool = False) -> None:
    """Load what ``win`` needs once, e.g. before forking: the shipped moments of the fast chances (built
    only for rule options that ship none), or with ``exact`` the beat table (built once: minutes)."""
    from fivedice.solver.fast import moments

    moments(solver_for(rules), progress)
    if exact:
        beat_table(rules, progress)


EXACT_RIVAL = 5
"""A rival with at most this many open boxes is given the exact distribution of its final score (a forward
pass of ``optimal`` play where numba is installed: 3 ms for Yahtzee's card with four boxes open, 9 ms with
five, 25 / 50 / 124 ms with six / seven / eight, once per rival turn; without numba, the moments' fit from
two boxes open). Exact up to three, against the fit: +0.61 points of win rate (95% +0.13 to +1.09), 10,000
paired games; up to five, +1.87 (95% +1.62 to +2.13) against three's +1.76 over the same 100,000 games
(within the noise of two such runs)."""
_RIVALS: dict[tuple[object, ...], Distribution] = {}
"""The exact rival distributions lately asked for (points still to come), at most :data:`LAST_KEPT`."""


def _exact_rival(solver: Solver, card: Scorecard) -> Distribution:
    """The exact distribution of the points still to come on ``card`` under ``optimal`` play (cached)."""
    from fivedice.solver.chances import distribution

    def make() -> Distribution:
        exact = distribution(solver, card)
        return exact.scores - card.total, exact.probs

    return _kept(_RIVALS, (card.rules, card.order, card.entries, card.yahtzee_bonuses), make)


def _one_rival(state: GameState, seat: int) -> tuple[IntArray, FloatArray]:
    from fivedice.solver.fast import moments
    from fivedice.solver.fastplain import below

    card = state.cards[seat][0]
    total = state.total(seat)
    left = len(card.open_indices)
    if left == 0:
        return np.array([total], dtype=np.int64), np.array([1.0])
    if left == 1:
        values, probs = last_turn_distribution(card)
        return values + total, probs
    solver = solver_for(state.rules)
    if left <= EXACT_RIVAL and solver.jit:
        values, probs = _exact_rival(solver, card)
        return values + total, probs
    found = moments(solver)
    c = int(found.at[solver.state_index(card)])
    mean, sd, skew = float(found.mean[0, c]), float(found.sd[0, c]), float(found.skew[0, c])
    if sd < 0.5:
        return np.array([total + round(mean)], dtype=np.int64), np.array([1.0])
    edges = np.arange(math.floor(mean - 6 * sd) - 0.5, math.ceil(mean + 6 * sd) + 1.0)
    cdf = below(edges, mean, sd, skew)
    probs = np.diff(cdf)
    keep = np.flatnonzero(probs > 1e-12)
    values = (edges[:-1] + 0.5).astype(np.int64)[keep]
    return values + total, probs[keep] / probs[keep].sum()


def rival_distribution(state: GameState, seats: list[int]) -> Any:
    """The distribution of the best final score among ``seats`` (see the module docstring)."""
    from fivedice.solver.chances import Distribution

    parts = [_one_rival(state, s) for s in seats]
    lo = min(int(v[0]) for v, _p in parts)
    hi = max(int(v[-1]) for v, _p in parts)
    cdf = np.ones(hi - lo + 1)
    for values, probs in parts:
        pmf = np.zeros(hi - lo + 1)
        pmf[values - lo] = probs
        cdf *= np.cumsum(pmf)
    pmf = np.diff(np.concatenate(([0.0], cdf)))
    keep = np.flatnonzero(pmf > 0)
    return Distribution(keep.astype(np.int64) + lo, pmf[keep])


def rated_options(state: GameState, exact: bool = False, solver: Any = None) -> list[Any]:
    """The options of the player to move, best first, valued by their chance to finish first (fast
    chances, or the exact beat table with ``exact``); ``solver`` answers them (default: the players'
    solver, numba; a hint passes its numba-free one)."""
    assert state.dice is not None
    others = [s for s in range(len(state.players)) if s != state.current]
    rival = rival_distribution(state, others)
    card = state.cards[state.current][0]
    if exact:
        from fivedice.solver.chances import mixture_options

        return mixture_options(beat_table(state.rules), card, state.dice, state.rolls_left, rival)
    from fivedice.solver.fast import fast_mixture_options

    solver = solver_for(state.rules) if solver is None else solver
    return fast_mixture_options(solver, card, state.dice, state.rolls_left, rival)


def option_chances(state: GameState, solver: Any = None) -> dict[tuple[str, object], float]:
    """Each option's chance to finish first (the clairvoyant rating with the fast chances; exact once
    every rival is done), keyed ``("keep", dice)`` or ``("score", box)``."""
    return {o.key: float(o.value) for o in rated_options(state, solver=solver)}
