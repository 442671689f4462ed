"""Strategy figures: the calibration table of the levels and the win player's duel result.

    .venv/bin/python bench/strategies.py [--games 3000] [--compiled-games 100000] [--duel-games 6000] [--workers N]

Prints, for official Yahtzee, each level's mean score (with its 95% interval), standard
deviation, target and noise parameters, and its speed with the Python players beside the
compiled simulator's (solitaire games of the levels it plays, and their mean); then the win rate of ``win``
against ``optimal`` in two-player games (seats alternate who starts), next to ``optimal``
against itself as a control.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from fivedice import rules
from fivedice.players import prepare, solved
from fivedice.services.sim import COMPILED, simulate

TARGETS = {"easy": 180.0, "medium": 220.0, "hard": 245.0}


LEVELS = ("random", "greedy", "tali", "easy", "medium", "hard", "optimal")


def calibration(
    games: int, workers: int | None, seed: int, levels: tuple[str, ...] = LEVELS, compiled_games: int = 100_000
) -> None:
    """Print the calibration table of every level."""
    rs = rules.get("yahtzee")
    prepare(["optimal"], rs)
    print(f"Calibration on {rs.spec}, {games} games per level, seed {seed}")
    print(
        f"{'level':8} {'mean':>8} {'95% interval':>17} {'sd':>6} {'target':>7} {'T':>5} {'blunder':>8} {'games/s':>8}"
        f" {'compiled':>9} {'mean':>7} {'ratio':>7}"
    )
    for level in levels:
        start = time.perf_counter()
        result = simulate(rs, [level], games, seed, workers=workers, fast=False)
        seconds = time.perf_counter() - start
        stats = result.stats()[0]
        lo, hi = stats.mean_ci
        target = f"{TARGETS[level]:.0f}" if level in TARGETS else ""
        t, b = solved.NOISE.get(level, (float("nan"), float("nan")))
        noise = f"{t:5.2f} {b:8.3f}" if level in solved.NOISE else f"{'':5} {'':8}"
        fast = ""
        if level in COMPILED:
            simulate(rs, [level], 1000, seed, workers=workers)  # compile and load first
            start = time.perf_counter()
            run = simulate(rs, [level], compiled_games, seed, workers=workers)
            speed = compiled_games / (time.perf_counter() - start)
            fast = f" {speed:9.0f} {run.stats()[0].mean:7.2f} {speed * seconds / games:6.0f}x"
        print(
            f"{level:8} {stats.mean:8.2f} {lo:8.2f} - {hi:6.2f} {stats.std:6.1f} {target:>7} {noise} "
            f"{games / seconds:8.0f}{fast}",
            flush=True,
        )


def duel(games: int, workers: int | None, seed: int) -> None:
    """Print the win rate of ``win`` against ``optimal``, and the paired difference with
    ``optimal`` against itself on the same dice (common random numbers)."""
    rs = rules.get("yahtzee")
    prepare(["win"], rs)
    print(f"\nTwo-player {rs.spec}, {games} games each, seats alternate the start, seed {seed}")
    runs = {}
    for pair in (("optimal", "optimal"), ("win", "optimal")):
        start = time.perf_counter()
        runs[pair] = result = simulate(rs, list(pair), games, seed, workers=workers)
        first, second = result.stats()
        rate, (lo, hi) = first.win_rate or 0.0, first.win_ci or (0.0, 0.0)
        print(
            f"{pair[0]:>7} vs {pair[1]:<7}: seat 1 wins {100 * rate:5.2f}% (95% {100 * lo:5.2f} - {100 * hi:5.2f}), "
            f"means {first.mean:6.2f} / {second.mean:6.2f}, {first.ties} shared, {time.perf_counter() - start:4.0f} s",
            flush=True,
        )
    diff = runs["win", "optimal"].win_share[:, 0] - runs["optimal", "optimal"].win_share[:, 0]
    half = 1.96 * float(diff.std()) / np.sqrt(games)
    changed = float((runs["win", "optimal"].totals != runs["optimal", "optimal"].totals).any(axis=1).mean())
    print(
        f"paired gain of win over optimal in seat 1: {100 * diff.mean():+.2f} points of win rate "
        f"(95% {100 * (diff.mean() - half):+.2f} to {100 * (diff.mean() + half):+.2f}); "
        f"{100 * changed:.1f}% of games differ"
    )


def main() -> None:
    """Run the calibration table and the duel."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--games", type=int, default=3000)
    parser.add_argument("--compiled-games", type=int, default=100_000)
    parser.add_argument("--duel-games", type=int, default=6000)
    parser.add_argument("--workers", type=int, default=None)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--levels", default=",".join(LEVELS), help="Levels of the calibration table.")
    parser.add_argument("--skip-calibration", action="store_true")
    parser.add_argument("--skip-duel", action="store_true")
    args = parser.parse_args()
    if not args.skip_calibration:
        calibration(args.games, args.workers, args.seed, tuple(args.levels.split(",")), args.compiled_games)
    if not args.skip_duel:
        duel(args.duel_games, args.workers, args.seed)


if __name__ == "__main__":
    main()
