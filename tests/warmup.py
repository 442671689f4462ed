"""Numba's kernels compiled into its on-disk cache once, before the parallel test workers start.

On a fresh clone (as in CI) numba's cache is empty, and each pytest-xdist worker used to compile the same
kernels itself (the solver's, the distribution's, the chance tables', the simulator's: about a minute of CPU
each), and so did every CLI or server subprocess a test started before a worker had written them.
``tests/conftest.py``'s ``pytest_configure`` runs the two halves below side by side, one process on each
core, in the controller (``python -m tests.warmup solver`` and ``... simulation``), so the workers and
their subprocesses load compiled kernels instead. Each half calls the kernels through the public API on a
tiny case: numba compiles per argument types, not per rule set, so a tiny case compiles what a large one
uses.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PARTS = ("solver", "simulation")


def _solver() -> None:
    """The solver's build, the exact distribution, chance tables (both tie rules) and the moments."""
    from fivedice.solver import fast, solve
    from fivedice.solver.chances import build_chances, distribution
    from tests.solver.test_bruteforce import CASES

    solver = solve(CASES["forced-joker-bonus"], cache=False)
    top = int(distribution(solver).scores.max())
    build_chances(solver, top + 1, 1.0)
    build_chances(solver, top + 1, 0.5)
    fast.build_moments(solver)


def _simulation() -> None:
    """The simulator's optimal and level policies, on Yacht's shipped table (no build: the other half
    compiles the build)."""
    from fivedice import rules
    from fivedice.services.sim import policy_of
    from fivedice.solver import solve
    from fivedice.solver.simulate import simulate_level, simulate_optimal

    solver = solve(rules.get("yacht"))
    simulate_optimal(solver, games=20, seed=1)
    for level in ("random", "greedy", "easy", "hard"):
        simulate_level(solver, policy_of(level), 20, seed=1)


def warm(root: Path) -> str:
    """Run both halves at once in subprocesses (a table they build goes to a throwaway cache, never the
    user's) and say how long it took; a half that fails is reported, not raised: the tests that use its
    kernels compile them themselves and fail on their own if something is wrong."""
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="fivedice-warmup-") as tmp:
        env = {**os.environ, "FIVEDICE_CACHE_DIR": tmp, "FIVEDICE_DB": str(Path(tmp) / "scores.db")}
        procs = [
            subprocess.Popen(
                [sys.executable, "-m", "tests.warmup", part],
                cwd=root,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
            )
            for part in PARTS
        ]
        failed = []
        for part, proc in zip(PARTS, procs, strict=True):
            out = proc.communicate()[0].decode(errors="replace")
            if proc.returncode:
                failed.append(f"{part}: {out[-500:]}")
    took = time.monotonic() - started
    if failed:
        return f"numba warm-up failed after {took:.0f} s (tests compile what they need): {'; '.join(failed)}"
    return f"numba kernels compiled into numba's cache in {took:.0f} s before the workers started"


if __name__ == "__main__":
    {"solver": _solver, "simulation": _simulation}[sys.argv[1]]()
