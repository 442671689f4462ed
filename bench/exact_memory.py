"""Peak memory and CPU of ``fivedice solve RULES --target T`` building its exact chance table on an empty
user cache, side by side for one or more checkouts in one run (issue 27: at most 400 MB for Yahtzee at
T = 300).

    nice .venv/bin/python bench/exact_memory.py [--rules yahtzee] [--targets 100,300]
        [--source new=src --source old=/work/wt-old/src] [--no-warm]

Each figure comes from its own fresh process with an empty ``FIVEDICE_CACHE_DIR``: the peak resident
memory of the whole process (``wait4``'s ``ru_maxrss``), its CPU seconds (user + system), its wall
seconds and the chance it printed (the same in every checkout: the tables are bit-identical). Before
the figures each checkout's numba cache is warmed by a tiny build (``solve yacht --target 10``), so
the figures are those of a second run, not of numba's compiler (``--no-warm``: as found). The build's
own bar is not shown (stderr is not a terminal). Prints figures, asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def run(src: str, rules: str, target: int) -> dict[str, float | str]:
    """One ``solve --target`` in a fresh process on an empty cache: its figures."""
    with tempfile.TemporaryDirectory(prefix="fivedice-exact-") as cache:
        env = dict(os.environ, PYTHONPATH=src, FIVEDICE_CACHE_DIR=cache)
        command = [sys.executable, "-m", "fivedice", "solve", rules, "--target", str(target), "--json"]
        start = time.perf_counter()
        child = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        assert child.stdout is not None
        out = child.stdout.read()
        _pid, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        wall = time.perf_counter() - start
    if child.returncode != 0:
        return {"error": f"exit {child.returncode}"}
    data = json.loads(out)
    return {
        "peak_mb": usage.ru_maxrss / 1024,
        "cpu_s": usage.ru_utime + usage.ru_stime,
        "wall_s": wall,
        "chance": data["probability"],
        "table_mb": data["table_bytes"] / 1e6,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rules", default="yahtzee")
    parser.add_argument("--targets", default="100,300")
    parser.add_argument("--source", action="append", default=None, help="NAME=SRC_DIR (repeatable; default: src)")
    parser.add_argument("--no-warm", action="store_true", help="do not warm numba's cache first")
    args = parser.parse_args()
    sources = [s.split("=", 1) if "=" in s else [s, s] for s in (args.source or ["this=src"])]
    targets = [int(t) for t in args.targets.split(",") if t.strip()]
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}; rules {args.rules}", flush=True)
    if not args.no_warm:
        for name, src in sources:
            print(f"warming {name}: {run(str(Path(src).resolve()), 'yacht', 10)}", flush=True)
    for target in targets:
        rows = []
        for name, src in sources:
            figures = run(str(Path(src).resolve()), args.rules, target)
            rows.append((name, figures))
            if "error" in figures:
                print(f"T={target:4d} {name:>8s}: {figures['error']}", flush=True)
                continue
            print(
                f"T={target:4d} {name:>8s}: peak {figures['peak_mb']:7.1f} MB, cpu {figures['cpu_s']:7.1f} s, "
                f"wall {figures['wall_s']:7.1f} s, table {figures['table_mb']:6.1f} MB, "
                f"chance {figures['chance']!r}",
                flush=True,
            )
        base = rows[-1][1]
        for name, figures in rows[:-1]:
            if "error" in figures or "error" in base:
                continue
            print(
                f"T={target:4d} {name} / {rows[-1][0]}: "
                f"peak x{float(figures['peak_mb']) / float(base['peak_mb']):.2f}, "
                f"cpu x{float(figures['cpu_s']) / float(base['cpu_s']):.2f}, "
                f"same chance: {figures['chance'] == base['chance']}",
                flush=True,
            )


if __name__ == "__main__":
    main()
