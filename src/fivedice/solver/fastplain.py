"""The fast chances without numba: numpy, for a one-off answer (a hint, ``fivedice advise --target``)
that must not wait for numba's import (about 1 s and 140 MB) or a JIT compile (minutes on a fresh
install). The same programme as :mod:`fivedice.solver.fast` (tested to agree), vectorised over the
keeps and over the points still needed.

A *curve* of a state is the chance, for each ``u = 0, 1, ..., most``, of more than ``u`` further
points (``half`` for exactly ``u``); below 0 it is 1 and past ``most`` 0.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from fivedice.solver import plain
from fivedice.solver.plain import successor
from fivedice.solver.tables import Tables

__all__ = ["below", "max_future", "pre_values", "score_rows", "subtree", "successors", "threshold_curves"]

SKEW_CLIP = 0.0
"""As :data:`fivedice.solver.momentkernel.SKEW_CLIP` (0: the fit is a normal)."""
FloatArray = npt.NDArray[np.float64]
Curve = Callable[[int, npt.NDArray[np.int64]], FloatArray]
"""``curve(state, u)``: a state's chance for each number of points still needed in ``u``."""

_A = (0.254829592, -0.284496736, 1.421413741, -1.453152027, 1.061405429)


def phi(z: FloatArray) -> FloatArray:
    """The standard normal distribution function (Abramowitz and Stegun 7.1.26, error below 1e-7;
    the numba kernel uses the same formula, so that both paths agree)."""
    x = np.abs(z) / math.sqrt(2.0)
    t = 1.0 / (1.0 + 0.3275911 * x)
    poly = t * (_A[0] + t * (_A[1] + t * (_A[2] + t * (_A[3] + t * _A[4]))))
    tail = 0.5 * poly * np.exp(-x * x)
    out: FloatArray = np.where(z < 0, tail, 1.0 - tail)
    return out


def below(x: FloatArray, mean: float, sd: float, skew: float) -> FloatArray:
    """``P(X <= x)`` under the moment fit (see :func:`fivedice.solver.momentkernel.below`)."""
    x = np.asarray(x, dtype=np.float64)
    if sd <= 1e-9:
        return (x >= mean).astype(np.float64)
    g = min(max(skew, -SKEW_CLIP), SKEW_CLIP)
    if not abs(g) >= 0.02:
        return phi((x - mean) / sd)
    flip = g < 0.0
    if flip:
        x, mean, g = -x, -mean, -g
    k = 4.0 / (g * g)
    theta = sd * g / 2.0
    y = (x - (mean - k * theta)) / theta
    c = 1.0 / (9.0 * k)
    p = np.where(y <= 0.0, 0.0, phi(((np.maximum(y, 0.0) / k) ** (1.0 / 3.0) - 1.0 + c) / math.sqrt(c)))
    out: FloatArray = 1.0 - p if flip else p
    return out


def is_full(t: Tables, s: int) -> bool:
    """Whether state ``s`` is a full card."""
    return s // (t.units * t.ybits) == (1 << t.nboxes) - 1


def moves(t: Tables, s: int) -> list[tuple[int, int, int, int]]:
    """Every score from state ``s``: ``(box, points, next state, points gained)``."""
    y = s % t.ybits
    up = (s // t.ybits) % t.units
    mask = s // (t.ybits * t.units)
    out: list[tuple[int, int, int, int]] = []
    for b in range(t.nboxes):
        if not (mask >> b) & 1:
            p = t.pvals[b, : t.npv[b]].astype(np.int64)
            s2, g = successor(t, mask, b, up, y, p)
            out += zip([b] * len(p), p.tolist(), s2.tolist(), g.tolist(), strict=True)
    return out


def successors(t: Tables, s: int) -> list[int]:
    """The distinct states (full cards left out) that scoring from ``s`` leads to."""
    return sorted({s2 for _b, _p, s2, _g in moves(t, s) if not is_full(t, s2)})


def subtree(t: Tables, roots: list[int]) -> list[int]:
    """Every non-full state reachable from ``roots`` (themselves included), fullest cards first."""
    seen = set(roots)
    stack = list(roots)
    while stack:
        for s2 in successors(t, stack.pop()):
            if s2 not in seen:
                seen.add(s2)
                stack.append(s2)
    per = t.ybits * t.units
    return sorted(seen, key=lambda s: (-(s // per).bit_count(), s))


def max_future(t: Tables, s: int) -> int:
    """An upper bound of the points still to come from state ``s`` (as the numba kernel's)."""
    y = s % t.ybits
    up = (s // t.ybits) % t.units
    mask = s // (t.ybits * t.units)
    total = nopen = upper_left = 0
    for b in range(t.nboxes):
        if (mask >> b) & 1:
            continue
        nopen += 1
        top = int(t.pvals[b, t.npv[b] - 1])
        total += top
        if t.is_upper[b]:
            upper_left += top
    total += int(t.bonus_of[min(up + upper_left, t.cap)]) - int(t.bonus_of[up])
    if t.ybits == 2 and (y == 1 or (mask >> t.ybox) & 1 == 0):
        total += t.ybonus * nopen
    return total


def pre_values(
    t: Tables, s: int, shifts: npt.NDArray[np.int64], curve: Curve, half: float
) -> tuple[FloatArray, FloatArray]:
    """``pre[b, p, j]`` = the chance after ``p`` points in box ``b`` with ``shifts[j]`` points still
    needed (``pre5`` the same with an extra-Yahtzee bonus), from the next states' ``curve``."""
    pmax = int(t.pvals.max()) + 1
    pre = np.zeros((t.nboxes, pmax, len(shifts)))
    pre5 = np.zeros_like(pre)
    for b, p, s2, g in moves(t, s):
        for out, extra in ((pre, 0), (pre5, t.ybonus)):
            u = shifts - g - extra
            if is_full(t, s2):
                out[b, p] = np.where(u < 0, 1.0, np.where(u == 0, half, 0.0))
            else:
                out[b, p] = np.where(u < 0, 1.0, curve(s2, np.maximum(u, 0)))
    return pre, pre5


def score_rows(t: Tables, s: int, pre: FloatArray, pre5: FloatArray) -> FloatArray:
    """``S[rt, d, j]``: the value of scoring roll ``d`` now in its best box (``pre5`` for ``n`` alike
    with an extra-Yahtzee bonus to come; the Joker rule where it applies): :func:`plain.score_rows`."""
    return plain.score_rows(t, s // (t.ybits * t.units), s % t.ybits, pre, pre5, 0.0)


def threshold_curves(t: Tables, states: list[int], half: float) -> dict[int, FloatArray]:
    """The exact curves of ``states`` (all that can follow them included, fullest cards first)."""
    curves: dict[int, FloatArray] = {}

    def curve(s2: int, u: npt.NDArray[np.int64]) -> FloatArray:
        row = curves[s2]
        return np.where(u < len(row), row[np.minimum(u, len(row) - 1)], 0.0)

    weights = t.ways / float(t.ways.sum())
    for s in states:
        most = max_future(t, s)
        pre, pre5 = pre_values(t, s, np.arange(most + 1, dtype=np.int64), curve, half)
        S = score_rows(t, s, pre, pre5)
        _X, W = plain.programme(t, S, t.rules.rolls - 1)
        curves[s] = weights @ W
    return curves
