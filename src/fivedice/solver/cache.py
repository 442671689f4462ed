"""Build the state-value table of a rule set, and cache it on disk.

The cache file (one per rule set and options, under the user cache directory or
``$FIVEDICE_CACHE_DIR``) is a magic line, a JSON header line naming the rule set, its
options, a hash of its full definition, a hash of the scoring tables built from it (so a
change in the scoring code shows as well), the format version and a SHA-256 of the payload,
then the payload: the values of the reachable states in state order, byte-shuffled and
zlib-compressed. Anything that does not match is rebuilt, never trusted.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
import zlib
from dataclasses import dataclass
from pathlib import Path

import numba
import numpy as np
import numpy.typing as npt

from fivedice.rules import RuleSet
from fivedice.solver import kernel
from fivedice.solver.tables import Tables, build_tables

__all__ = ["FORMAT_VERSION", "Table", "build", "cache_dir", "cache_path", "load_or_build"]

FORMAT_VERSION = 1
"""Bump whenever the file layout or the meaning of the values changes."""
MAGIC = b"FIVEDICE-SOLVER-TABLE\n"
CHUNK = 64
"""States per parallel work item (any value gives the same table)."""


@dataclass(frozen=True, slots=True, eq=False)
class Table:
    """A rule set's tables and state values, and how they were obtained."""

    tables: Tables
    values: npt.NDArray[np.float64]
    """Dense state values (expected points still to come); 0 for unreachable states."""
    reach: npt.NDArray[np.bool_]
    source: str
    """``"built"`` or ``"cache"``."""
    seconds: float
    path: Path | None

    @property
    def states(self) -> int:
        """Number of reachable turn-start states."""
        return int(self.reach.sum())


def cache_dir() -> Path:
    """Where tables are cached: ``$FIVEDICE_CACHE_DIR`` or the user cache directory."""
    env = os.environ.get("FIVEDICE_CACHE_DIR")
    if env:
        return Path(env)
    import platformdirs

    return Path(platformdirs.user_cache_dir("fivedice")) / "solver"


def rules_digest(rules: RuleSet) -> str:
    """A hash of the rule set's full definition (any change to the rules changes it)."""
    text = json.dumps(rules.to_data(), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


def cache_path(rules: RuleSet) -> Path:
    """The cache file for ``rules``."""
    slug = "-".join([rules.name, *(f"{k}={v}" for k, v in rules.options)])
    return cache_dir() / f"{slug}-{rules_digest(rules)[:12]}.v{FORMAT_VERSION}.table"


def _layers(t: Tables, reach: npt.NDArray[np.bool_]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    idx = np.flatnonzero(reach).astype(np.int64)
    filled = np.bitwise_count(idx // (t.units * t.ybits)).astype(np.int64)
    keep = filled < t.nboxes
    idx, filled = idx[keep], filled[keep]
    order = np.argsort(-filled, kind="stable")
    states, filled = idx[order], filled[order]
    starts = np.concatenate([[0], np.flatnonzero(np.diff(filled)) + 1, [len(states)]]).astype(np.int64)
    return states, starts


def build(rules: RuleSet, threads: int | None = None) -> Table:
    """Solve ``rules`` now (no cache); ``threads`` limits numba's threads (same values either way)."""
    start = time.perf_counter()
    t = build_tables(rules)
    prm, arrays = t.params(), t.arrays()
    reach = kernel.reachable(prm, arrays)
    states, starts = _layers(t, reach)
    values = np.zeros(t.nstates)
    previous = numba.get_num_threads()
    if threads is not None:
        numba.set_num_threads(max(1, min(threads, numba.config.NUMBA_NUM_THREADS)))  # type: ignore[attr-defined]
    try:
        with kernel.PARALLEL:
            kernel.backward(states, starts, prm, arrays, t.prob, values, CHUNK)
    finally:
        numba.set_num_threads(previous)
    return Table(t, values, reach, "built", time.perf_counter() - start, None)


def tables_digest(t: Tables) -> str:
    """A hash of the scoring and legality tables (so a change in the rules' code shows too)."""
    h = hashlib.sha256()
    arrays: list[npt.NDArray[np.generic]] = [t.params(), *t.arrays(), t.prob]
    for array in arrays:
        h.update(str(array.shape).encode())
        h.update(np.ascontiguousarray(array).tobytes())
    return h.hexdigest()


def _header(rules: RuleSet, tables: str, payload: bytes, states: int) -> dict[str, object]:
    return {
        "format": FORMAT_VERSION,
        "rules": rules.name,
        "options": dict(rules.options),
        "rules_sha256": rules_digest(rules),
        "tables_sha256": tables,
        "states": states,
        "payload_sha256": hashlib.sha256(payload).hexdigest(),
    }


def _encode(values: npt.NDArray[np.float64]) -> bytes:
    shuffled = np.ascontiguousarray(values.astype("<f8").view(np.uint8).reshape(-1, 8).T)
    return zlib.compress(shuffled.tobytes(), 1)


def _decode(payload: bytes, states: int) -> npt.NDArray[np.float64]:
    raw = np.frombuffer(zlib.decompress(payload), dtype=np.uint8)
    if raw.size != states * 8:
        raise ValueError("payload size")
    return np.ascontiguousarray(raw.reshape(8, states).T).view("<f8").reshape(states).astype(np.float64)


def save(table: Table, path: Path) -> None:
    """Write ``table`` to ``path`` atomically."""
    rules = table.tables.rules
    payload = _encode(table.values[table.reach])
    header = _header(rules, tables_digest(table.tables), payload, table.states)
    line = json.dumps(header, sort_keys=True).encode() + b"\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_bytes(MAGIC + line + payload)
    os.replace(tmp, path)


def load(rules: RuleSet, path: Path) -> Table | None:
    """The table stored at ``path`` if it is intact and matches ``rules``, else None."""
    start = time.perf_counter()
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if not data.startswith(MAGIC):
        return None
    line_end = data.find(b"\n", len(MAGIC))
    try:
        header = json.loads(data[len(MAGIC) : line_end])
    except (ValueError, UnicodeDecodeError):
        return None
    payload = data[line_end + 1 :]
    if not isinstance(header, dict) or not isinstance(header.get("states"), int):
        return None
    t = build_tables(rules)
    if header != _header(rules, tables_digest(t), payload, header["states"]):
        return None
    reach = kernel.reachable(t.params(), t.arrays())
    if int(reach.sum()) != header["states"]:
        return None
    try:
        stored = _decode(payload, header["states"])
    except (ValueError, zlib.error):
        return None
    values = np.zeros(t.nstates)
    values[reach] = stored
    return Table(t, values, reach, "cache", time.perf_counter() - start, path)


def load_or_build(rules: RuleSet, cache: bool = True) -> Table:
    """The table for ``rules``: from the cache if intact, else built (and cached if ``cache``)."""
    if not cache:
        return build(rules)
    path = cache_path(rules)
    table = load(rules, path)
    if table is not None:
        return table
    table = build(rules)
    try:
        save(table, path)
    except OSError:
        return table
    return Table(table.tables, table.values, table.reach, table.source, table.seconds, path)
