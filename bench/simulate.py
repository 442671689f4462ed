"""Optimal-play simulation throughput, side by side with ``yatzy-solver``'s ``Solver.simulate``.

Prints figures, asserts nothing::

    .venv/bin/python bench/simulate.py [--games 1000000] [--compare-games 100000]

Both play official Yahtzee (forced Joker) optimally with 2 threads (all cores here); the
tables are built (or loaded) first and not timed.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time

import numpy as np


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1_000_000, help="games for fivedice's mean and sd")
    parser.add_argument("--compare-games", type=int, default=100_000, help="games for the side-by-side timing")
    args = parser.parse_args()
    os.environ.setdefault("FIVEDICE_CACHE_DIR", tempfile.mkdtemp(prefix="fivedice-bench-"))

    import yatzy_solver as ys  # type: ignore[import-untyped]

    from fivedice import rules
    from fivedice.solver import solve
    from fivedice.solver.simulate import simulate_optimal

    print(f"machine: {os.cpu_count()} cores; load average {os.getloadavg()[0]:.2f}")
    ours = solve(rules.get("yahtzee"))
    theirs = ys.Solver.build(ys.Variant("american+forced-joker"))
    simulate_optimal(ours, games=1000, seed=0)  # load the JIT cache
    theirs.simulate(1000, seed=0)

    n = args.compare_games
    start = time.perf_counter()
    them = theirs.simulate(n, seed=1)
    their_rate = n / (time.perf_counter() - start)
    mine = simulate_optimal(ours, games=n, seed=1)
    my_rate = n / mine.seconds
    scores = np.asarray(them["scores"], dtype=np.float64)
    print(f"== {n:,} games each, same run ==")
    print(f"fivedice     {my_rate:>10,.0f} games/s  mean {mine.mean:.3f}  sd {mine.std:.2f}  ({mine.threads} threads)")
    print(f"yatzy-solver {their_rate:>10,.0f} games/s  mean {scores.mean():.3f}  sd {scores.std():.2f}")
    print(f"throughput ratio fivedice/yatzy-solver: {my_rate / their_rate:.2f}")

    if args.games:
        big = simulate_optimal(ours, games=args.games, seed=2)
        se = big.std / np.sqrt(big.games)
        print(f"\n== fivedice, {big.games:,} games ==")
        print(f"mean {big.mean:.3f} (+- {se:.3f} standard error; exact optimum {ours.expected_score:.3f})  ")
        print(f"sd {big.std:.2f}; {big.games / big.seconds:,.0f} games/s; upper bonus in {big.upper_bonus_rate:.1%}")
        rates = big.zero_rates()
        print("zero rates: " + ", ".join(f"{k} {v:.1%}" for k, v in rates.items() if v > 0))
        print(f"games with an extra-Yahtzee bonus: {(big.yahtzee_bonuses > 0).mean():.1%}")


if __name__ == "__main__":
    main()
