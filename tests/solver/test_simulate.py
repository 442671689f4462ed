"""The optimal-play simulation kernel."""

from __future__ import annotations

import numpy as np
import pytest

from fivedice import rules
from fivedice.services.sim import policy_of
from fivedice.solver import Solver, solve
from fivedice.solver.simulate import LevelPolicy, simulate_level, simulate_optimal


def test_same_seed_same_games_whatever_the_threads(yahtzee: Solver) -> None:
    one = simulate_optimal(yahtzee, games=600, seed=7, threads=1)
    two = simulate_optimal(yahtzee, games=600, seed=7, threads=2)
    assert np.array_equal(one.totals, two.totals)
    assert np.array_equal(one.box_points, two.box_points)
    other = simulate_optimal(yahtzee, games=600, seed=8, threads=2)
    assert not np.array_equal(one.totals, other.totals)


def test_totals_add_up_and_mean_is_near_optimal(yahtzee: Solver) -> None:
    r = simulate_optimal(yahtzee, games=4000, seed=3)
    rebuilt = r.box_points.sum(axis=1) + r.upper_bonus + 100 * r.yahtzee_bonuses
    assert np.array_equal(r.totals, rebuilt)
    upper = r.box_points[:, :6].sum(axis=1)
    assert np.array_equal(r.upper_bonus > 0, upper >= 63)
    # 4000 games: standard error about 0.95
    assert abs(r.mean - yahtzee.expected_score) < 4.5
    assert 50 < r.std < 70
    rates = r.zero_rates()
    assert 0.5 < rates["yahtzee"] < 0.8
    assert rates["chance"] == 0.0
    assert 0.6 < r.upper_bonus_rate < 0.8


def test_generala_simulation() -> None:
    solver = solve(rules.get("generala"), cache=False)
    r = simulate_optimal(solver, games=2000, seed=11)
    assert abs(r.mean - solver.expected_score) < 4
    assert r.upper_bonus.max() == 0
    assert r.yahtzee_bonuses.max() == 0
    assert np.array_equal(r.totals, r.box_points.sum(axis=1))
    # first-roll points appear: a served straight scores 25
    assert 25 in set(r.box_points[:, rules.get("generala").box_index("straight")].tolist())


def test_one_and_four_roll_rule_sets() -> None:
    from tests.solver.test_bruteforce import CASES

    for name in ("one-roll", "four-rolls-two-dice"):
        solver = solve(CASES[name], cache=False)
        r = simulate_optimal(solver, games=3000, seed=5)
        assert abs(r.mean - solver.expected_score) < 4 * r.std / np.sqrt(r.games) + 1e-9


@pytest.mark.parametrize("level", ["random", "greedy", "easy", "hard"])
def test_compiled_levels_play_as_the_python_players(yahtzee: Solver, level: str) -> None:
    """The compiled simulator's games of a level have the Python player's mean score (the same
    policy on other dice): within four standard errors of their difference."""
    from fivedice.services.sim import simulate

    rs = yahtzee.rules
    python = simulate(rs, [level], 250, seed=5, workers=1, fast=False).totals[:, 0]
    fast = simulate_level(yahtzee, policy_of(level), 10_000, seed=5)
    error = np.sqrt(python.var() / python.size + fast.totals.var() / fast.games)
    assert abs(float(python.mean()) - fast.mean) < 4 * error


def test_compiled_levels_are_seeded_and_optimal_is_unchanged(yahtzee: Solver) -> None:
    easy = policy_of("easy")
    one = simulate_level(yahtzee, easy, 600, seed=7, threads=1)
    two = simulate_level(yahtzee, easy, 600, seed=7, threads=2)
    assert np.array_equal(one.box_points, two.box_points)
    assert not np.array_equal(one.totals, simulate_level(yahtzee, easy, 600, seed=7, salt=1).totals)
    optimal = simulate_optimal(yahtzee, games=300, seed=9)
    assert np.array_equal(simulate_level(yahtzee, LevelPolicy(), 300, seed=9).totals, optimal.totals)
    rebuilt = one.box_points.sum(axis=1) + one.upper_bonus + 100 * one.yahtzee_bonuses
    assert np.array_equal(one.totals, rebuilt)


def test_only_solitaire_games_of_compiled_levels_are_compiled() -> None:
    """Several seats stay with the Python players (one shared run of dice keeps runs paired)."""
    from fivedice.services.sim import compiled, simulate

    rs = rules.get("yacht")
    assert simulate(rs, ["greedy"], 50, seed=3, workers=1).engine == "numba"
    assert simulate(rs, ["greedy", "random"], 5, seed=3, workers=1).engine == "python"
    assert not compiled(rs, ["tali"])
    assert compiled(rules.get("generala"), ["easy"])
