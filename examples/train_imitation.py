"""Train a policy network for ``fivedice/Solitaire-v0`` by imitating the exact solver, then rate it.

Behaviour cloning with DAgger-style data: environments play on, each decision taken by the
solver (the expert) or by the network being trained, and *every* decision is labelled by the
solver with the expected points each legal action loses against the best one
(:meth:`fivedice.solver.Solver.option_values_batch`). A masked MLP (PyTorch) learns from these
labels by cross-entropy on the best actions plus the expected loss of its own choice. The network
only ever sees the environment's observation and action mask, so the trained policy plays any
game through :func:`fivedice.rl.evaluate`, which gives the final report: mean score, gap to the
optimum, loss per decision. This is imitation of an expert, not reinforcement learning: the
solver's values are the teacher (see docs/README-rl.md for what pure RL reaches).

Needs PyTorch (CPU is enough) beside the ``rl`` and ``plot`` extras::

    pip install 'fivedice[train]'
    python examples/train_imitation.py --cpu-minutes 60 --out runs/imitation

The run is deterministic for a seed as long as the step budget (``--updates``) ends it, not a
time budget (``--minutes``, ``--cpu-minutes``).
"""

from __future__ import annotations

import argparse
import csv
import math
import resource
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from numpy.typing import NDArray
from torch import nn

from fivedice.players.solved import solver_for
from fivedice.rl.evaluate import Evaluation, evaluate
from fivedice.rl.solitaire import SolitaireEnv
from fivedice.solver import Solver

FloatArray = NDArray[np.float32]
ILLEGAL = 1e9
"""The loss recorded for an illegal action (the mask excludes it anyway)."""


def cpu_seconds() -> float:
    """CPU time of this process and its threads, user and system."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class Teacher:
    """The solver's loss for every action of many situations at once (the labels)."""

    def __init__(self, env: SolitaireEnv) -> None:
        self.rules = env.rules
        if len(self.rules.cards) != 1:
            raise SystemExit(f"The solver plays one score card; {self.rules.spec} has {len(self.rules.cards)}.")
        self.solver: Solver = solver_for(self.rules)
        self.codec = env.codec
        self.size = env.codec.size
        self._kept: dict[tuple[int, ...], list[tuple[int, ...]]] = {}

    def kept(self, dice: tuple[int, ...]) -> list[tuple[int, ...]]:
        """The dice each reroll action keeps (the library's encoding), remembered per multiset."""
        known = self._kept.get(dice)
        if known is None:
            known = self._kept[dice] = self.codec.keeps(dice)
        return known

    def losses(self, envs: list[SolitaireEnv]) -> FloatArray:
        """Points each action loses against the best, per environment (``ILLEGAL`` where illegal)."""
        states = [env.game_state for env in envs]
        cards = [(s.cards[0][0], s.dice, s.rolls_left) for s in states]
        values = self.solver.option_values_batch(*self.solver.situation_arrays(cards))  # type: ignore[arg-type]
        out = np.full((len(envs), self.size), -np.inf)
        keep_dice = self.solver.keep_dice
        for row, state in enumerate(states):
            assert state.dice is not None
            n = values.nkeep[row]
            pairs = zip(values.keep_index[row, :n].tolist(), values.keep_value[row, :n].tolist(), strict=True)
            value_of = {keep_dice(k): v for k, v in pairs}
            if state.rolls_left:
                for mask, kept in enumerate(self.kept(tuple(sorted(state.dice)))):
                    if mask and kept in value_of:
                        out[row, mask] = value_of[kept]
            legal = values.box_points[row] >= 0
            out[row, self.codec.scores()][legal] = values.box_value[row][legal]
        best = out.max(axis=1, keepdims=True)
        loss = best - out
        loss[~np.isfinite(loss)] = ILLEGAL
        labels: FloatArray = loss.astype(np.float32)
        return labels


class PolicyNet(nn.Module):  # type: ignore[misc, unused-ignore]
    """A multilayer perceptron from the observation to one logit per action."""

    def __init__(self, inputs: int, actions: int, hidden: int, layers: int) -> None:
        super().__init__()
        parts: list[nn.Module] = []
        width = inputs
        for _ in range(layers):
            parts += [nn.Linear(width, hidden), nn.ReLU()]
            width = hidden
        parts.append(nn.Linear(width, actions))
        self.body = nn.Sequential(*parts)

    def forward(self, obs: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        """Logits with illegal actions at a large negative value."""
        logits: torch.Tensor = self.body(obs)
        return logits.masked_fill(~mask, -1e9)


def greedy(net: PolicyNet) -> Any:
    """The network as a fivedice policy: the most likely legal action."""

    def policy(observation: NDArray[Any], info: Mapping[str, Any]) -> int:
        with torch.no_grad():
            obs = torch.as_tensor(observation, dtype=torch.float32)[None]
            mask = torch.as_tensor(np.asarray(info["action_mask"], dtype=bool))[None]
            return int(net(obs, mask).argmax())

    return policy


@dataclass
class Buffer:
    """The labelled decisions seen so far (a ring of ``capacity`` rows)."""

    obs: FloatArray
    loss: FloatArray
    size: int = 0
    at: int = 0

    @classmethod
    def empty(cls, capacity: int, inputs: int, actions: int) -> Buffer:
        """A buffer for ``capacity`` decisions."""
        return cls(np.zeros((capacity, inputs), np.float32), np.zeros((capacity, actions), np.float32))

    def add(self, obs: FloatArray, loss: FloatArray) -> None:
        """Append rows, overwriting the oldest when full."""
        capacity = len(self.obs)
        rows = (self.at + np.arange(len(obs))) % capacity
        self.obs[rows], self.loss[rows] = obs, loss
        self.at = int(rows[-1] + 1) % capacity
        self.size = min(self.size + len(obs), capacity)


def objective(logits: torch.Tensor, loss: torch.Tensor, weight: float) -> torch.Tensor:
    """Cross-entropy on the best actions (ties share the probability) plus ``weight`` times the
    expected points lost by the network's own distribution, in units of 10 points."""
    legal = loss < ILLEGAL / 2
    best = loss <= 1e-6
    log_all = torch.logsumexp(logits, dim=1)
    log_best = torch.logsumexp(logits.masked_fill(~best, -1e9), dim=1)
    probs = torch.softmax(logits, dim=1)
    expected = (probs * loss.masked_fill(~legal, 0.0)).sum(dim=1) / 10.0
    return (log_all - log_best).mean() + weight * expected.mean()


class Trainer:
    """The collect-label-learn loop and its learning curve."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.envs = [SolitaireEnv(args.rules) for _ in range(args.envs)]
        self.teacher = Teacher(self.envs[0])
        first = self.envs[0]
        self.inputs = first.observation_space.shape[0]  # type: ignore[index]
        self.actions = first.codec.size
        self.rng = np.random.default_rng(args.seed)
        torch.manual_seed(args.seed)
        self.net = PolicyNet(self.inputs, self.actions, args.hidden, args.layers)
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=args.lr)
        self.buffer = Buffer.empty(args.buffer, self.inputs, self.actions)
        self.obs = np.stack([env.reset(seed=args.seed * 100_000 + i)[0] for i, env in enumerate(self.envs)])
        self.masks = np.stack([env.action_masks() for env in self.envs])
        self.games = 0
        self.labelled = 0
        self.scores: list[float] = []
        self.rows: list[tuple[int, int, float, float, float, float]] = []
        self.cpu0 = cpu_seconds()
        self.wall0 = time.monotonic()
        self.recent_loss = math.nan

    def collect(self, steps: int) -> None:
        """Every environment plays ``steps`` decisions; each is labelled and stored. The action is
        the solver's best with probability ``1 - mix``, else the network's (sampled), so the data
        covers the states the network itself reaches (DAgger)."""
        for _ in range(steps):
            loss = self.teacher.losses(self.envs)
            self.buffer.add(self.obs, loss)
            self.labelled += len(loss)
            with torch.no_grad():
                logits = self.net(torch.as_tensor(self.obs), torch.as_tensor(self.masks))
                sampled = torch.multinomial(torch.softmax(logits, dim=1), 1)[:, 0].numpy()
            expert = loss.argmin(axis=1)
            own = self.rng.random(len(self.envs)) < self.args.mix
            actions = np.where(own, sampled, expert)
            self.recent_loss = float(np.mean(loss[np.arange(len(loss)), logits.argmax(dim=1).numpy()]))
            for i, env in enumerate(self.envs):
                obs, _reward, done, _truncated, info = env.step(int(actions[i]))
                if done:
                    self.games += 1
                    self.scores.append(float(env.game_state.total(0)))
                    obs, info = env.reset()
                self.obs[i] = obs
                self.masks[i] = info["action_mask"].astype(bool)

    def learn(self, updates: int) -> None:
        """``updates`` Adam steps on random batches of the buffer."""
        for _ in range(updates):
            rows = self.rng.integers(0, self.buffer.size, self.args.batch)
            obs = torch.as_tensor(self.buffer.obs[rows])
            loss = torch.as_tensor(self.buffer.loss[rows])
            logits = self.net(obs, loss < ILLEGAL / 2)
            value = objective(logits, loss, self.args.regret_weight)
            self.optimizer.zero_grad()
            value.backward()  # type: ignore[no-untyped-call, unused-ignore]
            self.optimizer.step()

    def rate(self, updates: int, log: Path) -> None:
        """Play ``--eval-games`` greedy games and record the mean with the steps and CPU minutes."""
        self.net.eval()
        report = evaluate(greedy(self.net), self.args.rules, episodes=self.args.eval_games, seed=10_000, advisor=False)
        self.net.train()
        cpu = (cpu_seconds() - self.cpu0) / 60
        wall = (time.monotonic() - self.wall0) / 60
        row = (updates, self.labelled, round(cpu, 2), round(report.mean, 2), round(self.recent_loss, 4), round(wall, 2))
        self.rows.append(row)
        with log.open("a", newline="") as f:
            csv.writer(f).writerow(row)
        print(
            f"{updates:>7,} updates {self.labelled:>9,} decisions {cpu:6.1f} CPU min {wall:6.1f} min  "
            f"greedy mean {report.mean:6.1f}  loss/decision {self.recent_loss:.3f}",
            flush=True,
        )


def plot(rows: list[tuple[int, int, float, float, float, float]], final: Evaluation, path: Path) -> None:
    """The learning curve (greedy mean against CPU minutes) as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    cpu = [r[2] for r in rows]
    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=100)
    ax.plot(cpu, [r[3] for r in rows], marker=".", label="greedy policy, fresh games")
    if final.optimum is not None:
        ax.axhline(final.optimum, color="green", linestyle="--", label=f"optimum {final.optimum:.2f}")
    ax.axhline(240, color="red", linestyle=":", label="goal 240")
    ax.set_xlabel("CPU minutes (training, data and evaluations)")
    ax.set_ylabel("mean final score")
    ax.set_ylim(bottom=max(0.0, min(r[3] for r in rows) - 10) if rows else 0.0)
    ax.set_title(f"Imitating the solver on {final.spec}: {final.mean:.1f} ± {1.96 * final.stderr:.1f}")
    ax.legend(loc="lower right", fontsize="small")
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--rules", default="yahtzee", help="rule set spec (one score card)")
    parser.add_argument("--updates", type=int, default=6_000, help="Adam steps in all (the deterministic budget)")
    parser.add_argument("--minutes", type=float, default=60.0, help="wall-clock cap of the training")
    parser.add_argument("--cpu-minutes", type=float, default=60.0, help="CPU-time cap of the training")
    parser.add_argument("--envs", type=int, default=128, help="environments played side by side")
    parser.add_argument("--collect", type=int, default=16, help="decisions per environment between learning rounds")
    parser.add_argument("--learn", type=int, default=32, help="Adam steps per learning round")
    parser.add_argument("--batch", type=int, default=512)
    parser.add_argument("--hidden", type=int, default=256, help="units per hidden layer")
    parser.add_argument("--layers", type=int, default=3, help="hidden layers")
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--regret-weight", type=float, default=1.0, help="weight of the expected points lost")
    parser.add_argument("--mix", type=float, default=0.5, help="share of decisions the network takes while collecting")
    parser.add_argument("--buffer", type=int, default=2_000_000, help="decisions kept for learning")
    parser.add_argument(
        "--threads", type=int, default=1, help="PyTorch threads (1 on a shared machine: waiting threads spin)"
    )
    parser.add_argument("--eval-every", type=int, default=500, help="Adam steps between evaluations")
    parser.add_argument("--eval-games", type=int, default=300)
    parser.add_argument("--final-games", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("runs/imitation"))
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> Evaluation:
    """Train, save the network, rate it with the advisor and draw the curve."""
    args = parse(argv)
    torch.set_num_threads(args.threads)
    args.out.mkdir(parents=True, exist_ok=True)
    log = args.out / "curve.csv"
    log.write_text("updates,decisions,cpu_minutes,greedy_mean,loss_per_decision,minutes\n")
    trainer = Trainer(args)
    cpu_deadline = trainer.cpu0 + args.cpu_minutes * 60
    deadline = trainer.wall0 + args.minutes * 60
    updates = 0
    while updates < args.updates and cpu_seconds() < cpu_deadline and time.monotonic() < deadline:
        trainer.collect(args.collect)
        step = min(args.learn, args.updates - updates)
        trainer.learn(step)
        if updates // args.eval_every != (updates + step) // args.eval_every:
            trainer.rate(updates + step, log)
        updates += step
    if not trainer.rows or trainer.rows[-1][0] != updates:
        trainer.rate(updates, log)
    train_cpu = cpu_seconds() - trainer.cpu0
    torch.save(trainer.net.state_dict(), args.out / "policy.pt")
    trainer.net.eval()
    final = evaluate(greedy(trainer.net), args.rules, episodes=args.final_games, seed=20_000)
    summary = (
        f"{final.summary()}\n"
        f"training: {updates} updates, {trainer.labelled} labelled decisions, {trainer.games} games, "
        f"{train_cpu / 60:.1f} CPU minutes, {(time.monotonic() - trainer.wall0) / 60:.1f} minutes with this rating"
    )
    print(summary)
    (args.out / "final.txt").write_text(summary + "\n")
    plot(trainer.rows, final, args.out / "learning_curve.png")
    return final


if __name__ == "__main__":
    main()
