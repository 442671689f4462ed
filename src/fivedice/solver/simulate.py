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

import threading
import time
from dataclasses import dataclass

import numba as nb
import numpy as np
import numpy.typing as npt

from fivedice.rules import RuleSet
from fivedice.solver import kernel as K
from fivedice.solver import tables as T
from fivedice.solver.advisor import Solver, solve
from fivedice.solver.plain import FloatArray, Int64Array, IntArray

__all__ = ["LevelPolicy", "SimulationResult", "simulate_level", "simulate_optimal"]

Stream = npt.NDArray[np.uint64]
"""A dice (or noise) stream's state: one 64-bit word, advanced in place (splitmix64)."""
Int16Array = npt.NDArray[np.int16]
"""Per-game box points and bonuses, as the results keep them."""

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
MIX1 = np.uint64(0xBF58476D1CE4E5B9)
MIX2 = np.uint64(0x94D049BB133111EB)
CHUNK = 256
"""Games per parallel work item (any value gives the same results)."""
PARALLEL = threading.Lock()
"""Held while a parallel kernel runs: numba's fallback threading layer (workqueue) cannot run
two parallel launches from different threads at once."""


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
def _next(state: Stream) -> np.uint64:
    z: np.uint64 = state[0] + GOLDEN
    state[0] = z
    z = (z ^ (z >> np.uint64(30))) * MIX1
    z = (z ^ (z >> np.uint64(27))) * MIX2
    return z ^ (z >> np.uint64(31))


@nb.njit(cache=True, nogil=True)
def _die(state: Stream) -> int:
    """A face index 0-5 (53 random bits scaled: bias below 1e-15)."""
    return int(((_next(state) >> np.uint64(11)) * np.uint64(6)) >> np.uint64(53))


@nb.njit(cache=True, nogil=True)
def _seed_game(state: Stream, seed: int, g: int) -> None:
    """Start game ``g``'s own dice stream of a run seeded ``seed``."""
    state[0] = np.uint64(seed) * GOLDEN
    state[0] = _next(state) ^ np.uint64(g)
    state[0] = _next(state)


@nb.njit(cache=True, nogil=True)
def _roll(t: int, off: int, add: IntArray, state: Stream) -> int:
    while t < off:
        t = add[t, _die(state)]
    return t


@nb.njit(cache=True, parallel=True)
def _precompute(states: Int64Array, ints: IntArray, V: FloatArray, Sc: FloatArray, Ec: FloatArray) -> None:
    """The turn tables of ``states`` (the early turns every game passes through), compactly:
    ``Sc[i]`` the score-now rows, ``Ec[i, k - 1]`` the keep values with ``k`` rolls left."""
    units = ints[T.P_UNITS]
    ybits = ints[T.P_YBITS]
    rolls = ints[T.P_ROLLS]
    for i in nb.prange(len(states)):
        pre, S, E, B, W = K.work_arrays(ints)
        s = states[i]
        K.turn_tables(ints, V, s // (ybits * units), (s // ybits) % units, s % ybits, rolls - 1, False,
                      pre, S, E, B, W)  # fmt: skip
        Sc[i] = S[: Sc.shape[1]]
        if rolls > 1:
            Ec[i] = E[1:]


@nb.njit(cache=True, nogil=True)
def _scored(
    ints: IntArray, bb: int, p: int, d: int, mask: int, up: int, y: int, raw_upper: int, total: int, extra: int
) -> tuple[int, int, int, int, int, int]:
    """The game's running state after ``p`` points in box ``bb`` with roll ``d``:
    ``(mask, up, y, raw upper points, total, extra Yahtzees)``."""
    ybits = ints[T.P_YBITS]
    total += p
    if ybits == 2 and y == 1 and ints[ints[T.O_FIVE] + d] >= 0 and ints[T.P_YBONUS] > 0:
        extra += 1
    mask |= 1 << bb
    if ints[ints[T.O_ISUP] + bb]:
        raw_upper += p
        up = K.next_up(ints, mask, min(ints[T.P_CAP], up + p))
    if bb == ints[T.P_YBOX] and ybits == 2:
        y = 1 if p > 0 else 0
    return mask, up, y, raw_upper, total, extra


@nb.njit(cache=True, nogil=True)
def _finish(
    ints: IntArray,
    g: int,
    raw_upper: int,
    total: int,
    extra: int,
    totals: IntArray,
    upper_bonus: Int16Array,
    ybonuses: Int16Array,
) -> None:
    """Game ``g``'s upper bonus, extra-Yahtzee count and final total."""
    ub = ints[ints[T.O_BONUS] + min(ints[T.P_CAP], raw_upper)]
    upper_bonus[g] = ub
    ybonuses[g] = extra
    totals[g] = total + ub + extra * ints[T.P_YBONUS]


@nb.njit(cache=True, parallel=True)
def _play(
    games: int, seed: int, ints: IntArray, V: FloatArray, chunk: int, slot_of: IntArray, Sc: FloatArray, Ec: FloatArray,
    totals: IntArray, box_points: Int16Array, upper_bonus: Int16Array, ybonuses: Int16Array,
) -> None:  # fmt: skip
    nkeep = ints[T.P_NKEEP]
    nbx = ints[T.P_NB]
    off = ints[T.P_OFF]
    rolls = ints[T.P_ROLLS]
    units = ints[T.P_UNITS]
    ybits = ints[T.P_YBITS]
    nroll = ints[T.P_NROLL]
    sw = ints[T.P_SW]
    add = ints[ints[T.O_ADD] : ints[T.O_ADD] + nkeep * 6].reshape((np.int64(nkeep), np.int64(6)))
    subsets = ints[ints[T.O_SUBSETS] : ints[T.O_SUBSETS] + nroll * sw].reshape((np.int64(nroll), np.int64(sw)))
    up0 = K.next_up(ints, 0, 0)
    nchunks = (games + chunk - 1) // chunk
    for c in nb.prange(nchunks):
        state = np.zeros(1, dtype=np.uint64)
        pre, S, E, B, W = K.work_arrays(ints)
        pts = np.empty(nbx, dtype=np.int32)
        for g in range(c * chunk, min(games, (c + 1) * chunk)):
            _seed_game(state, seed, g)
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
                    K.turn_tables(ints, V, mask, up, y, rolls - 1, False, pre, S, E, B, W)
                    SS, EE, eoff = S, E, 0
                d = _roll(0, off, add, state)
                k = rolls - 1
                while k > 0:
                    best = SS[K.roll_type(ints, rolls - k), d - off]
                    keep = -1
                    for j in range(sw):
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
                K.score_options(ints, mask, y, d - off, K.roll_type(ints, rolls - k), pts)
                bb = -1
                bv = K.NEG
                for b in range(nbx):
                    if pts[b] >= 0:
                        v = K.after(ints, V, mask, b, up, y, pts[b])
                        if v > bv:
                            bv = v
                            bb = b
                p = pts[bb]
                box_points[g, bb] = p
                mask, up, y, raw_upper, total, extra = _scored(
                    ints, bb, p, d - off, mask, up, y, raw_upper, total, extra
                )
            _finish(ints, g, raw_upper, total, extra, totals, upper_bonus, ybonuses)


@nb.njit(cache=True, nogil=True)
def _unit(state: Stream) -> float:
    """A uniform float in [0, 1) (53 random bits)."""
    return float(_next(state) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@nb.njit(cache=True, nogil=True)
def _pick(vals: FloatArray, n: int, temperature: float, blunder: float, noise: Stream) -> int:
    """Index of the chosen option among ``vals[:n]``: any at all with chance ``blunder``, else by
    ``exp(-loss / temperature)`` (the first best when ``temperature`` is 0), as
    :class:`fivedice.players.solved.NoisyPlayer` picks."""
    if n == 1:
        return 0
    if blunder > 0.0 and _unit(noise) < blunder:
        return min(n - 1, int(_unit(noise) * n))
    best = 0
    for i in range(1, n):
        if vals[i] > vals[best]:
            best = i
    if temperature <= 0.0:
        return best
    top = vals[best]
    total = 0.0
    for i in range(n):
        vals[i] = np.exp(-(top - vals[i]) / temperature)
        total += vals[i]
    r = _unit(noise) * total
    for i in range(n):
        r -= vals[i]
        if r < 0.0:
            return i
    return best


@nb.njit(cache=True, parallel=True)
def _play_noisy(
    games: int, seed: int, ints: IntArray, V: FloatArray, chunk: int, slot_of: IntArray, Ec: FloatArray,
    temperature: float, blunder: float, salt: int,
    totals: IntArray, box_points: Int16Array, upper_bonus: Int16Array, ybonuses: Int16Array,
) -> None:  # fmt: skip
    """Whole games chosen as :func:`_pick` says among every option (each legal box, each distinct
    keep) valued by ``V``; the dice of game ``g`` come from its own stream, the noise from another."""
    nkeep = ints[T.P_NKEEP]
    nbx = ints[T.P_NB]
    off = ints[T.P_OFF]
    rolls = ints[T.P_ROLLS]
    units = ints[T.P_UNITS]
    ybits = ints[T.P_YBITS]
    nroll = ints[T.P_NROLL]
    sw = ints[T.P_SW]
    add = ints[ints[T.O_ADD] : ints[T.O_ADD] + nkeep * 6].reshape((np.int64(nkeep), np.int64(6)))
    subsets = ints[ints[T.O_SUBSETS] : ints[T.O_SUBSETS] + nroll * sw].reshape((np.int64(nroll), np.int64(sw)))
    five = ints[ints[T.O_FIVE] : ints[T.O_FIVE] + nroll]
    up0 = K.next_up(ints, 0, 0)
    nchunks = (games + chunk - 1) // chunk
    for c in nb.prange(nchunks):
        state = np.zeros(1, dtype=np.uint64)
        noise = np.zeros(1, dtype=np.uint64)
        pre, S, E, B, W = K.work_arrays(ints)
        pts = np.empty(nbx, dtype=np.int32)
        vals = np.empty(nbx + sw)
        ids = np.empty(nbx + sw, dtype=np.int64)
        for g in range(c * chunk, min(games, (c + 1) * chunk)):
            _seed_game(state, seed, g)
            noise[0] = state[0] ^ MIX2 ^ (np.uint64(salt) * GOLDEN)
            noise[0] = _next(noise)
            mask = 0
            up = up0
            y = 0
            raw_upper = 0
            total = 0
            extra = 0
            for _turn in range(nbx):
                slot = slot_of[(mask * units + up) * ybits + y]
                if slot >= 0:
                    EE, eoff = Ec[slot], 1
                elif rolls > 1:
                    K.turn_tables(ints, V, mask, up, y, rolls - 1, False, pre, S, E, B, W)
                    EE, eoff = E, 0
                else:
                    EE, eoff = E, 0
                d = _roll(0, off, add, state)
                k = rolls - 1
                while True:
                    K.score_options(ints, mask, y, d - off, K.roll_type(ints, rolls - k), pts)
                    bonus = ints[T.P_YBONUS] if ybits == 2 and y == 1 and five[d - off] >= 0 else 0
                    n = 0
                    for b in range(nbx):
                        if pts[b] >= 0:
                            vals[n] = K.after(ints, V, mask, b, up, y, pts[b]) + bonus
                            ids[n] = -(b + 1)
                            n += 1
                    if k > 0:
                        for j in range(sw):
                            t = subsets[d - off, j]
                            if t < 0:
                                break
                            vals[n] = EE[k - eoff, t]
                            ids[n] = t
                            n += 1
                    chosen = ids[_pick(vals, n, temperature, blunder, noise)]
                    if chosen < 0:
                        break
                    d = _roll(chosen, off, add, state)
                    k -= 1
                bb = -chosen - 1
                p = pts[bb]
                box_points[g, bb] = p
                mask, up, y, raw_upper, total, extra = _scored(
                    ints, bb, p, d - off, mask, up, y, raw_upper, total, extra
                )
            _finish(ints, g, raw_upper, total, extra, totals, upper_bonus, ybonuses)


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


@dataclass(frozen=True, slots=True)
class LevelPolicy:
    """How a compiled player picks: by a softmax of each option's loss at ``temperature`` points
    (0: always the best), any option at all with chance ``blunder``, options valued by the
    solver's expected final score or, ``greedy``, by this turn's points alone
    (:func:`fivedice.services.sim.policy_of` gives each level's).

    >>> LevelPolicy(blunder=1.0)  # picks uniformly among every option: the ``random`` level
    LevelPolicy(temperature=0.0, blunder=1.0, greedy=False)
    """

    temperature: float = 0.0
    blunder: float = 0.0
    greedy: bool = False


def simulate_level(
    solver: Solver, policy: LevelPolicy, games: int, seed: int, threads: int | None = None, salt: int = 0
) -> SimulationResult:
    """Play ``games`` solitaire games by ``policy``; the same ``seed`` gives the same games whatever
    ``threads`` (``salt`` varies the player's own randomness, not the dice). The optimal policy is
    :func:`simulate_optimal` (bit for bit)."""
    if policy == LevelPolicy():
        return simulate_optimal(solver, games, seed, threads)
    return _run(solver, games, seed, threads, policy, int(salt) & 0xFFFFFFFF)


def simulate_optimal(
    rules: RuleSet | Solver, games: int, seed: int, threads: int | None = None, cache: bool = True
) -> SimulationResult:
    """Play ``games`` solitaire games optimally; the same ``seed`` gives the same games whatever ``threads``."""
    solver = rules if isinstance(rules, Solver) else solve(rules, cache=cache)
    return _run(solver, games, seed, threads, None, 0)


def _run(
    solver: Solver, games: int, seed: int, threads: int | None, policy: LevelPolicy | None, salt: int
) -> SimulationResult:
    """Play ``games`` with the compiled kernels on ``threads`` threads: optimally when ``policy`` is None,
    else by :func:`_play_noisy` (greedy policies value every state at 0, so only this turn's points count)."""
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
    values = np.zeros_like(solver.table.values) if policy is not None and policy.greedy else solver.table.values
    state_seed = int(seed) & 0xFFFFFFFFFFFFFFFF
    try:
        early = _early_states(solver)
        slot_of = np.full(t.nstates, -1, dtype=np.int32)
        slot_of[early] = np.arange(len(early), dtype=np.int32)
        Sc = np.empty((len(early), t.rolltypes, t.nroll))
        Ec = np.empty((len(early), max(1, t.rules.rolls - 1), t.nkeep))
        with PARALLEL:
            _precompute(early, t.ints, values, Sc, Ec)
            if policy is None:
                _play(n, state_seed, t.ints, values, CHUNK, slot_of, Sc, Ec,
                      totals, box_points, upper_bonus, ybonuses)  # fmt: skip
            else:
                _play_noisy(n, state_seed, t.ints, values, CHUNK, slot_of, Ec,
                            float(policy.temperature), float(policy.blunder), salt,
                            totals, box_points, upper_bonus, ybonuses)  # fmt: skip
    finally:
        nb.set_num_threads(previous)
    seconds = time.perf_counter() - start
    return SimulationResult(solver.rules, int(seed), totals, box_points, upper_bonus, ybonuses, seconds, used)
