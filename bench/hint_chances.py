"""What a player waits for before hints carry chances, side by side in one run: the first hint of
a rule set (points only) against the first hint carrying the chance to beat a best and the chance to
win, cold (empty user cache, empty numba cache: a fresh install) and warm (a second process).

    nice .venv/bin/python bench/hint_chances.py [--rules yahtzee,yacht] [--best 287] [--source DIR]

Each figure comes from its own fresh process: seconds from asking for the first hint until a hint
carries its chances (waiting for a preparation where the code needs one), the process's peak
resident memory, and whether numba was imported. ``--source`` runs the probes on another checkout's
``src`` (e.g. main's, for a before/after in one run). Prints figures, asserts nothing.
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
if kind != "hint":
    table.goal = best if kind == "beat" else None
    table.chances_note()
advice = table.advice()
if kind != "hint" and advice.chances != kind:  # the chances need a preparation first: wait for it
    job = chancejobs.wait(chancejobs.need(table.state, table.goal))
    assert job.ok, job.error
ready = time.perf_counter() - start
t1 = time.perf_counter()
advice = table.advice()
hint = time.perf_counter() - t1
assert kind == "hint" or advice.chances == kind, advice.chances
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"ready": ready, "hint": hint, "peak_mb": peak, "numba": "numba" in sys.modules}))
"""


def probe(rules: str, best: int, kind: str, cache: str, source: str | None) -> dict[str, float]:
    env = dict(os.environ, FIVEDICE_CACHE_DIR=cache, NUMBA_CACHE_DIR=os.path.join(cache, "numba"))
    if source:
        env["PYTHONPATH"] = source
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
    parser.add_argument("--source", default=None, help="run the probes on this src folder (PYTHONPATH)")
    args = parser.parse_args()
    for name in args.rules.split(","):
        measure(name, args.best, args.kinds.split(","), args.source)


def measure(rules: str, best: int, kinds: list[str], source: str | None) -> None:
    """One rule set's rows."""
    where = source or "this checkout"
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}; rules {rules}; {where}", flush=True)
    with tempfile.TemporaryDirectory(prefix="fivedice-hint-chances-") as cache:
        rows = []
        for label, kind in (
            ("first hint (expectation table), cold", "hint"),
            ("first hint (expectation table), warm", "hint"),
            (f"chance to beat {best}, cold", "beat"),
            (f"chance to beat {best}, warm", "beat"),
            ("chance to win, cold", "win"),
            ("chance to win, warm", "win"),
        ):
            if kind not in kinds:
                continue
            figures = probe(rules, best, kind, cache, source)
            rows.append((label, figures))
            print(
                f"{label:<42} ready {figures['ready']:7.2f} s   then a hint {figures['hint'] * 1000:7.1f} ms"
                f"   peak {figures['peak_mb']:6.0f} MB{'   (numba imported)' if figures['numba'] else ''}",
                flush=True,
            )
        if "hint" not in kinds:
            return
        reference = rows[0][1]
        for label, figures in rows[2:]:
            print(
                f"{label:<42} {figures['ready'] / reference['ready']:6.1f}x the first hint's wait, "
                f"{figures['peak_mb'] - reference['peak_mb']:+5.0f} MB over a hint without chances"
            )


if __name__ == "__main__":
    main()
