"""Throughput of the RL environments: steps per second under random legal play, beside pyhtzee.

Every player picks uniformly among the legal actions with Python's ``random`` (fivedice from the
action mask, pyhtzee from ``get_possible_actions``), one environment, one process. Figures are
steps per CPU second (``time.process_time``, fair on a shared machine) and per wall second;
pyhtzee (``pip install pyhtzee``, official Yahtzee engine) is measured in the same run when installed.

.venv/bin/python bench/rl_env.py [--games 2000]
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    args = parser.parse_args()
    n = args.games
    rows: list[tuple[str, float, float]] = []
    pyh = pyhtzee_steps(20)
    if pyh is not None:
        rows.append(("pyhtzee (engine, yahtzee)", *timed(lambda: pyhtzee_steps(n) or 0)))
    rows.append(("fivedice SolitaireEnv yahtzee", *timed(lambda: fivedice_steps(SolitaireEnv("yahtzee"), n))))
    made = gymnasium.make(fivedice.rl.ENV_ID, rules="yahtzee")
    rows.append(("fivedice gymnasium.make yahtzee", *timed(lambda: fivedice_steps(made, n))))
    for spec in ("yacht", "kismet", "yahtzee cards=jetsi"):
        env = SolitaireEnv(spec)
        rows.append((f"fivedice SolitaireEnv {spec}", *timed(functools.partial(fivedice_steps, env, n))))
    reference = rows[0][1] if pyh is not None else None
    print(f"{'':34} {'steps/CPU s':>12} {'steps/wall s':>13} {'vs pyhtzee':>11}")
    for name, cpu, wall in rows:
        ratio = f"{cpu / reference:10.2f}x" if reference else ""
        print(f"{name:34} {cpu:12,.0f} {wall:13,.0f} {ratio:>11}")
    print(f"{'AEC yahtzee, 3 players':34} {multiplayer('yahtzee', 3, max(1, n // 30)):12,.0f}")


if __name__ == "__main__":
    main()
