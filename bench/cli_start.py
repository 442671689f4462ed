"""How long ``fivedice --help`` takes (goal: 0.3 s), beside a bare interpreter and, optionally, another tree.

Each command runs ``--runs`` times in a fresh interpreter with its bytecode already compiled (as
after ``pip install``); the best wall time and the CPU time of that run are reported, since on a
busy machine wall time mostly measures the others' load.

.venv/bin/python bench/cli_start.py [--runs 15] [--other-src /path/to/old/src]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src"
GOAL = 0.3


def best(args: list[str], src: Path | None, runs: int) -> tuple[float, float]:
    """(best wall seconds, CPU seconds of the children per run) of ``python ARGS``."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if src is not None:
        env["PYTHONPATH"] = str(src)
    subprocess.run([sys.executable, *args], env=env, capture_output=True, check=True)  # writes the bytecode
    walls = []
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, *args], env=env, capture_output=True, check=True)
        walls.append(time.perf_counter() - start)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) / runs
    return min(walls), cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--other-src", type=Path, default=None, help="another tree's src/ to time beside this one")
    args = parser.parse_args()
    rows = [("python -c pass", *best(["-c", "pass"], None, args.runs))]
    if args.other_src is not None:
        other = best(["-m", "fivedice", "--help"], args.other_src, args.runs)
        rows.append((f"fivedice --help ({args.other_src})", *other))
    rows.append(("fivedice --help (this tree)", *best(["-m", "fivedice", "--help"], SRC, args.runs)))
    print(f"{'':48} {'best wall s':>11} {'CPU s':>7} {'vs goal 0.3 s':>14}")
    for name, wall, cpu in rows:
        print(f"{name[-48:]:48} {wall:11.3f} {cpu:7.3f} {wall / GOAL:13.2f}x")


if __name__ == "__main__":
    main()
