"""Optimal-play simulation: a numba kernel that plays whole solitaire games with the solver's policy.

Each game draws its dice from its own splitmix64 stream seeded from ``(seed, game index)``,
and each game is played by one thread, so results are identical whatever the thread count.
The turn tables of the first turns' states (every game passes through them) are computed once
up front. Ties between options go to scoring before keeping, then card order, then smaller keeps
(as :meth:`fivedice.solver.Solver.best`).

>>> from fivedice import rules
>>> r = simulate_optimal(rules.get("yacht"), games=200, seed=1, cache=False)
>>> r.totals.shape, int(r.totals[0]) == int(r.box_points[0].sum())
((200,), True)
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numba as nb
import numpy as np
import numpy.typing as npt

from fivedice.rules import RuleSet
from fivedice.solver import kernel as K
from fivedice.solver.advisor import Solver, solve

__all__ = ["SimulationResult", "simulate_optimal"]

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
MIX1 = np.uint64(0xBF58476D1CE4E5B9)
MIX2 = np.uint64(0x94D049BB133111EB)
CHUNK = 256
"""Games per parallel work item (any value gives the same results)."""


@dataclass(frozen=True, slots=True, eq=False)
class SimulationResult:
    """Per-game results of optimal play."""

    rules: RuleSet
    seed: int
    totals: npt.NDArray[np.int32]
    """Final totals, one per game."""
    box_points: npt.NDArray[np.int16]
    """``(games, boxes)`` points written in each box (zeros included)."""
    upper_bonus: npt.NDArray[np.int16]
    """Upper-bonus points earned in each game."""
    yahtzee_bonuses: npt.NDArray[np.int16]
    """Extra-Yahtzee bonuses earned in each game (a count; times ``rules.yahtzee_bonus`` points)."""
    seconds: float
    threads: int

    @property
    def games(self) -> int:
        """Number of games played."""
        return int(self.totals.size)

    @property
    def mean(self) -> float:
        """Mean final total."""
        return float(self.totals.mean())

    @property
    def std(self) -> float:
        """Standard deviation of the final totals."""
        return float(self.totals.std())

    def zero_rates(self) -> dict[str, float]:
        """Per box, the share of games that put a zero in it."""
        rates = (self.box_points == 0).mean(axis=0)
        return {name: float(r) for name, r in zip(self.rules.box_names, rates, strict=True)}

    @property
    def upper_bonus_rate(self) -> float:
        """Share of games that earned an upper bonus."""
        return float((self.upper_bonus > 0).mean())


@nb.njit(cache=True, nogil=True)
def _next(state: Any) -> Any:
    z = state[0] + GOLDEN
    state[0] = z
    z = (z ^ (z >> np.uint64(30))) * MIX1
    z = (z ^ (z >> np.uint64(27))) * MIX2
    return z ^ (z >> np.uint64(31))


@nb.njit(cache=True, nogil=True)
def _die(state: Any) -> int:
    """A face index 0-5 (53 random bits scaled: bias below 1e-15)."""
    return int(((_next(state) >> np.uint64(11)) * np.uint64(6)) >> np.uint64(53))


@nb.njit(cache=True, nogil=True)
def _roll(t: int, off: int, add: Any, state: Any) -> int:
    while t < off:
        t = add[t, _die(state)]
    return t


@nb.njit(cache=True, parallel=True)
def _precompute(states: Any, prm: Any, tb: Any, V: Any, Sc: Any, Ec: Any) -> None:
    """The turn tables of ``states`` (the early turns every game passes through), compactly:
    ``Sc[i]`` the score-now rows, ``Ec[i, k - 1]`` the keep values with ``k`` rolls left."""
    nbx = prm[K.NB]
    units = prm[K.UNITS]
    ybits = prm[K.YBITS]
    rolls = prm[K.ROLLS]
    for i in nb.prange(len(states)):
        pre = np.empty((nbx, tb[K.T_PVALS].max() + 1))
        S = np.empty((2, prm[K.NROLL]))
        E = np.empty((rolls, prm[K.NKEEP]))
        B = np.empty(prm[K.NKEEP])
        W = np.empty((rolls, prm[K.NROLL]))
        s = states[i]
        mask = s // (ybits * units)
        K.turn_tables(mask, (s // ybits) % units, s % ybits, rolls - 1, prm, tb, V, pre, S, E, B, W, False)
        Sc[i] = S[: Sc.shape[1]]
        if rolls > 1:
            Ec[i] = E[1:]


@nb.njit(cache=True, parallel=True)
def _play(
    games: int, seed: int, prm: Any, tb: Any, V: Any, chunk: int, slot_of: Any, Sc: Any, Ec: Any,
    totals: Any, box_points: Any, upper_bonus: Any, ybonuses: Any,
) -> None:  # fmt: skip
    add = tb[K.T_ADD]
    subsets = tb[K.T_SUBSETS]
    five = tb[K.T_FIVE]
    is_upper = tb[K.T_IS_UPPER]
    bonus_of = tb[K.T_BONUS_OF]
    pvals = tb[K.T_PVALS]
    maxrem = tb[K.T_MAXREM]
    nbx = prm[K.NB]
    off = prm[K.OFF]
    rolls = prm[K.ROLLS]
    cap = prm[K.CAP]
    units = prm[K.UNITS]
    ybits = prm[K.YBITS]
    nroll = prm[K.NROLL]
    up0 = K.next_up(0, 0, prm, bonus_of, maxrem)
    nchunks = (games + chunk - 1) // chunk
    for c in nb.prange(nchunks):
        state = np.zeros(1, dtype=np.uint64)
        pre = np.empty((nbx, pvals.max() + 1))
        S = np.empty((2, nroll))
        E = np.empty((rolls, prm[K.NKEEP]))
        B = np.empty(prm[K.NKEEP])
        W = np.empty((rolls, nroll))
        pts = np.empty(nbx, dtype=np.int32)
        for g in range(c * chunk, min(games, (c + 1) * chunk)):
            state[0] = np.uint64(seed) * GOLDEN
            state[0] = _next(state) ^ np.uint64(g)
            state[0] = _next(state)
            mask = 0
            up = up0
            y = 0
            raw_upper = 0
            total = 0
            extra = 0
            for _turn in range(nbx):
                slot = slot_of[(mask * units + up) * ybits + y]
                if slot >= 0:
                    SS, EE, eoff = Sc[slot], Ec[slot], 1
                else:
                    K.turn_tables(mask, up, y, rolls - 1, prm, tb, V, pre, S, E, B, W, False)
                    SS, EE, eoff = S, E, 0
                d = _roll(0, off, add, state)
                k = rolls - 1
                while k > 0:
                    best = SS[K.roll_type(rolls - k, prm), d - off]
                    keep = -1
                    for j in range(subsets.shape[1]):
                        t = subsets[d - off, j]
                        if t < 0:
                            break
                        if EE[k - eoff, t] > best:
                            best = EE[k - eoff, t]
                            keep = t
                    if keep < 0:
                        break
                    d = _roll(keep, off, add, state)
                    k -= 1
                K.score_options(mask, d - off, K.roll_type(rolls - k, prm), prm, tb, pts)
                bb = -1
                bv = K.NEG
                for b in range(nbx):
                    if pts[b] >= 0:
                        v = K._after(mask, b, up, y, pts[b], prm, is_upper, bonus_of, maxrem, V)
                        if v > bv:
                            bv = v
                            bb = b
                p = pts[bb]
                box_points[g, bb] = p
                total += p
                if ybits == 2 and y == 1 and five[d - off] >= 0:
                    extra += 1
                mask |= 1 << bb
                if is_upper[bb]:
                    raw_upper += p
                    up = K.next_up(mask, min(cap, up + p), prm, bonus_of, maxrem)
                if bb == prm[K.YBOX] and ybits == 2:
                    y = 1 if p > 0 else 0
            ub = bonus_of[min(cap, raw_upper)]
            upper_bonus[g] = ub
            ybonuses[g] = extra
            totals[g] = total + ub + extra * prm[K.YBONUS]


def _early_states(solver: Solver, budget: int = 64_000_000) -> npt.NDArray[np.int64]:
    """The reachable states of the first turns (as many whole layers as ``budget`` bytes hold)."""
    t = solver.table.tables
    limit = budget // (8 * (t.rolltypes * t.nroll + (t.rules.rolls - 1) * t.nkeep))
    idx = np.flatnonzero(solver.table.reach).astype(np.int64)
    filled = np.bitwise_count(idx // (t.units * t.ybits))
    chosen: npt.NDArray[np.int64] = idx[filled == 0]
    for layer in range(1, t.nboxes):
        more = idx[filled <= layer]
        if len(more) > limit:
            break
        chosen = more
    return chosen


def simulate_optimal(
    rules: RuleSet | Solver, games: int, seed: int, threads: int | None = None, cache: bool = True
) -> SimulationResult:
    """Play ``games`` solitaire games optimally; the same ``seed`` gives the same games whatever ``threads``."""
    solver = rules if isinstance(rules, Solver) else solve(rules, cache=cache)
    t = solver.table.tables
    n = int(games)
    totals = np.zeros(n, dtype=np.int32)
    box_points = np.zeros((n, t.nboxes), dtype=np.int16)
    upper_bonus = np.zeros(n, dtype=np.int16)
    ybonuses = np.zeros(n, dtype=np.int16)
    previous = nb.get_num_threads()
    used = previous if threads is None else max(1, min(int(threads), nb.config.NUMBA_NUM_THREADS))  # type: ignore[attr-defined]
    nb.set_num_threads(used)
    start = time.perf_counter()
    prm, arrays, values = t.params(), t.arrays(), solver.table.values
    try:
        early = _early_states(solver)
        slot_of = np.full(t.nstates, -1, dtype=np.int32)
        slot_of[early] = np.arange(len(early), dtype=np.int32)
        Sc = np.empty((len(early), t.rolltypes, t.nroll))
        Ec = np.empty((len(early), max(1, t.rules.rolls - 1), t.nkeep))
        with K.PARALLEL:
            _precompute(early, prm, arrays, values, Sc, Ec)
            _play(n, int(seed) & 0xFFFFFFFFFFFFFFFF, prm, arrays, values, CHUNK, slot_of, Sc, Ec,
                  totals, box_points, upper_bonus, ybonuses)  # fmt: skip
    finally:
        nb.set_num_threads(previous)
    seconds = time.perf_counter() - start
    return SimulationResult(solver.rules, int(seed), totals, box_points, upper_bonus, ybonuses, seconds, used)
