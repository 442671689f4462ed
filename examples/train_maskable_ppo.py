"""Train sb3-contrib's MaskablePPO on ``fivedice/Solitaire-v0`` within a time budget, then rate it.

A standard library, the environment as it comes (observations already scaled to [0, 1], the
action mask from ``env.action_masks()``), rewards divided by 50 for the value network. Every
``--eval-every`` steps the greedy policy plays ``--eval-games`` fresh games through
:func:`fivedice.rl.evaluate`; the points go to a CSV file and, at the end, to a learning-curve
picture. The final report is ``evaluate``'s: mean, gap to the optimum, loss per decision.

Needs PyTorch and sb3-contrib, which fivedice itself never depends on (CPU PyTorch is enough)::

    pip install 'fivedice[rl,plot]' sb3-contrib torch
    nice -n 15 python examples/train_maskable_ppo.py --minutes 60 --out runs/ppo

See docs/README-rl.md for the figures this reached and what limits it.
"""

from __future__ import annotations

import argparse
import csv
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, SupportsFloat

import gymnasium
import numpy as np
import torch
from numpy.typing import NDArray
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.vec_env import DummyVecEnv

import fivedice.rl
from fivedice.rl.evaluate import Evaluation, evaluate


class ScaledReward(gymnasium.RewardWrapper[NDArray[np.float32], np.int64]):
    """Points divided by ``scale``: values of a few units suit the value network."""

    def __init__(self, env: gymnasium.Env[NDArray[np.float32], np.int64], scale: float) -> None:
        super().__init__(env)
        self.scale = scale

    def reward(self, reward: SupportsFloat) -> float:
        """The scaled reward."""
        return float(reward) / self.scale


def points_over_50(env: gymnasium.Env[Any, Any]) -> gymnasium.Env[Any, Any]:
    """The environment with rewards in units of 50 points."""
    return ScaledReward(env, 50.0)


def greedy(model: Any) -> Any:
    """The trained policy as a fivedice policy: the most likely legal action."""

    def policy(observation: NDArray[Any], info: Mapping[str, Any]) -> int:
        mask = np.asarray(info["action_mask"], dtype=bool)
        action, _state = model.predict(observation, action_masks=mask, deterministic=True)
        return int(action)

    return policy


class Budget(BaseCallback):  # type: ignore[misc, unused-ignore]
    """Stops training when the wall-clock or the CPU time is up; rates the greedy policy every
    ``every`` steps. On a shared machine the CPU time is the fair measure: on two idle cores a
    budget of 60 CPU minutes (one PyTorch thread, the environments in the same process) takes
    at most 60 minutes of wall-clock time."""

    def __init__(self, seconds: float, cpu_seconds: float, every: int, games: int, rules: str, log: Path) -> None:
        super().__init__()
        self.deadline = time.monotonic() + seconds
        self.cpu_deadline = time.process_time() + cpu_seconds
        self.start = time.monotonic()
        self.cpu_start = time.process_time()
        self.every, self.games, self.rules, self.log = every, games, rules, log
        self.next = every
        self.rows: list[tuple[int, float, float, float]] = []

    def rate(self) -> None:
        """Play ``games`` greedy games and record the mean beside the steps and minutes."""
        report = evaluate(greedy(self.model), self.rules, episodes=self.games, seed=10_000, advisor=False)
        minutes = (time.monotonic() - self.start) / 60
        cpu = (time.process_time() - self.cpu_start) / 60
        recent = [e["r"] for e in self.model.ep_info_buffer or ()] or [float("nan")]  # the Monitor sees points
        row = (self.num_timesteps, round(cpu, 2), round(report.mean, 2), round(float(np.mean(recent)), 2))
        self.rows.append(row)
        with self.log.open("a", newline="") as f:
            csv.writer(f).writerow((*row, round(minutes, 2)))
        print(
            f"{row[0]:>10,} steps {cpu:6.1f} CPU min {minutes:6.1f} min  greedy mean {row[2]:6.1f}  "
            f"training mean {row[3]:6.1f}",
            flush=True,
        )

    def _on_step(self) -> bool:
        if self.num_timesteps >= self.next:
            self.next += self.every
            self.rate()
        return time.monotonic() < self.deadline and time.process_time() < self.cpu_deadline


def plot(rows: list[tuple[int, float, float, float]], final: Evaluation, path: Path) -> None:
    """The learning curve as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = [r[0] / 1e6 for r in rows]
    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=120)
    ax.plot(steps, [r[3] for r in rows], color="0.6", label="training episodes (sampled actions)")
    ax.plot(steps, [r[2] for r in rows], marker=".", label="greedy policy, fresh games")
    if final.optimum is not None:
        ax.axhline(final.optimum, color="green", linestyle="--", label=f"optimum {final.optimum:.2f}")
    ax.axhline(240, color="red", linestyle=":", label="goal 240")
    ax.set_xlabel("environment steps (millions)")
    ax.set_ylabel("mean final score")
    ax.set_title(
        f"MaskablePPO on {final.spec}: {final.mean:.1f} after {rows[-1][1]:.0f} CPU min" if rows else final.spec
    )
    ax.legend(loc="lower right", fontsize="small")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="yahtzee", help="rule set spec")
    parser.add_argument("--minutes", type=float, default=60.0, help="wall-clock budget of the training")
    parser.add_argument("--cpu-minutes", type=float, default=60.0, help="CPU-time budget of the training")
    parser.add_argument("--envs", type=int, default=128, help="environments stepped together")
    parser.add_argument("--steps", type=int, default=64, help="steps per environment per update")
    parser.add_argument("--hidden", type=int, default=256, help="units in each of the two hidden layers")
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--threads", type=int, default=1, help="PyTorch threads (more only on idle cores)")
    parser.add_argument("--eval-every", type=int, default=1_000_000)
    parser.add_argument("--eval-games", type=int, default=300)
    parser.add_argument("--final-games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("runs/maskable_ppo"))
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    args.out.mkdir(parents=True, exist_ok=True)
    log = args.out / "curve.csv"
    log.write_text("steps,cpu_minutes,greedy_mean,training_mean,minutes\n")
    envs = make_vec_env(
        fivedice.rl.ENV_ID,
        n_envs=args.envs,
        seed=args.seed,
        env_kwargs={"rules": args.rules},
        wrapper_class=points_over_50,
        vec_env_cls=DummyVecEnv,
    )
    model = MaskablePPO(
        "MlpPolicy",
        envs,
        learning_rate=args.lr,
        n_steps=args.steps,
        batch_size=2048,
        n_epochs=4,
        gamma=1.0,
        gae_lambda=0.95,
        ent_coef=0.003,
        clip_range=0.2,
        policy_kwargs={"net_arch": [args.hidden, args.hidden]},
        seed=args.seed,
        verbose=0,
    )
    budget = Budget(args.minutes * 60, args.cpu_minutes * 60, args.eval_every, args.eval_games, args.rules, log)
    model.learn(total_timesteps=10**12, callback=budget)
    model.save(args.out / "model.zip")
    budget.rate()
    final = evaluate(greedy(model), args.rules, episodes=args.final_games, seed=20_000)
    print(final.summary())
    (args.out / "final.txt").write_text(final.summary() + "\n")
    plot(budget.rows, final, args.out / "learning_curve.png")


if __name__ == "__main__":
    main()
