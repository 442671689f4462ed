"""Throughput of the RL environments: steps per second under random legal play, beside pyhtzee.

Every player picks uniformly among the legal actions with Python's ``random`` (fivedice from the
action mask, pyhtzee from ``get_possible_actions``), one environment, one process. Figures are
steps per CPU second (``time.process_time``, fair on a shared machine) and per wall second;
pyhtzee (``pip install pyhtzee``, official Yahtzee engine) is measured in the same run when installed.

Each fivedice environment first plays ``games / 2`` untimed games: its tables (a turn per set
of filled boxes, the reroll plans per order of the dice) fill as positions are first met, and a
training run of millions of steps plays on full tables. Rows are measured in turn, ``--repeat``
rounds, and the medians shown.

.venv/bin/python bench/rl_env.py [--games 2000] [--repeat 3] [--aec-games 100]
"""

from __future__ import annotations

import argparse
import functools
import random
import time
from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np

import fivedice.rl
from fivedice.rl import SolitaireEnv
from fivedice.rl.multi import MultiplayerEnv


def timed(play: Callable[[], int]) -> tuple[float, float]:
    """(steps per CPU second, steps per wall second) of ``play()``, which returns its steps."""
    cpu, wall = time.process_time(), time.perf_counter()
    steps = play()
    return steps / (time.process_time() - cpu), steps / (time.perf_counter() - wall)


def fivedice_steps(env: Any, games: int) -> int:
    """Random legal play on a fivedice environment (raw or wrapped); returns the steps."""
    rng, steps = random.Random(0), 0
    for seed in range(games):
        _, info = env.reset(seed=seed)
        done = truncated = False
        while not (done or truncated):
            legal = np.flatnonzero(info["action_mask"])
            _, _, done, truncated, info = env.step(int(legal[rng.randrange(len(legal))]))
            steps += 1
    return steps


def pyhtzee_steps(games: int) -> int | None:
    """Random legal play on pyhtzee's engine; None when it is not installed."""
    try:
        from pyhtzee import Pyhtzee
    except ImportError:
        return None
    rng, steps = random.Random(0), 0
    for seed in range(games):
        game = Pyhtzee(seed=seed + 1)
        while not game.is_finished():
            actions = game.get_possible_actions()
            game.take_action(actions[rng.randrange(len(actions))])
            steps += 1
    return steps


def multiplayer(spec: str, players: int, games: int) -> float:
    """Agent steps per CPU second of random legal play on the AEC environment."""
    env, rng, steps = MultiplayerEnv(spec, players=players), np.random.default_rng(0), 0
    start = time.process_time()
    for seed in range(games):
        env.reset(seed=seed)
        for _ in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            action = None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"])))
            env.step(action)
            steps += 1
    return steps / (time.process_time() - start)


SOLITAIRE = ("yahtzee", "yacht", "yatzy", "kismet", "generala", "yahtzee cards=jetsi")
"""Every built-in rule set (Jetsi is Yahtzee with three cards)."""


def median(values: list[float]) -> float:
    """The middle value (the mean of the two middle ones for an even count)."""
    ordered = sorted(values)
    mid = len(ordered) // 2
    return ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=3, help="rounds of every measurement (medians shown)")
    parser.add_argument("--aec-games", type=int, default=100)
    args = parser.parse_args()
    n = args.games
    plays: list[tuple[str, Callable[[], int]]] = []
    if pyhtzee_steps(20) is not None:
        plays.append(("pyhtzee (engine, yahtzee)", lambda: pyhtzee_steps(n) or 0))
    for spec in SOLITAIRE:
        env = SolitaireEnv(spec)
        fivedice_steps(env, max(1, n // 2))  # warm up: the tables fill as positions are met
        plays.append((f"fivedice SolitaireEnv {spec}", functools.partial(fivedice_steps, env, n)))
    made = gymnasium.make(fivedice.rl.ENV_ID, rules="yahtzee")
    plays.append(("fivedice gymnasium.make yahtzee", functools.partial(fivedice_steps, made, n)))
    cpu: dict[str, list[float]] = {name: [] for name, _ in plays}
    wall: dict[str, list[float]] = {name: [] for name, _ in plays}
    for _round in range(args.repeat):  # interleaved, so a busy spell of the machine hits every row
        for name, play in plays:
            c, w = timed(play)
            cpu[name].append(c)
            wall[name].append(w)
    reference = median(cpu[plays[0][0]]) if plays[0][0].startswith("pyhtzee") else None
    print(f"{n} games, median of {args.repeat} rounds")
    print(f"{'':38} {'steps/CPU s':>12} {'steps/wall s':>13} {'vs pyhtzee':>11}")
    for name, _ in plays:
        c = median(cpu[name])
        ratio = f"{c / reference:10.2f}x" if reference else ""
        print(f"{name:38} {c:12,.0f} {median(wall[name]):13,.0f} {ratio:>11}")
    aec = multiplayer("yahtzee", 3, args.aec_games)
    ratio = f"{aec / reference:10.2f}x" if reference else ""
    print(f"{'fivedice AEC yahtzee, 3 players':38} {aec:12,.0f} {'':>13} {ratio:>11}")


if __name__ == "__main__":
    main()
