"""Numba kernels for threshold play (the chance of gaining at least ``t`` more points, for every
``t`` at once) and for single decisions valued by a chance; the distribution of expectation play
is in :mod:`fivedice.solver.distkernel`.

States are the expectation solver's turn-start states (:mod:`fivedice.solver.kernel`).

*Threshold tables.* ``G[goff[s] + t]`` is the best chance, from turn-start state ``s``, that the
points still to come ``X`` satisfy ``X > t`` (plus ``half`` times the chance that ``X == t``;
``half = 1`` gives ``P(X >= t)``, ``half = 0.5`` counts a tie as half a win), for
``0 <= t < glen[s]``; below ``0`` the chance is 1, from ``glen[s]`` on it is 0 (no more points
can come). :func:`threshold_states` computes a state's whole vector over ``t`` with the
within-turn programme vectorised over ``t`` (within a turn the points still needed do not
change; only scoring shifts them).
"""

from __future__ import annotations

from typing import TypeAlias

import numba as nb
import numpy as np

from fivedice.solver.plain import Float32Array, FloatArray, Int64Array, IntArray
from fivedice.solver.primitives import (
    INV6,
    NEG,
    bonus_due,
    joker_applies,
    joker_points_at,
    keep_values,
    points_with,
    roll_type,
    score_now,
    score_options,
    successor,
)
from fivedice.solver.tables import (
    O_ADD,
    O_ALLOWED,
    O_BONUS,
    O_FIVES,
    O_ISUP,
    O_NPV,
    O_POINTS,
    O_PVALS,
    O_SUB,
    O_SUBSETS,
    O_WAYS,
    P_CAP,
    P_DEN,
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

ThresholdWork: TypeAlias = tuple[FloatArray, FloatArray, FloatArray, FloatArray, FloatArray, FloatArray]
"""``PRE, S, E, B, W, out`` of :func:`threshold_states`."""

__all__ = [
    "advise_custom", "max_future", "mixture_pre", "successor", "target_pre", "threshold_rows", "threshold_states",
]  # fmt: skip


@nb.njit(cache=True, nogil=True)
def max_future(ints: IntArray, states: Int64Array) -> Int64Array:
    """An upper bound of the points still to come from each state (open boxes at their most,
    the upper bonus still to earn, an extra-Yahtzee bonus on every turn where one can come)."""
    nbx = ints[P_NB]
    units = ints[P_UNITS]
    ybits = ints[P_YBITS]
    ybox = ints[P_YBOX]
    npv = ints[ints[O_NPV] : ints[O_NPV] + nbx]
    pw = ints[P_PW]
    out = np.zeros(len(states), dtype=np.int64)
    for i in range(len(states)):
        s = states[i]
        y = s % ybits
        up = (s // ybits) % units
        mask = s // (ybits * units)
        total = 0
        nopen = 0
        upper_left = 0
        for b in range(nbx):
            if (mask >> b) & 1:
                continue
            nopen += 1
            top = ints[ints[O_PVALS] + b * pw + npv[b] - 1]
            total += top
            if ints[ints[O_ISUP] + b]:
                upper_left += top
        reach = up + upper_left
        if reach > ints[P_CAP]:
            reach = ints[P_CAP]
        total += ints[ints[O_BONUS] + reach] - ints[ints[O_BONUS] + up]
        if ybits == 2 and (y == 1 or (mask >> ybox) & 1 == 0):
            total += ints[P_YBONUS] * nopen
        out[i] = total
    return out


# -- threshold tables ------------------------------------------------------------------------
@nb.njit(cache=True, nogil=True)
def _fill(
    dst: FloatArray, L: int, G: Float32Array, base: int, goff: Int64Array, glen: Int64Array, s2: int, full: bool,
    shift: int, half: float,
) -> None:  # fmt: skip
    """``dst[t]`` = the chance from state ``s2`` for ``t - shift`` points still needed, ``t < L`` (its row
    at ``G[goff[s2] - base:]``)."""
    for t in range(min(L, shift)):
        dst[t] = 1.0
    if full:
        for t in range(max(0, shift), L):
            dst[t] = half if t == shift else 0.0
        return
    n = glen[s2]
    o = goff[s2] - base
    for t in range(max(0, shift), L):
        u = t - shift
        dst[t] = G[o + u] if u < n else 0.0


@nb.njit(cache=True, nogil=True)
def threshold_work(ints: IntArray, lmax: int) -> ThresholdWork:
    """Work arrays for :func:`threshold_states` (rows of ``lmax`` values of ``t``)."""
    nkeep = np.int64(ints[P_NKEEP])
    nroll = np.int64(ints[P_NROLL])
    rolls = np.int64(ints[P_ROLLS])
    L = np.int64(lmax)
    PRE = np.zeros((np.int64(ints[P_NB]), np.int64(ints[P_PMAX]), L))
    S = np.empty((np.int64(2), nroll, L))
    E = np.empty((rolls, nkeep, L))
    B = np.empty((nkeep, L))
    W = np.empty((rolls, nroll, L))
    out = np.empty(L)
    return PRE, S, E, B, W, out


@nb.njit(cache=True, nogil=True)
def _vmax(dst: FloatArray, src: FloatArray, L: int) -> None:
    for j in range(L):
        if src[j] > dst[j]:
            dst[j] = src[j]


@nb.njit(cache=True, nogil=True)
def _score_rows(
    ints: IntArray, G: Float32Array, base: int, goff: Int64Array, glen: Int64Array, mask: int, up: int, y: int, rt: int,
    L: int, half: float, PRE: FloatArray, S: FloatArray,
) -> None:  # fmt: skip
    """``S[rt, d, :L]``: the chance of each ``t`` when roll ``d`` is scored now in its best box."""
    nbx = ints[P_NB]
    nroll = ints[P_NROLL]
    rtypes = ints[P_RTYPES]
    points = ints[ints[O_POINTS] : ints[O_POINTS] + rtypes * nbx * nroll].reshape(
        (np.int64(rtypes * nbx), np.int64(nroll))
    )
    fives = ints[ints[O_FIVES] : ints[O_FIVES] + 6]
    units = ints[P_UNITS]
    ybits = ints[P_YBITS]
    full = (1 << nbx) - 1
    al = ints[ints[O_ALLOWED] + mask]
    for d in range(nroll):
        for j in range(L):
            S[rt, d, j] = -1.0
    for b in range(nbx):
        if (al >> b) & 1:
            row = rt * nbx + b
            for d in range(nroll):
                _vmax(S[rt, d], PRE[b, points[row, d]], L)
    bonus = ybits == 2 and y == 1
    if not bonus and not joker_applies(ints, mask):
        return
    tmp = np.empty(L)
    for f in range(6):
        d = fives[f]
        if d < 0:
            continue
        for j in range(L):
            S[rt, d, j] = -1.0
        at = joker_points_at(ints, mask, y, d, rt)  # box_points, its Joker row looked up once per roll
        for b in range(nbx):
            p = points_with(ints, at, al, points, rt * nbx, b, d)
            if p < 0:
                continue
            if bonus:
                s2, g = successor(ints, mask, b, up, y, p)
                _fill(tmp, L, G, base, goff, glen, s2, s2 // (units * ybits) == full, g + ints[P_YBONUS], half)
                _vmax(S[rt, d], tmp, L)
            else:
                _vmax(S[rt, d], PRE[b, p], L)


@nb.njit(cache=True, nogil=True)
def _threshold_state(
    ints: IntArray, G: Float32Array, base: int, goff: Int64Array, glen: Int64Array, s: int, L: int, half: float,
    work: ThresholdWork,
) -> None:  # fmt: skip
    PRE, S, E, B, W, out = work
    nbx = ints[P_NB]
    units = ints[P_UNITS]
    ybits = ints[P_YBITS]
    rolls = ints[P_ROLLS]
    nroll = ints[P_NROLL]
    off = ints[P_OFF]
    nkeep = ints[P_NKEEP]
    pw = ints[P_PW]
    full = (1 << nbx) - 1
    y = s % ybits
    up = (s // ybits) % units
    mask = s // (ybits * units)
    add = ints[ints[O_ADD] : ints[O_ADD] + nkeep * 6].reshape((np.int64(nkeep), np.int64(6)))
    sub = ints[ints[O_SUB] : ints[O_SUB] + nkeep * 6].reshape((np.int64(nkeep), np.int64(6)))
    ways = ints[ints[O_WAYS] : ints[O_WAYS] + nroll]
    npv = ints[ints[O_NPV] : ints[O_NPV] + nbx]
    for b in range(nbx):
        if (mask >> b) & 1:
            continue
        for i in range(npv[b]):
            p = ints[ints[O_PVALS] + b * pw + i]
            s2, g = successor(ints, mask, b, up, y, p)
            _fill(PRE[b, p], L, G, base, goff, glen, s2, s2 // (units * ybits) == full, g, half)
    rt_last = roll_type(ints, rolls)
    _score_rows(ints, G, base, goff, glen, mask, up, y, rt_last, L, half, PRE, S)
    if rt_last == 1:
        _score_rows(ints, G, base, goff, glen, mask, up, y, 0, L, half, PRE, S)
    for d in range(nroll):
        W[0, d, :L] = S[rt_last, d, :L]
    for k in range(1, rolls):
        rt = roll_type(ints, rolls - k)
        Ek = E[k]
        for d in range(nroll):
            Ek[off + d, :L] = W[k - 1, d, :L]
        for t in range(off - 1, -1, -1):
            r0, r1, r2, r3, r4, r5 = (
                Ek[add[t, 0]],
                Ek[add[t, 1]],
                Ek[add[t, 2]],
                Ek[add[t, 3]],
                Ek[add[t, 4]],
                Ek[add[t, 5]],
            )
            dst = Ek[t]
            for j in range(L):
                dst[j] = (((((r0[j] + r1[j]) + r2[j]) + r3[j]) + r4[j]) + r5[j]) * INV6
        for t in range(off):
            B[t, :L] = Ek[t, :L]
            for i in range(6):
                u = sub[t, i]
                if u < 0:
                    break
                _vmax(B[t], B[u], L)
        for d in range(nroll):
            W[k, d, :L] = S[rt, d, :L]
            for i in range(6):
                u = sub[off + d, i]
                if u < 0:
                    break
                _vmax(W[k, d], B[u], L)
    den = float(ints[P_DEN])
    top = rolls - 1
    out[:L] = 0.0
    for d in range(nroll):
        w = ways[d] / den
        row = W[top, d]
        for j in range(L):
            out[j] += w * row[j]


@nb.njit(cache=True, nogil=True)
def threshold_states(
    ints: IntArray, G: Float32Array, goff: Int64Array, glen: Int64Array, states: Int64Array, lo: int, hi: int,
    half: float, lmax: int,
) -> None:  # fmt: skip
    """Fill ``G`` for ``states[lo:hi]`` (their successors must be done)."""
    threshold_rows(ints, G, 0, G, 0, goff, glen, states, lo, hi, half, lmax)


@nb.njit(cache=True, nogil=True)
def threshold_rows(
    ints: IntArray, src: Float32Array, src_base: int, dst: Float32Array, dst_base: int, goff: Int64Array,
    glen: Int64Array, states: Int64Array, lo: int, hi: int, half: float, lmax: int,
) -> None:  # fmt: skip
    """:func:`threshold_states` reading the successors' rows from ``src`` (the row of ``s`` at
    ``src[goff[s] - src_base:]``) and writing those of ``states[lo:hi]`` into ``dst`` (at
    ``dst[goff[s] - dst_base:]``): a layer solved from the one before it without either being a
    whole table."""
    work = threshold_work(ints, lmax)
    out = work[5]
    for i in range(lo, hi):
        s = states[i]
        L = glen[s]
        if L <= 0:
            continue
        _threshold_state(ints, src, src_base, goff, glen, s, L, half, work)
        o = goff[s] - dst_base
        for j in range(L):
            dst[o + j] = out[j]


# -- single decisions with a custom end-of-turn value ----------------------------------------
@nb.njit(cache=True, nogil=True)
def target_pre(
    ints: IntArray, G: Float32Array, goff: Int64Array, glen: Int64Array, s: int, t: int, half: float, pre: FloatArray,
    pre5: FloatArray,
) -> None:  # fmt: skip
    """``pre[b, p]`` = the chance after ``p`` points in box ``b`` with ``t`` points still needed;
    ``pre5`` the same when an extra-Yahtzee bonus comes with the score."""
    nbx = ints[P_NB]
    units = ints[P_UNITS]
    ybits = ints[P_YBITS]
    pw = ints[P_PW]
    full = (1 << nbx) - 1
    npv = ints[ints[O_NPV] : ints[O_NPV] + nbx]
    y = s % ybits
    up = (s // ybits) % units
    mask = s // (ybits * units)
    one = np.empty(1)
    for b in range(nbx):
        if (mask >> b) & 1:
            continue
        for i in range(npv[b]):
            p = ints[ints[O_PVALS] + b * pw + i]
            s2, g = successor(ints, mask, b, up, y, p)
            isfull = s2 // (units * ybits) == full
            # one value: row position t of a row shifted by g
            _fill1(one, t, G, goff, glen, s2, isfull, g, half)
            pre[b, p] = one[0]
            _fill1(one, t, G, goff, glen, s2, isfull, g + ints[P_YBONUS], half)
            pre5[b, p] = one[0]


@nb.njit(cache=True, nogil=True)
def _fill1(
    dst: FloatArray, t: int, G: Float32Array, goff: Int64Array, glen: Int64Array, s2: int, full: bool, shift: int,
    half: float,
) -> None:  # fmt: skip
    u = t - shift
    if u < 0:
        dst[0] = 1.0
    elif full:
        dst[0] = half if u == 0 else 0.0
    else:
        dst[0] = G[goff[s2] + u] if u < glen[s2] else 0.0


@nb.njit(cache=True, nogil=True)
def advise_custom(
    ints: IntArray, s: int, d: int, k: int, pre: FloatArray, pre5: FloatArray, fout: FloatArray, iout: IntArray
) -> tuple[int, int]:
    """As :func:`fivedice.solver.kernel.advise`, with the value of a score given by ``pre`` (and
    ``pre5`` when an extra-Yahtzee bonus comes with it) instead of points plus the state value."""
    nbx = ints[P_NB]
    sw = ints[P_SW]
    units = ints[P_UNITS]
    ybits = ints[P_YBITS]
    rolls = ints[P_ROLLS]
    nroll = ints[P_NROLL]
    nkeep = ints[P_NKEEP]
    y = s % ybits
    mask = s // (ybits * units)
    rt = roll_type(ints, rolls - k)
    box_pts = iout[sw : sw + nbx]
    score_options(ints, mask, y, d, rt, box_pts)
    use5 = bonus_due(ints, y, d)
    best = NEG
    code = 0
    for b in range(nbx):
        p = box_pts[b]
        fout[sw + b] = (pre5[b, p] if use5 else pre[b, p]) if p >= 0 else NEG
        if fout[sw + b] > best:
            best = fout[sw + b]
            code = -(b + 1)
    n = 0
    if k == 0:
        return n, code
    S = np.empty((np.int64(2), np.int64(nroll)))
    E = np.empty((np.int64(k + 1), np.int64(nkeep)))
    B = np.empty(np.int64(nkeep))
    W = np.empty((np.int64(k + 1), np.int64(nroll)))
    rt_last = roll_type(ints, rolls)
    score_now(ints, mask, y, rt_last, pre, pre5, 0.0, S[rt_last])
    if rt_last == 1:
        score_now(ints, mask, y, 0, pre, pre5, 0.0, S[0])
    keep_values(ints, S, E, B, W, k, False)
    subsets = ints[ints[O_SUBSETS] : ints[O_SUBSETS] + nroll * sw].reshape((np.int64(nroll), np.int64(sw)))
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
def mixture_pre(
    ints: IntArray, G: Float32Array, goff: Int64Array, glen: Int64Array, s: int, base: int, qlo: int, q: FloatArray,
    half: float, pre: FloatArray, pre5: FloatArray,
) -> None:  # fmt: skip
    """``pre[b, p]`` = the average over a rival's final score ``y`` (``q[j]`` the chance of
    ``y = qlo + j``) of the chance, after ``p`` points in box ``b`` on a card worth ``base``, of
    finishing above ``y`` (a tie counting ``half``); ``pre5`` the same with an extra-Yahtzee bonus."""
    nbx = ints[P_NB]
    units = ints[P_UNITS]
    ybits = ints[P_YBITS]
    pw = ints[P_PW]
    full = (1 << nbx) - 1
    npv = ints[ints[O_NPV] : ints[O_NPV] + nbx]
    y = s % ybits
    up = (s // ybits) % units
    mask = s // (ybits * units)
    nq = len(q)
    for b in range(nbx):
        if (mask >> b) & 1:
            continue
        for i in range(npv[b]):
            p = ints[ints[O_PVALS] + b * pw + i]
            s2, g = successor(ints, mask, b, up, y, p)
            isfull = s2 // (units * ybits) == full
            for e in range(2):
                shift = base + g + (ints[P_YBONUS] if e == 1 else 0)
                total = 0.0
                o = goff[s2]
                n = glen[s2]
                for j in range(nq):
                    u = qlo + j - shift
                    if u < 0:
                        total += q[j]
                    elif isfull:
                        if u == 0:
                            total += half * q[j]
                    elif u < n:
                        total += q[j] * G[o + u]
                if e == 0:
                    pre[b, p] = total
                else:
                    pre5[b, p] = total
