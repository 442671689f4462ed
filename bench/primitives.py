"""Build times of the solver's kernels, two commits side by side in one run.

    .venv/bin/python bench/primitives.py [--old dabc0b2] [--new HEAD] [--rules yahtzee] [--chance-rules yacht]
        [--cap 150] [--repeat 3] [--together]

Extracts ``src/`` of ``--old`` and ``--new`` (``git archive``, fresh numba caches; a folder is taken
as a ``src`` folder as it is, its numba cache kept) and times, in child processes that alternate
between the two trees, the expectation table's build of ``--rules``
(:func:`fivedice.solver.cache.build`), and a target table's (:func:`fivedice.solver.chances.build_chances`,
needs up to ``--cap``) and the moments' (:func:`fivedice.solver.fast.build_moments`) of
``--chance-rules``, each on one thread. Each tree compiles its kernels once in an untimed first child.
Figures are process CPU seconds (``time.process_time``), the least of ``--repeat`` runs and the
median; the load average is printed before and after. With ``--together`` both trees run at once,
each repeating in one process, so that both see the same load. Prints figures, asserts nothing.
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
solver = Solver(cache.build(rules.parse_spec(sys.argv[3]), threads=1), jit=True)
for _ in range(int(sys.argv[4])):
    out = {}
    t0 = time.process_time()
    cache.build(rs, threads=1)
    out["expectation"] = time.process_time() - t0
    t0 = time.process_time()
    chances.build_chances(solver, cap, 1.0, threads=1)
    out["target"] = time.process_time() - t0
    t0 = time.process_time()
    fast.build_moments(solver, threads=1)
    out["moments"] = time.process_time() - t0
    print(json.dumps(out), flush=True)
"""


def extract(rev: str, into: Path) -> Path:
    """``src/`` of commit ``rev`` under ``into``."""
    data = subprocess.run(["git", "archive", rev, "src"], cwd=ROOT, capture_output=True, check=True).stdout
    with tarfile.open(fileobj=BytesIO(data)) as tar:
        tar.extractall(into, filter="data")
    return into / "src"


def tree(rev: str, into: Path) -> Path:
    """The ``src`` folder of ``rev``: a folder given as it is (its numba cache kept), else a commit extracted."""
    return Path(rev) if Path(rev).is_dir() else extract(rev, into)


def child(src: Path, spec: str, chance_spec: str, cap: int, reps: int, cache: Path) -> subprocess.Popen[str]:
    """A child process timing ``reps`` builds in ``src`` (one JSON line each)."""
    env = dict(os.environ, PYTHONPATH=str(src), FIVEDICE_CACHE_DIR=str(cache), FIVEDICE_SHIPPED_TABLES="0")
    env.pop("NUMBA_CACHE_DIR", None)
    argv = [sys.executable, "-c", CHILD, spec, str(cap), chance_spec, str(reps)]
    return subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def results(proc: subprocess.Popen[str]) -> list[dict[str, float]]:
    """The figures a child printed (exits on its failure)."""
    out, err = proc.communicate()
    if proc.returncode:
        raise SystemExit(err)
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--old", default="dabc0b2", help="the commit to compare with (default: before the change)")
    parser.add_argument("--new", default="HEAD", help="the commit to measure (default: the checked-out one)")
    parser.add_argument("--rules", default="yahtzee")
    parser.add_argument("--chance-rules", default="yacht", help="the rule set of the target table and the moments")
    parser.add_argument("--cap", type=int, default=150)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument(
        "--together", action="store_true", help="run both trees at once, each repeating in one process (same load)"
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="fivedice-bench-") as tmp:
        trees = {name: tree(rev, Path(tmp) / name) for name, rev in (("old", args.old), ("new", args.new))}
        print(
            f"old {args.old}, new {args.new}; expectation: {args.rules}; target table (cap {args.cap}) and "
            f"moments: {args.chance_rules}; {args.repeat} runs each"
        )
        print(f"load before: {os.getloadavg()}")
        for name, src in trees.items():  # compile (untimed)
            results(child(src, "yacht", "yacht", 20, 1, Path(tmp) / f"cache-{name}"))
        times: dict[str, list[dict[str, float]]] = {name: [] for name in trees}
        if args.together:
            procs = {
                name: child(src, args.rules, args.chance_rules, args.cap, args.repeat, Path(tmp) / f"cache-{name}")
                for name, src in trees.items()
            }
            for name, proc in procs.items():
                times[name] = results(proc)
                print(name, json.dumps(times[name]), flush=True)
        else:
            for _ in range(args.repeat):
                for name, src in trees.items():
                    found = results(child(src, args.rules, args.chance_rules, args.cap, 1, Path(tmp) / f"cache-{name}"))
                    times[name] += found
                    print(name, json.dumps(found[0]), flush=True)
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
