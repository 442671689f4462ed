"""Chance figures, side by side in one run: table build times and sizes, threshold play against
expectation play, and the ``win`` level against ``optimal`` in paired two-player games.

    nice .venv/bin/python bench/chances.py [--rules yahtzee] [--targets 200,250,300] [--duel-games 100000]
        [--reach-games 20000] [--workers 2] [--no-tables] [--versus-exact 5000]

Prints figures, asserts nothing. Tables are built afresh into a temporary cache (timed), except
with ``--cache DIR``. Once built (in memory or the cache), ``target:T`` and ``win`` play from them
(exact play); ``--no-tables`` builds none, so that the reach and the duel measure the fast chances
(the shipped curves or moments) that a fresh install plays with. The duel plays ``optimal`` against
``optimal`` and ``win`` against ``optimal`` on the same dice (the simulator's per-game seeds: common
random numbers), seats alternating who starts, and reports the paired difference of seat 1's win
share with its 95% interval. The reach figures give the exact chances (threshold table against the exact distribution
of expectation play) and simulated shares with 95% Wilson intervals.
"""

from __future__ import annotations

import argparse
import math
import os
import tempfile
import time
from typing import Any

import numpy as np


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rules", default="yahtzee")
    parser.add_argument("--targets", default="200,250,300")
    parser.add_argument("--duel-games", type=int, default=100_000)
    parser.add_argument("--reach-games", type=int, default=20_000)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--block", type=int, default=10_000, help="duel games between progress lines")
    parser.add_argument("--ledger", default=None, help="keep each duel block's sums here and resume from them")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--cache", default=None, help="use this cache folder (tables found there are not rebuilt)")
    parser.add_argument("--no-tables", action="store_true", help="build no table: the levels play the fast chances")
    parser.add_argument(
        "--versus-exact",
        type=int,
        default=0,
        metavar="GAMES",
        help="the fast chances' target:T against exact threshold play on the same dice, GAMES per target "
        "(builds one exact table, for the largest target, after the fast games)",
    )
    parser.add_argument(
        "--duel-versus-exact",
        type=int,
        default=0,
        metavar="GAMES",
        help="the duel with the fast chances' win, then (after building the exact beat table) with the exact win, "
        "on the same dice: each one's gain over optimal and their paired gap",
    )
    args = parser.parse_args()
    os.environ["FIVEDICE_CACHE_DIR"] = args.cache or tempfile.mkdtemp(prefix="fivedice-chances-")

    from fivedice import rules
    from fivedice.players import prepare
    from fivedice.services.sim import simulate, wilson

    rs = rules.get(args.rules)
    targets = [int(t) for t in args.targets.split(",") if t.strip()]
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}; rules {rs.spec}", flush=True)

    exact = {} if args.no_tables else tables(rs, targets)

    # -- reach -----------------------------------------------------------------------------------
    n = args.reach_games
    if n:
        base = simulate(rs, ["optimal"], n, args.seed, workers=args.workers, fast=False)
        for target in targets:
            prepare([f"target:{target}"], rs)
            run = simulate(rs, [f"target:{target}"], n, args.seed, workers=args.workers)
            a, b = run.reach(target)[0], base.reach(target)[0]
            gain = paired(run.totals[:, 0] >= target, base.totals[:, 0] >= target)
            (alo, ahi), (blo, bhi) = wilson(a, n), wilson(b, n)
            known = exact.get(target)
            print(
                f"reach {target}: target:{target} {100 * a:5.2f}% ({100 * alo:5.2f}-{100 * ahi:5.2f}), optimal "
                f"{100 * b:5.2f}% ({100 * blo:5.2f}-{100 * bhi:5.2f}); paired gain {gain} points; "
                + (f"exact {100 * known[0]:.2f}% vs {100 * known[1]:.2f}%; " if known else "fast chances; ")
                + f"{n:,} games, mean {run.totals.mean():.2f} vs {base.totals.mean():.2f}",
                flush=True,
            )

    # -- duel ------------------------------------------------------------------------------------
    games = args.duel_games
    if games:
        prepare(["win"], rs)
        duel(rs, games, args.block, args.seed, args.workers, args.ledger)

    # -- fast against exact, last: they build exact tables, which the sections above would then play ---------
    if args.versus_exact:
        versus_exact(rs, targets, args.versus_exact, args.seed, args.workers)
    if args.duel_versus_exact:
        duel_versus_exact(rs, args.duel_versus_exact, args.block, args.seed, args.workers)


def versus_exact(rs: Any, targets: list[int], n: int, seed: int, workers: int | None) -> None:
    """Reach of ``target:T`` with the fast chances against exact threshold play, paired on the same dice (the
    simulator's per-game seeds): the fast games first, then one exact table covering every target (its cap
    serves each smaller target exactly), then the exact games. The paired difference's interval is far
    narrower than either share's, since the two players differ only where their best options do."""
    from fivedice.players.solved import solver_for
    from fivedice.services.sim import simulate, wilson
    from fivedice.solver.chances import STEP, chance_table, is_ready

    solver = solver_for(rs)
    cap = max(STEP, -(-max(targets) // STEP) * STEP)
    assert not is_ready(solver, cap), "an exact table is at hand: the fast games would play exact"
    t0 = time.process_time()
    fast = {t: simulate(rs, [f"target:{t}"], n, seed, workers=workers).totals[:, 0] >= t for t in targets}
    print(f"fast chances: {n:,} games x {len(targets)} targets in {time.process_time() - t0:.0f} s CPU", flush=True)
    t0 = time.process_time()
    table = chance_table(solver, cap)
    print(f"exact table T={cap}: {table.seconds:.0f} s ({table.source}), {table.size_bytes / 1e6:.1f} MB", flush=True)
    for t in targets:
        exact = simulate(rs, [f"target:{t}"], n, seed, workers=workers).totals[:, 0] >= t
        a, b = float(fast[t].mean()), float(exact.mean())
        (alo, ahi), (blo, bhi) = wilson(a, n), wilson(b, n)
        print(
            f"reach {t}, fast vs exact on the same dice: {100 * a:5.2f}% ({100 * alo:5.2f}-{100 * ahi:5.2f}) vs "
            f"{100 * b:5.2f}% ({100 * blo:5.2f}-{100 * bhi:5.2f}); gap {paired(fast[t], exact)} points; "
            f"{int((fast[t] != exact).sum()):,} of {n:,} games end differently",
            flush=True,
        )
    print(f"exact games: {time.process_time() - t0:.0f} s CPU with the table build", flush=True)


def duel_versus_exact(rs: Any, games: int, block: int, seed: int, workers: int | None) -> None:
    """``win`` against ``optimal`` (seat 1's win share, paired with ``optimal`` against ``optimal``), first with
    the fast chances, then with the exact beat table, every game on the same dice; printed after every block
    of exact games. The gap between the two ``win`` players is measured far more tightly than either gain."""
    from fivedice.players import prepare
    from fivedice.players.solved import solver_for
    from fivedice.players.win import beat_cap, beat_table
    from fivedice.services.sim import simulate
    from fivedice.solver.chances import is_ready

    assert not is_ready(solver_for(rs), beat_cap(rs), 0.5), "the beat table is at hand: win would play exact"
    prepare(["win"], rs)
    seeds = [(seed * 1000 + b, min(block, games - first)) for b, first in enumerate(range(0, games, block))]
    base, fast = [], []
    t0 = time.process_time()
    for s, count in seeds:
        base.append(simulate(rs, ["optimal", "optimal"], count, s, workers=workers).win_share[:, 0])
        fast.append(simulate(rs, ["win", "optimal"], count, s, workers=workers).win_share[:, 0])
        print(f"fast win: {sum(map(len, fast)):,} games, {time.process_time() - t0:.0f} s CPU", flush=True)
    table = beat_table(rs)
    print(f"beat table (cap {table.cap}): {table.seconds:.0f} s ({table.source}), {table.size_bytes / 1e6:.1f} MB")
    exact: list[np.ndarray[Any, Any]] = []

    for (s, count), _ in zip(seeds, base, strict=True):
        exact.append(simulate(rs, ["win", "optimal"], count, s, workers=workers).win_share[:, 0])
        n = sum(map(len, exact))
        b, f, e = (np.concatenate(x)[:n] for x in (base, fast, exact))
        print(
            f"duel after {n:,} games: gain over optimal, fast win {paired(f, b)}, exact win {paired(e, b)} points of "
            f"win rate; fast - exact {paired(f, e)}; {int((f != e).sum()):,} games end differently",
            flush=True,
        )


def tables(rs: Any, targets: list[int]) -> dict[int, tuple[float, float]]:
    """Build and time the tables; the exact chance of reaching each target (threshold play, and
    expectation play)."""
    from fivedice.engine.scorecard import Scorecard
    from fivedice.players.win import beat_cap
    from fivedice.solver import solve
    from fivedice.solver.cache import build
    from fivedice.solver.chances import chance_table, distribution
    from fivedice.solver.simulate import simulate_optimal

    build(rs)  # JIT warm-up, not timed
    table = build(rs)
    print(f"expectation table: {table.seconds:6.1f} s, {table.states:,} states, {table.states * 8 / 1e6:6.1f} MB")
    solver = solve(rs)
    t0 = time.perf_counter()
    dist = distribution(solver)
    print(
        f"distribution from the start: {time.perf_counter() - t0:6.1f} s, {len(dist.scores)} scores, "
        f"mean {dist.mean:.6f} (table {solver.expected_score:.6f}), sd {dist.std:.2f}",
        flush=True,
    )
    empty = Scorecard.empty(rs)
    exact: dict[int, tuple[float, float]] = {}
    for target in targets:
        ct = chance_table(solver, target)
        exact[target] = (ct.chance(empty, target), dist.at_least(target))
        print(
            f"target table T={target}: {ct.seconds:6.1f} s ({ct.source}), {ct.size_bytes / 1e6:6.1f} MB; "
            f"P(>= {target}) threshold play {exact[target][0]:.5f}, expectation play {exact[target][1]:.5f}",
            flush=True,
        )
    cap = beat_cap(rs)
    bt = chance_table(solver, cap, half=0.5)
    print(
        f"beat table (ties half, leads up to {cap}): {bt.seconds:6.1f} s ({bt.source}), {bt.size_bytes / 1e6:6.1f} MB"
    )
    sim = simulate_optimal(solver, 1_000_000, seed=1)
    top = int(max(dist.scores.max(), sim.totals.max())) + 1
    pmf = np.zeros(top)
    pmf[dist.scores] = dist.probs
    seen = np.bincount(sim.totals, minlength=top) / sim.games
    ks = float(np.abs(np.cumsum(pmf) - np.cumsum(seen)).max())
    print(f"KS distance exact vs 1,000,000 simulated games: {ks:.5f} (5% critical {1.36 / math.sqrt(sim.games):.5f})")
    return exact


def paired(a: np.ndarray[Any, Any], b: np.ndarray[Any, Any]) -> str:
    """The mean of ``a - b`` (per game, on the same dice) in points of a share, with its 95% interval.

    >>> paired(np.array([1.0, 1.0, 0.0, 1.0]), np.array([1.0, 0.0, 0.0, 0.0]))
    '+50.00 (95% +1.00 to +99.00)'
    """
    d = a.astype(float) - b.astype(float)
    mean, half = float(d.mean()), 1.96 * float(d.std()) / math.sqrt(len(d))
    return f"{100 * mean:+.2f} (95% {100 * (mean - half):+.2f} to {100 * (mean + half):+.2f})"


def summed(n: int, total: float, squares: float) -> str:
    """As :func:`paired`, from the count, sum and sum of squares of the differences.

    >>> summed(4, 2.0, 2.0)
    '+50.00 (95% +1.00 to +99.00)'
    """
    mean = total / n
    half = 1.96 * math.sqrt(max(squares / n - mean * mean, 0.0)) / math.sqrt(n)
    return f"{100 * mean:+.2f} (95% {100 * (mean - half):+.2f} to {100 * (mean + half):+.2f})"


def source_tree() -> str:
    """The git tree hash of ``src`` (the code a duel block was played with), or ``unknown``."""
    import subprocess

    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    found = subprocess.run(["git", "-C", root, "rev-parse", "HEAD:src"], capture_output=True, text=True)
    dirty = subprocess.run(["git", "-C", root, "status", "--porcelain", "src"], capture_output=True, text=True)
    return "unknown" if found.returncode or dirty.stdout.strip() else found.stdout.strip()[:12]


def duel(rs: Any, games: int, block: int, seed: int, workers: int | None, ledger: str | None = None) -> None:
    """Paired win-rate figures, printed after every block of games (so a cut run still reports).

    With ``ledger``, each finished block's sums are appended to that file, and blocks found there for the
    same rules, seed, block, size and committed source are read instead of played again: a run cut off
    (or spread over machines) goes on where it stopped, with the same dice and the same figures."""
    from fivedice.services.sim import simulate

    tree, name = source_tree(), rs.spec.replace(" ", "_")
    done: dict[int, list[float]] = {}
    if ledger and os.path.exists(ledger):
        with open(ledger) as f:
            for line in f:
                w = line.split()
                if len(w) == 12 and w[:2] == [name, str(seed)] and w[3:5] == [str(block), tree]:
                    done[int(w[2])] = [float(x) for x in w[5:]]
    sums = np.zeros(6)  # games, sum d, sum d^2, win share, run score, base score
    changed = 0
    t0 = time.perf_counter()
    for b, first in enumerate(range(0, games, block)):
        count = min(block, games - first)
        kept = b in done and int(done[b][0]) == count and tree != "unknown"
        if kept:
            row = done[b]
        else:
            base = simulate(rs, ["optimal", "optimal"], count, seed * 1000 + b, workers=workers)
            run = simulate(rs, ["win", "optimal"], count, seed * 1000 + b, workers=workers)
            d = run.win_share[:, 0].astype(float) - base.win_share[:, 0].astype(float)
            differ = int((run.totals != base.totals).any(axis=1).sum())
            row = [count, d.sum(), (d * d).sum(), run.win_share[:, 0].sum()]
            row += [run.totals[:, 0].sum(), base.totals[:, 0].sum(), differ]
            if ledger and tree != "unknown":
                with open(ledger, "a") as f:
                    print(name, seed, b, block, tree, *(repr(float(x)) for x in row), file=f)
        sums += row[:6]
        changed += int(row[6])
        n = int(sums[0])
        print(
            f"duel after {n:,} games ({time.perf_counter() - t0:5.0f} s): win vs optimal seat 1 wins "
            f"{100 * sums[3] / n:5.2f}%; paired gain over optimal vs optimal "
            f"{summed(n, sums[1], sums[2])} points of win rate; mean score "
            f"{sums[4] / n:.2f} vs {sums[5] / n:.2f} (optimal in its place); "
            f"{100 * changed / n:.1f}% of games differ" + (" (block read from the ledger)" if kept else ""),
            flush=True,
        )


if __name__ == "__main__":
    main()
