"""Chance tables built and stored one layer at a time, so that a table of hundreds of MB is never
held whole while it is built, written or read for a few rows (issue 27: ``solve --target 300`` in
bounded memory).

A state's row only reads the rows of the states one box fuller (scoring fills exactly one box), so
a build keeps two layers: layer ``n`` (filled boxes) is solved into one of two regions of a buffer
while layer ``n + 1`` is in the other, then handed to a *sink* (copied into a whole table, or
compressed into the file) before layer ``n + 2`` overwrites its region.

The layout (:func:`plan`) puts the rows in that order, fullest cards first, so each layer is one
slice of a whole table and of the file. The file's payload is one zlib stream of the layers in
order, each as its four byte planes (the planes of a float compress far better than the floats).
A reader (:func:`read_rows`) decompresses it in chunks straight into the rows it wants.
"""

from __future__ import annotations

import bisect
import hashlib
import os
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from fivedice.solver.advisor import Solver
from fivedice.solver.cache import Progress, _layers, run_layers

__all__ = ["DamagedStreamError", "Plan", "plan", "read_rows", "stream_build", "write_stream"]

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


def plan(solver: Solver, cap: int) -> Plan:
    """The row layout of ``solver``'s chance table for needs up to ``cap``."""
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
                 progress: Progress | None = None, layout: Plan | None = None) -> Plan:  # fmt: skip
    """Solve the chance table layer by layer in two layers' memory, handing each to ``sink`` (``layout``:
    the caller's :func:`plan` of it, not worked out again)."""
    from fivedice.solver import chancekernel as CK

    t = solver.table.tables
    p = plan(solver, cap) if layout is None else layout
    sizes = np.diff(p.vstarts)
    region = [int(sizes[0::2].max(initial=0)), int(sizes[1::2].max(initial=0))]
    bgoff = np.zeros(t.nstates, dtype=np.int64)
    for i in range(len(sizes)):
        layer = p.states[p.starts[i] : p.starts[i + 1]]
        bgoff[layer] = p.goff[layer] - p.vstarts[i] + (region[0] if i % 2 else 0)
    B = np.zeros(region[0] + region[1], dtype=np.float32)
    total = max(1, p.total)
    for i in range(len(sizes)):
        lo, hi = int(p.starts[i]), int(p.starts[i + 1])
        run_layers(
            p.states,
            np.array([lo, hi], dtype=np.int64),
            lambda a, b: CK.threshold_states(t.ints, B, bgoff, p.glen, p.states, a, b, half, cap + 1),
            16,
            threads,
        )
        base = region[0] if i % 2 else 0
        sink(i, B[base : base + int(sizes[i])])
        if progress is not None:
            progress(float(p.vstarts[i + 1]) / total)
    return p


class StreamWriter:
    """A sink compressing each layer into a payload file beside ``path`` (see :func:`write_stream`)."""

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
        for k in range(4):
            self._put(self.packer.compress(np.ascontiguousarray(planes[:, k]).data))

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


def write_stream(G: npt.NDArray[np.float32], p: Plan, path: Path, head: Callable[[str], bytes]) -> None:
    """Write a whole table ``G`` (laid out by ``p``) as :class:`StreamWriter` would. Raises OSError."""
    writer = StreamWriter(path)
    try:
        for i in range(len(p.vstarts) - 1):
            writer(i, G[p.vstarts[i] : p.vstarts[i + 1]])
        writer.finish(path, head)
    except BaseException:
        writer.abandon()
        raise


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
