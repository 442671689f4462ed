"""Run the optimal strategy through ``fivedice/Solitaire-v0`` and compare with the exact optimum.

The issue's acceptance figure: 10^4 games of official Yahtzee average 254.6 +- 1.5.

    .venv/bin/python examples/optimal_check.py --episodes 10000
"""

from __future__ import annotations

import argparse
import sys
import time

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
    parser.add_argument("--target", type=float, default=254.6, help="expected mean (the issue's figure)")
    parser.add_argument("--tolerance", type=float, default=1.5)
    args = parser.parse_args()
    rules = SolitaireEnv(args.rules).rules
    policy = strategy_policy(args.level, rules, seed=args.seed)
    start = time.perf_counter()
    report = evaluate(policy, rules, episodes=args.episodes, seed=args.seed, advisor=args.advisor)
    elapsed = time.perf_counter() - start
    print(report.summary())
    print(f"{elapsed:.1f} s, {report.decisions / elapsed:.0f} decisions/s, {args.episodes / elapsed:.1f} games/s")
    ok = abs(report.mean - args.target) <= args.tolerance
    print(f"mean {report.mean:.2f} is {'within' if ok else 'OUTSIDE'} {args.target} +- {args.tolerance}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
