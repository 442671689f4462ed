"""How good the fast chances are, against the exact threshold tables, in one run (issue 27 item 2).

    nice .venv/bin/python bench/quality.py [--rules yahtzee] [--targets 200,250,300] [--situations 300]
        [--reach-games 2000] [--kinds curves,moments,exact]

1. **Gap over situations.** The decisions met in ``optimal`` solitaire games (every roll of every turn,
   sampled): for each target, each kind of fast chances against the exact table: the mean and worst
   absolute error of the best option's chance, how often the best option differs, and the exact
   chance that the fast choice loses (points).
2. **Reach.** ``target:T`` played with each kind of chances on the same dice (each game's dice from one
   seed: common random numbers), the share reaching ``T`` with its 95% interval and the difference
   from the exact player paired game by game.

3. **Regret** (``--regret-games N``). ``target:T`` with each kind of fast chances plays ``N`` games; at
   every decision the exact table says how much chance its choice gives up against the best one.
   By the performance-difference identity the sum of these losses over a game has, as its mean,
   exactly the exact player's reach minus the fast player's, with a far smaller spread than reach
   itself (a game's losses are a few hundredths, not 0 or 1), so a few thousand games pin the gap
   to a tenth of a point. Printed with its 95% interval, split by boxes still open at the decision.

``curves`` are the shipped threshold curves (:mod:`fivedice.solver.curves`), ``moments`` the fit to the
shipped moments that preceded them, ``exact`` the threshold table (built into a temporary cache unless
``--cache``). CPU seconds are per part. Prints figures, asserts nothing.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import tempfile
import time
from collections.abc import Callable
from typing import Any

import numpy as np


def use(kind: str, rules: Any) -> None:
    """Make the fast chances read ``kind`` (``curves`` or ``moments``)."""
    from fivedice.solver import curves, fast

    fast._LAST.clear()
    curves._CURVES.pop(rules, None)
    if kind == "moments":
        curves._CURVES[rules] = None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--rules", default="yahtzee")
    parser.add_argument("--targets", default="200,250,300")
    parser.add_argument("--situations", type=int, default=300, help="decisions compared per target")
    parser.add_argument("--reach-games", type=int, default=2000)
    parser.add_argument("--kinds", default="curves,moments,exact")
    parser.add_argument("--regret-games", type=int, default=0, help="games per target and kind for the regret")
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--cache", default=None, help="use this cache folder (tables found there are not rebuilt)")
    args = parser.parse_args()
    os.environ["FIVEDICE_CACHE_DIR"] = args.cache or tempfile.mkdtemp(prefix="fivedice-quality-")

    from fivedice import rules
    from fivedice.dice import RandomRoller
    from fivedice.engine.state import GameState
    from fivedice.players.solved import OptimalPlayer
    from fivedice.players.target import TargetPlayer
    from fivedice.services.sim import wilson
    from fivedice.solver.chances import chance_options, chance_table
    from fivedice.solver.fast import fast_options

    rs = rules.get(args.rules)
    targets = [int(t) for t in args.targets.split(",") if t.strip()]
    kinds = [k for k in args.kinds.split(",") if k]
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.2f}; rules {rs.spec}", flush=True)
    optimal = OptimalPlayer(rs)
    solver = optimal.solver
    c0 = time.process_time()
    table = chance_table(solver, max(targets))
    print(f"exact table cap {table.cap}: {time.process_time() - c0:.0f} s CPU ({table.source})", flush=True)

    # -- gap over situations -----------------------------------------------------------------------
    rng = random.Random(args.seed)
    situations: list[tuple[Any, tuple[int, ...], int]] = []
    game = 0
    while len(situations) < args.situations:
        roller = RandomRoller(random.Random(f"{args.seed}:s:{game}"))
        state = GameState.new(rs, ("A",))
        while not state.is_over:
            if state.dice is not None and rng.random() < 0.1:
                situations.append((state.cards[0][0], tuple(state.dice), state.rolls_left))
            state = state.step(optimal.choose(state), roller)[0]
        game += 1
    situations = situations[: args.situations]
    for kind in [k for k in kinds if k != "exact" and situations]:
        use(kind, rs)
        for target in targets:
            c0 = time.process_time()
            errors, lost, differ, n = [], [], 0, 0
            for card, dice, rolls in situations:
                if target - card.total <= 0:
                    continue
                fast = fast_options(solver, card, dice, rolls, target)
                exact = chance_options(table, card, dice, rolls, target)
                value = {o.key: o.value for o in exact}
                n += 1
                errors.append(abs(fast[0].value - exact[0].value))
                lost.append(exact[0].value - value[fast[0].key])
                differ += fast[0].key != exact[0].key and lost[-1] > 1e-9
            e = 100 * np.array(errors)
            print(
                f"gap {kind:7s} T={target}: {n} situations; |best chance error| mean {e.mean():.2f} "
                f"worst {e.max():.2f} points; best option differs {100 * differ / n:.1f}% "
                f"(exact chance lost {100 * np.mean(lost):.3f} points per decision, worst {100 * max(lost):.2f}); "
                f"{time.process_time() - c0:.1f} s CPU",
                flush=True,
            )

    # -- reach ---------------------------------------------------------------------------------------
    n = args.reach_games
    for target in targets if n else []:
        reached: dict[str, np.ndarray[Any, Any]] = {}
        for kind in kinds:
            c0 = time.process_time()
            if kind != "exact":
                use(kind, rs)
            player = TargetPlayer(rs, target, exact=kind == "exact")
            player._exact = kind == "exact"  # not the exact table because it is in memory (it is, here)
            if kind == "exact":
                player._table = table
            reached[kind] = play(rs, player.choose, n, f"{args.seed}:r:{target}") >= target
            a = float(reached[kind].mean())
            lo, hi = wilson(a, n)
            line = f"reach {target} {kind:7s}: {100 * a:5.2f}% ({100 * lo:5.2f}-{100 * hi:5.2f})"
            if "exact" in reached and kind != "exact":
                line += paired(reached[kind], reached["exact"])
            print(f"{line}; {n:,} games, {time.process_time() - c0:.0f} s CPU", flush=True)
        if "exact" in reached:
            for kind in kinds[: kinds.index("exact")]:
                print(f"reach {target} {kind:7s} vs exact:{paired(reached[kind], reached['exact'])}", flush=True)

    # -- regret --------------------------------------------------------------------------------------
    for target in targets if args.regret_games else []:
        for kind in [k for k in kinds if k != "exact"]:
            use(kind, rs)
            player = TargetPlayer(rs, target)
            player._exact = False  # the fast chances, although the exact table is at hand
            regret(rs, table, player, kind, target, args.regret_games, f"{args.seed}:g:{target}")


def regret(rs: Any, table: Any, player: Any, kind: str, target: int, games: int, seed: str) -> None:
    """Print the exact chance ``player`` (reading ``kind``) gives up per game (mean, 95% interval), and by
    open boxes."""
    from fivedice.dice import RandomRoller
    from fivedice.engine.actions import Roll
    from fivedice.engine.state import GameState
    from fivedice.solver.chances import chance_options

    c0 = time.process_time()
    per_game = np.zeros(games)
    by_open = np.zeros(len(rs.boxes) + 1)
    start = table.chance(GameState.new(rs, ("A",)).cards[0][0], target)
    for g in range(games):
        roller = RandomRoller(random.Random(f"{seed}:{g}"))
        state = GameState.new(rs, ("A",))
        while not state.is_over:
            action = player.choose(state)
            card = state.cards[0][0]
            if state.dice is not None and target - card.total > 0:
                exact = chance_options(table, card, state.dice, state.rolls_left, target)
                if isinstance(action, Roll):
                    key: tuple[str, object] = ("keep", tuple(sorted(state.dice[p] for p in action.held)))
                else:
                    key = ("score", action.box)
                value = {o.key: o.value for o in exact}
                lost = exact[0].value - value[key]
                per_game[g] += lost
                by_open[len(card.open_indices)] += lost
            state = state.step(action, roller)[0]
    m = float(per_game.mean())
    half = 1.96 * float(per_game.std()) / math.sqrt(games)
    split = ", ".join(f"{k} open {100 * v / games:.3f}" for k, v in enumerate(by_open) if v > 0)
    print(
        f"regret {target} {kind}: exact reach {100 * start:.2f}%, chance lost per game {100 * m:.3f} points "
        f"(95% {100 * (m - half):.3f} to {100 * (m + half):.3f}), so reach {100 * (start - m):.2f}%; "
        f"{games:,} games, {time.process_time() - c0:.0f} s CPU; by boxes open: {split}",
        flush=True,
    )


def paired(a: np.ndarray[Any, Any], b: np.ndarray[Any, Any]) -> str:
    """The paired difference ``a - b`` in points with its 95% interval."""
    diff = a.astype(float) - b.astype(float)
    half = 1.96 * float(diff.std()) / math.sqrt(len(diff))
    m = float(diff.mean())
    return f" paired {100 * m:+.2f} (95% {100 * (m - half):+.2f} to {100 * (m + half):+.2f}) points"


def play(rs: Any, choose: Callable[[Any], Any], games: int, seed: str) -> np.ndarray[Any, Any]:
    """Final totals of ``games`` solitaire games, game ``g``'s dice from the seed ``seed:g``."""
    from fivedice.dice import RandomRoller
    from fivedice.engine.state import GameState

    totals = np.zeros(games, dtype=np.int64)
    for g in range(games):
        roller = RandomRoller(random.Random(f"{seed}:{g}"))
        state = GameState.new(rs, ("A",))
        while not state.is_over:
            state = state.step(choose(state), roller)[0]
        totals[g] = state.total(0)
    return totals


if __name__ == "__main__":
    main()
