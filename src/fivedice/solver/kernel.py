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

Inside a turn (:func:`turn_tables`, one state), ``S[rt, d]`` is the value of scoring roll ``d``
now (points row ``rt``), ``E[k, t]`` the value of keeping multiset ``t`` with ``k`` rolls left
(the average over the next die's face: six additions per keep; ``E[k, off:]`` is the roll
values with ``k - 1`` rolls left) and ``W[k, d]`` the value of holding roll ``d`` with ``k``
rolls left (the better of scoring now and the best proper keep). Every sum runs in a fixed
order and each state is computed by one thread, so tables are bit-identical whatever the
thread count. No kernel is ``parallel``: the build and the batches run them on Python threads
(they release the GIL), which needs no threading layer and compiles faster.
"""

from __future__ import annotations

from typing import Any

import numba as nb
import numpy as np

from fivedice.solver.tables import (
    O_ADD,
    O_ALLOWED,
    O_BONUS,
    O_FIVE,
    O_FIVES,
    O_ISUP,
    O_JOKER,
    O_MAXREM,
    O_NPV,
    O_POINTS,
    O_PVALS,
    O_SUB,
    O_SUBSETS,
    O_WAYS,
    P_CAP,
    P_DEN,
    P_JOKER,
    P_JOKY,
    P_NB,
    P_NKEEP,
    P_NROLL,
    P_OFF,
    P_PMAX,
    P_PW,
    P_ROLLS,
    P_RTYPES,
    P_SW,
    P_UNITS,
    P_YBITS,
    P_YBONUS,
    P_YBOX,
)  # fmt: skip

__all__ = [
    "NEG", "advise", "advise_many", "after", "joker_at", "next_up", "reachable", "roll_type", "score_options",
    "solve_states", "state_value", "turn_tables", "work_arrays",
]  # fmt: skip

NEG = -1.0e300
INV6 = 1.0 / 6.0


@nb.njit(cache=True, nogil=True)
def _t1(ints: Any, o: int, size: int) -> Any:
    start = ints[o]
    return ints[start : start + size]


@nb.njit(cache=True, nogil=True)
def _t2(ints: Any, o: int, rows: int, cols: int) -> Any:
    start = ints[o]
    return ints[start : start + rows * cols].reshape((np.int64(rows), np.int64(cols)))


@nb.njit(cache=True, nogil=True)
def next_up(ints: Any, nm: int, nu: int) -> int:
    """The state's upper value for upper total ``nu`` (already capped) on filled mask ``nm``:
    the cap once no bonus can change any more (the future no longer depends on it)."""
    cap = ints[P_CAP]
    top = nu + ints[ints[O_MAXREM] + nm]
    if top > cap:
        top = cap
    ob = ints[O_BONUS]
    if ints[ob + top] == ints[ob + nu]:
        return int(cap)
    return nu


@nb.njit(cache=True, nogil=True)
def after(ints: Any, V: Any, mask: int, b: int, up: int, y: int, p: int) -> float:
    """Points ``p`` in box ``b`` plus any upper bonus gained plus the value of the next state."""
    units = ints[P_UNITS]
    ybits = ints[P_YBITS]
    nm = mask | (1 << b)
    nu = up
    gain = 0
    if ints[ints[O_ISUP] + b]:
        nu = up + p
        if nu > ints[P_CAP]:
            nu = ints[P_CAP]
        gain = ints[ints[O_BONUS] + nu] - ints[ints[O_BONUS] + up]
        nu = next_up(ints, nm, nu)
    ny = y
    if b == ints[P_YBOX] and ybits == 2:
        ny = 1 if p > 0 else 0
    value: float = (p + gain) + V[(nm * units + nu) * ybits + ny]
    return value


@nb.njit(cache=True, nogil=True)
def roll_type(ints: Any, roll: int) -> int:
    """The points row for dice made on roll number ``roll``."""
    if roll == 1 or ints[P_RTYPES] == 1:
        return 0
    return 1


@nb.njit(cache=True, nogil=True)
def joker_at(ints: Any, mask: int, y: int, f: int, rt: int) -> int:
    """Where the Joker points of ``n`` alike of face ``f + 1`` start (one per box) in state ``(mask, y)``:
    the rows depend on ``y`` too when a box of all dice alike once more needs the Yahtzee box to hold points."""
    row = mask * 2 + y if ints[P_JOKY] == 1 else mask
    return int(ints[O_JOKER] + ((row * 6 + f) * ints[P_RTYPES] + rt) * ints[P_NB])


@nb.njit(cache=True, nogil=True)
def score_options(ints: Any, mask: int, y: int, d: int, rt: int, out: Any) -> None:
    """``out[b]`` = points roll ``d`` scores in box ``b`` now (state ``(mask, y)``), or -1 where the rules
    forbid it."""
    nbx = ints[P_NB]
    nroll = ints[P_NROLL]
    op = ints[O_POINTS] + rt * nbx * nroll
    al = ints[ints[O_ALLOWED] + mask]
    ybox = ints[P_YBOX]
    f = ints[ints[O_FIVE] + d]
    jok = ints[P_JOKER] == 1 and ybox >= 0 and (mask >> ybox) & 1 == 1 and f >= 0
    at = joker_at(ints, mask, y, f, rt) if jok else 0
    for b in range(nbx):
        if jok:
            out[b] = ints[at + b]
        elif (al >> b) & 1:
            out[b] = ints[op + b * nroll + d]
        else:
            out[b] = -1


@nb.njit(cache=True, nogil=True)
def _prepare(ints: Any, V: Any, mask: int, up: int, y: int, pre: Any) -> None:
    """``pre[b, p]`` = value of putting ``p`` points in open box ``b`` (for each ``p`` it can take)."""
    nbx = ints[P_NB]
    pvals = _t2(ints, O_PVALS, nbx, ints[P_PW])
    npv = _t1(ints, O_NPV, nbx)
    isup = _t1(ints, O_ISUP, nbx)
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
def _score_now(ints: Any, mask: int, y: int, rt: int, pre: Any, out: Any) -> None:
    """``out[d]`` = value of scoring roll ``d`` now in its best box (``pre`` from :func:`_prepare`)."""
    nbx = ints[P_NB]
    nroll = ints[P_NROLL]
    rtypes = ints[P_RTYPES]
    points = _t2(ints, O_POINTS, rtypes * nbx, nroll)
    fives = _t1(ints, O_FIVES, 6)
    al = ints[ints[O_ALLOWED] + mask]
    for d in range(nroll):
        out[d] = NEG
    for b in range(nbx):
        if (al >> b) & 1:
            row = rt * nbx + b
            for d in range(nroll):
                v = pre[b, points[row, d]]
                if v > out[d]:
                    out[d] = v
    ybox = ints[P_YBOX]
    if ints[P_JOKER] == 1 and ybox >= 0 and (mask >> ybox) & 1 == 1:
        for f in range(6):
            d = fives[f]
            if d < 0:
                continue
            at = joker_at(ints, mask, y, f, rt)
            best = NEG
            for b in range(nbx):
                p = ints[at + b]
                if p >= 0 and pre[b, p] > best:
                    best = pre[b, p]
            out[d] = best
    if ints[P_YBITS] == 2 and y == 1:
        for f in range(6):
            if fives[f] >= 0:
                out[fives[f]] += ints[P_YBONUS]


@nb.njit(cache=True, nogil=True)
def turn_tables(
    ints: Any, V: Any, mask: int, up: int, y: int, upto: int, last_w: bool,
    pre: Any, S: Any, E: Any, B: Any, W: Any,
) -> None:  # fmt: skip
    """Fill the turn's tables of state ``(mask, up, y)`` up to ``upto`` rolls left: ``pre`` (see
    :func:`_prepare`), ``S[rt]`` (score now, per points row), ``E[k]`` (keeps, ``1 <= k <= upto``)
    and ``W[k]`` (rolls; ``W[upto]`` only if ``last_w``). Work arrays from :func:`work_arrays`."""
    nroll = ints[P_NROLL]
    off = ints[P_OFF]
    rolls = ints[P_ROLLS]
    add = _t2(ints, O_ADD, ints[P_NKEEP], 6)
    sub = _t2(ints, O_SUB, ints[P_NKEEP], 6)
    rt_last = roll_type(ints, rolls)
    _prepare(ints, V, mask, up, y, pre)
    _score_now(ints, mask, y, rt_last, pre, S[rt_last])
    if rt_last == 1:
        _score_now(ints, mask, y, 0, pre, S[0])
    for d in range(nroll):
        W[0, d] = S[rt_last, d]
    for k in range(1, upto + 1):
        rt = roll_type(ints, rolls - k)
        for d in range(nroll):
            E[k, off + d] = W[k - 1, d]
        for t in range(off - 1, -1, -1):
            E[k, t] = (((((E[k, add[t, 0]] + E[k, add[t, 1]]) + E[k, add[t, 2]]) + E[k, add[t, 3]])
                        + E[k, add[t, 4]]) + E[k, add[t, 5]]) * INV6  # fmt: skip
        if k == upto and not last_w:
            break
        for t in range(off):
            m = E[k, t]
            for i in range(6):
                u = sub[t, i]
                if u < 0:
                    break
                if B[u] > m:
                    m = B[u]
            B[t] = m
        for d in range(nroll):
            m = S[rt, d]
            for i in range(6):
                u = sub[off + d, i]
                if u < 0:
                    break
                if B[u] > m:
                    m = B[u]
            W[k, d] = m


@nb.njit(cache=True, nogil=True)
def work_arrays(ints: Any) -> tuple[Any, Any, Any, Any, Any]:
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
def state_value(ints: Any, V: Any, mask: int, up: int, y: int, pre: Any, S: Any, E: Any, B: Any, W: Any) -> float:
    """The value of turn-start state ``(mask, up, y)`` from the values of the states after it."""
    rolls = ints[P_ROLLS]
    nroll = ints[P_NROLL]
    turn_tables(ints, V, mask, up, y, rolls - 1, True, pre, S, E, B, W)
    ways = _t1(ints, O_WAYS, nroll)
    den = float(ints[P_DEN])
    top = rolls - 1
    rt = roll_type(ints, 1)
    total = 0.0
    for d in range(nroll):
        total += (ways[d] / den) * (W[top, d] if top > 0 else S[rt, d])
    return total


@nb.njit(cache=True, nogil=True)
def solve_states(ints: Any, V: Any, states: Any, lo: int, hi: int) -> None:
    """Fill ``V`` for ``states[lo:hi]`` (their successors must already be in ``V``)."""
    units = ints[P_UNITS]
    ybits = ints[P_YBITS]
    pre, S, E, B, W = work_arrays(ints)
    for i in range(lo, hi):
        s = states[i]
        V[s] = state_value(ints, V, s // (ybits * units), (s // ybits) % units, s % ybits, pre, S, E, B, W)


@nb.njit(cache=True, nogil=True)
def reachable(ints: Any) -> Any:
    """Which dense states can arise from the empty card (a boolean array)."""
    nbx = ints[P_NB]
    units = ints[P_UNITS]
    ybits = ints[P_YBITS]
    cap = ints[P_CAP]
    isup = _t1(ints, O_ISUP, nbx)
    pvals = _t2(ints, O_PVALS, nbx, ints[P_PW])
    npv = _t1(ints, O_NPV, nbx)
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
                    nm = mask | (1 << b)
                    for i in range(npv[b]):
                        p = pvals[b, i]
                        nu = up
                        if isup[b]:
                            nu = next_up(ints, nm, min(up + p, cap))
                        ny = y
                        if b == ints[P_YBOX] and ybits == 2:
                            ny = 1 if p > 0 else 0
                        reach[(nm * units + nu) * ybits + ny] = True
    return reach


@nb.njit(cache=True, nogil=True)
def _advise(
    ints: Any, V: Any, state: int, d: int, k: int, fout: Any, iout: Any,
    pre: Any, S: Any, E: Any, B: Any, W: Any,
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
    extra = ints[P_YBONUS] if ybits == 2 and y == 1 and ints[ints[O_FIVE] + d] >= 0 else 0
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
        subsets = _t2(ints, O_SUBSETS, ints[P_NROLL], sw)
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
def advise(ints: Any, V: Any, state: int, d: int, k: int, fout: Any, iout: Any) -> tuple[int, int]:
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
    ints: Any, V: Any, states: Any, rolls: Any, left: Any, lo: int, hi: int,
    nkeep: Any, best: Any, fout: Any, iout: Any,
) -> None:  # fmt: skip
    """:func:`advise` for situations ``lo .. hi - 1`` (row ``i`` of each output)."""
    pre, S, E, B, W = work_arrays(ints)
    for i in range(lo, hi):
        n, code = _advise(ints, V, states[i], rolls[i], left[i], fout[i], iout[i], pre, S, E, B, W)
        nkeep[i] = n
        best[i] = code
