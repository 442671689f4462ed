"""Simulation: determinism across workers, statistics, plots and the ``simulate`` command."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from fivedice import rules
from fivedice.cli import main
from fivedice.errors import FiveDiceError
from fivedice.services.sim import CHUNK, PERCENTILES, SimulationError, chunk_seeds, plot_histogram, simulate


@pytest.fixture(scope="module")
def duel() -> object:
    return simulate(rules.get("yacht"), ["greedy", "random"], CHUNK + 30, seed=7, workers=1)


def test_same_seed_same_result_whatever_the_workers(duel: object) -> None:
    other = simulate(rules.get("yacht"), ["greedy", "random"], CHUNK + 30, seed=7, workers=2)
    assert np.array_equal(duel.totals, other.totals)  # type: ignore[attr-defined]
    assert np.array_equal(duel.boxes, other.boxes)  # type: ignore[attr-defined]
    different = simulate(rules.get("yacht"), ["greedy", "random"], 30, seed=8, workers=1)
    assert not np.array_equal(duel.totals[:30], different.totals)  # type: ignore[attr-defined]


def test_chunk_seeds_differ_by_chunk_and_seat() -> None:
    dice0, players0 = chunk_seeds(1, 0, 2)
    dice1, players1 = chunk_seeds(1, 1, 2)
    assert len({dice0, dice1, *players0, *players1}) == 6
    assert chunk_seeds(1, 0, 2) == (dice0, players0)


def test_statistics_follow_the_recorded_games(duel: object) -> None:
    from fivedice.services.sim import SimResult

    assert isinstance(duel, SimResult)
    assert duel.games == CHUNK + 30
    # Every game's box entries and bonuses add up to its total.
    recomputed = duel.boxes.sum(axis=(2, 3)) + duel.upper_bonus.sum(axis=2)
    assert np.array_equal(recomputed, duel.totals)
    assert np.allclose(duel.win_share.sum(axis=1), 1.0)
    greedy, rand = duel.stats()
    assert greedy.mean == pytest.approx(float(duel.totals[:, 0].mean()))
    assert greedy.std == pytest.approx(float(duel.totals[:, 0].std()))
    assert list(greedy.percentiles) == list(PERCENTILES)
    assert greedy.percentiles[1] <= greedy.percentiles[25] <= greedy.median <= greedy.percentiles[99]
    yacht_zero = float((duel.boxes[:, 0, 0, rules.get("yacht").box_index("yacht")] == 0).mean())
    assert greedy.zero_rate["yacht"] == pytest.approx(yacht_zero)
    assert greedy.mean > rand.mean + 60
    assert greedy.win_rate is not None
    assert rand.win_rate is not None
    assert greedy.win_rate + rand.win_rate == pytest.approx(1.0)
    assert greedy.win_ci is not None
    assert greedy.win_ci[0] < greedy.win_rate <= greedy.win_ci[1] <= 1.0
    assert greedy.wins is not None
    assert greedy.wins > 100
    assert greedy.upper_bonus_rate == 0.0  # Yacht has no upper bonus


def test_solitaire_has_no_win_rate_and_counts_bonuses() -> None:
    result = simulate(rules.get("yahtzee"), ["greedy"], 40, seed=3, workers=1)
    (stats,) = result.stats()
    assert stats.win_rate is None
    assert stats.win_ci is None
    assert stats.upper_bonus_rate == pytest.approx(float((result.upper_bonus[:, 0, 0] == 35).mean()))
    extra = result.extra_yahtzees[:, 0, 0]
    assert stats.yahtzee_bonus_rate == pytest.approx(float((extra > 0).mean()))
    data = result.to_json()
    assert data["seats"][0]["strategy"] == "greedy"
    assert json.loads(json.dumps(data)) == data


def test_bad_requests_fail_before_running() -> None:
    rs = rules.get("yahtzee")
    with pytest.raises(SimulationError, match="Number of games 0"):
        simulate(rs, ["greedy"], 0)
    with pytest.raises(FiveDiceError, match="'genius' is unknown"):
        simulate(rs, ["genius"], 10)
    with pytest.raises(SimulationError, match="at least one strategy"):
        simulate(rs, [], 10)


def test_plot_writes_a_png(tmp_path: Path, duel: object) -> None:
    from fivedice.services.sim import SimResult

    assert isinstance(duel, SimResult)
    path = tmp_path / "scores.png"
    plot_histogram(duel, path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_simulate_command_json_and_table(tmp_path: Path) -> None:
    runner = CliRunner()
    args = ["simulate", "yacht", "--strategy", "greedy", "--games", "25", "--json", "--workers", "1"]
    out = runner.invoke(main, args)
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert data["games"] == 25
    assert data["seats"][0]["strategy"] == "greedy"
    plot = tmp_path / "h.png"
    args = ["simulate", "yacht", "--players", "2", "--strategies", "greedy,random", "--games", "20"]
    out = runner.invoke(main, [*args, "--plot", str(plot), "--workers", "1"])
    assert out.exit_code == 0, out.output
    assert "win rate" in out.output
    assert "seat 2: random" in out.output
    assert plot.exists()


def test_simulate_command_rejects_mismatched_seats() -> None:
    out = CliRunner().invoke(main, ["simulate", "yacht", "--players", "3", "--strategies", "greedy,random"])
    assert out.exit_code == 2
    assert "does not match" in out.output


@pytest.fixture
def _solver_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FIVEDICE_CACHE_DIR", str(tmp_path / "cache"))


@pytest.mark.usefixtures("_solver_cache")
def test_optimal_yahtzee_reaches_the_known_mean_at_reduced_size() -> None:
    rs = rules.get("yahtzee")
    games = 10_000
    one = simulate(rs, ["optimal"], games, seed=2026, workers=1)
    two = simulate(rs, ["optimal"], games, seed=2026, workers=2)
    assert one.engine == "numba"
    assert np.array_equal(one.totals, two.totals)
    stats = one.stats()[0]
    # 254.59 is the exact optimum; four standard errors of a 10,000-game mean is 2.4.
    assert abs(stats.mean - 254.59) < 4 * 59.6 / games**0.5
    assert abs(stats.std - 59.6) < 1.5
    assert 0.6 < stats.upper_bonus_rate < 0.75
    assert stats.zero_rate["yahtzee"] == pytest.approx(1 - 0.34, abs=0.03)
