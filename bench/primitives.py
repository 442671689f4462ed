"""Build times of the solver's kernels, two commits side by side in one run.

    nice .venv/bin/python bench/primitives.py [--old dabc0b2] [--new HEAD] [--rules yahtzee] [--cap 150] [--repeat 3]

Extracts ``src/`` of ``--old`` and ``--new`` (``git archive``) into a temporary folder (fresh numba
caches) and times, in child processes that alternate between the two trees, the expectation table's
build (:func:`fivedice.solver.cache.build`), a target table's
(:func:`fivedice.solver.chances.build_chances`, needs up to ``--cap``) and the moments'
(:func:`fivedice.solver.fast.build_moments`), each on one thread. Each tree compiles its
kernels once in an untimed first child (numba's cache sits beside each tree's sources). Figures are
process CPU seconds (``time.process_time``), the least of ``--repeat`` runs and the median; the load
average is printed before and after. Prints figures, asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = """
import json, sys, time
from fivedice import rules
from fivedice.solver import cache, chances, fast
from fivedice.solver.advisor import Solver
rs = rules.parse_spec(sys.argv[1])
cap = int(sys.argv[2])
out = {}
t0 = time.process_time()
table = cache.build(rs, threads=1)
out["expectation"] = time.process_time() - t0
solver = Solver(table, jit=True)
t0 = time.process_time()
chances.build_chances(solver, cap, 1.0, threads=1)
out["target"] = time.process_time() - t0
t0 = time.process_time()
fast.build_moments(solver, threads=1)
out["moments"] = time.process_time() - t0
print(json.dumps(out))
"""


def extract(rev: str, into: Path) -> Path:
    """``src/`` of commit ``rev`` under ``into``."""
    data = subprocess.run(["git", "archive", rev, "src"], cwd=ROOT, capture_output=True, check=True).stdout
    with tarfile.open(fileobj=BytesIO(data)) as tar:
        tar.extractall(into, filter="data")
    return into / "src"


def run(src: Path, spec: str, cap: int, cache: Path) -> dict[str, float]:
    env = dict(os.environ, PYTHONPATH=str(src), FIVEDICE_CACHE_DIR=str(cache), FIVEDICE_SHIPPED_TABLES="0")
    env.pop("NUMBA_CACHE_DIR", None)
    done = subprocess.run([sys.executable, "-c", CHILD, spec, str(cap)], env=env, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(done.stderr)
    found: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--old", default="dabc0b2", help="the commit to compare with (default: before the change)")
    parser.add_argument("--new", default="HEAD", help="the commit to measure (default: the checked-out one)")
    parser.add_argument("--rules", default="yahtzee")
    parser.add_argument("--cap", type=int, default=150)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="fivedice-bench-") as tmp:
        trees = {"old": extract(args.old, Path(tmp) / "old"), "new": extract(args.new, Path(tmp) / "new")}
        print(f"old {args.old}, new {args.new}; rules {args.rules}, cap {args.cap}, {args.repeat} runs each")
        print(f"load before: {os.getloadavg()}")
        for name, src in trees.items():
            run(src, "yacht", 50, Path(tmp) / f"cache-{name}")  # compile (untimed)
        times: dict[str, list[dict[str, float]]] = {name: [] for name in trees}
        for _ in range(args.repeat):
            for name, src in trees.items():
                times[name].append(run(src, args.rules, args.cap, Path(tmp) / f"cache-{name}"))
        print(f"load after: {os.getloadavg()}")
        for kind in ("expectation", "target", "moments"):
            old = [t[kind] for t in times["old"]]
            new = [t[kind] for t in times["new"]]
            print(
                f"{kind:12s} old min {min(old):7.3f} s median {statistics.median(old):7.3f} s | "
                f"new min {min(new):7.3f} s median {statistics.median(new):7.3f} s | "
                f"new/old (min) {min(new) / min(old):.4f}"
            )


if __name__ == "__main__":
    main()
