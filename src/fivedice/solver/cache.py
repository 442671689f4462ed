"""Build the state-value table of a rule set, cache it on disk, and ship the built-in ones.

A table file (one per rule set and options) is a magic line, a JSON header line, then the
zlib-compressed payload: the packed integer tables (:attr:`Tables.ints`), the reachable states
as a bitmap and their values (byte-shuffled). The header names the rule set and its options
and holds the format version, a hash of the full rule definition, a hash of the source of the
scoring code (:func:`code_digest`), a hash of the packed tables and a SHA-256 of the payload.

Loading needs neither numba nor the foundation's scoring calls: if the scoring code is the
one that wrote the file, the stored tables are used as they are. If it changed, the tables
are rebuilt from the foundation and compared with the stored ones (a change that does not
alter them, a comment say, keeps the values); anything else that does not match is rebuilt,
never trusted.

Where a table is looked for: the user cache (``$FIVEDICE_CACHE_DIR`` or the user cache
directory), then the tables shipped with the package for the built-in rule sets
(``fivedice/solver/data``; ``FIVEDICE_SHIPPED_TABLES=0`` skips them), then it is built (numba)
and written to the user cache.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import threading
import time
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from fivedice.rules import RuleSet
from fivedice.solver.tables import Tables, build_tables, check_supported, from_packed

__all__ = [
    "FORMAT_VERSION", "Progress", "Readiness", "Table", "build", "cache_dir", "cache_path", "file_stem",
    "load_or_build", "packaged_path", "read_framed", "readiness", "run_layers", "write_atomic",
]  # fmt: skip

FORMAT_VERSION = 2
"""Bump whenever the file layout or the meaning of the values changes."""
MAGIC = b"FIVEDICE-SOLVER-TABLE\n"
DATA = Path(__file__).with_name("data")
"""The tables shipped with the package (built-in rule sets, default options)."""
SOURCES = ("dice.py", "engine/scorecard.py", "rules", "solver/tables.py")
"""The code the tables are built from (relative to the package), hashed by :func:`code_digest`."""

Progress = Callable[[float], None]
"""Called during a build with the share of the work done (0.0 to 1.0)."""


@dataclass(frozen=True, slots=True, eq=False)
class Table:
    """A rule set's tables and state values, and how they were obtained."""

    tables: Tables
    values: npt.NDArray[np.float64]
    """Dense state values (expected points still to come); 0 for unreachable states."""
    reach: npt.NDArray[np.bool_]
    source: str
    """``"built"``, ``"cache"`` or ``"package"`` (a table shipped with fivedice)."""
    seconds: float
    path: Path | None

    @property
    def states(self) -> int:
        """Number of reachable turn-start states."""
        return int(self.reach.sum())


@dataclass(frozen=True, slots=True)
class Readiness:
    """Whether a rule set's table can be loaded at once, or how long building it will take."""

    ready: bool
    """True when a valid table is in the user cache or shipped with the package."""
    seconds: float
    """Rough time to get the solver: loading (ready) or building, the one-off JIT compile included."""
    source: str | None
    """``"cache"`` or ``"package"`` when ready, else None."""


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


_CODE: list[str] = []


def code_digest() -> str:
    """A hash of the source of the scoring code the tables are built from (:data:`SOURCES`)."""
    if not _CODE:
        root = Path(__file__).resolve().parent.parent
        h = hashlib.sha256()
        for name in SOURCES:
            path = root / name
            for file in sorted(path.rglob("*.py")) if path.is_dir() else [path]:
                h.update(file.relative_to(root).as_posix().encode())
                h.update(file.read_bytes())
        _CODE.append(h.hexdigest())
    return _CODE[0]


def file_stem(rules: RuleSet) -> str:
    """The start of every cached file's name for ``rules``: the rule set, its options, a hash of the rules."""
    slug = "-".join([rules.name, *(f"{k}={v}" for k, v in rules.options)])
    return f"{slug}-{rules_digest(rules)[:12]}"


def file_name(rules: RuleSet) -> str:
    """The table file's name for ``rules`` (rule set, options, a hash of the rules, the format)."""
    return f"{file_stem(rules)}.v{FORMAT_VERSION}.table"


def cache_path(rules: RuleSet) -> Path:
    """The user-cache file for ``rules``."""
    return cache_dir() / file_name(rules)


def packaged_path(rules: RuleSet) -> Path | None:
    """The table shipped with the package for ``rules``, if there is one (and
    ``$FIVEDICE_SHIPPED_TABLES`` is not ``0``, which makes every table come from a build)."""
    if os.environ.get("FIVEDICE_SHIPPED_TABLES") == "0":
        return None
    path = DATA / file_name(rules)
    return path if path.exists() else None


# -- building -------------------------------------------------------------------------------
def _layers(t: Tables, reach: npt.NDArray[np.bool_]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The states to solve, fullest cards first, and where each layer (filled count) starts."""
    idx = np.flatnonzero(reach).astype(np.int64)
    filled = np.bitwise_count(idx // (t.units * t.ybits)).astype(np.int64)
    keep = filled < t.nboxes
    idx, filled = idx[keep], filled[keep]
    order = np.argsort(-filled, kind="stable")
    states, filled = idx[order], filled[order]
    starts = np.concatenate([[0], np.flatnonzero(np.diff(filled)) + 1, [len(states)]]).astype(np.int64)
    return states, starts


def default_threads() -> int:
    """Threads a build uses by default: the CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def build(rules: RuleSet, threads: int | None = None, progress: Progress | None = None) -> Table:
    """Solve ``rules`` now (no cache), on ``threads`` threads (the same values whatever the count)."""
    from fivedice.solver import kernel

    start = time.perf_counter()
    if progress is not None:
        progress(0.0)
    t = build_tables(rules)
    reach = kernel.reachable(t.ints)
    states, starts = _layers(t, reach)
    values = np.zeros(t.nstates)
    run_layers(states, starts, lambda a, b: kernel.solve_states(t.ints, values, states, a, b), 64, threads, progress)
    return Table(t, values, reach, "built", time.perf_counter() - start, None)


def run_layers(
    states: npt.NDArray[np.int64],
    starts: npt.NDArray[np.int64],
    work: Callable[[int, int], None],
    min_step: int,
    threads: int | None = None,
    progress: Progress | None = None,
) -> None:
    """Run ``work(lo, hi)`` over every layer of ``states`` (layer ``i`` is ``starts[i]:starts[i + 1]``,
    done before the next one starts), in chunks of at least ``min_step`` states on ``threads``
    *daemon* threads: a process that exits during a build exits at once (a pool's workers would be
    joined at exit, hanging it for the rest of the build)."""
    workers = max(1, threads or default_threads())
    for i in range(len(starts) - 1):
        lo, hi = int(starts[i]), int(starts[i + 1])
        step = max(min_step, math.ceil((hi - lo) / (8 * workers)))
        chunks = [(a, min(hi, a + step)) for a in range(lo, hi, step)]
        _run_chunks(chunks, work, workers)
        if progress is not None:
            progress(hi / max(1, len(states)))


def _run_chunks(chunks: list[tuple[int, int]], work: Callable[[int, int], None], workers: int) -> None:
    if workers == 1 or len(chunks) <= 1:
        for a, b in chunks:
            work(a, b)
        return
    lock = threading.Lock()
    pending = list(reversed(chunks))
    errors: list[BaseException] = []

    def worker() -> None:
        while True:
            with lock:
                if not pending or errors:
                    return
                a, b = pending.pop()
            try:
                work(a, b)
            except BaseException as exc:  # re-raised by the caller
                with lock:
                    errors.append(exc)
                return

    threads = [
        threading.Thread(target=worker, name=f"fivedice-build-{n}", daemon=True)
        for n in range(min(workers, len(chunks)))
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]


def estimate_seconds(rules: RuleSet) -> float:
    """A rough build time for ``rules`` on this machine (the one-off JIT compile included when
    numba has not compiled the kernels yet)."""
    width = (max((b.threshold for b in rules.upper_bonus), default=0) + 1) * (2 if rules.yahtzee_bonus else 1)
    dense = (1 << len(rules.boxes)) * width
    seconds = 0.3 + dense * 2.5e-6 * max(1, rules.rolls - 1) / 2 / min(2, default_threads())
    return seconds + (0.0 if _jit_cached() else 12.0)


def _jit_cached() -> bool:
    """Whether numba's cache holds compiled kernels for this source (a cheap look, no numba import)."""
    here = Path(__file__).resolve().parent
    folders = [here / "__pycache__"]
    if os.environ.get("NUMBA_CACHE_DIR"):
        folders.append(Path(os.environ["NUMBA_CACHE_DIR"]))
    return any(any(folder.rglob("kernel.solve_states*.nbi")) for folder in folders if folder.exists())


# -- files ----------------------------------------------------------------------------------
def _digest(data: bytes | memoryview) -> str:
    return hashlib.sha256(data).hexdigest()


def _payload(table: Table) -> bytes:
    values = table.values[table.reach].astype("<f8")
    shuffled = np.ascontiguousarray(values.view(np.uint8).reshape(-1, 8).T).tobytes()
    raw = table.tables.ints.astype("<i4").tobytes() + np.packbits(table.reach).tobytes() + shuffled
    return zlib.compress(raw, 6)


def _header(table: Table, payload: bytes) -> dict[str, object]:
    rules = table.tables.rules
    return {
        "format": FORMAT_VERSION,
        "rules": rules.name,
        "options": dict(rules.options),
        "rules_sha256": rules_digest(rules),
        "code_sha256": code_digest(),
        "tables_sha256": _digest(table.tables.ints.astype("<i4").tobytes()),
        "ints": int(table.tables.ints.size),
        "dense": int(table.reach.size),
        "states": table.states,
        "payload_sha256": _digest(payload),
    }


def write_atomic(path: Path, parts: Iterable[bytes]) -> None:
    """Write ``parts`` one after another to ``path``, atomically (a temporary file renamed over it): a
    reader sees the old file or the whole new one. Raises :class:`OSError`."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with tmp.open("wb") as f:
        for part in parts:
            f.write(part)
    os.replace(tmp, path)


def save(table: Table, path: Path) -> None:
    """Write ``table`` to ``path`` atomically."""
    payload = _payload(table)
    line = json.dumps(_header(table, payload), sort_keys=True).encode() + b"\n"
    write_atomic(path, [MAGIC + line, payload])


def read_framed(path: Path, magic: bytes) -> tuple[object, memoryview] | None:
    """A cached file's parts: ``magic``, a JSON header line, the payload (``None`` if unreadable or
    foreign); the payload is a view of the file's bytes, not a copy (chance tables are 100+ MB)."""
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if not data.startswith(magic):
        return None
    line_end = data.find(b"\n", len(magic))
    try:
        header = json.loads(data[len(magic) : line_end])
    except (ValueError, UnicodeDecodeError):
        return None
    return header, memoryview(data)[line_end + 1 :]


def _read(rules: RuleSet, path: Path) -> tuple[dict[str, object], memoryview] | None:
    """The header and payload of ``path`` if it is intact and for ``rules`` (format, rules, checksum)."""
    framed = read_framed(path, MAGIC)
    if framed is None:
        return None
    header, payload = framed
    if not isinstance(header, dict) or not all(isinstance(header.get(k), int) for k in ("ints", "dense", "states")):
        return None
    if (
        header.get("format") != FORMAT_VERSION
        or header.get("rules_sha256") != rules_digest(rules)
        or header.get("payload_sha256") != _digest(payload)
    ):
        return None
    return header, payload


def load(rules: RuleSet, path: Path, source: str = "cache") -> Table | None:
    """The table stored at ``path`` if it is intact and matches ``rules``, else None."""
    start = time.perf_counter()
    found = _read(rules, path)
    if found is None:
        return None
    header, payload = found
    nints, dense, states = int(header["ints"]), int(header["dense"]), int(header["states"])  # type: ignore[call-overload]
    try:
        raw = zlib.decompress(payload)
    except zlib.error:
        return None
    nreach = (dense + 7) // 8
    if len(raw) != nints * 4 + nreach + states * 8:
        return None
    ints = np.frombuffer(raw, dtype="<i4", count=nints).astype(np.int32)
    if header.get("tables_sha256") != _digest(ints.astype("<i4").tobytes()):
        return None
    if header.get("code_sha256") != code_digest():
        # the scoring code changed since the file was written: trust it only if the tables did not
        rebuilt = build_tables(rules)
        if not np.array_equal(rebuilt.ints, ints):
            return None
    bits = np.unpackbits(np.frombuffer(raw, dtype=np.uint8, count=nreach, offset=nints * 4), count=dense)
    reach = bits.astype(np.bool_)
    if int(reach.sum()) != states:
        return None
    shuffled = np.frombuffer(raw, dtype=np.uint8, offset=nints * 4 + nreach)
    stored = np.ascontiguousarray(shuffled.reshape(8, states).T).view("<f8").reshape(states)
    values = np.zeros(dense)
    values[reach] = stored
    t = from_packed(rules, ints)
    if t.nstates != dense:
        return None
    return Table(t, values, reach, source, time.perf_counter() - start, path)


def _fresh(path: Path) -> bool:
    """Whether the file at ``path`` was written by the current scoring code (no re-check needed)."""
    try:
        with path.open("rb") as f:
            head = f.read(4096)
    except OSError:
        return False
    line = head[len(MAGIC) : head.find(b"\n", len(MAGIC))]
    try:
        return bool(json.loads(line).get("code_sha256") == code_digest())
    except (ValueError, UnicodeDecodeError, AttributeError):
        return False


def load_or_build(rules: RuleSet, cache: bool = True, progress: Progress | None = None) -> Table:
    """The table for ``rules``: from the user cache or the package if intact, else built (and
    written to the user cache if ``cache``). ``progress`` is called while building."""
    if not cache:
        return build(rules, progress=progress)
    path = cache_path(rules)
    table = load(rules, path)
    if table is not None:
        if not _fresh(path):  # re-checked against changed scoring code: remember the result
            _try_save(table, path)
        return table
    shipped = packaged_path(rules)
    if shipped is not None:
        table = load(rules, shipped, "package")
        if table is not None:
            if not _fresh(shipped):  # checked against the current scoring code once: keep that result
                _try_save(table, path)
            return table
    table = build(rules, progress=progress)
    if not _try_save(table, path):
        return table
    return Table(table.tables, table.values, table.reach, table.source, table.seconds, path)


def _try_save(table: Table, path: Path) -> bool:
    try:
        save(table, path)
    except OSError:
        return False
    return True


def readiness(rules: RuleSet) -> Readiness:
    """Whether ``rules``' table is ready (cached or shipped), and roughly how long getting it takes.

    Reads only file headers (cheap); a damaged file counts as ready until it is loaded and
    found damaged, when it is rebuilt. Raises :class:`~fivedice.errors.RuleSetError`, as
    :func:`build` would, for a rule set the solver does not handle.
    """
    check_supported(rules)
    for path, source in ((cache_path(rules), "cache"), (packaged_path(rules), "package")):
        if path is not None and path.exists() and _read_header_ok(rules, path):
            return Readiness(True, 0.2 if _fresh(path) else 1.0, source)
    return Readiness(False, round(estimate_seconds(rules), 1), None)


def _read_header_ok(rules: RuleSet, path: Path) -> bool:
    try:
        with path.open("rb") as f:
            head = f.read(4096)
        header = json.loads(head[len(MAGIC) : head.find(b"\n", len(MAGIC))])
    except (OSError, ValueError, UnicodeDecodeError):
        return False
    return (
        head.startswith(MAGIC)
        and isinstance(header, dict)
        and header.get("format") == FORMAT_VERSION
        and header.get("rules_sha256") == rules_digest(rules)
    )
