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

from typing import Any

import numba as nb
import numpy as np

from fivedice.solver import kernel as K
from fivedice.solver.tables import (
    O_ADD,
    O_ALLOWED,
    O_BONUS,
    O_FIVE,
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
    P_JOKER,
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
    "advise_custom", "max_future", "mixture_pre", "successor", "target_pre", "threshold_states",
]  # fmt: skip

INV6 = 1.0 / 6.0
NEG = K.NEG


@nb.njit(cache=True, nogil=True)
def successor(ints: Any, mask: int, b: int, up: int, y: int, p: int) -> tuple[int, int]:
    """The state after ``p`` points in box ``b`` and the points gained (upper bonus included)."""
    units = ints[P_UNITS]
    ybits = ints[P_YBITS]
    nm = mask | (1 << b)
    nu = up
    gain = p
    if ints[ints[O_ISUP] + b]:
        nu = up + p
        if nu > ints[P_CAP]:
            nu = ints[P_CAP]
        gain += ints[ints[O_BONUS] + nu] - ints[ints[O_BONUS] + up]
        nu = K.next_up(ints, nm, nu)
    ny = y
    if b == ints[P_YBOX] and ybits == 2:
        ny = 1 if p > 0 else 0
    return (nm * units + nu) * ybits + ny, gain


@nb.njit(cache=True, nogil=True)
def max_future(ints: Any, states: Any) -> Any:
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
def _fill(dst: Any, L: int, G: Any, goff: Any, glen: Any, s2: int, full: bool, shift: int, half: float) -> None:
    """``dst[t]`` = the chance from state ``s2`` for ``t - shift`` points still needed, ``t < L``."""
    for t in range(min(L, shift)):
        dst[t] = 1.0
    if full:
        for t in range(max(0, shift), L):
            dst[t] = half if t == shift else 0.0
        return
    n = glen[s2]
    o = goff[s2]
    for t in range(max(0, shift), L):
        u = t - shift
        dst[t] = G[o + u] if u < n else 0.0


@nb.njit(cache=True, nogil=True)
def threshold_work(ints: Any, lmax: int) -> tuple[Any, Any, Any, Any, Any, Any]:
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
def _vmax(dst: Any, src: Any, L: int) -> None:
    for j in range(L):
        if src[j] > dst[j]:
            dst[j] = src[j]


@nb.njit(cache=True, nogil=True)
def _score_rows(ints: Any, G: Any, goff: Any, glen: Any, mask: int, up: int, y: int, rt: int, L: int, half: float,
                PRE: Any, S: Any) -> None:  # fmt: skip
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
    ybox = ints[P_YBOX]
    joker = ints[P_JOKER] == 1 and ybox >= 0 and (mask >> ybox) & 1 == 1
    bonus = ybits == 2 and y == 1
    if not joker and not bonus:
        return
    tmp = np.empty(L)
    for f in range(6):
        d = fives[f]
        if d < 0:
            continue
        for j in range(L):
            S[rt, d, j] = -1.0
        for b in range(nbx):
            if joker:
                p = ints[K.joker_at(ints, mask, y, f, rt) + b]
            elif (al >> b) & 1:
                p = points[rt * nbx + b, d]
            else:
                p = -1
            if p < 0:
                continue
            if bonus:
                s2, g = successor(ints, mask, b, up, y, p)
                _fill(tmp, L, G, goff, glen, s2, s2 // (units * ybits) == full, g + ints[P_YBONUS], half)
                _vmax(S[rt, d], tmp, L)
            else:
                _vmax(S[rt, d], PRE[b, p], L)


@nb.njit(cache=True, nogil=True)
def _threshold_state(ints: Any, G: Any, goff: Any, glen: Any, s: int, L: int, half: float, work: Any) -> None:
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
            _fill(PRE[b, p], L, G, goff, glen, s2, s2 // (units * ybits) == full, g, half)
    rt_last = K.roll_type(ints, rolls)
    _score_rows(ints, G, goff, glen, mask, up, y, rt_last, L, half, PRE, S)
    if rt_last == 1:
        _score_rows(ints, G, goff, glen, mask, up, y, 0, L, half, PRE, S)
    for d in range(nroll):
        W[0, d, :L] = S[rt_last, d, :L]
    for k in range(1, rolls):
        rt = K.roll_type(ints, rolls - k)
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
def threshold_states(ints: Any, G: Any, goff: Any, glen: Any, states: Any, lo: int, hi: int, half: float,
                     lmax: int) -> None:  # fmt: skip
    """Fill ``G`` for ``states[lo:hi]`` (their successors must be done)."""
    work = threshold_work(ints, lmax)
    out = work[5]
    for i in range(lo, hi):
        s = states[i]
        L = glen[s]
        if L <= 0:
            continue
        _threshold_state(ints, G, goff, glen, s, L, half, work)
        o = goff[s]
        for j in range(L):
            G[o + j] = out[j]


# -- single decisions with a custom end-of-turn value ----------------------------------------
@nb.njit(cache=True, nogil=True)
def target_pre(ints: Any, G: Any, goff: Any, glen: Any, s: int, t: int, half: float, pre: Any, pre5: Any) -> None:
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
def _fill1(dst: Any, t: int, G: Any, goff: Any, glen: Any, s2: int, full: bool, shift: int, half: float) -> None:
    u = t - shift
    if u < 0:
        dst[0] = 1.0
    elif full:
        dst[0] = half if u == 0 else 0.0
    else:
        dst[0] = G[goff[s2] + u] if u < glen[s2] else 0.0


@nb.njit(cache=True, nogil=True)
def _score_custom(ints: Any, mask: int, y: int, rt: int, pre: Any, pre5: Any, out: Any) -> None:
    nbx = ints[P_NB]
    nroll = ints[P_NROLL]
    rtypes = ints[P_RTYPES]
    pts = np.empty(np.int64(nbx), dtype=np.int32)
    five = ints[ints[O_FIVE] : ints[O_FIVE] + nroll]
    bonus = ints[P_YBITS] == 2 and y == 1
    for d in range(nroll):
        K.score_options(ints, mask, y, d, rt, pts)
        use5 = bonus and five[d] >= 0
        best = NEG
        for b in range(nbx):
            p = pts[b]
            if p >= 0:
                v = pre5[b, p] if use5 else pre[b, p]
                if v > best:
                    best = v
        out[d] = best
    _ = rtypes


@nb.njit(cache=True, nogil=True)
def advise_custom(ints: Any, s: int, d: int, k: int, pre: Any, pre5: Any, fout: Any, iout: Any) -> tuple[int, int]:
    """As :func:`fivedice.solver.kernel.advise`, with the value of a score given by ``pre`` (and
    ``pre5`` when an extra-Yahtzee bonus comes with it) instead of points plus the state value."""
    nbx = ints[P_NB]
    sw = ints[P_SW]
    units = ints[P_UNITS]
    ybits = ints[P_YBITS]
    rolls = ints[P_ROLLS]
    nroll = ints[P_NROLL]
    off = ints[P_OFF]
    nkeep = ints[P_NKEEP]
    y = s % ybits
    mask = s // (ybits * units)
    rt = K.roll_type(ints, rolls - k)
    box_pts = iout[sw : sw + nbx]
    K.score_options(ints, mask, y, d, rt, box_pts)
    use5 = ybits == 2 and y == 1 and ints[ints[O_FIVE] + d] >= 0
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
    add = ints[ints[O_ADD] : ints[O_ADD] + nkeep * 6].reshape((np.int64(nkeep), np.int64(6)))
    sub = ints[ints[O_SUB] : ints[O_SUB] + nkeep * 6].reshape((np.int64(nkeep), np.int64(6)))
    S = np.empty((np.int64(2), np.int64(nroll)))
    E = np.empty((np.int64(k + 1), np.int64(nkeep)))
    B = np.empty(np.int64(nkeep))
    W = np.empty((np.int64(k + 1), np.int64(nroll)))
    rt_last = K.roll_type(ints, rolls)
    _score_custom(ints, mask, y, rt_last, pre, pre5, S[rt_last])
    if rt_last == 1:
        _score_custom(ints, mask, y, 0, pre, pre5, S[0])
    for j in range(nroll):
        W[0, j] = S[rt_last, j]
    for kk in range(1, k + 1):
        r2 = K.roll_type(ints, rolls - kk)
        for j in range(nroll):
            E[kk, off + j] = W[kk - 1, j]
        for t in range(off - 1, -1, -1):
            E[kk, t] = (((((E[kk, add[t, 0]] + E[kk, add[t, 1]]) + E[kk, add[t, 2]]) + E[kk, add[t, 3]])
                         + E[kk, add[t, 4]]) + E[kk, add[t, 5]]) * INV6  # fmt: skip
        if kk == k:
            break
        for t in range(off):
            m = E[kk, t]
            for i in range(6):
                u = sub[t, i]
                if u < 0:
                    break
                if B[u] > m:
                    m = B[u]
            B[t] = m
        for j in range(nroll):
            m = S[r2, j]
            for i in range(6):
                u = sub[off + j, i]
                if u < 0:
                    break
                if B[u] > m:
                    m = B[u]
            W[kk, j] = m
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
    ints: Any, G: Any, goff: Any, glen: Any, s: int, base: int, qlo: int, q: Any, half: float, pre: Any, pre5: Any,
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
