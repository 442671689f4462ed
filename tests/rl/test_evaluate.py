"""The evaluation helper: score statistics, and the advisor's gap and loss per decision."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from fivedice import rules
from fivedice.errors import FiveDiceError
from fivedice.rl import SolitaireEnv
from fivedice.rl.evaluate import Evaluation, evaluate
from fivedice.rl.policies import MaskedRandomPolicy, strategy_policy


def test_statistics_match_the_games_played() -> None:
    report = evaluate(MaskedRandomPolicy(seed=2), "yacht", episodes=6, seed=10, advisor=False)
    env, policy, scores, decisions = SolitaireEnv("yacht"), MaskedRandomPolicy(seed=2), [], 0
    for i in range(6):
        obs, info = env.reset(seed=10 + i)
        done = False
        while not done:
            obs, _, done, _, info = env.step(policy(obs, info))
            decisions += 1
        scores.append(env.game_state.total(0))
    assert report.mean == pytest.approx(np.mean(scores))
    assert report.stdev == pytest.approx(np.std(scores, ddof=1))
    assert report.stderr == pytest.approx(report.stdev / math.sqrt(6))
    assert report.decisions == decisions
    assert (report.optimum, report.gap, report.mean_loss, report.loss_per_game) == (None, None, None, None)
    assert report.summary().startswith("yacht: 6 games, mean ")


def test_a_policy_that_only_plays_illegal_actions_still_ends() -> None:
    report = evaluate(lambda o, i: 0, "yahtzee", episodes=1)
    assert (report.episodes, report.mean, report.illegal, report.truncated) == (1, 0.0, 50, 1)
    assert report.decisions == 50
    assert "illegal actions: 50, games cut short by them: 1" in report.summary()


def test_bad_episode_counts_are_refused() -> None:
    with pytest.raises(FiveDiceError, match="Episode count"):
        evaluate(MaskedRandomPolicy(), "yacht", episodes=0)


def test_rule_sets_beyond_the_solver_report_no_optimum() -> None:
    report = evaluate(MaskedRandomPolicy(seed=0), "yahtzee cards=jetsi", episodes=1)
    assert report.optimum is None
    assert report.total_loss is None


def test_the_summary_names_gap_and_loss() -> None:
    report = Evaluation("yahtzee", 100, 250.0, 60.0, 3900, 254.5896, 390.0)
    assert report.gap == pytest.approx(4.5896)
    assert report.mean_loss == pytest.approx(0.1)
    assert report.loss_per_game == pytest.approx(3.9)
    text = report.summary()
    assert "gap 4.59 points" in text
    assert "0.1000 points lost per decision, 3.90 per game" in text


class ScoreFirst:
    """Scores the first legal box at once (never rerolls): a poor, deterministic policy."""

    def __call__(self, observation: NDArray[Any], info: Mapping[str, Any]) -> int:
        mask = info["action_mask"]
        return int(np.flatnonzero(mask[32:])[0]) + 32


def test_the_advisor_rates_optimal_play_as_lossless_and_poor_play_as_costly() -> None:
    pytest.importorskip("fivedice.solver")
    optimal = evaluate(strategy_policy("optimal", rules.get("yacht")), "yacht", episodes=20, seed=0)
    assert optimal.optimum is not None
    assert optimal.total_loss == pytest.approx(0.0, abs=1e-6)
    poor = evaluate(ScoreFirst(), "yacht", episodes=20, seed=0)
    assert poor.mean_loss is not None
    assert poor.loss_per_game is not None
    assert poor.gap is not None
    assert poor.mean_loss > 1.0
    # The summed losses estimate the gap (unbiased); with 20 games they agree loosely.
    assert poor.loss_per_game == pytest.approx(poor.gap, rel=0.5)


def test_optimal_play_through_the_env_matches_the_optimum() -> None:
    """A reduced acceptance check (examples/optimal_check.py runs the full 10^4 games)."""
    pytest.importorskip("fivedice.solver")
    policy = strategy_policy("optimal", rules.get("yahtzee"))
    rated = evaluate(policy, "yahtzee", episodes=15, seed=100)
    assert rated.optimum == pytest.approx(254.5877, abs=1e-3)
    assert rated.total_loss == pytest.approx(0.0, abs=1e-6)  # every env action is the advisor's best
    report = evaluate(policy, "yahtzee", episodes=250, seed=0, advisor=False)
    assert abs(report.mean - 254.59) < 4 * 60 / math.sqrt(250)
