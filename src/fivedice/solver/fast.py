"""Fast chances: a hint's chance to reach a target or to beat a rival in milliseconds, from compact
per-state summaries shipped with fivedice instead of threshold tables built for minutes.

For every turn-start state the package ships the standard deviation and the skewness of the points
still to come under optimal (expected-score) play (:mod:`fivedice.solver.momentkernel`; the mean is the
expectation table's value). A decision is then valued exactly *within* the turn (every keep and every
box, the expectation solver's programme) with the chance after scoring read from a fitted curve of the
state that follows, shifted by the points scored: a normal, or a shifted gamma when the distribution
is skewed. This is the idea of Pawlewicz (Computers and Games 2010): near-optimal play for a chance
from a few moments per state. Late in the game the curves are exact instead: when at most
:data:`EXACT_OPEN` boxes stay open after the turn, the threshold programme is solved on the few states
that can still follow (milliseconds).

Where threshold curves ship (:data:`fivedice.solver.ship.CURVED`: Yahtzee, Yacht, Generala), a next
state's curve with more boxes open is read from them instead (:mod:`fivedice.solver.curves`: the
exact threshold curve at 16 levels, interpolated between).

What is approximate: with more boxes open, the curves' interpolation between their levels; where
none ship, the curve of expected-score play (a player who then plays for the chance does a little
better) and a fit of its moments. The exact tables (:mod:`fivedice.solver.chances`) stay available
on request.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import threading
import time
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from fivedice.dice import Dice
from fivedice.engine.scorecard import Scorecard
from fivedice.rules import RuleSet
from fivedice.solver import cache as _cache
from fivedice.solver import curves as _curves
from fivedice.solver import fastplain as fp
from fivedice.solver import plain
from fivedice.solver.advisor import Option, Solver
from fivedice.solver.cache import (
    Progress,
    _layers,
    cache_dir,
    code_digest,
    file_stem,
    read_framed,
    rules_digest,
    run_layers,
    write_atomic,
)
from fivedice.solver.chances import ChanceTable, Distribution, _ranked, _ranked_pre

__all__ = [
    "EXACT_OPEN", "LAMBDAS", "Moments", "build_moments", "fast_mixture_options", "fast_options", "file_name",
    "load_moments", "moments", "packaged_moments", "ready_for", "save_moments", "situation_table",
]  # fmt: skip

FORMAT = 1
MAGIC = b"FIVEDICE-MOMENTS\n"
EXT = ".moments"
"""A moments file's name ends so (never shown to a player)."""
EXACT_OPEN = 4
"""When at most this many boxes stay open after the turn, the chances are exact (4: on the same 6,000 games
``target:250`` reached 0.53 points more often than with 3, at the same speed; 5 made play twice as slow)."""
LAMBDAS = (0.0,)
"""The policies whose moments are shipped: the most points (0), and possibly those of the exponential
utility ``sign(lam) * exp(lam * X)`` (taking risks for ``lam > 0``, avoiding them below), a curve being
the best of their fits for each score. Measured on Yacht, ``(0, 0.03, -0.03)`` lowered the chance lost
per decision only from 0.073 to 0.064 points for three times the data: one policy is shipped."""
FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True, eq=False)
class Moments:
    """Per reachable state (column ``at[s]`` of dense state ``s``) and per policy (row ``k``, the policy
    of ``LAMBDAS[k]``): the mean, standard deviation and skewness of the points still to come."""

    at: npt.NDArray[np.int64]
    mean: npt.NDArray[np.float32]
    sd: npt.NDArray[np.float32]
    skew: npt.NDArray[np.float32]
    source: str
    """``"built"``, ``"cache"`` or ``"package"``."""
    seconds: float
    path: Path | None

    @property
    def size_bytes(self) -> int:
        """Bytes held in memory."""
        return int(self.at.nbytes + self.mean.nbytes + self.sd.nbytes + self.skew.nbytes)


def _name(rules: RuleSet) -> str:
    head, tail = file_stem(rules), EXT
    return f"{head}.v{FORMAT}{tail}"


def file_name(solver: Solver) -> str:
    """The moments file's name for the solver's rule set."""
    return _name(solver.rules)


def packaged_moments(solver: Solver) -> Path:
    """Where the package ships the moments of the solver's rule set (it may not exist)."""
    return _cache.DATA / file_name(solver)


def _index(solver: Solver) -> npt.NDArray[np.int64]:
    reach = solver.table.reach
    at: npt.NDArray[np.int64] = (np.cumsum(reach) - 1).astype(np.int64)
    return at


def build_moments(solver: Solver, threads: int | None = None, progress: Progress | None = None) -> Moments:
    """Compute the moments of every reachable state under each policy of :data:`LAMBDAS` (seconds to
    minutes; no cache)."""
    from fivedice.solver import momentkernel as MK

    start = time.perf_counter()
    t = solver.table.tables
    reach = solver.table.reach
    states, starts = _layers(t, reach)
    out = np.zeros((3, len(LAMBDAS), int(reach.sum())), dtype=np.float32)
    for k, lam in enumerate(LAMBDAS):
        M = np.zeros((t.nstates, 4))
        M[:, 3] = 1.0

        def part(share: float, k: int = k) -> None:
            if progress is not None:
                progress((k + share) / len(LAMBDAS))

        def work(a: int, b: int, M: FloatArray = M, lam: float = lam) -> None:
            MK.moment_states(t.ints, M, states, a, b, lam)

        run_layers(states, starts, work, 64, threads, part)
        m1, m2, m3 = M[reach, 0], M[reach, 1], M[reach, 2]
        sd = np.sqrt(np.maximum(m2 - m1 * m1, 0.0))
        third = m3 - 3 * m1 * m2 + 2 * m1**3
        out[0, k] = m1
        out[1, k] = sd
        out[2, k] = np.where(sd > 1e-3, third / np.maximum(sd, 1e-3) ** 3, 0.0)
    return Moments(_index(solver), out[0], out[1], out[2], "built", time.perf_counter() - start, None)


def _header(solver: Solver, payload_sha256: str, count: int) -> dict[str, object]:
    rules = solver.rules
    return {
        "format": FORMAT, "rules": rules.name, "options": dict(rules.options), "rules_sha256": rules_digest(rules),
        "code_sha256": code_digest(), "states": count, "lambdas": list(LAMBDAS), "payload_sha256": payload_sha256,
    }  # fmt: skip


def _payload(solver: Solver, found: Moments) -> bytes:
    base = solver.table.values[solver.table.reach]
    parts = np.stack([found.mean - base, found.sd, found.skew]).astype("<f2")  # the mean as a shift from V's
    planes = np.ascontiguousarray(parts.view(np.uint8).reshape(-1, 2).T)
    return zlib.compress(planes.tobytes(), 9)


def save_moments(solver: Solver, found: Moments, path: Path) -> None:
    """Write ``found`` to ``path`` atomically (float16 values, byte planes, zlib). Raises OSError."""
    payload = _payload(solver, found)
    header = _header(solver, hashlib.sha256(payload).hexdigest(), int(solver.table.reach.sum()))
    write_atomic(path, [MAGIC + json.dumps(header, sort_keys=True).encode() + b"\n", payload])


def load_moments(solver: Solver, path: Path, source: str = "cache") -> Moments | None:
    """The moments stored at ``path`` if intact and for the solver's rules and scoring code, else None."""
    start = time.perf_counter()
    framed = read_framed(path, MAGIC)
    if framed is None:
        return None
    header, payload = framed
    reach = solver.table.reach
    count = int(reach.sum())
    if (
        not isinstance(header, dict)
        or header.get("format") != FORMAT
        or header.get("rules_sha256") != rules_digest(solver.rules)
        or header.get("code_sha256") != code_digest()
        or header.get("states") != count
        or header.get("lambdas") != list(LAMBDAS)
        or header.get("payload_sha256") != hashlib.sha256(payload).hexdigest()
    ):
        return None
    try:
        raw = np.frombuffer(zlib.decompress(payload), dtype=np.uint8)
    except zlib.error:
        return None
    n = len(LAMBDAS)
    if raw.size != 2 * 3 * n * count:
        return None
    values = np.ascontiguousarray(raw.reshape(2, -1).T).view("<f2").reshape(3, n, count).astype(np.float32)
    base = solver.table.values[reach].astype(np.float32)
    return Moments(_index(solver), values[0] + base, values[1], values[2], source, time.perf_counter() - start, path)


_MOMENTS: dict[object, Moments] = {}
"""Per rule set (the moments depend on the rules alone)."""
_LOCK = threading.Lock()


def moments(solver: Solver, progress: Progress | None = None) -> Moments:
    """The moments of the solver's rule set: in memory, else shipped with fivedice or in the user
    cache, else built (a minute for a large custom rule set) and cached."""
    with _LOCK:
        found = _MOMENTS.get(solver.rules)
        if found is not None:
            return found
        result = load_moments(solver, packaged_moments(solver), "package")
        cached = cache_dir() / file_name(solver)
        if result is None:
            result = load_moments(solver, cached)
        if result is None:
            result = build_moments(solver, progress=progress)
            with contextlib.suppress(OSError):
                save_moments(solver, result, cached)
        _MOMENTS[solver.rules] = result
        return result


def ready_for(rules: RuleSet) -> bool:
    """Whether the moments of ``rules`` load at once (in memory, shipped or cached): no build needed.
    Looks at file names only (a damaged file is found so, and rebuilt, when loaded)."""
    if rules in _MOMENTS:
        return True
    name = _name(rules)
    return any(p.exists() for p in (_cache.DATA / name, cache_dir() / name))


_LAST: dict[int, tuple[tuple[object, int, float, int], ChanceTable]] = {}
"""The latest situation table per thread (by thread id), with its key: the three decisions of a turn share it.
One each, since a table holds two arrays the size of the state space (8 MB for Yahtzee)."""
THREADS_KEPT = 64
"""Threads whose latest situation table is kept (more: all are dropped)."""


def situation_table(solver: Solver, state: int, half: float = 1.0, cap: int | None = None) -> ChanceTable:
    """A chance table holding the curves of the states that can follow ``state``'s turn, for needs up
    to ``cap`` (default: all): exact (the threshold programme on the states that can still follow)
    when at most :data:`EXACT_OPEN` boxes stay open, else fitted to the moments. Enough for every
    decision of that turn."""
    from fivedice.solver import chancekernel as CK
    from fivedice.solver import momentkernel as MK

    thread, key = threading.get_ident(), (solver.rules, state, half, -1 if cap is None else max(0, cap))
    found = _LAST.get(thread)
    if found is not None and found[0] == key:
        return found[1]
    start = time.perf_counter()
    t = solver.table.tables
    nxt = MK.successors(t.ints, state)
    mask = state // (t.units * t.ybits)
    left = t.nboxes - int(mask).bit_count() - 1
    goff = np.zeros(t.nstates, dtype=np.int64)
    glen = np.zeros(t.nstates, dtype=np.int64)
    top = np.iinfo(np.int64).max if cap is None else max(0, cap)
    if len(nxt) == 0:  # the last turn: every score fills the card
        G, most, source = np.zeros(1, dtype=np.float32), np.zeros(1, dtype=np.int64), "exact"
    elif left <= EXACT_OPEN:
        states = MK.subtree(t.ints, nxt, t.nstates)
        most = np.minimum(CK.max_future(t.ints, states), top)
        glen[states] = most + 1
        goff[states] = np.concatenate(([0], np.cumsum(most + 1)[:-1]))
        G = np.zeros(int((most + 1).sum()), dtype=np.float32)
        CK.threshold_states(t.ints, G, goff, glen, states, 0, len(states), half, int(most.max()) + 1)
        source = "exact"
    else:
        most = np.minimum(CK.max_future(t.ints, nxt), top)
        glen[nxt] = most + 1
        goff[nxt] = np.concatenate(([0], np.cumsum(most + 1)[:-1]))
        G = np.zeros(int((most + 1).sum()), dtype=np.float32)
        shipped = _curves.curves(solver)
        if shipped is not None:
            _curves.fill_rows(shipped, nxt, most, G, goff, half)
        else:
            found_m = moments(solver)
            MK.approx_rows(nxt, found_m.at, found_m.mean, found_m.sd, found_m.skew, most, G, goff, half)
        source = "fast"
    table = ChanceTable(solver, int(most.max()), half, G, goff, glen, time.perf_counter() - start, source, None)
    if len(_LAST) >= THREADS_KEPT and thread not in _LAST:
        _LAST.clear()
    _LAST[thread] = (key, table)
    return table


def _curve(solver: Solver, state: int, half: float) -> tuple[fp.Curve, str]:
    """The numpy path's curves of the states after ``state``'s turn (see :func:`situation_table`)."""
    t = solver.table.tables
    nxt = fp.successors(t, state)
    left = t.nboxes - int(state // (t.units * t.ybits)).bit_count() - 1
    if left <= EXACT_OPEN:
        curves = fp.threshold_curves(t, fp.subtree(t, nxt), half)

        def exact(s2: int, u: npt.NDArray[np.int64]) -> FloatArray:
            row = curves[s2]
            return np.where(u < len(row), row[np.minimum(u, len(row) - 1)], 0.0)

        return exact, "exact"
    shipped = _curves.curves(solver)
    if shipped is not None:
        found_c = shipped

        def read(s2: int, u: npt.NDArray[np.int64]) -> FloatArray:
            out = _curves.curve_values(found_c.knots(s2), u.astype(np.float64) + (1.0 - half))
            if half == 1.0:
                out[u == 0] = 1.0
            result: FloatArray = np.where(u > fp.max_future(t, s2), 0.0, out)
            return result

        return read, "fast"
    found = moments(solver)

    def fitted(s2: int, u: npt.NDArray[np.int64]) -> FloatArray:
        c = int(found.at[s2])
        best = np.zeros(u.shape)
        for k in range(len(found.mean)):
            m, d, g = float(found.mean[k, c]), float(found.sd[k, c]), float(found.skew[k, c])
            np.maximum(best, 1.0 - fp.below((u + 0.5 - half).astype(np.float64), m, d, g), out=best)
        if half == 1.0:
            best[u == 0] = 1.0
        out: FloatArray = np.where(u > fp.max_future(t, s2), 0.0, best)
        return out

    return fitted, "fast"


def _plain_ranked(solver: Solver, state: int, d: int, k: int, pre: FloatArray, pre5: FloatArray) -> list[Option]:
    """The options of roll ``d`` with ``k`` rolls left valued by ``pre``/``pre5`` (numpy), best first."""
    t = solver.table.tables
    y = state % t.ybits
    mask = state // (t.ybits * t.units)
    rt = t.roll_type(t.rules.rolls - k)
    box_pts = plain.box_points(t, mask, y, d, rt)
    src = pre5 if plain.bonus_due(t, y, d) else pre
    names = solver.rules.box_names
    ranked: list[tuple[float, int, int, int]] = [
        (-float(src[b, int(p)]), 0, b, int(p)) for b, p in enumerate(box_pts.tolist()) if p >= 0
    ]
    if k > 0:
        X, _W = plain.programme(t, fp.score_rows(t, state, pre[:, :, None], pre5[:, :, None]), k)
        for i in t.subsets[d][t.subsets[d] >= 0].tolist():
            ranked.append((-float(X[i, 0]), 1, int(i), 0))
    ranked.sort(key=lambda r: (r[0], r[1], r[2]) if r[1] == 0 else (r[0], r[1], 0))
    top = -ranked[0][0]
    bonus = solver._ybonus if solver._five[d] >= 0 and state % 2 == 1 else 0
    out = []
    for neg, kind, i, p in ranked:
        if kind:
            out.append(Option("keep", -neg, top + neg, solver.keep_dice(i)))
        else:
            out.append(Option("score", -neg, top + neg, (), names[i], p, bonus))
    return out


def fast_options(
    solver: Solver, card: Scorecard, dice: Dice | Sequence[int], rolls_left: int, target: int
) -> list[Option]:
    """Every option with its chance of finishing with at least ``target`` points, best first (as
    :func:`fivedice.solver.chances.chance_options`, from :func:`situation_table`)."""
    state, d, k = solver._situation(card, dice, rolls_left)
    need = target - card.total
    if not solver.jit:
        curve, _source = _curve(solver, state, 1.0)
        pre, pre5 = fp.pre_values(solver.table.tables, state, np.array([need], dtype=np.int64), curve, 1.0)
        return _plain_ranked(solver, state, d, k, pre[:, :, 0], pre5[:, :, 0])
    return _ranked(situation_table(solver, state, 1.0, need), state, d, k, need)


def fast_mixture_options(
    solver: Solver, card: Scorecard, dice: Dice | Sequence[int], rolls_left: int, rival: Distribution
) -> list[Option]:
    """Every option with its chance of finishing above a rival whose final score is distributed as
    ``rival`` (as :func:`fivedice.solver.chances.mixture_options`, from :func:`situation_table`)."""
    state, d, k = solver._situation(card, dice, rolls_left)
    t = solver.table.tables
    lo = int(rival.scores[0])
    q = np.zeros(int(rival.scores[-1]) - lo + 1)
    q[rival.scores - lo] = rival.probs
    if not solver.jit:
        curve, _source = _curve(solver, state, 0.5)
        shifts = lo + np.arange(len(q), dtype=np.int64) - card.total
        many, many5 = fp.pre_values(t, state, shifts, curve, 0.5)
        return _plain_ranked(solver, state, d, k, many @ q, many5 @ q)
    from fivedice.solver import chancekernel as CK  # numba: the players' path only

    table = situation_table(solver, state, 0.5, int(rival.scores[-1]) - card.total)
    pre = np.zeros((t.nboxes, int(t.ints[33])))
    pre5 = np.zeros_like(pre)
    CK.mixture_pre(t.ints, table.G, table.goff, table.glen, state, card.total, lo, q, 0.5, pre, pre5)
    return _ranked_pre(table, state, d, k, pre, pre5)
