"""The solver's primitives, compiled with numba: the one place each rule of a turn is written for
every kernel (expectation, threshold chances, moments, distribution, single decisions).

- The transition, :func:`successor`: the state after ``p`` points in box ``b`` and the points gained
  (the upper total, its bonus tiers and the cap once no bonus can change; whether the Yahtzee box
  holds points); :func:`after` is its value under the expectation solver's ``V``.
- The options of a roll, :func:`box_points` and :func:`score_options`: which boxes a roll may go in
  and for how many points (the card order, the Joker rule); :func:`bonus_due`: whether scoring it
  earns an extra-Yahtzee bonus.
- The score-now step, :func:`score_now`: each roll's best box, from the values of putting ``p``
  points in box ``b`` (``pre``, and ``pre5`` for a roll that earns an extra-Yahtzee bonus).
- The within-turn recursion, :func:`keep_values`: a keep is worth the average over the next die's
  face, a roll the better of scoring now and its best proper keep.

The kernels that carry a vector per value (every threshold at once, the moments) run the same steps
on rows, with these primitives for the rules. The numpy path has the same primitives vectorised
(:mod:`fivedice.solver.plain`); the two are tested to agree to the bit. numba's cache does not see a
change here from a kernel of another module: clear ``__pycache__`` after editing this file.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from fivedice.solver.plain import FloatArray, IntArray
from fivedice.solver.tables import (
    O_ADD,
    O_ALLOWED,
    O_BONUS,
    O_FIVE,
    O_FIVES,
    O_ISUP,
    O_JOKER,
    O_MAXREM,
    O_POINTS,
    O_SUB,
    P_CAP,
    P_JOKER,
    P_JOKY,
    P_NB,
    P_NKEEP,
    P_NROLL,
    P_OFF,
    P_ROLLS,
    P_RTYPES,
    P_UNITS,
    P_YBITS,
    P_YBOX,
)  # fmt: skip

__all__ = [
    "INV6", "NEG", "after", "bonus_due", "box_points", "joker_applies", "joker_at", "joker_points_at", "keep_values",
    "next_up", "points_with", "roll_type", "score_now", "score_options", "successor", "t1", "t2",
]  # fmt: skip

NEG = -1.0e300
INV6 = 1.0 / 6.0


@nb.njit(cache=True, nogil=True)
def t1(ints: IntArray, o: int, size: int) -> IntArray:
    """The packed table at position ``o`` of ``ints`` (``size`` values)."""
    start = ints[o]
    return ints[start : start + size]


@nb.njit(cache=True, nogil=True)
def t2(ints: IntArray, o: int, rows: int, cols: int) -> IntArray:
    """The packed table at position ``o`` of ``ints`` as ``rows`` rows of ``cols``."""
    start = ints[o]
    return ints[start : start + rows * cols].reshape((np.int64(rows), np.int64(cols)))


@nb.njit(cache=True, nogil=True)
def next_up(ints: IntArray, nm: int, nu: int) -> int:
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
def successor(ints: IntArray, mask: int, b: int, up: int, y: int, p: int) -> tuple[int, int]:
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
        nu = next_up(ints, nm, nu)
    ny = y
    if b == ints[P_YBOX] and ybits == 2:
        ny = 1 if p > 0 else 0
    return (nm * units + nu) * ybits + ny, gain


@nb.njit(cache=True, nogil=True)
def after(ints: IntArray, V: FloatArray, mask: int, b: int, up: int, y: int, p: int) -> float:
    """Points ``p`` in box ``b`` plus any upper bonus gained plus the value of the next state."""
    s2, gain = successor(ints, mask, b, up, y, p)
    value: float = gain + V[s2]
    return value


@nb.njit(cache=True, nogil=True)
def roll_type(ints: IntArray, roll: int) -> int:
    """The points row for dice made on roll number ``roll``."""
    if roll == 1 or ints[P_RTYPES] == 1:
        return 0
    return 1


@nb.njit(cache=True, nogil=True)
def joker_at(ints: IntArray, mask: int, y: int, f: int, rt: int) -> int:
    """Where the Joker points of ``n`` alike of face ``f + 1`` start (one per box) in state ``(mask, y)``:
    the rows depend on ``y`` too when a box of all dice alike once more needs the Yahtzee box to hold points."""
    row = mask * 2 + y if ints[P_JOKY] == 1 else mask
    return int(ints[O_JOKER] + ((row * 6 + f) * ints[P_RTYPES] + rt) * ints[P_NB])


@nb.njit(cache=True, nogil=True)
def joker_applies(ints: IntArray, mask: int) -> bool:
    """Whether the Joker rule sets where ``n`` alike may go: the rules have one and the Yahtzee box is filled."""
    ybox = ints[P_YBOX]
    return bool(ints[P_JOKER] == 1 and ybox >= 0 and (mask >> ybox) & 1 == 1)


@nb.njit(cache=True, nogil=True)
def joker_points_at(ints: IntArray, mask: int, y: int, d: int, rt: int) -> int:
    """Where the points of roll ``d`` (points row ``rt``) start in ``ints`` (one per box, -1 where not
    allowed) when the Joker rule sets where it may go in state ``(mask, y)``, else -1."""
    f = ints[ints[O_FIVE] + d]
    if f >= 0 and joker_applies(ints, mask):
        return joker_at(ints, mask, y, f, rt)
    return -1


@nb.njit(cache=True, nogil=True)
def box_points(ints: IntArray, mask: int, y: int, d: int, rt: int, b: int) -> int:
    """The points roll ``d`` (points row ``rt``) scores in box ``b`` now in state ``(mask, y)``, or -1
    where the rules forbid it: the Joker rule once the Yahtzee box is filled, else the card order."""
    at = joker_points_at(ints, mask, y, d, rt)
    if at >= 0:
        return int(ints[at + b])
    if (ints[ints[O_ALLOWED] + mask] >> b) & 1:
        return int(ints[ints[O_POINTS] + (rt * ints[P_NB] + b) * ints[P_NROLL] + d])
    return -1


@nb.njit(cache=True, nogil=True)
def points_with(ints: IntArray, at: int, al: int, points: IntArray, row: int, b: int, d: int) -> int:
    """:func:`box_points` of roll ``d`` in box ``b`` from what a kernel finds once per roll: ``at`` (from
    :func:`joker_points_at`), ``al`` (the state's allowed boxes) and ``points[row + b, d]`` (``row``: the
    roll type's first row)."""
    if at >= 0:
        return int(ints[at + b])
    if (al >> b) & 1:
        return int(points[row + b, d])
    return -1


@nb.njit(cache=True, nogil=True)
def score_options(ints: IntArray, mask: int, y: int, d: int, rt: int, out: IntArray) -> None:
    """``out[b]`` = :func:`box_points` of roll ``d`` for every box ``b``."""
    for b in range(ints[P_NB]):
        out[b] = box_points(ints, mask, y, d, rt, b)


@nb.njit(cache=True, nogil=True)
def bonus_due(ints: IntArray, y: int, d: int) -> bool:
    """Whether scoring roll ``d`` earns an extra-Yahtzee bonus (``n`` alike, the Yahtzee box holding points)."""
    return bool(ints[P_YBITS] == 2 and y == 1 and ints[ints[O_FIVE] + d] >= 0)


@nb.njit(cache=True, nogil=True)
def score_now(
    ints: IntArray, mask: int, y: int, rt: int, pre: FloatArray, pre5: FloatArray, extra: float, out: FloatArray
) -> None:
    """``out[d]`` = the value of scoring roll ``d`` (points row ``rt``) now in its best box: the most
    of ``pre[b, p]`` over its options (:func:`box_points`), or of ``pre5[b, p]``, plus ``extra``,
    for a roll that earns an extra-Yahtzee bonus. Ties: the first box in card order."""
    nbx = ints[P_NB]
    nroll = ints[P_NROLL]
    points = t2(ints, O_POINTS, ints[P_RTYPES] * nbx, nroll)
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
    bonus = ints[P_YBITS] == 2 and y == 1
    if not bonus and not joker_applies(ints, mask):
        return
    fives = t1(ints, O_FIVES, 6)
    src = pre5 if bonus else pre
    for f in range(6):
        d = fives[f]
        if d < 0:
            continue
        at = joker_points_at(ints, mask, y, d, rt)  # box_points, its Joker row looked up once per roll
        best = NEG
        for b in range(nbx):
            p = points_with(ints, at, al, points, rt * nbx, b, d)
            if p >= 0 and src[b, p] > best:
                best = src[b, p]
        out[d] = best + extra if bonus else best


@nb.njit(cache=True, nogil=True)
def keep_values(
    ints: IntArray, S: FloatArray, E: FloatArray, B: FloatArray, W: FloatArray, upto: int, last_w: bool
) -> None:
    """The within-turn recursion from the score-now values ``S[rt, d]``: ``E[k, t]`` the value of
    keeping multiset ``t`` with ``k`` rolls left (``1 <= k <= upto``; ``E[k, off:]`` the rolls' values
    with ``k - 1`` left) and ``W[k, d]`` that of holding roll ``d`` (``W[upto]`` only if ``last_w``).
    ``B`` is work space. Every sum runs in a fixed order (six additions per keep, then one product)."""
    nroll = ints[P_NROLL]
    off = ints[P_OFF]
    rolls = ints[P_ROLLS]
    add = t2(ints, O_ADD, ints[P_NKEEP], 6)
    sub = t2(ints, O_SUB, ints[P_NKEEP], 6)
    rt_last = roll_type(ints, rolls)
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
