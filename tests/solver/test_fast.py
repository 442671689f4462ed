"""Fast chances (issue 27): the per-state moments against the exact distribution, their file, the
exact late game against the exact tables, and the numpy path (hints) against the numba one."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from fivedice import rules
from fivedice.dice import RandomRoller
from fivedice.engine.scorecard import Scorecard
from fivedice.engine.state import GameState
from fivedice.players.solved import OptimalPlayer
from fivedice.solver import fast, solve
from fivedice.solver.advisor import Solver
from fivedice.solver.chances import Distribution, chance_options, chance_table, distribution, mixture_options
from tests.solver.test_bruteforce import CASES, reachable_cards


@pytest.mark.parametrize("name", ["forced-joker-bonus", "tiers-two-rolls", "free-joker"])
def test_moments_match_the_exact_distribution(name: str) -> None:
    rs = CASES[name]
    solver = solve(rs, cache=False)
    found = fast.build_moments(solver)
    assert found.mean.shape[0] == len(fast.LAMBDAS)
    assert fast.LAMBDAS[0] == 0.0
    for card in [Scorecard.empty(rs), *sorted(reachable_cards(rs), key=lambda c: str(c.entries))[:8]]:
        if card.is_full:
            continue
        dist = distribution(solver, card, cache=False)
        x = dist.scores.astype(np.float64) - card.total
        mean = float(x @ dist.probs)
        sd = float(np.sqrt(((x - mean) ** 2) @ dist.probs))
        c = int(found.at[solver.state_index(card)])
        assert float(found.mean[0, c]) == pytest.approx(mean, abs=1e-3)
        assert float(found.sd[0, c]) == pytest.approx(sd, abs=1e-3)
        if sd > 0.5:
            skew = float(((x - mean) ** 3) @ dist.probs) / sd**3
            assert float(found.skew[0, c]) == pytest.approx(skew, abs=1e-3)


def test_moments_file_round_trip_and_refusals(tmp_path: Path) -> None:
    rs = CASES["forced-joker-bonus"]
    solver = solve(rs, cache=False)
    found = fast.build_moments(solver)
    path = tmp_path / fast.file_name(solver)
    fast.save_moments(solver, found, path)
    back = fast.load_moments(solver, path)
    assert back is not None
    reach = solver.table.reach
    assert np.allclose(back.sd, found.sd, rtol=2e-3, atol=1e-2)
    assert np.allclose(back.mean, found.mean, atol=0.05)
    assert back.at[np.flatnonzero(reach)].tolist() == list(range(int(reach.sum())))
    damaged = path.read_bytes()
    path.write_bytes(damaged[:-3] + bytes(3))
    assert fast.load_moments(solver, path) is None  # the checksum refuses it
    other = solve(CASES["free-joker"], cache=False)
    fast.save_moments(solver, found, path)
    assert fast.load_moments(other, path) is None  # another rule set's


@pytest.mark.parametrize("name", ["forced-joker-bonus", "tiers-two-rolls"])
def test_late_game_is_exact(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every situation of a tiny rule set falls in the exact late game: both paths give the exact
    tables' chances, option for option."""
    rs = CASES[name]
    monkeypatch.setattr(fast, "EXACT_OPEN", len(rs.boxes))
    jit = solve(rs, cache=False)
    plain = Solver(jit.table, jit=False)
    target, beat = chance_table(jit, 60, cache=False), chance_table(jit, 60, half=0.5, cache=False)
    rival = Distribution(np.arange(5, 25, dtype=np.int64), np.full(20, 0.05))
    rng = random.Random(1)
    for card in sorted(reachable_cards(rs), key=lambda c: str(c.entries))[:10]:
        if card.is_full:
            continue
        dice = tuple(sorted(rng.randint(1, 6) for _ in range(rs.dice)))
        for left in range(rs.rolls):
            need = card.total + 12
            exact = {o.key: o.value for o in chance_options(target, card, dice, left, need)}
            versus = {o.key: o.value for o in mixture_options(beat, card, dice, left, rival)}
            for solver in (jit, plain):
                got = {o.key: o.value for o in fast.fast_options(solver, card, dice, left, need)}
                assert got == pytest.approx(exact, abs=1e-6)
                mix = {o.key: o.value for o in fast.fast_mixture_options(solver, card, dice, left, rival)}
                assert mix == pytest.approx(versus, abs=1e-6)


def test_numpy_and_numba_paths_agree() -> None:
    """Hints (numpy, no numba) and the computer players (numba) value every option alike."""
    rs = rules.get("yacht")
    jit = solve(rs)
    plain = Solver(jit.table, jit=False)
    player = OptimalPlayer(rs)
    rng = random.Random(7)
    rival = Distribution(np.arange(120, 200, dtype=np.int64), np.full(80, 1 / 80))
    seen = 0
    state = GameState.new(rs, ("A",))
    roller = RandomRoller(random.Random(3))
    while not state.is_over:
        if state.dice is not None and rng.random() < 0.3:
            card = state.cards[0][0]
            for a, b in (
                (fast.fast_options(jit, card, state.dice, state.rolls_left, card.total + 60),
                 fast.fast_options(plain, card, state.dice, state.rolls_left, card.total + 60)),
                (fast.fast_mixture_options(jit, card, state.dice, state.rolls_left, rival),
                 fast.fast_mixture_options(plain, card, state.dice, state.rolls_left, rival)),
            ):  # fmt: skip
                assert {o.key: o.value for o in a} == pytest.approx({o.key: o.value for o in b}, abs=1e-4)
            seen += 1
        state = state.step(player.choose(state), roller)[0]
    assert seen > 5


def test_situation_tables_are_not_hoarded(shipped_tables: Path) -> None:
    """One thread keeps only its latest situation table (each holds two arrays the size of the state space,
    8 MB for Yahtzee): a simulation of ``win`` games held 65 of them, 1.35 GB after 20 games. On the shipped
    tables and moments (built here, they took 25 of the test's 27 s)."""
    import tracemalloc

    rs = rules.get("yahtzee")
    solver = solve(rs)
    cards = [Scorecard.empty(rs).fill(box, (1, 2, 3, 4, 5)) for box in ("ones", "twos", "threes", "fours")]
    states = [solver.state_index(card) for card in cards]
    fast.situation_table(solver, states[0], 0.5, 100)  # the moments loaded before tracing
    fast._LAST.clear()
    tracemalloc.start()
    try:
        fast.situation_table(solver, states[0], 0.5, 100)
        one = tracemalloc.get_traced_memory()[0]
        for state in states[1:]:
            fast.situation_table(solver, state, 0.5, 100)
        held = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
        fast._LAST.clear()
    assert held < 1.5 * one, f"{held / 1e6:.1f} MB held after {len(states)} situations, {one / 1e6:.1f} MB after one"
