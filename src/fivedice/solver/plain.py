"""The advisor's numpy path: every option of one situation without numba.

The same arithmetic as :func:`fivedice.solver.kernel.advise`, in the same order, vectorised
over the keeps with numpy instead of compiled, so the answers are bit-identical (tested). It
costs about 0.2 ms a situation instead of a few microseconds, and needs neither numba's import
(about 1 s and 140 MB) nor a JIT cache: a one-off question (``fivedice advise``, the first
hint of a game) is answered at once.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from fivedice.solver.tables import Tables

__all__ = ["advise"]

NEG = -1.0e300
INV6 = 1.0 / 6.0

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int32]


class _Layout:
    """Per-rule-set index arrays for the level-by-level numpy steps (built once per Tables)."""

    def __init__(self, t: Tables) -> None:
        sizes = t.counts.sum(axis=1)
        self.levels = [(int(np.searchsorted(sizes, s)), int(np.searchsorted(sizes, s + 1))) for s in range(t.n + 1)]
        pad = t.sub.astype(np.intp)
        pad[pad < 0] = t.nkeep  # row nkeep of the work array holds NEG
        self.sub = pad
        self.add = t.add.astype(np.intp)


_LAYOUTS: dict[int, _Layout] = {}


def _layout(t: Tables) -> _Layout:
    found = _LAYOUTS.get(id(t.ints))
    if found is None:
        found = _LAYOUTS[id(t.ints)] = _Layout(t)
    return found


def _next_up(t: Tables, nm: int, nu: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    top = np.minimum(nu + int(t.maxrem[nm]), t.cap)
    return np.where(t.bonus_of[top] == t.bonus_of[nu], t.cap, nu)


def _after(t: Tables, V: FloatArray, mask: int, b: int, up: int, y: int, p: npt.NDArray[np.int64]) -> FloatArray:
    """:func:`fivedice.solver.kernel.after` for several points values ``p`` of box ``b``."""
    nm = mask | (1 << b)
    nu = np.full(p.shape, up, dtype=np.int64)
    gain = np.zeros(p.shape, dtype=np.int64)
    if t.is_upper[b]:
        nu = np.minimum(up + p, t.cap)
        gain = t.bonus_of[nu].astype(np.int64) - int(t.bonus_of[up])
        nu = _next_up(t, nm, nu)
    ny = np.full(p.shape, y, dtype=np.int64)
    if b == t.ybox and t.ybits == 2:
        ny = (p > 0).astype(np.int64)
    out: FloatArray = (p + gain) + V[(nm * t.units + nu) * t.ybits + ny]
    return out


def _score_now(t: Tables, V: FloatArray, mask: int, up: int, y: int) -> FloatArray:
    """``S[rt, d]``: the value of scoring roll ``d`` now in its best box."""
    S = np.full((t.rolltypes, t.nroll), NEG)
    al = int(t.allowed[mask])
    for b in range(t.nboxes):
        if not (al >> b) & 1:
            continue
        if t.is_upper[b] or (b == t.ybox and t.ybits == 2):
            values = _after(t, V, mask, b, up, y, t.pvals[b, : t.npv[b]].astype(np.int64))
            for rt in range(t.rolltypes):
                np.maximum(S[rt], values[t.pidx[rt, b]], out=S[rt])
        else:
            base = float(V[((mask | (1 << b)) * t.units + up) * t.ybits + y])
            for rt in range(t.rolltypes):
                np.maximum(S[rt], t.points[rt, :, b] + base, out=S[rt])
    if t.has_joker and (mask >> t.ybox) & 1:
        for f in range(6):
            d = int(t.fives[f])
            if d < 0:
                continue
            for rt in range(t.rolltypes):
                best = NEG
                for b in range(t.nboxes):
                    p = int(t.joker[t.joker_row(mask, y), f, rt, b])
                    if p >= 0:
                        best = max(best, float(_after(t, V, mask, b, up, y, np.array([p]))[0]))
                S[rt, d] = best
    if t.ybits == 2 and y == 1:
        for f in range(6):
            if t.fives[f] >= 0:
                S[:, t.fives[f]] += t.ybonus
    return S


def _keeps(t: Tables, lay: _Layout, V: FloatArray, mask: int, up: int, y: int, k: int) -> FloatArray:
    """``E[t]``: the value of each keep with ``k`` rolls left (rows ``off:`` the rolls, ``k - 1`` left)."""
    S = _score_now(t, V, mask, up, y)
    rolls = t.rules.rolls
    W = S[t.roll_type(rolls)].copy()
    X = np.empty(t.nkeep + 1)
    Bm = np.empty(t.nkeep + 1)
    Bm[t.nkeep] = NEG
    for step in range(1, k + 1):
        X[t.off : t.nkeep] = W
        for s in range(t.n - 1, -1, -1):
            lo, hi = lay.levels[s]
            g = X[lay.add[lo:hi]]
            acc = g[:, 0] + g[:, 1]
            for f in range(2, 6):
                acc += g[:, f]
            X[lo:hi] = acc * INV6
        if step == k:
            break
        rt = t.roll_type(rolls - step)
        for s in range(t.n):
            lo, hi = lay.levels[s]
            Bm[lo:hi] = np.maximum(X[lo:hi], Bm[lay.sub[lo:hi]].max(axis=1))
        W = np.maximum(S[rt], Bm[lay.sub[t.off : t.nkeep]].max(axis=1))
    return X


def advise(
    t: Tables, V: FloatArray, state: int, d: int, k: int
) -> tuple[IntArray, FloatArray, IntArray, FloatArray, int]:
    """Every option of roll ``d`` with ``k`` rolls left in dense state ``state``.

    Returns the proper keeps (multiset indices) and their values, each box's points (-1 where
    not allowed) and value (``NEG`` where not allowed), and the best option's code as
    :func:`fivedice.solver.kernel.advise` does.
    """
    y = state % t.ybits
    up = (state // t.ybits) % t.units
    mask = state // (t.ybits * t.units)
    rt = t.roll_type(t.rules.rolls - k)
    f = int(t.five[d])
    if t.has_joker and (mask >> t.ybox) & 1 and f >= 0:
        box_pts = t.joker[t.joker_row(mask, y), f, rt].copy()
    else:
        al = int(t.allowed[mask])
        box_pts = np.where((al >> np.arange(t.nboxes)) & 1 == 1, t.points[rt, d], -1).astype(np.int32)
    extra = t.ybonus if t.ybits == 2 and y == 1 and f >= 0 else 0
    box_val = np.full(t.nboxes, NEG)
    for b in np.flatnonzero(box_pts >= 0).tolist():
        box_val[b] = float(_after(t, V, mask, b, up, y, np.array([int(box_pts[b])]))[0]) + extra
    keep_idx = np.zeros(0, dtype=np.int32)
    keep_val = np.zeros(0)
    if k > 0:
        keep_idx = t.subsets[d][t.subsets[d] >= 0]
        keep_val = _keeps(t, _layout(t), V, mask, up, y, k)[keep_idx]
    code = -(int(np.argmax(box_val)) + 1)
    top = float(box_val[-code - 1])
    if keep_val.size and float(keep_val.max()) > top:
        code = int(np.argmax(keep_val))
    return keep_idx, keep_val, box_pts, box_val, code
