"""Chances, not only averages: the exact final-score distribution of optimal play, and tables for
threshold play (the best chance of finishing with at least ``T`` points) and for beating a known score.

:func:`distribution` runs a forward pass of probability mass from any turn-start card, one layer
(filled-box count) at a time, with the expectation solver's own policy and tie rules; only two
layers are held at once, and each state keeps only the window of point sums it can have.

:func:`chance_table` builds (or loads from the cache) a :class:`ChanceTable`: for every reachable
turn-start state ``s`` and every ``t`` from 0 to ``min(cap, most points still possible)``, the best
chance that the points still to come exceed ``t`` (a tie, ``== t``, counting ``half``). ``half = 1``
is threshold play (reach at least ``t``); ``half = 0.5`` is play to beat a finished opponent. The
programme is the expectation solver's, vectorised over ``t`` in numba; values are stored as
``float32`` (7 significant digits). Tables are cached per rule set, ``cap`` and ``half`` beside the
expectation tables (never shipped: they are built in a minute or a few).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
import numpy.typing as npt

from fivedice.dice import Dice
from fivedice.engine.scorecard import Scorecard
from fivedice.errors import FiveDiceError
from fivedice.i18n import _
from fivedice.rules import RuleSet
from fivedice.solver.advisor import Option, Solver
from fivedice.solver.cache import Progress, cache_dir, code_digest, file_stem, rules_digest, write_atomic
from fivedice.solver.chancestream import StreamWriter, plan, read_rows, stream_build

__all__ = [
    "STEP", "ChanceTable", "Distribution", "TargetError", "chance_options", "chance_table",
    "check_target", "distribution", "is_cached", "is_ready", "mixture_options", "rows_table", "table_bytes",
    "table_for", "target_cap",
]  # fmt: skip

CHANCE_FORMAT = 2
KEEP = 3
"""Chance tables kept in memory per process (the latest used)."""
MAGIC = b"FIVEDICE-CHANCE-TABLE\n"
STEP = 50
"""A table built for a target covers needs up to the next multiple of this, so that nearby targets
(a personal best that grows) share it: the chances for ``need <= cap`` do not depend on ``cap``."""
FloatArray = npt.NDArray[np.float64]


class TargetError(FiveDiceError):
    """A target score that is not a whole number of at least 0."""


def check_target(target: object) -> int:
    """``target`` as an int, or :class:`TargetError` in one sentence."""
    if isinstance(target, bool) or not isinstance(target, int | np.integer) or int(target) < 0:
        raise TargetError(
            _("Target {target!r} is not valid; expected a whole number of points, 0 or more.", target=target)
        )
    return int(target)


@dataclass(frozen=True, slots=True, eq=False)
class Distribution:
    """The distribution of a final score: ``probs[i]`` is the chance of ``scores[i]`` (ascending)."""

    scores: npt.NDArray[np.int64]
    probs: FloatArray

    @property
    def mean(self) -> float:
        """The expected final score."""
        return float(self.scores @ self.probs)

    @property
    def std(self) -> float:
        """The standard deviation of the final score."""
        return float(math.sqrt(max(0.0, float((self.scores.astype(np.float64) - self.mean) ** 2 @ self.probs))))

    def at_least(self, target: int) -> float:
        """The chance of finishing with at least ``target`` points."""
        return float(self.probs[self.scores >= target].sum())

    def quantile(self, q: float) -> int:
        """The smallest score whose cumulative chance reaches ``q``."""
        cdf = np.cumsum(self.probs)
        return int(self.scores[min(len(cdf) - 1, int(np.searchsorted(cdf, q - 1e-12)))])

    def to_dict(self) -> dict[str, float]:
        """Final score (as a string key, JSON-ready) -> probability."""
        return {str(int(s)): float(p) for s, p in zip(self.scores, self.probs, strict=True)}


def distribution(solver: Solver, card: Scorecard | None = None, cache: bool = True) -> Distribution:
    """The exact distribution of the final score when ``card`` (default: empty) is played on
    optimally (maximum expected score) from the start of a turn. The one from the empty card (the
    longest, 16 s for Yahtzee) is kept in the user cache (a few KB) unless ``cache`` is False."""
    empty = Scorecard.empty(solver.rules)
    card = empty if card is None else card
    if card.is_full:
        return Distribution(np.array([card.total], dtype=np.int64), np.array([1.0]))
    if not cache or card != empty:
        return _forward(solver, card)
    path = cache_dir() / f"{file_stem(solver.rules)}.start.v{CHANCE_FORMAT}.distribution.json"
    found = _load_start(solver, path)
    if found is None:
        found = _forward(solver, card)
        _save_start(solver, found, path)
    return found


def _start_header(solver: Solver) -> dict[str, Any]:
    return {"format": CHANCE_FORMAT, "rules_sha256": rules_digest(solver.rules), "code_sha256": code_digest()}


def _load_start(solver: Solver, path: Path) -> Distribution | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or data.get("header") != _start_header(solver):
            return None
        scores = np.array(data["scores"], dtype=np.int64)
        probs = np.array(data["probs"], dtype=np.float64)
    except (OSError, ValueError, KeyError, TypeError):
        return None
    if scores.ndim != 1 or scores.shape != probs.shape or not len(scores) or abs(probs.sum() - 1.0) > 1e-9:
        return None
    return Distribution(scores, probs)


def _save_start(solver: Solver, dist: Distribution, path: Path) -> None:
    data = {"header": _start_header(solver), "scores": dist.scores.tolist(), "probs": dist.probs.tolist()}
    with contextlib.suppress(OSError):  # a cache that cannot be written only costs the next caller the pass again
        write_atomic(path, [json.dumps(data).encode()])


def _forward(solver: Solver, card: Scorecard) -> Distribution:
    """The forward pass of :func:`distribution`."""
    from fivedice.solver import distkernel as DK

    t = solver.table.tables
    s0 = solver.state_index(card)
    states = np.array([s0], dtype=np.int64)
    lo = np.zeros(1, dtype=np.int64)
    ln = np.ones(1, dtype=np.int64)
    po = np.zeros(1, dtype=np.int64)
    mass = np.ones(1)
    slot = np.full(t.nstates, -1, dtype=np.int64)
    for _step in range(len(card.open_indices)):
        states, lo, ln, po, mass = DK.spread_layer(t.ints, solver.table.values, states, lo, ln, po, mass, slot)
    top = int((lo + ln).max())
    out = np.zeros(top)
    for i in range(len(states)):
        out[lo[i] : lo[i] + ln[i]] += mass[po[i] : po[i] + ln[i]]
    keep = np.flatnonzero(out > 0)
    return Distribution(keep.astype(np.int64) + card.total, out[keep])


# -- threshold tables ----------------------------------------------------------------------------
@dataclass(frozen=True, slots=True, eq=False)
class ChanceTable:
    """Best chances of the points still to come exceeding ``t`` (see the module docstring)."""

    solver: Solver
    cap: int
    half: float
    G: npt.NDArray[np.float32]
    goff: npt.NDArray[np.int64]
    glen: npt.NDArray[np.int64]
    seconds: float
    source: str
    path: Path | None

    @property
    def size_bytes(self) -> int:
        """Bytes of the stored chances."""
        return int(self.G.nbytes)

    def chance(self, card: Scorecard, need: int) -> float:
        """The best chance from the start of a turn on ``card`` of more than ``need`` further points
        (``half`` for exactly ``need``); ``need`` must not exceed :attr:`cap`."""
        if need < 0:
            return 1.0
        if card.is_full:
            return self.half if need == 0 else 0.0
        if need > self.cap:
            raise TargetError(_("Target {target!r} is beyond this table's {cap}.", target=need, cap=self.cap))
        s = self.solver.state_index(card)
        return float(self.G[self.goff[s] + need]) if need < self.glen[s] else 0.0

    def pre(self, state: int, need: int) -> tuple[FloatArray, FloatArray]:
        """Per box and points, the chance after scoring them with ``need`` points still needed (and
        the same when an extra-Yahtzee bonus comes with the score), for :meth:`options`."""
        from fivedice.solver import chancekernel as CK

        t = self.solver.table.tables
        pre = np.zeros((t.nboxes, int(t.ints[33])))
        pre5 = np.zeros_like(pre)
        CK.target_pre(t.ints, self.G, self.goff, self.glen, state, need, self.half, pre, pre5)
        return pre, pre5


def _name_parts(rules: RuleSet, half: float) -> tuple[str, str]:
    """A table file's name before and after its cap."""
    kind = "target" if half == 1.0 else "beat"
    return f"{file_stem(rules)}.{kind}", f".v{CHANCE_FORMAT}.chances"


def _file_name(rules: RuleSet, cap: int, half: float) -> str:
    head, tail = _name_parts(rules, half)
    return f"{head}{cap}{tail}"


def build_chances(solver: Solver, cap: int, half: float = 1.0, threads: int | None = None,
                  progress: Progress | None = None, path: Path | None = None,
                  rows: npt.NDArray[np.int64] | None = None) -> ChanceTable:  # fmt: skip
    """Build the chance table of ``solver``'s rule set for needs up to ``cap`` (no cache), one layer at
    a time; with ``path``, each layer is written there as it is done (one layer in memory, not the
    table) and the table (only the rows of the states ``rows`` if given) is then read back from the
    file. Raises OSError if it cannot be written."""
    start = time.perf_counter()
    if path is None:
        p = plan(solver, cap)
        G = np.zeros(p.total, dtype=np.float32)
        stream_build(solver, cap, half, lambda _layer, _values: None, threads, progress, p, whole=G)
        return ChanceTable(solver, cap, half, G, p.goff, p.glen, time.perf_counter() - start, "built", None)
    writer = StreamWriter(path)
    try:
        p = stream_build(solver, cap, half, writer, threads, progress, spill=path.parent)
        writer.finish(path, lambda sha: _head(solver, cap, half, p.total, sha))
    except BaseException:
        writer.abandon()
        raise
    table = _load(solver, cap, half, path, rows)
    if table is None:
        raise OSError(_("The chance table just written to {path} does not read back.", path=path))
    return replace(table, seconds=time.perf_counter() - start, source="built")


def _header(solver: Solver, cap: int, half: float, total: int, payload_sha256: str) -> dict[str, Any]:
    rules = solver.rules
    return {
        "format": CHANCE_FORMAT, "rules": rules.name, "options": dict(rules.options),
        "rules_sha256": rules_digest(rules), "code_sha256": code_digest(), "cap": cap, "half": half,
        "values": total, "payload_sha256": payload_sha256,
    }  # fmt: skip


def _head(solver: Solver, cap: int, half: float, total: int, payload_sha256: str) -> bytes:
    line = json.dumps(_header(solver, cap, half, total, payload_sha256), sort_keys=True).encode()
    return MAGIC + line + b"\n"


def _load(solver: Solver, cap: int, half: float, path: Path, states: npt.NDArray[np.int64] | None = None
          ) -> ChanceTable | None:  # fmt: skip
    """The table stored at ``path`` if intact and for these rules, code, ``cap`` and ``half``; only the
    rows of ``states`` (the others read as 0) when given: a few rows of a large table in little memory."""
    start = time.perf_counter()
    try:
        with path.open("rb") as f:
            header = _read_header(f, solver, cap, half)
            if header is None:
                return None
            p = plan(solver, cap)
            digest = hashlib.sha256()

            def parts() -> Iterator[bytes]:
                while chunk := f.read(1 << 20):
                    digest.update(chunk)
                    yield chunk

            found = read_rows(p, parts(), states)
    except (OSError, ValueError):
        return None
    if found is None or digest.hexdigest() != header.get("payload_sha256"):
        return None
    G, goff, glen = found
    return ChanceTable(solver, cap, half, G, goff, glen, time.perf_counter() - start, "cache", path)


_TABLES: dict[tuple[RuleSet, int, float], ChanceTable] = {}
_LOCKS: dict[tuple[RuleSet, int, float], threading.Lock] = {}
_LOCKS_LOCK = threading.Lock()


def chance_table(solver: Solver, cap: int, half: float = 1.0, cache: bool = True,
                 progress: Progress | None = None) -> ChanceTable:  # fmt: skip
    """The chance table for needs up to ``cap`` (kept in memory per process; from the user cache
    if intact, else built and cached)."""
    cap = check_target(cap)
    key = (solver.rules, cap, half)
    found = _TABLES.get(key)
    if found is not None and found.solver is solver:
        return found
    with _LOCKS_LOCK:
        lock = _LOCKS.setdefault(key, threading.Lock())
    with lock:  # a second caller waits for the first one's build (a few hundred MB) instead of repeating it
        found = _TABLES.get(key)
        if found is not None and found.solver is solver:
            return found
        return _load_or_build(solver, cap, half, cache, progress)


def table_bytes(table: ChanceTable) -> int:
    """Bytes of the whole table that ``table`` is (or holds rows of), as :attr:`ChanceTable.size_bytes`
    of the whole one."""
    return 4 * plan(table.solver, table.cap).total


def rows_table(solver: Solver, cap: int, half: float, states: npt.NDArray[np.int64],
               progress: Progress | None = None) -> ChanceTable:  # fmt: skip
    """A chance table holding (at least) the rows of ``states``: the whole one if held in memory, else
    only those rows, read from the user cache, built into it first if missing (two layers in
    memory, not the table: ``fivedice solve --target`` and ``advise --exact`` in bounded memory)."""
    cap = check_target(cap)
    found = _TABLES.get((solver.rules, cap, half))
    if found is not None and found.solver is solver:
        return found
    path = cache_dir() / _file_name(solver.rules, cap, half)
    table = _load(solver, cap, half, path, states)
    if table is None:
        with _LOCKS_LOCK:
            lock = _LOCKS.setdefault((solver.rules, cap, half), threading.Lock())
        with lock:
            table = _load(solver, cap, half, path, states)
            if table is None:
                try:
                    table = build_chances(solver, cap, half, progress=progress, path=path, rows=states)
                except OSError:  # a cache that cannot be written: the whole table in memory
                    return chance_table(solver, cap, half, cache=False, progress=progress)
    return table


def _load_or_build(solver: Solver, cap: int, half: float, cache: bool, progress: Progress | None) -> ChanceTable:
    key = (solver.rules, cap, half)
    path = cache_dir() / _file_name(solver.rules, cap, half)
    table = _load(solver, cap, half, path) if cache else None
    if table is None and cache:
        with contextlib.suppress(OSError):  # a cache that cannot be written: built in memory below
            table = build_chances(solver, cap, half, progress=progress, path=path)
    if table is None:
        table = build_chances(solver, cap, half, progress=progress)
    while len(_TABLES) >= KEEP:  # they are large: keep the latest few
        del _TABLES[next(iter(_TABLES))]
    _TABLES[key] = table
    return table


def chance_options(
    table: ChanceTable, card: Scorecard, dice: Dice | Sequence[int], rolls_left: int, target: int
) -> list[Option]:
    """Every option of a situation with its best chance of finishing with at least ``target``
    points (``half`` tables: of beating ``target``), best first; ``loss`` is in chance."""
    solver = table.solver
    state, d, k = solver._situation(card, dice, rolls_left)
    return _ranked(table, state, d, k, target - card.total)


def _ranked(table: ChanceTable, state: int, d: int, k: int, need: int) -> list[Option]:
    pre, pre5 = table.pre(state, need)
    return _ranked_pre(table, state, d, k, pre, pre5)


def _ranked_pre(table: ChanceTable, state: int, d: int, k: int, pre: FloatArray, pre5: FloatArray) -> list[Option]:
    from fivedice.solver import chancekernel as CK

    solver = table.solver
    t = solver.table.tables
    width = t.subsets.shape[1] + t.nboxes
    fout = np.empty(width)
    iout = np.empty(width, dtype=np.int32)
    n, _code = CK.advise_custom(t.ints, state, d, k, pre, pre5, fout, iout)
    sw = t.subsets.shape[1]
    names = solver.rules.box_names
    ranked = [(-float(fout[sw + b]), 0, b) for b in range(t.nboxes) if iout[sw + b] >= 0]
    ranked += [(-float(fout[j]), 1, j) for j in range(n)]
    ranked.sort()
    top = -ranked[0][0]
    bonus = solver._ybonus if solver._five[d] >= 0 and state % 2 == 1 else 0
    out = []
    for neg, kind, i in ranked:
        if kind:
            out.append(Option("keep", -neg, top + neg, solver.keep_dice(int(iout[i]))))
        else:
            out.append(Option("score", -neg, top + neg, (), names[i], int(iout[sw + i]), bonus))
    return out


def _memory_caps(solver: Solver, half: float) -> list[int]:
    """The caps of ``solver``'s chance tables with this ``half`` held in memory."""
    return sorted(cap for (rules, cap, h) in _TABLES if rules == solver.rules and h == half)


def _disk_caps(solver: Solver, half: float) -> list[int]:
    """The caps of ``solver``'s chance tables with this ``half`` in the user cache (one listing of it)."""
    head, tail = _name_parts(solver.rules, half)
    try:
        names = os.listdir(cache_dir())
    except OSError:
        names = []
    middles = (name[len(head) : -len(tail)] for name in names if name.startswith(head) and name.endswith(tail))
    return sorted(int(m) for m in middles if m.isdigit())


def target_cap(solver: Solver, target: int, half: float = 1.0) -> int:
    """The cap of the table that serves ``target``: the smallest one in memory that covers it, else in
    the user cache (looked at only then: a hint on a table in memory reads no folder), else ``target``
    rounded up to a multiple of :data:`STEP` (a table to build)."""
    target = check_target(target)
    for caps in (_memory_caps, _disk_caps):
        fits = [cap for cap in caps(solver, half) if cap >= target]
        if fits:
            return fits[0]
    return max(STEP, -(-target // STEP) * STEP)


def table_for(solver: Solver, target: int, half: float = 1.0, progress: Progress | None = None) -> ChanceTable:
    """A chance table covering ``target`` (see :func:`target_cap`): loaded, or built and cached."""
    return chance_table(solver, target_cap(solver, target, half), half, progress=progress)


def is_cached(solver: Solver, cap: int, half: float = 1.0) -> bool:
    """Whether the chance table is in memory or in the user cache (no build needed)."""
    if (solver.rules, cap, half) in _TABLES:
        return True
    return (cache_dir() / _file_name(solver.rules, cap, half)).exists()


def is_ready(solver: Solver, cap: int, half: float = 1.0) -> bool:
    """Whether the chance table is in memory, or in the user cache with a header for these rules, scoring
    code, ``cap`` and ``half`` (so that loading it builds nothing unless its payload is damaged)."""
    if (solver.rules, cap, half) in _TABLES:
        return True
    try:
        with (cache_dir() / _file_name(solver.rules, cap, half)).open("rb") as f:
            return _read_header(f, solver, cap, half) is not None
    except OSError:
        return False


def _read_header(f: BinaryIO, solver: Solver, cap: int, half: float) -> dict[str, Any] | None:
    """The header at the start of the table file ``f`` if it is one for these rules, scoring code, ``cap``
    and ``half`` (``f`` is left at the payload), else None. Raises OSError."""
    if f.read(len(MAGIC)) != MAGIC:
        return None
    try:
        header = json.loads(f.readline())
    except ValueError:
        return None
    if not isinstance(header, dict):
        return None
    expected = _header(solver, cap, half, plan(solver, cap).total, "")
    if any(header.get(k) != v for k, v in expected.items() if k != "payload_sha256"):
        return None
    return header


def mixture_options(
    table: ChanceTable, card: Scorecard, dice: Dice | Sequence[int], rolls_left: int, rival: Distribution
) -> list[Option]:
    """Every option of a situation with its chance of finishing above a rival whose final score
    is distributed as ``rival`` (when that score is known before the next turn and the rest of the
    game is then played to beat it: exact for a known score), best first."""
    from fivedice.solver import chancekernel as CK

    solver = table.solver
    state, d, k = solver._situation(card, dice, rolls_left)
    t = solver.table.tables
    pre = np.zeros((t.nboxes, int(t.ints[33])))
    pre5 = np.zeros_like(pre)
    lo = int(rival.scores[0])
    q = np.zeros(int(rival.scores[-1]) - lo + 1)
    q[rival.scores - lo] = rival.probs
    CK.mixture_pre(t.ints, table.G, table.goff, table.glen, state, card.total, lo, q, table.half, pre, pre5)
    return _ranked_pre(table, state, d, k, pre, pre5)
