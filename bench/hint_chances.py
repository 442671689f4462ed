"""What a player waits for before hints carry chances, side by side in one run: the first hint of
a rule set (the expectation table) against the preparation of the chance to beat a best (a target
table) and of the chance to win (the beat table), cold (empty cache) and warm (a new process
loading the cached table).

    nice .venv/bin/python bench/hint_chances.py [--rules yahtzee] [--best 287]

Each figure comes from its own fresh process: seconds until the hint (or its chances) is ready,
and the process's peak resident memory. Prints figures, asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

PROBE = r"""
import json, resource, sys, time
from fivedice.services import chancejobs
from fivedice.table import Table
rules, best, kind = sys.argv[1], int(sys.argv[2]), sys.argv[3]
table = Table(rules, ["Ann"] if kind != "win" else ["Ann", "Bo"], seed=1)
table.run_automatic()
table.roll()
start = time.perf_counter()
if kind == "hint":
    table.advice()
else:
    table.goal = best if kind == "beat" else None
    table.chances_note()
    job = chancejobs.wait(chancejobs.need(table.state, table.goal))
    assert job.ok, job.error
ready = time.perf_counter() - start
t1 = time.perf_counter()
advice = table.advice()
hint = time.perf_counter() - t1
assert kind == "hint" or advice.chances == kind, advice.chances
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"ready": ready, "hint": hint, "peak_mb": peak}))
"""


def probe(rules: str, best: int, kind: str, cache: str) -> dict[str, float]:
    env = dict(os.environ, FIVEDICE_CACHE_DIR=cache)
    out = subprocess.run(
        [sys.executable, "-c", PROBE, rules, str(best), kind], env=env, capture_output=True, text=True, check=True
    )
    result: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rules", default="yahtzee")
    parser.add_argument("--best", type=int, default=287)
    parser.add_argument("--kinds", default="hint,beat,win", help="which of hint, beat, win to measure")
    args = parser.parse_args()
    kinds = args.kinds.split(",")
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}; rules {args.rules}", flush=True)
    with tempfile.TemporaryDirectory(prefix="fivedice-hint-chances-") as cache:
        rows = []
        for label, kind in (
            ("first hint (expectation table), cold", "hint"),
            ("first hint (expectation table), warm", "hint"),
            (f"chance to beat {args.best}, cold", "beat"),
            (f"chance to beat {args.best}, warm", "beat"),
            ("chance to win, cold", "win"),
            ("chance to win, warm", "win"),
        ):
            if kind not in kinds:
                continue
            figures = probe(args.rules, args.best, kind, cache)
            rows.append((label, figures))
            print(
                f"{label:<42} ready {figures['ready']:7.2f} s   then a hint {figures['hint'] * 1000:7.1f} ms"
                f"   peak {figures['peak_mb']:6.0f} MB",
                flush=True,
            )
        reference = rows[0][1]["ready"] if "hint" in kinds else float("nan")
        for label, figures in rows[2 if "hint" in kinds else 0 :]:
            print(f"{label:<42} {figures['ready'] / reference:6.1f}x the first hint's wait")


if __name__ == "__main__":
    main()
