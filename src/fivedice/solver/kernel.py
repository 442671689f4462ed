"""Numba kernels: reachable states, the backward induction over turn-start states, and the
within-turn values that the advisor and the simulator read.

A turn-start state is ``(mask, up, y)``: the filled boxes, the upper total capped at the
highest bonus threshold (and set to that cap once no bonus can change any more, since the
future then no longer depends on it) and, when the rules pay extra-Yahtzee bonuses, whether
the Yahtzee box holds points. Its dense index is ``(mask * units + up) * ybits + y``; ``V``
holds the expected points still to come.

Inside a turn, ``E[k, t]`` is the value of keeping multiset ``t`` with ``k`` rolls left (the
average over the next die's face, so each keep costs six additions) and ``W[k, d]`` the value
of holding roll ``d`` with ``k`` rolls left: the better of scoring now and the best proper keep.
Every sum runs in a fixed order, and each state is computed by one thread, so tables are
bit-identical whatever the thread count.
"""

from __future__ import annotations

import threading
from typing import Any

import numba as nb
import numpy as np

__all__ = ["backward", "reachable", "score_values", "turn_tables"]

# Positions in the params array (see Tables.params).
N, NB, NKEEP, NROLL, OFF, ROLLS, UNITS, YBITS, CAP, UPMASK, YBOX, YBONUS, JOKER, RTYPES = range(14)
# Positions in the tables tuple (see Tables.arrays).
(T_ADD, T_SUB, T_SUBSETS, T_FIVE, T_POINTS, T_ALLOWED) = range(6)
(T_JOKER, T_IS_UPPER, T_BONUS_OF, T_PVALS, T_FIVES, T_MAXREM) = range(6, 12)
PARALLEL = threading.Lock()
"""Held while a parallel kernel runs: numba's fallback threading layer (workqueue) cannot run
two parallel launches from different threads at once."""
NEG = -1.0e300
INV6 = 1.0 / 6.0


@nb.njit(cache=True, nogil=True)
def next_up(nm: int, nu: int, prm: Any, bonus_of: Any, maxrem: Any) -> int:
    """The state's upper value for upper total ``nu`` (already capped) on filled mask ``nm``:
    ``cap`` once no bonus can change any more (the future no longer depends on it)."""
    cap = prm[CAP]
    top = nu + maxrem[nm]
    if top > cap:
        top = cap
    if bonus_of[top] == bonus_of[nu]:
        return int(cap)
    return nu


@nb.njit(cache=True, nogil=True)
def _after(
    mask: int, b: int, up: int, y: int, p: int, prm: Any, is_upper: Any, bonus_of: Any, maxrem: Any, V: Any
) -> float:
    """Points ``p`` in box ``b`` plus any upper bonus gained plus the value of the next state."""
    units = prm[UNITS]
    ybits = prm[YBITS]
    nm = mask | (1 << b)
    nu = up
    gain = 0
    if is_upper[b]:
        nu = up + p
        if nu > prm[CAP]:
            nu = prm[CAP]
        gain = bonus_of[nu] - bonus_of[up]
        nu = next_up(nm, nu, prm, bonus_of, maxrem)
    ny = y
    if b == prm[YBOX] and ybits == 2:
        ny = 1 if p > 0 else 0
    return float(p + gain + V[(nm * units + nu) * ybits + ny])


@nb.njit(cache=True, nogil=True)
def prepare(mask: int, up: int, y: int, prm: Any, tb: Any, V: Any, pre: Any) -> None:
    """``pre[b, p]`` = value of putting ``p`` points in open box ``b`` (for each ``p`` it can take)."""
    is_upper = tb[T_IS_UPPER]
    bonus_of = tb[T_BONUS_OF]
    pvals = tb[T_PVALS]
    maxrem = tb[T_MAXREM]
    for b in range(prm[NB]):
        if (mask >> b) & 1:
            continue
        if is_upper[b] or (b == prm[YBOX] and prm[YBITS] == 2):
            for j in range(pvals.shape[1]):
                p = pvals[b, j]
                if p < 0:
                    break
                pre[b, p] = _after(mask, b, up, y, p, prm, is_upper, bonus_of, maxrem, V)
        else:
            base = _after(mask, b, up, y, 0, prm, is_upper, bonus_of, maxrem, V)
            for j in range(pvals.shape[1]):
                p = pvals[b, j]
                if p < 0:
                    break
                pre[b, p] = p + base


@nb.njit(cache=True, nogil=True)
def score_values(mask: int, y: int, rt: int, prm: Any, tb: Any, pre: Any, out: Any) -> None:
    """``out[d]`` = value of scoring roll ``d`` now in its best box (``pre`` from :func:`prepare`)."""
    points = tb[T_POINTS]
    allowed = tb[T_ALLOWED]
    joker = tb[T_JOKER]
    fives = tb[T_FIVES]
    nroll = prm[NROLL]
    al = allowed[mask]
    for d in range(nroll):
        out[d] = NEG
    for b in range(prm[NB]):
        if (al >> b) & 1:
            row = pre[b]
            pts = points[rt, b]
            for d in range(nroll):
                v = row[pts[d]]
                if v > out[d]:
                    out[d] = v
    ybox = prm[YBOX]
    if prm[JOKER] == 1 and ybox >= 0 and (mask >> ybox) & 1 == 1:
        for f in range(6):
            d = fives[f]
            if d < 0:
                continue
            best = NEG
            for b in range(prm[NB]):
                p = joker[mask, f, rt, b]
                if p >= 0 and pre[b, p] > best:
                    best = pre[b, p]
            out[d] = best
    if prm[YBITS] == 2 and y == 1:
        for f in range(6):
            if fives[f] >= 0:
                out[fives[f]] += prm[YBONUS]


@nb.njit(cache=True, nogil=True)
def score_options(mask: int, d: int, rt: int, prm: Any, tb: Any, out: Any) -> None:
    """``out[b]`` = points roll ``d`` scores in box ``b`` now, or -1 where the rules forbid it."""
    five = tb[T_FIVE]
    points = tb[T_POINTS]
    allowed = tb[T_ALLOWED]
    joker = tb[T_JOKER]
    al = allowed[mask]
    ybox = prm[YBOX]
    f = five[d]
    jok = prm[JOKER] == 1 and ybox >= 0 and (mask >> ybox) & 1 == 1 and f >= 0
    for b in range(prm[NB]):
        if jok:
            out[b] = joker[mask, f, rt, b]
        elif (al >> b) & 1:
            out[b] = points[rt, b, d]
        else:
            out[b] = -1


@nb.njit(cache=True, nogil=True)
def roll_type(roll: int, prm: Any) -> int:
    """The points row for dice made on roll number ``roll``."""
    if roll == 1 or prm[RTYPES] == 1:
        return 0
    return 1


@nb.njit(cache=True, nogil=True)
def turn_tables(
    mask: int, up: int, y: int, upto: int, prm: Any, tb: Any, V: Any, pre: Any, S: Any, E: Any, B: Any, W: Any,
    last_w: bool = True,
) -> None:  # fmt: skip
    """Fill the turn's tables up to ``upto`` rolls left (``W[upto]`` only if ``last_w``).

    ``pre`` as from :func:`prepare`, ``S[rt]`` score-now values per points row, ``E[k]`` keep values
    (``E[k, off:]`` is ``W[k - 1]``), ``W[k]`` roll values, for ``k <= upto``.
    """
    add = tb[T_ADD]
    sub = tb[T_SUB]
    rolls = prm[ROLLS]
    off = prm[OFF]
    nroll = prm[NROLL]
    rt_last = roll_type(rolls, prm)
    prepare(mask, up, y, prm, tb, V, pre)
    score_values(mask, y, rt_last, prm, tb, pre, S[rt_last])
    if rt_last == 1 and upto >= rolls - 1:
        score_values(mask, y, 0, prm, tb, pre, S[0])
    for d in range(nroll):
        W[0, d] = S[rt_last, d]
    for k in range(1, upto + 1):
        rt = roll_type(rolls - k, prm)
        Ek = E[k]
        for d in range(nroll):
            Ek[off + d] = W[k - 1, d]
        for t in range(off - 1, -1, -1):
            s = 0.0
            for f in range(6):
                s += Ek[add[t, f]]
            Ek[t] = s * INV6
        if k == upto and not last_w:
            break
        for t in range(off):
            m = Ek[t]
            for j in range(6):
                u = sub[t, j]
                if u < 0:
                    break
                if B[u] > m:
                    m = B[u]
            B[t] = m
        for d in range(nroll):
            m = S[rt, d]
            for j in range(6):
                u = sub[off + d, j]
                if u < 0:
                    break
                if B[u] > m:
                    m = B[u]
            W[k, d] = m


@nb.njit(cache=True, nogil=True)
def _state_value(
    mask: int, up: int, y: int, prm: Any, tb: Any, prob: Any, V: Any, pre: Any, S: Any, E: Any, B: Any, W: Any
) -> float:
    rolls = prm[ROLLS]
    turn_tables(mask, up, y, rolls - 1, prm, tb, V, pre, S, E, B, W)
    top = rolls - 1
    rt = roll_type(1, prm)
    total = 0.0
    for d in range(prm[NROLL]):
        total += prob[d] * (W[top, d] if top > 0 else S[rt, d])
    return total


@nb.njit(cache=True, parallel=True)
def backward(states: Any, starts: Any, prm: Any, tb: Any, prob: Any, V: Any, chunk: int) -> None:
    """Fill ``V`` for ``states`` (dense indices grouped by layer, fullest first; layer ``i`` is
    ``states[starts[i]:starts[i + 1]]``). Each state is computed by exactly one thread."""
    units = prm[UNITS]
    ybits = prm[YBITS]
    rolls = prm[ROLLS]
    for layer in range(len(starts) - 1):
        lo = starts[layer]
        hi = starts[layer + 1]
        nchunks = (hi - lo + chunk - 1) // chunk
        for c in nb.prange(nchunks):
            pre = np.empty((prm[NB], tb[T_PVALS].max() + 1))
            S = np.empty((2, prm[NROLL]))
            E = np.empty((rolls, prm[NKEEP]))
            B = np.empty(prm[NKEEP])
            W = np.empty((rolls, prm[NROLL]))
            end = min(hi, lo + (c + 1) * chunk)
            for i in range(lo + c * chunk, end):
                s = states[i]
                y = s % ybits
                up = (s // ybits) % units
                mask = s // (ybits * units)
                V[s] = _state_value(mask, up, y, prm, tb, prob, V, pre, S, E, B, W)


@nb.njit(cache=True)
def reachable(prm: Any, tb: Any) -> Any:
    """Which dense states can arise from the empty card (a boolean array)."""
    allowed = tb[T_ALLOWED]
    is_upper = tb[T_IS_UPPER]
    bonus_of = tb[T_BONUS_OF]
    pvals = tb[T_PVALS]
    maxrem = tb[T_MAXREM]
    nbx = prm[NB]
    units = prm[UNITS]
    ybits = prm[YBITS]
    full = (1 << nbx) - 1
    reach = np.zeros((1 << nbx) * units * ybits, dtype=np.bool_)
    reach[next_up(0, 0, prm, bonus_of, maxrem) * ybits] = True
    for mask in range(full):
        al = allowed[mask]
        for up in range(units):
            for y in range(ybits):
                if not reach[(mask * units + up) * ybits + y]:
                    continue
                for b in range(nbx):
                    if not (al >> b) & 1:
                        continue
                    nm = mask | (1 << b)
                    for j in range(pvals.shape[1]):
                        p = pvals[b, j]
                        if p < 0:
                            break
                        nu = up
                        if is_upper[b]:
                            nu = next_up(nm, min(up + p, prm[CAP]), prm, bonus_of, maxrem)
                        ny = y
                        if b == prm[YBOX] and ybits == 2:
                            ny = 1 if p > 0 else 0
                        reach[(nm * units + nu) * ybits + ny] = True
    return reach


@nb.njit(cache=True, nogil=True)
def advise(
    mask: int, up: int, y: int, d: int, k: int, prm: Any, tb: Any, V: Any,
    keep_idx: Any, keep_val: Any, box_pts: Any, box_val: Any,
) -> tuple[int, int]:  # fmt: skip
    """Every option for roll ``d`` (a roll index) with ``k`` rolls left in state ``(mask, up, y)``.

    Fills ``keep_idx``/``keep_val`` (proper keeps; returns how many) and, per box,
    ``box_pts`` (-1 where not allowed) and ``box_val`` (points, bonuses and what follows).
    Returns the number of keeps and the best option: ``-(box + 1)`` or a keep's position
    (ties: boxes first, in card order, then keeps in order)."""
    subsets = tb[T_SUBSETS]
    five = tb[T_FIVE]
    is_upper = tb[T_IS_UPPER]
    bonus_of = tb[T_BONUS_OF]
    pvals = tb[T_PVALS]
    maxrem = tb[T_MAXREM]
    rolls = prm[ROLLS]
    nbx = prm[NB]
    rt = roll_type(rolls - k, prm)
    score_options(mask, d, rt, prm, tb, box_pts)
    extra = prm[YBONUS] if prm[YBITS] == 2 and y == 1 and five[d] >= 0 else 0
    best = NEG
    code = 0
    n = 0
    if k > 0:
        pre = np.empty((nbx, pvals.max() + 1))
        S = np.empty((2, prm[NROLL]))
        E = np.empty((k + 1, prm[NKEEP]))
        B = np.empty(prm[NKEEP])
        W = np.empty((k + 1, prm[NROLL]))
        turn_tables(mask, up, y, k, prm, tb, V, pre, S, E, B, W, False)
        for b in range(nbx):
            p = box_pts[b]
            box_val[b] = pre[b, p] + extra if p >= 0 else NEG
    else:
        for b in range(nbx):
            p = box_pts[b]
            box_val[b] = _after(mask, b, up, y, p, prm, is_upper, bonus_of, maxrem, V) + extra if p >= 0 else NEG
    for b in range(nbx):
        if box_val[b] > best:
            best = box_val[b]
            code = -(b + 1)
    if k > 0:
        for j in range(subsets.shape[1]):
            t = subsets[d, j]
            if t < 0:
                break
            keep_idx[n] = t
            keep_val[n] = E[k, t]
            if keep_val[n] > best:
                best = keep_val[n]
                code = n
            n += 1
    return n, code


@nb.njit(cache=True, parallel=True)
def advise_batch(
    states: Any, rolls: Any, left: Any, prm: Any, tb: Any, V: Any,
    nkeep: Any, best: Any, keep_idx: Any, keep_val: Any, box_pts: Any, box_val: Any,
) -> None:  # fmt: skip
    """:func:`advise` for many situations at once (row ``i`` of each output), in parallel."""
    units = prm[UNITS]
    ybits = prm[YBITS]
    for i in nb.prange(len(states)):
        s = states[i]
        n, code = advise(
            s // (ybits * units), (s // ybits) % units, s % ybits, rolls[i], left[i], prm, tb, V,
            keep_idx[i], keep_val[i], box_pts[i], box_val[i],
        )  # fmt: skip
        nkeep[i] = n
        best[i] = code
