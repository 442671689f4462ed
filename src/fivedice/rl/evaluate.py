"""Measure a policy against the exact optimum: mean score, gap, and loss per decision.

The mean score of a policy converges slowly (Yahtzee's standard deviation is near 60
points, so 10,000 games still leave +-1.2 at 95%). The advisor gives a far finer
signal: for every decision it knows the expected final score of each option, so the
points the chosen option *loses* against the best one are exact, and their sum over a
game is an unbiased, low-variance estimate of the gap to optimal play.

>>> from fivedice.rl.policies import MaskedRandomPolicy
>>> report = evaluate(MaskedRandomPolicy(seed=0), "yacht", episodes=5, seed=1, advisor=False)
>>> report.episodes, report.optimum is None, report.decisions > 5 * 12
(5, True, True)
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from numpy.typing import NDArray

from fivedice.engine.actions import Action, Roll, Score
from fivedice.engine.state import GameState
from fivedice.errors import FiveDiceError
from fivedice.i18n import _
from fivedice.rl.solitaire import SolitaireEnv
from fivedice.rl.spaces import EnvSetupError
from fivedice.rules import RuleSet

if TYPE_CHECKING:
    from fivedice.solver import Solver

__all__ = ["Evaluation", "advisor_loss", "evaluate"]


@dataclass(frozen=True, slots=True)
class Evaluation:
    """What :func:`evaluate` measured. ``optimum`` and ``total_loss`` are None when the
    solver does not handle the rule set (or ``advisor=False``). ``mean`` is the mean final
    score (penalties for illegal actions are not points); ``illegal`` counts the illegal
    actions tried and ``truncated`` the games cut short by them (they count as played, with
    the score reached)."""

    spec: str
    episodes: int
    mean: float
    stdev: float
    decisions: int
    optimum: float | None
    total_loss: float | None
    illegal: int = 0
    truncated: int = 0

    @property
    def stderr(self) -> float:
        """The standard error of the mean score."""
        return self.stdev / math.sqrt(self.episodes) if self.episodes else math.nan

    @property
    def gap(self) -> float | None:
        """The optimum's expected score minus the mean score."""
        return None if self.optimum is None else self.optimum - self.mean

    @property
    def mean_loss(self) -> float | None:
        """Expected points lost per decision, by the advisor."""
        return None if self.total_loss is None else self.total_loss / max(self.decisions, 1)

    @property
    def loss_per_game(self) -> float | None:
        """Expected points lost per game: an estimate of the gap with far less noise."""
        return None if self.total_loss is None else self.total_loss / max(self.episodes, 1)

    def summary(self) -> str:
        """The report in a few lines of text."""
        lines = [
            f"{self.spec}: {self.episodes} games, mean {self.mean:.2f} +- {1.96 * self.stderr:.2f} (95%), "
            f"sd {self.stdev:.1f}, {self.decisions} decisions"
        ]
        if self.optimum is not None and self.gap is not None:
            lines.append(f"optimum {self.optimum:.4f}: gap {self.gap:.2f} points")
        if self.mean_loss is not None and self.loss_per_game is not None:
            lines.append(f"advisor: {self.mean_loss:.4f} points lost per decision, {self.loss_per_game:.2f} per game")
        if self.illegal:
            lines.append(f"illegal actions: {self.illegal}, games cut short by them: {self.truncated}")
        return "\n".join(lines)


def _advisor(rules: RuleSet) -> Solver | None:
    """The solver of ``rules`` (shared with the solver-based players), or None when it does
    not handle them."""
    from fivedice.players.solved import solver_for

    try:
        solver: Solver = solver_for(rules)
    except FiveDiceError:
        return None
    return solver


def advisor_loss(solver: Solver, state: GameState, action: Action) -> float:
    """The expected points ``action`` loses against the best move in ``state`` (one card)."""
    assert state.dice is not None
    options = solver.advise(state.cards[state.current][0], state.dice, state.rolls_left)
    if isinstance(action, Roll):
        kept = tuple(sorted(state.dice[p] for p in action.held))
        found = [o for o in options if o.action == "keep" and tuple(o.dice) == kept]
    elif isinstance(action, Score):
        box = state.rules.boxes[state.rules.box_index(action.box)].name
        found = [o for o in options if o.action == "score" and o.box == box]
    else:
        found = []
    if not found:
        raise FiveDiceError(
            _("The advisor has no option for {action!r}; expected it to rate every legal move.", action=action)
        )
    return float(found[0].loss)


def evaluate(
    policy: Callable[[NDArray[Any], Mapping[str, Any]], int],
    rules: RuleSet | str = "yahtzee",
    *,
    episodes: int = 1000,
    seed: int = 0,
    advisor: bool = True,
    options: Mapping[str, object] | None = None,
) -> Evaluation:
    """Play ``episodes`` games of ``rules`` with ``policy`` (game ``i`` seeded ``seed + i``).

    With ``advisor`` (and a rule set the solver handles) every decision is rated by the
    solver's advice, and the optimum's expected score is reported beside the mean.
    """
    if isinstance(episodes, bool) or not isinstance(episodes, int) or episodes < 1:
        raise EnvSetupError(_("Episode count {count!r} is not valid; expected a whole number from 1.", count=episodes))
    env = SolitaireEnv(rules, options, state_info=True)
    solver = _advisor(env.rules) if advisor else None
    scores: list[float] = []
    decisions, loss, cut = 0, 0.0, 0
    illegal = 0
    for i in range(episodes):
        obs, info = env.reset(seed=seed + i)
        done = truncated = False
        while not (done or truncated):
            action = policy(obs, info)
            if solver is not None:
                state = info["state"]
                intent = env.codec.decode(action, state)
                if state.can(intent):
                    loss += advisor_loss(solver, state, intent)
            decisions += 1
            obs, _reward, done, truncated, info = env.step(action)
        illegal += env.illegal_count
        cut += 1 if truncated and not done else 0
        scores.append(float(info["state"].total(0)))
    mean = sum(scores) / len(scores)
    var = sum((s - mean) ** 2 for s in scores) / (len(scores) - 1) if len(scores) > 1 else 0.0
    optimum = float(solver.expected_score) if solver is not None else None
    return Evaluation(
        env.rules.spec,
        episodes,
        mean,
        math.sqrt(var),
        decisions,
        optimum,
        loss if solver is not None else None,
        illegal,
        cut,
    )
