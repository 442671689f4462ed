"""Numba kernels: reachable states, the backward induction over turn-start states, and the
within-turn values that the advisor and the simulator read.

Importing this module imports numba (about 1 s and 140 MB the first time in a process); the
advisor's numpy path (:mod:`fivedice.solver.plain`) answers without it. Every kernel reads the
rule set's tables from one packed ``int32`` array ``ints`` (:attr:`Tables.ints`, positions
``P_*``/``O_*`` of :mod:`fivedice.solver.tables`) and the state values ``V``.

A turn-start state is ``(mask, up, y)``: the filled boxes, the upper total capped at the
highest bonus threshold (and set to that cap once no bonus can change any more, since the
future then no longer depends on it) and, when the rules pay extra-Yahtzee bonuses, whether
the Yahtzee box holds points. Its dense index is ``(mask * units + up) * ybits + y``; ``V``
holds the expected points still to come.

Inside a turn (:func:`turn_tables`, one state, from the primitives of
:mod:`fivedice.solver.primitives`), ``S[rt, d]`` is the value of scoring roll ``d``
now (points row ``rt``), ``E[k, t]`` the value of keeping multiset ``t`` with ``k`` rolls left
(the average over the next die's face: six additions per keep; ``E[k, off:]`` is the roll
values with ``k - 1`` rolls left) and ``W[k, d]`` the value of holding roll ``d`` with ``k``
rolls left (the better of scoring now and the best proper keep). Every sum runs in a fixed
order and each state is computed by one thread, so tables are bit-identical whatever the
thread count. No kernel is ``parallel``: the build and the batches run them on Python threads
(they release the GIL), which needs no threading layer and compiles faster.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from fivedice.solver.plain import BoolArray, FloatArray, Int64Array, IntArray
from fivedice.solver.primitives import (
    NEG,
    after,
    bonus_due,
    keep_values,
    next_up,
    roll_type,
    score_now,
    score_options,
    successor,
    t1,
    t2,
)
from fivedice.solver.tables import (
    O_ALLOWED,
    O_ISUP,
    O_NPV,
    O_PVALS,
    O_SUBSETS,
    O_WAYS,
    P_DEN,
    P_NB,
    P_NKEEP,
    P_NROLL,
    P_PMAX,
    P_PW,
    P_ROLLS,
    P_SW,
    P_UNITS,
    P_YBITS,
    P_YBONUS,
    P_YBOX,
)  # fmt: skip

__all__ = [
    "NEG", "advise", "advise_many", "after", "next_up", "reachable", "roll_type", "score_options",
    "solve_states", "state_value", "turn_tables", "work_arrays",
]  # fmt: skip


@nb.njit(cache=True, nogil=True)
def _prepare(ints: IntArray, V: FloatArray, mask: int, up: int, y: int, pre: FloatArray) -> None:
    """``pre[b, p]`` = value of putting ``p`` points in open box ``b`` (for each ``p`` it can take)."""
    nbx = ints[P_NB]
    pvals = t2(ints, O_PVALS, nbx, ints[P_PW])
    npv = t1(ints, O_NPV, nbx)
    isup = t1(ints, O_ISUP, nbx)
    ybox = ints[P_YBOX]
    for b in range(nbx):
        if (mask >> b) & 1:
            continue
        if isup[b] or (b == ybox and ints[P_YBITS] == 2):
            for i in range(npv[b]):
                p = pvals[b, i]
                pre[b, p] = after(ints, V, mask, b, up, y, p)
        else:
            base = after(ints, V, mask, b, up, y, 0)
            for i in range(npv[b]):
                p = pvals[b, i]
                pre[b, p] = p + base


@nb.njit(cache=True, nogil=True)
def turn_tables(
    ints: IntArray, V: FloatArray, mask: int, up: int, y: int, upto: int, last_w: bool, pre: FloatArray, S: FloatArray,
    E: FloatArray, B: FloatArray, W: FloatArray,
) -> None:  # fmt: skip
    """Fill the turn's tables of state ``(mask, up, y)`` up to ``upto`` rolls left: ``pre`` (see
    :func:`_prepare`), ``S[rt]`` (score now, per points row), ``E[k]`` (keeps, ``1 <= k <= upto``)
    and ``W[k]`` (rolls; ``W[upto]`` only if ``last_w``). Work arrays from :func:`work_arrays`."""
    rt_last = roll_type(ints, ints[P_ROLLS])
    extra = float(ints[P_YBONUS])
    _prepare(ints, V, mask, up, y, pre)
    score_now(ints, mask, y, rt_last, pre, pre, extra, S[rt_last])
    if rt_last == 1:
        score_now(ints, mask, y, 0, pre, pre, extra, S[0])
    keep_values(ints, S, E, B, W, upto, last_w)


@nb.njit(cache=True, nogil=True)
def work_arrays(ints: IntArray) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray, FloatArray]:
    """``pre, S, E, B, W`` for :func:`turn_tables`."""
    nkeep = np.int64(ints[P_NKEEP])
    nroll = np.int64(ints[P_NROLL])
    rolls = np.int64(ints[P_ROLLS])
    pre = np.empty((np.int64(ints[P_NB]), np.int64(ints[P_PMAX])))
    S = np.empty((np.int64(2), nroll))
    E = np.empty((rolls, nkeep))
    B = np.empty(nkeep)
    W = np.empty((rolls, nroll))
    return pre, S, E, B, W


@nb.njit(cache=True, nogil=True)
def state_value(
    ints: IntArray, V: FloatArray, mask: int, up: int, y: int, pre: FloatArray, S: FloatArray, E: FloatArray,
    B: FloatArray, W: FloatArray,
) -> float:  # fmt: skip
    """The value of turn-start state ``(mask, up, y)`` from the values of the states after it."""
    rolls = ints[P_ROLLS]
    nroll = ints[P_NROLL]
    turn_tables(ints, V, mask, up, y, rolls - 1, True, pre, S, E, B, W)
    ways = t1(ints, O_WAYS, nroll)
    den = float(ints[P_DEN])
    top = rolls - 1
    rt = roll_type(ints, 1)
    total = 0.0
    for d in range(nroll):
        total += (ways[d] / den) * (W[top, d] if top > 0 else S[rt, d])
    return total


@nb.njit(cache=True, nogil=True)
def solve_states(ints: IntArray, V: FloatArray, states: Int64Array, lo: int, hi: int) -> None:
    """Fill ``V`` for ``states[lo:hi]`` (their successors must already be in ``V``)."""
    units = ints[P_UNITS]
    ybits = ints[P_YBITS]
    pre, S, E, B, W = work_arrays(ints)
    for i in range(lo, hi):
        s = states[i]
        V[s] = state_value(ints, V, s // (ybits * units), (s // ybits) % units, s % ybits, pre, S, E, B, W)


@nb.njit(cache=True, nogil=True)
def reachable(ints: IntArray) -> BoolArray:
    """Which dense states can arise from the empty card (a boolean array)."""
    nbx = ints[P_NB]
    units = ints[P_UNITS]
    ybits = ints[P_YBITS]
    pvals = t2(ints, O_PVALS, nbx, ints[P_PW])
    npv = t1(ints, O_NPV, nbx)
    full = (1 << nbx) - 1
    reach = np.zeros((1 << nbx) * units * ybits, dtype=np.bool_)
    reach[next_up(ints, 0, 0) * ybits] = True
    for mask in range(full):
        al = ints[ints[O_ALLOWED] + mask]
        for up in range(units):
            for y in range(ybits):
                if not reach[(mask * units + up) * ybits + y]:
                    continue
                for b in range(nbx):
                    if not (al >> b) & 1:
                        continue
                    for i in range(npv[b]):
                        s2, _gain = successor(ints, mask, b, up, y, pvals[b, i])
                        reach[s2] = True
    return reach


@nb.njit(cache=True, nogil=True)
def _advise(
    ints: IntArray, V: FloatArray, state: int, d: int, k: int, fout: FloatArray, iout: IntArray, pre: FloatArray,
    S: FloatArray, E: FloatArray, B: FloatArray, W: FloatArray,
) -> tuple[int, int]:  # fmt: skip
    nbx = ints[P_NB]
    sw = ints[P_SW]
    units = ints[P_UNITS]
    ybits = ints[P_YBITS]
    rolls = ints[P_ROLLS]
    y = state % ybits
    up = (state // ybits) % units
    mask = state // (ybits * units)
    rt = roll_type(ints, rolls - k)
    box_pts = iout[sw : sw + nbx]
    score_options(ints, mask, y, d, rt, box_pts)
    extra = ints[P_YBONUS] if bonus_due(ints, y, d) else 0
    best = NEG
    code = 0
    n = 0
    if k > 0:
        turn_tables(ints, V, mask, up, y, k, False, pre, S, E, B, W)
        for b in range(nbx):
            p = box_pts[b]
            fout[sw + b] = pre[b, p] + extra if p >= 0 else NEG
    else:
        for b in range(nbx):
            p = box_pts[b]
            fout[sw + b] = after(ints, V, mask, b, up, y, p) + extra if p >= 0 else NEG
    for b in range(nbx):
        if fout[sw + b] > best:
            best = fout[sw + b]
            code = -(b + 1)
    if k > 0:
        subsets = t2(ints, O_SUBSETS, ints[P_NROLL], sw)
        for i in range(sw):
            t = subsets[d, i]
            if t < 0:
                break
            iout[n] = t
            fout[n] = E[k, t]
            if fout[n] > best:
                best = fout[n]
                code = n
            n += 1
    return n, code


@nb.njit(cache=True, nogil=True)
def advise(
    ints: IntArray, V: FloatArray, state: int, d: int, k: int, fout: FloatArray, iout: IntArray
) -> tuple[int, int]:
    """Every option for roll ``d`` (a roll index) with ``k`` rolls left in dense state ``state``.

    Fills ``iout[:n]``/``fout[:n]`` (the proper keeps and their values; ``n`` is returned) and,
    from position ``P_SW`` on, per box, ``iout`` the points (-1 where not allowed) and ``fout``
    the value (points, bonuses and what follows; ``NEG`` where not allowed). Returns ``n`` and the
    best option: ``-(box + 1)`` or a keep's position (ties: boxes first, in card order, then keeps
    in order)."""
    pre, S, E, B, W = work_arrays(ints)
    return _advise(ints, V, state, d, k, fout, iout, pre, S, E, B, W)


@nb.njit(cache=True, nogil=True)
def advise_many(
    ints: IntArray, V: FloatArray, states: Int64Array, rolls: Int64Array, left: Int64Array, lo: int, hi: int,
    nkeep: Int64Array, best: Int64Array, fout: FloatArray, iout: IntArray,
) -> None:  # fmt: skip
    """:func:`advise` for situations ``lo .. hi - 1`` (row ``i`` of each output)."""
    pre, S, E, B, W = work_arrays(ints)
    for i in range(lo, hi):
        n, code = _advise(ints, V, states[i], rolls[i], left[i], fout[i], iout[i], pre, S, E, B, W)
        nkeep[i] = n
        best[i] = code
