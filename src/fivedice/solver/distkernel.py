"""Numba kernels for the final-score distribution of expectation-optimal play (a forward pass of
probability mass over turn-start states, one layer of filled boxes at a time).

:func:`turn_outcomes` follows one turn of expectation-optimal play forward: the mass of each roll,
the option the solver picks (its tie rules: scoring before keeping, boxes in card order, keeps in
order), and where it ends: ``acc[b, p, e]`` is the chance of scoring ``p`` points in box ``b``
(``e`` = 1 when an extra-Yahtzee bonus comes with it). :func:`spread_layer` moves a layer's
per-state distributions of points gained so far to the next layer (each state keeps only the
window of sums it can have).
"""

from __future__ import annotations

from typing import TypeAlias

import numba as nb
import numpy as np

from fivedice.solver import kernel as K
from fivedice.solver.plain import FloatArray, Int64Array, IntArray
from fivedice.solver.primitives import INV6, NEG, bonus_due, roll_type, score_options, successor
from fivedice.solver.tables import (
    O_ADD,
    O_SUBSETS,
    O_WAYS,
    P_DEN,
    P_NB,
    P_NKEEP,
    P_NROLL,
    P_OFF,
    P_PMAX,
    P_ROLLS,
    P_SW,
    P_UNITS,
    P_YBITS,
    P_YBONUS,
)  # fmt: skip

OutcomeWork: TypeAlias = tuple[
    FloatArray, FloatArray, FloatArray, FloatArray, FloatArray, FloatArray, FloatArray, IntArray
]
"""``pre, S, E, B, W`` of :func:`fivedice.solver.kernel.turn_tables`, the mass of each roll and keep, points."""

__all__ = ["outcome_work", "spread_layer", "turn_outcomes"]


@nb.njit(cache=True, nogil=True)
def turn_outcomes(ints: IntArray, V: FloatArray, s: int, work: OutcomeWork, acc: FloatArray) -> None:
    """Add to ``acc[b, p, e]`` the chance that one turn of optimal play from state ``s`` scores
    ``p`` in box ``b`` (``e``: with an extra-Yahtzee bonus). ``work`` from :func:`outcome_work`."""
    pre, S, E, B, W, m, km, pts = work
    units = ints[P_UNITS]
    ybits = ints[P_YBITS]
    rolls = ints[P_ROLLS]
    nroll = ints[P_NROLL]
    off = ints[P_OFF]
    nbx = ints[P_NB]
    sw = ints[P_SW]
    nkeep = ints[P_NKEEP]
    y = s % ybits
    up = (s // ybits) % units
    mask = s // (ybits * units)
    add = ints[ints[O_ADD] : ints[O_ADD] + nkeep * 6].reshape((np.int64(nkeep), np.int64(6)))
    subsets = ints[ints[O_SUBSETS] : ints[O_SUBSETS] + nroll * sw].reshape((np.int64(nroll), np.int64(sw)))
    ways = ints[ints[O_WAYS] : ints[O_WAYS] + nroll]
    den = float(ints[P_DEN])
    K.turn_tables(ints, V, mask, up, y, rolls - 1, False, pre, S, E, B, W)
    for d in range(nroll):
        m[d] = ways[d] / den
    for k in range(rolls - 1, -1, -1):
        rt = roll_type(ints, rolls - k)
        if k > 0:
            km[:] = 0.0
        for d in range(nroll):
            md = m[d]
            if md == 0.0:
                continue
            keep = -1
            if k > 0:
                best = S[rt, d]
                for j in range(sw):
                    t = subsets[d, j]
                    if t < 0:
                        break
                    if E[k, t] > best:
                        best = E[k, t]
                        keep = t
            if keep >= 0:
                km[keep] += md
                continue
            score_options(ints, mask, y, d, rt, pts)
            bb = -1
            bv = NEG
            for b in range(nbx):
                if pts[b] >= 0 and pre[b, pts[b]] > bv:
                    bv = pre[b, pts[b]]
                    bb = b
            e = 1 if bonus_due(ints, y, d) else 0
            acc[bb, pts[bb], e] += md
        if k > 0:
            for t in range(off):
                q = km[t]
                if q != 0.0:
                    q *= INV6
                    for f in range(6):
                        km[add[t, f]] += q
            for d in range(nroll):
                m[d] = km[off + d]


@nb.njit(cache=True, nogil=True)
def outcome_work(ints: IntArray) -> OutcomeWork:
    """Work arrays for :func:`turn_outcomes`."""
    pre, S, E, B, W = K.work_arrays(ints)
    m = np.zeros(np.int64(ints[P_NROLL]))
    km = np.zeros(np.int64(ints[P_NKEEP]))
    pts = np.empty(np.int64(ints[P_NB]), dtype=np.int32)
    return pre, S, E, B, W, m, km, pts


@nb.njit(cache=True, nogil=True)
def spread_layer(
    ints: IntArray, V: FloatArray, states: Int64Array, lo: Int64Array, ln: Int64Array, po: Int64Array,
    mass: FloatArray, slot: Int64Array,
) -> tuple[Int64Array, Int64Array, Int64Array, Int64Array, FloatArray]:  # fmt: skip
    """Move one layer forward: ``mass[po[i] : po[i] + ln[i]]`` is the chance of each sum of points
    ``lo[i] ..`` gained so far on reaching ``states[i]``. Returns the next layer the same way
    (``states, lo, ln, po, mass``). ``slot`` (dense, all -1) is scratch and left all -1."""
    nbx = ints[P_NB]
    pmax = ints[P_PMAX]
    ybonus = ints[P_YBONUS]
    units = ints[P_UNITS]
    ybits = ints[P_YBITS]
    work = outcome_work(ints)
    acc = np.zeros((np.int64(nbx), np.int64(pmax), np.int64(2)))
    n = len(states)
    cap = 0
    nst = np.empty(1024, dtype=np.int64)
    wlo = np.empty(1024, dtype=np.int64)
    whi = np.empty(1024, dtype=np.int64)
    for rnd in range(2):
        if rnd == 1:
            nln = whi[:cap] - wlo[:cap] + 1
            npo = np.zeros(cap, dtype=np.int64)
            for j in range(1, cap):
                npo[j] = npo[j - 1] + nln[j - 1]
            total = npo[cap - 1] + nln[cap - 1] if cap > 0 else 0
            nmass = np.zeros(total)
        for i in range(n):
            s = states[i]
            turn_outcomes(ints, V, s, work, acc)
            y = s % ybits
            up = (s // ybits) % units
            mask = s // (ybits * units)
            for b in range(nbx):
                for p in range(pmax):
                    for e in range(2):
                        q = acc[b, p, e]
                        if q == 0.0:
                            continue
                        acc[b, p, e] = 0.0
                        s2, g = successor(ints, mask, b, up, y, p)
                        g += e * ybonus
                        j = slot[s2]
                        if rnd == 0:
                            if j < 0:
                                if cap == len(nst):
                                    nst = np.concatenate((nst, np.empty(cap, dtype=np.int64)))
                                    wlo = np.concatenate((wlo, np.empty(cap, dtype=np.int64)))
                                    whi = np.concatenate((whi, np.empty(cap, dtype=np.int64)))
                                j = cap
                                cap += 1
                                slot[s2] = j
                                nst[j] = s2
                                wlo[j] = lo[i] + g
                                whi[j] = lo[i] + ln[i] - 1 + g
                            else:
                                wlo[j] = min(wlo[j], lo[i] + g)
                                whi[j] = max(whi[j], lo[i] + ln[i] - 1 + g)
                        else:
                            at = npo[j] + lo[i] + g - wlo[j]
                            src = po[i]
                            for x in range(ln[i]):
                                nmass[at + x] += q * mass[src + x]
    for j in range(cap):
        slot[nst[j]] = -1
    return nst[:cap].copy(), wlo[:cap].copy(), nln, npo, nmass
