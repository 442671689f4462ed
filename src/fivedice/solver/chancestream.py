"""Chance tables built and stored one layer at a time, so that a table of hundreds of MB is never
held whole while it is built, written or read for a few rows (issue 27: ``solve --target 300`` in
bounded memory).

A state's row only reads the rows of the states one box fuller (scoring fills exactly one box), so
a build keeps one layer in memory: layer ``n + 1`` (filled boxes) is read while layer ``n`` is solved
a chunk of states at a time into a temporary file; then layer ``n + 1`` is freed, layer ``n`` read
back and handed to a *sink* (copied into a whole table, or compressed into the file).

The layout (:func:`plan`) puts the rows in that order, fullest cards first, so each layer is one
slice of a whole table and of the file. The file's payload is one zlib stream of the layers in
order, each as its four byte planes (the planes of a float compress far better than the floats).
A reader (:func:`read_rows`) decompresses it in chunks straight into the rows it wants.
"""

from __future__ import annotations

import bisect
import contextlib
import errno
import hashlib
import io
import os
import tempfile
import threading
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from fivedice.rules import RuleSet
from fivedice.solver.advisor import Solver
from fivedice.solver.cache import Progress, _layers, run_layers

__all__ = ["DamagedStreamError", "Plan", "plan", "read_rows", "stream_build"]

IntArray = npt.NDArray[np.int64]
Sink = Callable[[int, npt.NDArray[np.float32]], None]
"""``sink(layer, values)``: the values of one finished layer (a view, valid only during the call)."""
CHUNK = 1 << 20


class DamagedStreamError(ValueError):
    """A stored table's stream does not decompress, ends early or has bytes to spare (the caller builds the
    table again: never shown to a player)."""


@dataclass(frozen=True, slots=True)
class Plan:
    """Where each state's row lies: ``states`` fullest first, layer ``i`` being
    ``states[starts[i]:starts[i + 1]]`` and values ``vstarts[i]:vstarts[i + 1]``; ``most[i]`` the most
    points still possible from ``states[i]`` (uncapped: its row is cut where it exceeds the cap)."""

    states: IntArray
    starts: IntArray
    goff: IntArray
    glen: IntArray
    vstarts: IntArray
    most: IntArray

    @property
    def total(self) -> int:
        """Values in the whole table."""
        return int(self.vstarts[-1])


_PLANS: dict[tuple[RuleSet, int], tuple[Solver, Plan]] = {}
_PLANS_LOCK = threading.Lock()
KEEP_PLANS = 4
"""Layouts kept per process (the latest used): a build, a load and a look at a file's header each want one."""


def plan(solver: Solver, cap: int) -> Plan:
    """The row layout of ``solver``'s chance table for needs up to ``cap`` (kept per solver and ``cap``:
    the caller must not change its arrays)."""
    key = (solver.rules, cap)
    found = _PLANS.get(key)
    if found is not None and found[0] is solver:
        return found[1]
    made = _plan(solver, cap)
    with _PLANS_LOCK:
        _PLANS.pop(key, None)
        while len(_PLANS) >= KEEP_PLANS:
            del _PLANS[next(iter(_PLANS))]
        _PLANS[key] = (solver, made)
    return made


def _plan(solver: Solver, cap: int) -> Plan:
    from fivedice.solver import chancekernel as CK

    t = solver.table.tables
    states, starts = _layers(t, solver.table.reach)
    most = CK.max_future(t.ints, states)
    lens = np.minimum(most, cap) + 1
    glen = np.zeros(t.nstates, dtype=np.int64)
    goff = np.zeros(t.nstates, dtype=np.int64)
    ends = np.cumsum(lens)
    glen[states] = lens
    goff[states] = ends - lens
    vstarts = np.concatenate(([0], ends[starts[1:] - 1])).astype(np.int64) if len(states) else np.zeros(1, np.int64)
    return Plan(states, starts, goff, glen, vstarts, most)


def stream_build(solver: Solver, cap: int, half: float, sink: Sink, threads: int | None = None,
                 progress: Progress | None = None, layout: Plan | None = None, *,
                 whole: npt.NDArray[np.float32] | None = None, spill: Path | None = None) -> Plan:  # fmt: skip
    """Solve the chance table layer by layer, handing each to ``sink`` (``layout``: the caller's
    :func:`plan` of it). Into ``whole`` (the whole table) if given; else a layer is solved from the one
    before it alone, its rows going to a temporary file in the folder ``spill`` (default: the system's)
    as they are done and read back once the layer before is freed: one layer in memory, the largest a
    quarter of the table (two, if no file can be made). Raises OSError if the file cannot be written."""
    from fivedice.solver import chancekernel as CK

    t = solver.table.tables
    p = plan(solver, cap) if layout is None else layout
    total = max(1, p.total)
    prev = np.zeros(0, dtype=np.float32)  # the layer before (none before the fullest cards)
    prev_base = 0
    lock = threading.Lock()
    finished = [0]

    def advance(v0: int, v1: int) -> None:
        # the bar moves a chunk at a time (from the workers): a large layer takes minutes
        if progress is not None:
            with lock:
                finished[0] += v1 - v0
                progress(finished[0] / total)

    def span(a: int, b: int) -> tuple[int, int]:
        # the values of states[a:b]: one run, their rows lying one after the other
        return int(p.goff[p.states[a]]), int(p.goff[p.states[b - 1]] + p.glen[p.states[b - 1]])

    with _Spill(spill, whole is None) as rows:
        for i in range(len(p.starts) - 1):
            base, size = int(p.vstarts[i]), int(p.vstarts[i + 1] - p.vstarts[i])
            layer = p.starts[i : i + 2]
            if whole is not None:

                def in_place(a: int, b: int) -> None:
                    CK.threshold_rows(t.ints, whole, 0, whole, 0, p.goff, p.glen, p.states, a, b, half, cap + 1)
                    advance(*span(a, b))

                run_layers(p.states, layer, in_place, 16, threads)
                sink(i, whole[base : base + size])
            else:
                rows.start(size)

                def solve(a: int, b: int, src: npt.NDArray[np.float32] = prev, src_base: int = prev_base,
                          base: int = base) -> None:  # fmt: skip
                    v0, v1 = span(a, b)  # solved into a buffer of their own, then stored
                    out = np.empty(v1 - v0, dtype=np.float32)
                    CK.threshold_rows(t.ints, src, src_base, out, v0, p.goff, p.glen, p.states, a, b, half, cap + 1)
                    rows.put(v0 - base, out)
                    advance(v0, v1)

                run_layers(p.states, layer, solve, 16, threads)
                del solve, prev  # the layer before is freed before this one is read back
                prev, prev_base = rows.take(size), base
                sink(i, prev)
    return p


class _Spill:
    """Where a layer's rows go while it is solved: a temporary file (read back whole once done), or
    memory when no file is wanted or none can be made."""

    def __init__(self, folder: Path | None, wanted: bool) -> None:
        self.file: io.BufferedRandom | None = None
        self.memory: npt.NDArray[np.float32] | None = None
        self.lock = threading.Lock()
        if wanted:
            with contextlib.suppress(OSError):
                self.file = tempfile.TemporaryFile(dir=folder)  # noqa: SIM115 - closed by __exit__

    def __enter__(self) -> _Spill:
        return self

    def __exit__(self, *_exc: object) -> None:
        if self.file is not None:
            self.file.close()

    def start(self, size: int) -> None:
        """Make room for a layer of ``size`` values (in memory only without a file)."""
        if self.file is None:
            self.memory = np.empty(size, dtype=np.float32)

    def put(self, at: int, values: npt.NDArray[np.float32]) -> None:
        """Store ``values`` from value ``at`` of the layer (from any thread). Raises OSError."""
        if self.file is None:
            assert self.memory is not None
            self.memory[at : at + len(values)] = values
            return
        data = values.view(np.uint8).data
        with self.lock:
            self.file.seek(4 * at)
            self.file.write(data)

    def take(self, size: int) -> npt.NDArray[np.float32]:
        """The layer's ``size`` values. Raises OSError if the file gives fewer."""
        if self.file is None:
            assert self.memory is not None
            out, self.memory = self.memory, None
            return out
        out = np.empty(size, dtype=np.float32)
        self.file.seek(0)
        if self.file.readinto(out.view(np.uint8).data) != 4 * size:
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        return out


class StreamWriter:
    """A sink compressing each layer into a payload file beside ``path``."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.tmp = path.with_name(f".{path.name}.{os.getpid()}.payload.tmp")
        self.file = self.tmp.open("wb")
        self.packer = zlib.compressobj(1)
        self.digest = hashlib.sha256()

    def _put(self, data: bytes) -> None:
        if data:
            self.digest.update(data)
            self.file.write(data)

    def __call__(self, _layer: int, values: npt.NDArray[np.float32]) -> None:
        planes = values.astype("<f4", copy=False).view(np.uint8).reshape(-1, 4)
        for k in range(4):  # a plane a slice at a time: no copy of a whole plane of a large layer
            for a in range(0, len(planes), CHUNK):
                self._put(self.packer.compress(np.ascontiguousarray(planes[a : a + CHUNK, k]).data))

    def finish(self, path: Path, head: Callable[[str], bytes]) -> None:
        """Write ``head(payload sha256)`` then the payload to ``path`` atomically. Raises OSError."""
        self._put(self.packer.flush())
        self.file.close()
        out = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        try:
            with out.open("wb") as f, self.tmp.open("rb") as src:
                f.write(head(self.digest.hexdigest()))
                while chunk := src.read(CHUNK):
                    f.write(chunk)
            os.replace(out, path)
        finally:
            self.tmp.unlink(missing_ok=True)
            out.unlink(missing_ok=True)

    def abandon(self) -> None:
        """Close and remove the payload file (a build that failed)."""
        self.file.close()
        self.tmp.unlink(missing_ok=True)


def _chunks(payload: Iterator[bytes]) -> Iterator[bytes]:
    """The decompressed payload in chunks of at most 16 MB; raises ValueError if it is damaged or
    does not end where the stream does."""
    unpacker = zlib.decompressobj()
    try:
        for part in payload:
            tail = part
            while tail:
                yield unpacker.decompress(tail, 1 << 24)
                tail = unpacker.unconsumed_tail
        while out := unpacker.flush():
            yield out
    except zlib.error as exc:
        raise DamagedStreamError from exc
    if not unpacker.eof or unpacker.unused_data:
        raise DamagedStreamError  # it ends early or has bytes to spare


def read_rows(p: Plan, payload: Iterator[bytes], states: IntArray | None = None
              ) -> tuple[npt.NDArray[np.float32], IntArray, IntArray] | None:  # fmt: skip
    """The rows of ``states`` (default: every row, the whole table) read from a payload given in
    parts: ``(G, goff, glen)`` where only those states have rows (the others ``glen`` 0), or None if
    the payload is damaged or not of this layout."""
    if states is None:
        G = np.empty(p.total, dtype="<f4")
        goff, glen = p.goff, p.glen
        segments = []
        for i in range(len(p.vstarts) - 1):
            v0, v1 = int(p.vstarts[i]), int(p.vstarts[i + 1])
            planes = G[v0:v1].view(np.uint8).reshape(-1, 4)
            segments += [(4 * v0 + k * (v1 - v0), planes[:, k]) for k in range(4)]
    else:
        want = np.unique(states[p.glen[states] > 0])
        glen = np.zeros_like(p.glen)
        glen[want] = p.glen[want]
        goff = np.zeros_like(p.goff)
        goff[want] = np.cumsum(glen[want]) - glen[want]
        G = np.empty(int(glen[want].sum()), dtype="<f4")
        planes = G.view(np.uint8).reshape(-1, 4)
        layer = np.searchsorted(p.vstarts, p.goff[want], side="right") - 1
        segments = []
        for s, i in zip(want.tolist(), layer.tolist(), strict=True):
            v0, n = int(p.vstarts[i]), int(p.vstarts[i + 1] - p.vstarts[i])
            at, ln, o = int(p.goff[s]) - v0, int(glen[s]), int(goff[s])
            segments += [(4 * v0 + k * n + at, planes[o : o + ln, k]) for k in range(4)]
        segments.sort(key=lambda seg: seg[0])
    starts = [a for a, _d in segments]
    size = 4 * p.total
    pos = 0
    try:
        for chunk in _chunks(payload):
            end = pos + len(chunk)
            if end > size:
                return None
            data = np.frombuffer(chunk, dtype=np.uint8)
            j = max(0, bisect.bisect_right(starts, pos) - 1)
            while j < len(segments) and starts[j] < end:
                a, dest = segments[j]
                lo, hi = max(a, pos), min(a + len(dest), end)
                if lo < hi:
                    dest[lo - a : hi - a] = data[lo - pos : hi - pos]
                j += 1
            pos = end
    except ValueError:
        return None
    if pos != size:
        return None
    return G.view(np.float32), goff, glen
