"""Throughput of the RL environments: steps per second under random legal play.

.venv/bin/python bench/rl_env.py [--games 300]
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from fivedice.rl import SolitaireEnv
from fivedice.rl.multi import MultiplayerEnv


def solitaire(spec: str, games: int) -> tuple[float, float]:
    """(steps per second, games per second) of random legal play on ``SolitaireEnv``."""
    env, rng, steps = SolitaireEnv(spec), np.random.default_rng(0), 0
    start = time.perf_counter()
    for seed in range(games):
        _, info = env.reset(seed=seed)
        done = False
        while not done:
            _, _, done, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
            steps += 1
    took = time.perf_counter() - start
    return steps / took, games / took


def multiplayer(spec: str, players: int, games: int) -> float:
    """Agent steps per second of random legal play on the AEC environment."""
    env, rng, steps = MultiplayerEnv(spec, players=players), np.random.default_rng(0), 0
    start = time.perf_counter()
    for seed in range(games):
        env.reset(seed=seed)
        for _ in env.agent_iter():
            obs, _, terminated, truncated, _ = env.last()
            action = None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"])))
            env.step(action)
            steps += 1
    return steps / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    args = parser.parse_args()
    for spec in ("yahtzee", "yacht", "kismet", "yahtzee cards=jetsi"):
        steps, games = solitaire(spec, args.games)
        print(f"Solitaire-v0 {spec:20} {steps:8.0f} steps/s  {games:6.1f} games/s")
    print(f"AEC yahtzee, 3 players      {multiplayer('yahtzee', 3, args.games // 3):8.0f} agent steps/s")


if __name__ == "__main__":
    main()
