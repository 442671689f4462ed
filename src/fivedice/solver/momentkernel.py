"""Numba kernel for the moments of the points still to come under optimal (expected-score) play.

For every turn-start state ``s`` (:mod:`fivedice.solver.kernel`), ``M[s, j]`` is ``E[X ** (j + 1)]``
for ``j = 0, 1, 2``, ``X`` the points still to come when the rest of the game is played for the most
points (the expectation solver's policy: every choice is the option with the highest mean, ``M[:, 0]``
equals the state values). A turn is the expectation solver's within-turn programme carrying three
channels: scoring ``g`` points into state ``s'`` gives ``E[(g + X') ** n]`` by the binomial expansion,
chance nodes average every channel, choice nodes take the channels of the option with the best mean.
A build costs about three expectation builds (the moments of Yahtzee take seconds, not minutes).
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from fivedice.solver.plain import Float32Array, FloatArray, Int64Array, IntArray
from fivedice.solver.primitives import INV6, NEG, joker_applies, joker_points_at, points_with, roll_type, successor
from fivedice.solver.tables import (
    O_ADD,
    O_ALLOWED,
    O_FIVES,
    O_NPV,
    O_POINTS,
    O_PVALS,
    O_SUB,
    O_WAYS,
    P_DEN,
    P_NB,
    P_NKEEP,
    P_NROLL,
    P_OFF,
    P_PMAX,
    P_PW,
    P_ROLLS,
    P_RTYPES,
    P_UNITS,
    P_YBITS,
    P_YBONUS,
)  # fmt: skip

__all__ = ["SKEW_CLIP", "approx_rows", "below", "moment_states", "subtree", "successors"]

SKEW_CLIP = 0.0
"""The largest skewness the fit uses (2.0: a gamma of shape 1). 0: the fit is a normal. Measured on
Yahtzee against the exact tables (T = 200, 250, 300, 216 to 380 situations each), the shifted gamma's
short left tail lost 0.26, 0.12, 0.02 points of chance per decision, the normal 0.14, 0.15, 0.03."""


@nb.njit(cache=True, nogil=True, inline="always")
def _shift(dst: FloatArray, src: FloatArray, g: float, lam: float) -> None:
    """``dst`` = the raw moments (and ``E[exp(lam X)]``) of ``g + X`` from those of ``X`` (``src``)."""
    a1, a2, a3 = src[0], src[1], src[2]
    dst[0] = g + a1
    dst[1] = g * g + 2.0 * g * a1 + a2
    dst[2] = g * g * g + 3.0 * g * g * a1 + 3.0 * g * a2 + a3
    dst[3] = math.exp(lam * g) * src[3]


@nb.njit(cache=True, nogil=True, inline="always")
def _key(v: FloatArray, lam: float) -> float:
    """What a choice maximises: the mean (``lam == 0``), else the utility ``sign(lam) * exp(lam X)``."""
    if lam == 0.0:
        return float(v[0])
    return float(v[3]) if lam > 0.0 else -float(v[3])


@nb.njit(cache=True, nogil=True)
def _score_now(ints: IntArray, mask: int, y: int, rt: int, PRE: FloatArray, out: FloatArray, lam: float) -> None:
    nbx = ints[P_NB]
    nroll = ints[P_NROLL]
    rtypes = ints[P_RTYPES]
    points = ints[ints[O_POINTS] : ints[O_POINTS] + rtypes * nbx * nroll].reshape(
        (np.int64(rtypes * nbx), np.int64(nroll))
    )
    fives = ints[ints[O_FIVES] : ints[O_FIVES] + 6]
    al = ints[ints[O_ALLOWED] + mask]
    key = np.empty(nroll)
    for d in range(nroll):
        key[d] = NEG
    for b in range(nbx):
        if (al >> b) & 1:
            row = rt * nbx + b
            for d in range(nroll):
                src = PRE[b, points[row, d]]
                v = _key(src, lam)
                if v > key[d]:
                    key[d] = v
                    out[d, :] = src
    if joker_applies(ints, mask):
        for f in range(6):
            d = fives[f]
            if d < 0:
                continue
            best = NEG
            at = joker_points_at(ints, mask, y, d, rt)  # box_points, its Joker row looked up once per roll
            for b in range(nbx):
                p = points_with(ints, at, al, points, rt * nbx, b, d)
                if p >= 0 and _key(PRE[b, p], lam) > best:
                    best = _key(PRE[b, p], lam)
                    out[d, :] = PRE[b, p]
    if ints[P_YBITS] == 2 and y == 1:
        tmp = np.empty(4)
        for f in range(6):
            d = fives[f]
            if d >= 0:
                tmp[:] = out[d]
                _shift(out[d], tmp, float(ints[P_YBONUS]), lam)


@nb.njit(cache=True, nogil=True)
def _state_moments(
    ints: IntArray, M: FloatArray, s: int, lam: float, PRE: FloatArray, S: FloatArray, E: FloatArray, B: FloatArray,
    W: FloatArray, out: FloatArray,
) -> None:  # fmt: skip
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
    zero = np.zeros(4)
    zero[3] = 1.0
    for b in range(nbx):
        if (mask >> b) & 1:
            continue
        for i in range(npv[b]):
            p = ints[ints[O_PVALS] + b * pw + i]
            s2, g = successor(ints, mask, b, up, y, p)
            if s2 // (units * ybits) == full:
                _shift(PRE[b, p], zero, float(g), lam)
            else:
                _shift(PRE[b, p], M[s2], float(g), lam)
    rt_last = roll_type(ints, rolls)
    _score_now(ints, mask, y, rt_last, PRE, S[rt_last], lam)
    if rt_last == 1:
        _score_now(ints, mask, y, 0, PRE, S[0], lam)
    for d in range(nroll):
        W[0, d, :] = S[rt_last, d, :]
    for k in range(1, rolls):
        rt = roll_type(ints, rolls - k)
        Ek = E[k]
        for d in range(nroll):
            Ek[off + d, :] = W[k - 1, d, :]
        for t in range(off - 1, -1, -1):
            for j in range(4):
                Ek[t, j] = (
                    ((((Ek[add[t, 0], j] + Ek[add[t, 1], j]) + Ek[add[t, 2], j]) + Ek[add[t, 3], j])
                     + Ek[add[t, 4], j]) + Ek[add[t, 5], j]
                ) * INV6  # fmt: skip
        for t in range(off):
            B[t, :] = Ek[t, :]
            for i in range(6):
                u = sub[t, i]
                if u < 0:
                    break
                if _key(B[u], lam) > _key(B[t], lam):
                    B[t, :] = B[u, :]
        for d in range(nroll):
            W[k, d, :] = S[rt, d, :]
            for i in range(6):
                u = sub[off + d, i]
                if u < 0:
                    break
                if _key(B[u], lam) > _key(W[k, d], lam):
                    W[k, d, :] = B[u, :]
    den = float(ints[P_DEN])
    top = rolls - 1
    out[:] = 0.0
    for d in range(nroll):
        w = ways[d] / den
        for j in range(4):
            out[j] += w * W[top, d, j]


@nb.njit(cache=True, nogil=True)
def moment_states(ints: IntArray, M: FloatArray, states: Int64Array, lo: int, hi: int, lam: float) -> None:
    """Fill ``M[s]`` for ``s`` in ``states[lo:hi]`` (their successors must be done) under the policy
    of ``lam`` (0: the most points; else the exponential utility ``sign(lam) * exp(lam * X)``)."""
    nkeep = np.int64(ints[P_NKEEP])
    nroll = np.int64(ints[P_NROLL])
    rolls = np.int64(ints[P_ROLLS])
    PRE = np.zeros((np.int64(ints[P_NB]), np.int64(ints[P_PMAX]), np.int64(4)))
    S = np.empty((np.int64(2), nroll, np.int64(4)))
    E = np.empty((rolls, nkeep, np.int64(4)))
    B = np.empty((nkeep, np.int64(4)))
    W = np.empty((rolls, nroll, np.int64(4)))
    out = np.empty(4)
    for i in range(lo, hi):
        s = states[i]
        _state_moments(ints, M, s, lam, PRE, S, E, B, W, out)
        M[s, :] = out


# -- chance rows for one situation -------------------------------------------------------------
@nb.njit(cache=True, nogil=True)
def successors(ints: IntArray, s: int) -> Int64Array:
    """The distinct turn-start states that scoring from state ``s`` can lead to (full cards left out)."""
    nbx = ints[P_NB]
    units = ints[P_UNITS]
    ybits = ints[P_YBITS]
    pw = ints[P_PW]
    full = (1 << nbx) - 1
    y = s % ybits
    up = (s // ybits) % units
    mask = s // (ybits * units)
    npv = ints[ints[O_NPV] : ints[O_NPV] + nbx]
    out = np.empty(np.int64(nbx) * np.int64(pw), dtype=np.int64)
    n = 0
    for b in range(nbx):
        if (mask >> b) & 1:
            continue
        for i in range(npv[b]):
            s2, _g = successor(ints, mask, b, up, y, ints[ints[O_PVALS] + b * pw + i])
            if s2 // (units * ybits) == full:
                continue
            seen = False
            for j in range(n):
                if out[j] == s2:
                    seen = True
                    break
            if not seen:
                out[n] = s2
                n += 1
    return out[:n]


@nb.njit(cache=True, nogil=True)
def subtree(ints: IntArray, roots: Int64Array, nstates: int) -> Int64Array:
    """Every non-full state reachable from ``roots`` (themselves included), fullest cards first."""
    nbx = ints[P_NB]
    units = ints[P_UNITS]
    ybits = ints[P_YBITS]
    seen = np.zeros(nstates, dtype=np.bool_)
    stack = list(roots)
    found = []
    for r in roots:
        seen[r] = True
    while len(stack):
        s = stack.pop()
        found.append(s)
        nxt = successors(ints, s)
        for s2 in nxt:
            if not seen[s2]:
                seen[s2] = True
                stack.append(s2)
    arr = np.array(found, dtype=np.int64)
    filled = np.zeros(len(arr), dtype=np.int64)
    for i in range(len(arr)):
        m = arr[i] // (units * ybits)
        c = 0
        for b in range(nbx):
            c += (m >> b) & 1
        filled[i] = -c
    return arr[np.argsort(filled, kind="mergesort")]


@nb.njit(cache=True, nogil=True)
def _phi(z: float) -> float:
    """The standard normal distribution function (Abramowitz and Stegun 7.1.26, error below 1e-7, as
    :func:`fivedice.solver.fastplain.phi`)."""
    x = abs(z) / math.sqrt(2.0)
    t = 1.0 / (1.0 + 0.3275911 * x)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    tail = 0.5 * poly * math.exp(-x * x)
    return tail if z < 0 else 1.0 - tail


@nb.njit(cache=True, nogil=True)
def below(x: float, mean: float, sd: float, skew: float) -> float:
    """``P(X <= x)`` for ``X`` of this mean, standard deviation and skewness: a normal when the skewness
    is small, else a shifted gamma (Wilson-Hilferty), mirrored for a negative skewness."""
    if sd <= 1e-9:
        return 1.0 if x >= mean else 0.0
    g = min(max(skew, -SKEW_CLIP), SKEW_CLIP)
    if not abs(g) >= 0.02:  # NaN too
        return _phi((x - mean) / sd)
    flip = g < 0.0
    if flip:  # X's mirror image -X has the opposite skewness
        x, mean, g = -x, -mean, -g
    k = 4.0 / (g * g)
    theta = sd * g / 2.0
    y = (x - (mean - k * theta)) / theta
    c = 1.0 / (9.0 * k)
    p = 0.0 if y <= 0.0 else _phi(((y / k) ** (1.0 / 3.0) - 1.0 + c) / math.sqrt(c))
    return 1.0 - p if flip else p


@nb.njit(cache=True, nogil=True)
def approx_rows(
    states: Int64Array, at: Int64Array, mean: Float32Array, sd: Float32Array, skew: Float32Array, most: Int64Array,
    G: Float32Array, goff: Int64Array, half: float,
) -> None:  # fmt: skip
    """``G[goff[s] + u]`` for ``u <= most``: the chance of more than ``u`` further points (``half`` for
    exactly ``u``) of each state in ``states`` under the moment fit, the best over the policies (rows of
    ``mean``, ``sd``, ``skew``; column ``at[s]``)."""
    for i in range(len(states)):
        s = states[i]
        o = goff[s]
        c = at[s]
        for u in range(most[i] + 1):
            if u == 0 and half == 1.0:
                G[o] = 1.0
                continue
            best = 0.0
            for k in range(mean.shape[0]):
                v = 1.0 - below(u + 0.5 - half, mean[k, c], sd[k, c], skew[k, c])
                if v > best:
                    best = v
            G[o + u] = best
