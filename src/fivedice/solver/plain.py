"""The advisor's numpy path: every option of one situation without numba.

The same arithmetic as :func:`fivedice.solver.kernel.advise`, in the same order, vectorised
over the keeps with numpy instead of compiled, so the answers are bit-identical (tested). It
costs about 0.2 ms a situation instead of a few microseconds, and needs neither numba's import
(about 1 s and 140 MB) nor a JIT cache: a one-off question (``fivedice advise``, the first
hint of a game) is answered at once.
"""

from __future__ import annotations

import weakref

import numpy as np
import numpy.typing as npt

from fivedice.solver.tables import Tables

__all__ = [
    "BoolArray", "Float32Array", "FloatArray", "Int64Array", "IntArray", "advise", "bonus_due", "box_points",
    "joker_applies", "programme", "score_rows", "successor",
]  # fmt: skip

NEG = -1.0e300
INV6 = 1.0 / 6.0

FloatArray = npt.NDArray[np.float64]
"""Values: state values, a turn's tables, options' values."""
IntArray = npt.NDArray[np.int32]
"""The packed tables (:attr:`Tables.ints`), points, multiset indices."""
Int64Array = npt.NDArray[np.int64]
"""Dense state indices, offsets and lengths."""
Float32Array = npt.NDArray[np.float32]
"""Stored chances."""
BoolArray = npt.NDArray[np.bool_]
"""Which dense states are reachable."""


class _Layout:
    """Per-rule-set index arrays for the level-by-level numpy steps (built once per Tables)."""

    def __init__(self, t: Tables) -> None:
        sizes = t.counts.sum(axis=1)
        self.levels = [(int(np.searchsorted(sizes, s)), int(np.searchsorted(sizes, s + 1))) for s in range(t.n + 1)]
        pad = t.sub.astype(np.intp)
        pad[pad < 0] = t.nkeep  # row nkeep of the work array holds NEG
        self.sub = pad
        self.add = t.add.astype(np.intp)


_LAYOUTS: dict[int, tuple[weakref.ref[IntArray], _Layout]] = {}
"""Per rule set's packed tables, by their ``id``, with a weak reference that tells a reused ``id`` apart."""


def _layout(t: Tables) -> _Layout:
    key = id(t.ints)
    found = _LAYOUTS.get(key)
    if found is None or found[0]() is not t.ints:
        found = _LAYOUTS[key] = (weakref.ref(t.ints), _Layout(t))
    return found[1]


def successor(t: Tables, mask: int, b: int, up: int, y: int, p: npt.NDArray[np.int64]) -> tuple[Int64Array, Int64Array]:
    """:func:`fivedice.solver.primitives.successor` for several points values ``p`` of box ``b``: the
    next states and the points gained (upper bonus included)."""
    nm = mask | (1 << b)
    nu = np.full(p.shape, up, dtype=np.int64)
    gain = p.astype(np.int64)
    if t.is_upper[b]:
        nu = np.minimum(up + p, t.cap)
        gain = gain + (t.bonus_of[nu].astype(np.int64) - int(t.bonus_of[up]))
        top = np.minimum(nu + int(t.maxrem[nm]), t.cap)
        nu = np.where(t.bonus_of[top] == t.bonus_of[nu], t.cap, nu)
    ny = np.full(p.shape, y, dtype=np.int64)
    if b == t.ybox and t.ybits == 2:
        ny = (p > 0).astype(np.int64)
    return (nm * t.units + nu) * t.ybits + ny, gain


def joker_applies(t: Tables, mask: int) -> bool:
    """Whether the Joker rule sets where ``n`` alike may go: the rules have one and the Yahtzee box is filled."""
    return bool(t.has_joker and t.ybox >= 0 and (mask >> t.ybox) & 1)


def box_points(t: Tables, mask: int, y: int, d: int, rt: int) -> IntArray:
    """:func:`fivedice.solver.primitives.box_points` of roll ``d`` for every box (-1 where not allowed)."""
    f = int(t.five[d])
    if f >= 0 and joker_applies(t, mask):
        out: IntArray = t.joker[t.joker_row(mask, y), f, rt].copy()
        return out
    al = int(t.allowed[mask])
    return np.where((al >> np.arange(t.nboxes)) & 1 == 1, t.points[rt, d], -1).astype(np.int32)


def bonus_due(t: Tables, y: int, d: int) -> bool:
    """Whether scoring roll ``d`` earns an extra-Yahtzee bonus."""
    return bool(t.ybits == 2 and y == 1 and t.five[d] >= 0)


def score_rows(t: Tables, mask: int, y: int, pre: FloatArray, pre5: FloatArray, extra: float) -> FloatArray:
    """``S[rt, d, ...]``: :func:`fivedice.solver.primitives.score_now` for every points row, with
    values ``pre[b, p, ...]`` of any trailing shape (the same steps, vectorised over the rolls)."""
    S = np.full((t.rolltypes, t.nroll, *pre.shape[2:]), NEG)
    al = int(t.allowed[mask])
    for rt in range(t.rolltypes):
        for b in range(t.nboxes):
            if (al >> b) & 1:
                np.maximum(S[rt], pre[b, t.points[rt, :, b]], out=S[rt])
    bonus = t.ybits == 2 and y == 1
    if not bonus and not joker_applies(t, mask):
        return S
    src = pre5 if bonus else pre
    for f in range(6):
        d = int(t.fives[f])
        if d < 0:
            continue
        for rt in range(t.rolltypes):
            best = np.full(pre.shape[2:], NEG)
            for b, p in enumerate(box_points(t, mask, y, d, rt).tolist()):
                if p >= 0:
                    np.maximum(best, src[b, p], out=best)
            S[rt, d] = best + extra if bonus else best
    return S


def programme(t: Tables, S: FloatArray, k: int, last_w: bool = True) -> tuple[FloatArray, FloatArray]:
    """:func:`fivedice.solver.primitives.keep_values` vectorised over the keeps of each level, values of
    any trailing shape: the keeps' values with ``k`` rolls left (rows ``off:`` the rolls, ``k - 1``
    left) and the rolls' values with ``k`` rolls left (with ``k - 1`` unless ``last_w``)."""
    lay = _layout(t)
    rolls = t.rules.rolls
    tail = S.shape[2:]
    W = S[t.roll_type(rolls)].copy()
    X = np.empty((t.nkeep + 1, *tail))
    Bm = np.empty((t.nkeep + 1, *tail))
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
        if step == k and not last_w:
            break
        rt = t.roll_type(rolls - step)
        for s in range(t.n):
            lo, hi = lay.levels[s]
            Bm[lo:hi] = np.maximum(X[lo:hi], Bm[lay.sub[lo:hi]].max(axis=1))
        W = np.maximum(S[rt], Bm[lay.sub[t.off : t.nkeep]].max(axis=1))
    return X, W


def _pre(t: Tables, V: FloatArray, mask: int, up: int, y: int) -> FloatArray:
    """``pre[b, p]``: the value of ``p`` points in open box ``b`` (points, bonus, the next state's value)."""
    pre = np.zeros((t.nboxes, int(t.pvals.max()) + 1))
    for b in range(t.nboxes):
        if not (mask >> b) & 1:
            p = t.pvals[b, : t.npv[b]].astype(np.int64)
            s2, gain = successor(t, mask, b, up, y, p)
            pre[b, p] = gain + V[s2]
    return pre


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
    box_pts = box_points(t, mask, y, d, rt)
    extra = t.ybonus if bonus_due(t, y, d) else 0
    pre = _pre(t, V, mask, up, y)
    box_val = np.full(t.nboxes, NEG)
    for b in np.flatnonzero(box_pts >= 0).tolist():
        box_val[b] = pre[b, int(box_pts[b])] + extra
    keep_idx = np.zeros(0, dtype=np.int32)
    keep_val = np.zeros(0)
    if k > 0:
        keep_idx = t.subsets[d][t.subsets[d] >= 0]
        S = score_rows(t, mask, y, pre, pre, float(t.ybonus))
        keep_val = programme(t, S, k, last_w=False)[0][keep_idx]
    code = -(int(np.argmax(box_val)) + 1)
    top = float(box_val[-code - 1])
    if keep_val.size and float(keep_val.max()) > top:
        code = int(np.argmax(keep_val))
    return keep_idx, keep_val, box_pts, box_val, code
