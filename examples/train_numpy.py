"""Train a small actor-critic agent on ``fivedice/Solitaire-v0`` with plain numpy.

A one-hidden-layer policy and value network learn from batches of whole games
(REINFORCE with a learned baseline, masked softmax over the legal actions, Adam). It
then plays fresh games and prints its mean score, its gap to the exact optimum and its
mean loss per decision by the advisor.

    .venv/bin/python examples/train_numpy.py --games 30000 --rules yahtzee
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from fivedice.rl import SolitaireEnv

Array = NDArray[np.float64]


class Dense:
    """A two-layer perceptron (tanh hidden layer) with Adam updates."""

    def __init__(self, n_in: int, n_hidden: int, n_out: int, rng: np.random.Generator, lr: float) -> None:
        self.params = [
            rng.normal(0, 1 / np.sqrt(n_in), (n_in, n_hidden)),
            np.zeros(n_hidden),
            rng.normal(0, 0.01, (n_hidden, n_out)),
            np.zeros(n_out),
        ]
        self.m = [np.zeros_like(p) for p in self.params]
        self.v = [np.zeros_like(p) for p in self.params]
        self.t = 0
        self.lr = lr

    def forward(self, x: Array) -> tuple[Array, Array]:
        hidden = np.tanh(x @ self.params[0] + self.params[1])
        return hidden @ self.params[2] + self.params[3], hidden

    def update(self, x: Array, hidden: Array, grad_out: Array) -> None:
        """One Adam step down the gradient ``grad_out`` of the loss w.r.t. the outputs."""
        grad_hidden = (grad_out @ self.params[2].T) * (1 - hidden**2)
        grads = [x.T @ grad_hidden, grad_hidden.sum(0), hidden.T @ grad_out, grad_out.sum(0)]
        self.t += 1
        for p, g, m, v in zip(self.params, grads, self.m, self.v, strict=True):
            m *= 0.9
            m += 0.1 * g
            v *= 0.999
            v += 0.001 * g * g
            p -= self.lr * (m / (1 - 0.9**self.t)) / (np.sqrt(v / (1 - 0.999**self.t)) + 1e-8)


class Agent:
    """Masked-softmax policy and value baseline over the scaled observation."""

    def __init__(self, env: SolitaireEnv, hidden: int, lr: float, seed: int) -> None:
        self.rng = np.random.default_rng(seed)
        # The environment scales observations to [0, 1] by default; raw ones are scaled here.
        self.scale = 1.0 if env.scaled else 1.0 / np.asarray(env.layout.space().high, dtype=np.float64)
        n_obs, n_act = env.layout.size, env.codec.size
        self.pi = Dense(n_obs, hidden, n_act, self.rng, lr)
        self.vf = Dense(n_obs, hidden, 1, self.rng, lr)
        self.greedy = False

    def probs(self, x: Array, mask: NDArray[Any]) -> tuple[Array, Array]:
        logits, hidden = self.pi.forward(x)
        logits = np.where(mask > 0, logits, -1e9)
        logits -= logits.max(axis=-1, keepdims=True)
        e = np.exp(logits)
        return e / e.sum(axis=-1, keepdims=True), hidden

    def __call__(self, observation: NDArray[Any], info: Mapping[str, Any]) -> int:
        """A fivedice.rl policy: sample (or, once trained, take the most likely action)."""
        p, _ = self.probs((observation * self.scale)[None], info["action_mask"][None])
        return int(p[0].argmax()) if self.greedy else int(self.rng.choice(p.shape[1], p=p[0]))

    def learn(self, xs: Array, masks: Array, actions: NDArray[np.int64], returns: Array, entropy: float) -> None:
        n = len(actions)
        values, v_hidden = self.vf.forward(xs)
        advantage = returns - values[:, 0]
        advantage = (advantage - advantage.mean()) / (advantage.std() + 1e-8)
        self.vf.update(xs, v_hidden, (values - returns[:, None]) / n)
        p, hidden = self.probs(xs, masks)
        grad = p.copy()
        grad[np.arange(n), actions] -= 1
        grad *= advantage[:, None] / n
        logp = np.log(np.where(p > 0, p, 1.0))
        ent_grad = p * (logp + (p * logp).sum(axis=1, keepdims=True) * -1)  # d(-entropy)/dlogits
        grad += entropy * ent_grad / n
        self.pi.update(xs, hidden, grad)


def train(args: argparse.Namespace) -> Agent:
    envs = [SolitaireEnv(args.rules) for _ in range(args.batch)]
    agent = Agent(envs[0], args.hidden, args.lr, args.seed)
    games, start, recent = 0, time.perf_counter(), []
    while games < args.games:
        xs, masks, acts, rets = [], [], [], []
        for k, env in enumerate(envs):
            obs, info = env.reset(seed=args.seed * 1_000_003 + games + k)
            ep_x, ep_m, ep_a, ep_r = [], [], [], []
            done = False
            while not done:
                x = obs * agent.scale
                a = agent(obs, info)
                ep_x.append(x)
                ep_m.append(info["action_mask"])
                ep_a.append(a)
                obs, r, done, _, info = env.step(a)
                ep_r.append(r / 50.0)
            xs += ep_x
            masks += ep_m
            acts += ep_a
            rets += list(np.cumsum(ep_r[::-1])[::-1])
            recent.append(sum(ep_r) * 50)
        games += len(envs)
        agent.learn(np.array(xs), np.array(masks), np.array(acts), np.array(rets), args.entropy)
        if games % args.report < len(envs) or games >= args.games:
            took = time.perf_counter() - start
            print(f"{games:7d} games  mean of last {len(recent)}: {np.mean(recent):6.1f}  ({took:.0f} s)", flush=True)
            recent = []
    return agent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="yahtzee", help="rule set spec, e.g. 'yahtzee joker=free'")
    parser.add_argument("--games", type=int, default=30_000, help="training games")
    parser.add_argument("--batch", type=int, default=32, help="games per update")
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--entropy", type=float, default=0.01)
    parser.add_argument("--eval", type=int, default=1000, help="evaluation games")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--report", type=int, default=800, help="print progress every this many games")
    args = parser.parse_args()
    agent = train(args)
    agent.greedy = True
    from fivedice.rl.evaluate import evaluate

    report = evaluate(agent, args.rules, episodes=args.eval, seed=10**6 + args.seed)
    print(report.summary())


if __name__ == "__main__":
    main()
