"""Run the optimal strategy through ``fivedice/Solitaire-v0`` and compare with the exact optimum.

The mean of N games is compared with the solver's exact expected score within ``--z`` standard
errors of the mean (2.58: a correct environment passes 99 runs in 100, however short the run;
10^4 games of official Yahtzee give 254.59 +- 1.5).

    .venv/bin/python examples/optimal_check.py --episodes 10000
"""

from __future__ import annotations

import argparse
import sys
import time

from fivedice.players.solved import solver_for
from fivedice.rl import SolitaireEnv
from fivedice.rl.evaluate import evaluate
from fivedice.rl.policies import strategy_policy


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="yahtzee", help="rule set spec")
    parser.add_argument("--episodes", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--level", default="optimal", help="strategy level to run (optimal, hard, greedy ...)")
    parser.add_argument("--advisor", action="store_true", help="also rate every decision (twice the solver work)")
    parser.add_argument("--target", type=float, default=None, help="expected mean (default: the exact optimum)")
    parser.add_argument("--z", type=float, default=2.58, help="standard errors of the mean allowed (2.58: 99%%)")
    args = parser.parse_args()
    rules = SolitaireEnv(args.rules).rules
    target = args.target if args.target is not None else float(solver_for(rules).expected_score)
    policy = strategy_policy(args.level, rules, seed=args.seed)
    start = time.perf_counter()
    report = evaluate(policy, rules, episodes=args.episodes, seed=args.seed, advisor=args.advisor)
    elapsed = time.perf_counter() - start
    print(report.summary())
    print(f"{elapsed:.1f} s, {report.decisions / elapsed:.0f} decisions/s, {args.episodes / elapsed:.1f} games/s")
    half = args.z * report.stderr
    ok = abs(report.mean - target) <= half
    verdict = "within" if ok else "OUTSIDE"
    print(f"mean {report.mean:.2f} is {verdict} {target:.2f} +- {half:.2f} ({args.z} standard errors of the mean)")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
