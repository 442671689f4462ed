"""Threshold curves shipped with fivedice: for every turn-start state, the best chance of gaining at
least ``u`` further points (threshold play, exact) at a few levels, quantised (the idea of Pawlewicz,
Computers and Games 2010: near-optimal play for a chance from compact per-state distributions).

A state's curve ``G(s, u)`` (see :mod:`fivedice.solver.chances`) falls from 1 at ``u = 0`` to 0 past
the most points the state can still score. For each level ``p_j = Phi(z_j)`` (:data:`Z`, evenly spaced
in the normal's quantiles) the file keeps where the curve crosses it, ``x_j`` (linear between whole
points, in quarter points). A curve is read back by interpolating ``z`` linearly in ``x`` between the
knots (exact for a normal curve; a normal's tail beyond them) and taking ``Phi(z)``; with ties
counting half, ``G_half(s, u) ~ C(u + 1 - half)`` on that continuous curve ``C``.

They come from the exact threshold programme run once over every state (``python -m
fivedice.solver.ship --curves``: minutes, two layers in memory, see
:mod:`fivedice.solver.chancestream`), so they carry what the moments of expected-score play miss: a
player behind takes risks. A few MB per rule set; rule sets shipping none use the moments.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from fivedice.solver import cache as _cache
from fivedice.solver.advisor import Solver
from fivedice.solver.cache import Progress, code_digest, file_stem, read_framed, rules_digest, write_atomic
from fivedice.solver.fastplain import phi

__all__ = [
    "CAP", "Curves", "Z", "build_curves", "curve_values", "curves", "file_name", "fill_rows", "load_curves",
    "save_curves",
]  # fmt: skip

FORMAT = 2
MAGIC = b"FIVEDICE-CURVES\n"
EXT = ".curves"
Z = np.linspace(3.0, -3.0, 32)
"""The levels' normal quantiles, highest chance first. With 16 (format 1) ``target:250`` gave up 0.60
points of reach to exact play (``bench/quality.py --regret-games``), the interpolation between levels
being most of the gap; 32 halve the curves' error and double their few MB."""
QUANT = 4.0
"""Knots are kept in steps of ``1 / QUANT`` points."""
CAP = 500
"""Needs past this are not tracked (their chance is below ``Phi(-3)`` from every state of the
built-in rule sets); a knot beyond sits there."""
FloatArray = npt.NDArray[np.float64]

LEVELS = phi(Z)
"""The chance of each level."""


@dataclass(frozen=True, slots=True, eq=False)
class Curves:
    """Per reachable state (row ``at[s]`` of dense state ``s``): the knots ``q`` (in steps of
    ``1 / QUANT`` points, ascending) where its threshold curve crosses :data:`LEVELS`. Kept as int16, a
    quarter of float64's memory (23 MB for Yahtzee's 355,390 states)."""

    at: npt.NDArray[np.int64]
    q: npt.NDArray[np.int16]
    source: str
    seconds: float
    path: Path | None

    @property
    def size_bytes(self) -> int:
        """Bytes held in memory."""
        return int(self.at.nbytes + self.q.nbytes)

    def knots(self, state: int) -> FloatArray:
        """Dense state ``state``'s knots in points."""
        out: FloatArray = self.q[self.at[state]].astype(np.float64) / QUANT
        return out


def file_name(rules_or_solver: object) -> str:
    """The curves file's name for a rule set (or a solver's)."""
    rules = getattr(rules_or_solver, "rules", rules_or_solver)
    return f"{file_stem(rules)}.v{FORMAT}{EXT}"  # type: ignore[arg-type]


def _index(solver: Solver) -> npt.NDArray[np.int64]:
    at: npt.NDArray[np.int64] = (np.cumsum(solver.table.reach) - 1).astype(np.int64)
    return at


def knots(values: npt.NDArray[np.float32], starts: npt.NDArray[np.int64], lens: npt.NDArray[np.int64],
          capped: npt.NDArray[np.bool_]) -> npt.NDArray[np.float32]:  # fmt: skip
    """The knots of rows ``values[starts[i]:starts[i] + lens[i]]`` (non-increasing curves from 1): for
    each level, where the row crosses it (linear between whole points); a row that never falls below
    a level crosses it at its end (``capped`` rows: cut by :data:`CAP`) or where it would fall to 0."""
    v = values  # float32, compared in float64: no float64 or int64 copy of a layer (up to 136 MB as floats)
    out = np.empty((len(starts), len(LEVELS)), dtype=np.float32)
    ends = starts + lens
    for j, p in enumerate(LEVELS):
        # int16 sums: a row holds at most CAP + 1 values
        count = np.add.reduceat(v >= p, starts, dtype=np.int16) if len(v) else np.zeros(0, np.int16)
        count = np.where(lens > 0, count.astype(np.int64), 0)
        # the row's values just before and at the crossing (past the row's end: 0, or the end if capped)
        before = v[np.clip(starts + count - 1, 0, len(v) - 1)].astype(np.float64)
        at_end = count >= lens
        after = np.where(at_end, 0.0, v[np.clip(starts + count, 0, len(v) - 1)].astype(np.float64))
        frac = np.where(before > after, (before - p) / np.maximum(before - after, 1e-12), 0.0)
        x = count - 1 + np.clip(frac, 0.0, 1.0)
        out[:, j] = np.where(at_end & capped, (ends - starts - 1).astype(np.float64), x)
    return out


def build_curves(solver: Solver, threads: int | None = None, progress: Progress | None = None) -> Curves:
    """Run the exact threshold programme over every state (layer by layer) and keep each state's
    knots (minutes for Yahtzee; no cache)."""
    from fivedice.solver.chancestream import plan, stream_build

    start = time.perf_counter()
    p = plan(solver, CAP)
    at = _index(solver)
    q = np.zeros((int(solver.table.reach.sum()), len(LEVELS)), dtype=np.int16)

    def sink(i: int, values: npt.NDArray[np.float32]) -> None:
        lo, hi = int(p.starts[i]), int(p.starts[i + 1])
        layer = p.states[lo:hi]
        starts = p.goff[layer] - p.vstarts[i]
        found = knots(values, starts, p.glen[layer], p.most[lo:hi] > CAP)
        q[at[layer]] = np.round(found.astype(np.float64) * QUANT).astype(np.int16)

    stream_build(solver, CAP, 1.0, sink, threads, progress, p)
    return Curves(at, q, "built", time.perf_counter() - start, None)


def _header(solver: Solver, payload_sha256: str) -> dict[str, object]:
    rules = solver.rules
    return {
        "format": FORMAT, "rules": rules.name, "options": dict(rules.options), "rules_sha256": rules_digest(rules),
        "code_sha256": code_digest(), "states": int(solver.table.reach.sum()), "levels": Z.tolist(),
        "quant": QUANT, "cap": CAP, "payload_sha256": payload_sha256,
    }  # fmt: skip


def save_curves(solver: Solver, found: Curves, path: Path) -> None:
    """Write ``found`` to ``path`` atomically (quantised knots as uint16 steps, byte planes, zlib).
    Raises OSError."""
    steps = np.diff(found.q.astype(np.int64), axis=1, prepend=0)
    if steps.min(initial=0) < 0 or steps.max(initial=0) > 0xFFFF:
        raise RuntimeError("knots out of range")  # a bug: the quantised steps must fit 16 bits
    raw = steps.astype("<u2")
    planes = np.ascontiguousarray(raw.view(np.uint8).reshape(-1, 2).T)
    payload = zlib.compress(planes.tobytes(), 9)
    header = _header(solver, hashlib.sha256(payload).hexdigest())
    write_atomic(path, [MAGIC + json.dumps(header, sort_keys=True).encode() + b"\n", payload])


def load_curves(solver: Solver, path: Path, source: str = "package") -> Curves | None:
    """The curves stored at ``path`` if intact and for the solver's rules and scoring code, else None."""
    start = time.perf_counter()
    framed = read_framed(path, MAGIC)
    if framed is None:
        return None
    header, payload = framed
    count = int(solver.table.reach.sum())
    if not isinstance(header, dict) or header != _header(solver, hashlib.sha256(payload).hexdigest()):
        return None
    try:
        raw = np.frombuffer(zlib.decompress(payload), dtype=np.uint8)
    except zlib.error:
        return None
    n = count * len(LEVELS)
    if raw.size != 2 * n:
        return None
    steps = np.empty(n, dtype="<u2")  # the two byte planes woven back, then summed in place (one copy)
    woven = steps.view(np.uint8)
    woven[0::2], woven[1::2] = raw[:n], raw[n:]
    del raw
    q = steps.view(np.int16).reshape(count, len(LEVELS))  # at most CAP * QUANT: int16 holds every sum
    np.cumsum(q, axis=1, dtype=np.int16, out=q)
    return Curves(_index(solver), q, source, time.perf_counter() - start, path)


_CURVES: dict[object, Curves | None] = {}
_LOCK = threading.Lock()


def curves(solver: Solver) -> Curves | None:
    """The shipped curves of the solver's rule set (None if it ships none; never built here)."""
    with _LOCK:
        if solver.rules not in _CURVES:
            path = _cache.DATA / file_name(solver)
            _CURVES[solver.rules] = load_curves(solver, path) if path.exists() else None
        return _CURVES[solver.rules]


def curve_values(x: FloatArray, u: FloatArray) -> FloatArray:
    """A state's chance at (real) points still needed ``u`` from its knots ``x``: ``z`` linear in the
    position between knots, beyond them along the nearest segment (a normal's tail)."""
    xs = x.astype(np.float64)
    z = np.interp(u, xs, Z)
    left = (Z[1] - Z[0]) / max(xs[1] - xs[0], 1.0 / QUANT)
    right = (Z[-1] - Z[-2]) / max(xs[-1] - xs[-2], 1.0 / QUANT)
    z = np.where(u < xs[0], Z[0] + left * (u - xs[0]), np.where(u > xs[-1], Z[-1] + right * (u - xs[-1]), z))
    return phi(np.clip(z, -40.0, 40.0))


def fill_rows(found: Curves, states: npt.NDArray[np.int64], most: npt.NDArray[np.int64], G: npt.NDArray[np.float32],
              goff: npt.NDArray[np.int64], half: float) -> None:  # fmt: skip
    """``G[goff[s] + u]`` for ``u <= most``: each state's chance of more than ``u`` further points
    (``half`` for exactly ``u``) read from its curve (as :func:`fivedice.solver.momentkernel.approx_rows`)."""
    for s, top in zip(states.tolist(), most.tolist(), strict=True):
        o = int(goff[s])
        row = curve_values(found.knots(s), np.arange(top + 1, dtype=np.float64) + (1.0 - half))
        if half == 1.0:
            row[0] = 1.0
        G[o : o + top + 1] = row
