"""Solver benchmarks, side by side with the ``yatzy-solver`` package (a Rust solver) in the same run.

Prints figures, asserts nothing. Every build runs in a fresh process so its time and peak
memory (max RSS, the interpreter and numba included) are its own::

    .venv/bin/python bench/solver.py [--situations 2000] [--cold]

``--cold`` also times a first run with an empty numba cache (the one-off JIT compile).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from typing import Any

BUILD_OURS = """
import json, resource, time
t0 = time.perf_counter()
from fivedice import rules
from fivedice.solver.cache import build
t1 = time.perf_counter()
table = build(rules.parse_spec({spec!r}))
t2 = time.perf_counter()
from fivedice.solver import Solver
print(json.dumps({{"build": t2 - t1, "process": t2 - t0, "import": t1 - t0, "states": table.states,
    "mean": Solver(table).expected_score, "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}}))
"""

BUILD_THEIRS = """
import json, resource, time
t0 = time.perf_counter()
import yatzy_solver as ys
t1 = time.perf_counter()
solver = ys.Solver.build(ys.Variant({variant!r}))
t2 = time.perf_counter()
print(json.dumps({{"build": t2 - t1, "process": t2 - t0, "import": t1 - t0,
    "mean": solver.state_value("upper 0 | filled -"),
    "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}}))
"""

THEIRS = {"yahtzee": "american+forced-joker", "yatzy": "yatzy-scandinavian"}
NAMES = {"aces": "ones", "yahtzee": "five_of_a_kind"}


def run(code: str, env: dict[str, str] | None = None) -> dict[str, Any]:
    """Run ``code`` in a fresh interpreter and return the JSON it prints."""
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env={**os.environ, **(env or {})}
    )
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def builds(cold: bool) -> None:
    print("== build: official table from scratch, fresh process each (numba JIT cache warm) ==")
    ours_yahtzee = None
    for spec in ("yahtzee", "yacht", "yatzy"):
        run(BUILD_OURS.format(spec=spec))  # warm the JIT cache and the page cache
        ours = run(BUILD_OURS.format(spec=spec))
        line = (
            f"fivedice {spec:8} mean {ours['mean']:.7f}  states {ours['states']:>9,}  build {ours['build']:.2f} s  "
            f"process {ours['process']:.2f} s  peak RSS {ours['rss_mb']:.0f} MB"
        )
        print(line)
        if spec == "yahtzee":
            ours_yahtzee = ours
        if spec in THEIRS:
            theirs = run(BUILD_THEIRS.format(variant=THEIRS[spec]))
            print(
                f"yatzy-solver {THEIRS[spec]:21} mean {theirs['mean']:.7f}  build {theirs['build']:.2f} s  "
                f"process {theirs['process']:.2f} s  peak RSS {theirs['rss_mb']:.0f} MB"
            )
            print(
                f"   ratio fivedice/yatzy-solver: build {ours['build'] / theirs['build']:.2f}, "
                f"whole process {ours['process'] / theirs['process']:.2f}"
            )
    if cold and ours_yahtzee is not None:
        with tempfile.TemporaryDirectory() as tmp:
            first = run(BUILD_OURS.format(spec="yahtzee"), env={"NUMBA_CACHE_DIR": tmp})
        print(f"cold numba cache (one-off JIT compile): yahtzee process {first['process']:.1f} s")


def situations(count: int, seed: int = 1) -> list[tuple[Any, tuple[int, ...], int, str]]:
    """Random reachable Yahtzee situations (random legal play), with yatzy-solver's notation."""
    from fivedice import rules
    from fivedice.dice import counts_of
    from fivedice.scorecard import Scorecard

    rs = rules.get("yahtzee")
    rng = random.Random(seed)
    out: list[tuple[Any, tuple[int, ...], int, str]] = []
    while len(out) < count:
        card = Scorecard.empty(rs)
        for _ in range(rng.randrange(len(rs.boxes))):
            dice = tuple(rng.randint(1, 6) for _ in range(5))
            card = card.fill(rng.choice(list(card.option_indices(counts_of(dice)))), dice)
        dice = tuple(rng.randint(1, 6) for _ in range(5))
        left = rng.randrange(3)
        filled = [NAMES.get(n, n) for n, e in zip(rs.box_names, card.entries, strict=True) if e is not None]
        text = f"dice {' '.join(map(str, sorted(dice)))} | rolls {left} | upper {min(63, card.upper_total)} | "
        text += "filled " + (",".join(filled) or "-")
        if card.get("yahtzee") is not None:
            text += f" | five_of_a_kind {card.get('yahtzee')}"
        out.append((card, dice, left, text))
    return out


def per_call(fn: Any, items: list[Any]) -> float:
    """Microseconds per call, best of three passes."""
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        for item in items:
            fn(item)
        best = min(best, time.perf_counter() - start)
    return best / len(items) * 1e6


def advisor(count: int) -> None:
    import yatzy_solver as ys  # type: ignore[import-untyped]

    from fivedice import rules
    from fivedice.solver import solve

    print(f"\n== advisor: {count} random reachable situations per rolls-left, table loaded ==")
    ours = solve(rules.get("yahtzee"))
    theirs = ys.Solver.build(ys.Variant("american+forced-joker"))
    sits = situations(3 * count)
    # the two solvers agree on the best option's value
    worst = max(abs(ours.best(c, d, k).value - max(v for _, v in theirs.option_values(t))) for c, d, k, t in sits[:300])
    print(f"largest difference of the best option's value over 300 situations: {worst:.2e}")
    for left in (0, 1, 2):
        items = [s for s in sits if s[2] == left][:count]
        best = per_call(lambda s: ours.best(s[0], s[1], s[2]), items)
        full = per_call(lambda s: ours.advise(s[0], s[1], s[2]), items)
        them = per_call(lambda s: theirs.option_values(s[3]), items)
        print(
            f"rolls left {left}: fivedice best {best:6.1f} us, advise (all options) {full:6.1f} us; "
            f"yatzy-solver option_values {them:6.1f} us; ratio advise/option_values {full / them:.2f}"
        )
    variant = ys.Variant("american+forced-joker")
    arrays = variant.situation_arrays([s[3] for s in sits])
    ours_arrays = ours.situation_arrays([s[:3] for s in sits])
    ours.option_values_batch(*ours_arrays)  # load the JIT cache
    start = time.perf_counter()
    theirs.option_values_batch(arrays["filled"], arrays["upper"], arrays["armed"], arrays["dice"], arrays["rolls_left"])
    them = len(sits) / (time.perf_counter() - start)
    start = time.perf_counter()
    ours.option_values_batch(*ours_arrays)
    mine = len(sits) / (time.perf_counter() - start)
    print(
        f"batch of {len(sits)} (inputs as arrays): fivedice option_values_batch {mine:,.0f} situations/s; "
        f"yatzy-solver option_values_batch {them:,.0f} situations/s; ratio {mine / them:.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--situations", type=int, default=2000)
    parser.add_argument("--cold", action="store_true", help="also time a run with an empty numba cache")
    parser.add_argument("--skip-builds", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ.setdefault("FIVEDICE_CACHE_DIR", tmp)
        print(f"machine: {os.cpu_count()} cores; load average {os.getloadavg()[0]:.2f}")
        if not args.skip_builds:
            builds(args.cold)
        advisor(args.situations)


if __name__ == "__main__":
    main()
