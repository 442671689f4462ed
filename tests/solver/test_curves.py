"""Shipped threshold curves (issue 27 item 2): the knots against the exact threshold table they come
from, their file, and the fast chances reading them where they ship."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from fivedice import rules
from fivedice.engine.scorecard import Scorecard
from fivedice.solver import curves, fast, solve
from fivedice.solver.chances import build_chances
from fivedice.solver.chancestream import plan
from tests.solver.test_bruteforce import CASES


def test_knots_give_back_the_exact_threshold_curves() -> None:
    """Each state's curve read back from its knots is within a few points of chance of the exact one,
    at every need; exact at the levels' crossings by construction."""
    rs = CASES["forced-joker-bonus"]
    solver = solve(rs, cache=False)
    found = curves.build_curves(solver)
    table = build_chances(solver, curves.CAP)
    p = plan(solver, curves.CAP)
    worst = []
    for s in p.states.tolist():
        n = int(table.glen[s])
        exact = table.G[table.goff[s] : table.goff[s] + n].astype(np.float64)
        x = found.knots(s)
        assert np.all(np.diff(x) >= 0)
        back = curves.curve_values(x, np.arange(n, dtype=np.float64))
        worst.append(float(np.abs(back[1:] - exact[1:]).max(initial=0.0)))
        # the crossings themselves: the exact row is above each level before its knot, below after it
        # (the knot rounded to the nearest step of 1 / QUANT)
        step = 0.5 / curves.QUANT
        for level, k in zip(curves.LEVELS.tolist(), x.tolist(), strict=True):
            if k < n - 1:
                assert exact[max(int(np.floor(k - step)), 0)] >= level - 1e-6
                assert exact[min(int(np.floor(k + step)) + 1, n - 1)] <= level + 1e-6
    assert np.mean(worst) < 0.15  # a tiny rule set's curves are steps of a few lumps (Yahtzee's: see the docs)


def test_curves_file_round_trip_and_refusals(tmp_path: Path) -> None:
    rs = CASES["forced-joker-bonus"]
    solver = solve(rs, cache=False)
    found = curves.build_curves(solver)
    path = tmp_path / curves.file_name(solver)
    curves.save_curves(solver, found, path)
    back = curves.load_curves(solver, path)
    assert back is not None
    assert back.q.dtype == np.int16
    assert np.array_equal(back.q, found.q)
    damaged = path.read_bytes()
    path.write_bytes(damaged[:-3] + bytes(3))
    assert curves.load_curves(solver, path) is None  # the checksum refuses it
    curves.save_curves(solver, found, path)
    assert curves.load_curves(solve(CASES["free-joker"], cache=False), path) is None  # another rule set's


@pytest.mark.parametrize("name", ["yacht", "yahtzee"])
def test_the_fast_chances_read_the_shipped_curves_where_they_ship(
    name: str, monkeypatch: pytest.MonkeyPatch, shipped_tables: Path
) -> None:
    """Yacht and Yahtzee ship curves (their header and checksum accepted for these rules and scoring
    code): a situation with many boxes open reads them (not the moments), and the values are the
    curves' own."""
    from fivedice.solver import cache, ship

    monkeypatch.setattr(curves, "_CURVES", {})
    assert name in ship.CURVED
    rs = rules.get(name)
    solver = solve(rs)
    assert f"  {curves.file_name(solver)}\n" in (cache.DATA / "SHA256SUMS").read_text()
    found = curves.curves(solver)
    assert found is not None
    assert found.source == "package"
    assert found.q.shape == (int(solver.table.reach.sum()), len(curves.LEVELS))
    empty = solver.state_index(Scorecard.empty(rs))
    fast._LAST.clear()
    table = fast.situation_table(solver, empty, 1.0, 100)
    assert table.source == "fast"
    s2 = int(np.argmax(table.glen))
    n = int(table.glen[s2])
    row = table.G[table.goff[s2] : table.goff[s2] + n].astype(np.float64)
    expected = curves.curve_values(found.knots(s2), np.arange(n, dtype=np.float64))
    expected[0] = 1.0
    assert row == pytest.approx(expected, abs=1e-6)
    monkeypatch.setitem(curves._CURVES, rs, None)  # no curves: the moments' fit, other values
    fast._LAST.clear()
    other = fast.situation_table(solver, empty, 1.0, 100)
    assert not np.allclose(other.G[other.goff[s2] : other.goff[s2] + n], row, atol=1e-3)
    fast._LAST.clear()


def test_yahtzee_hints_read_the_shipped_curves(monkeypatch: pytest.MonkeyPatch, shipped_tables: Path) -> None:
    """A Yahtzee hint's chance to reach a target early in the game comes from the shipped curves on
    both paths (numpy for hints, numba for the computer players), not from the moments' fit."""
    from fivedice.solver.advisor import Solver

    monkeypatch.setattr(curves, "_CURVES", {})
    rs = rules.get("yahtzee")
    jit = solve(rs)
    plain = Solver(jit.table, jit=False)
    card = Scorecard.empty(rs).fill("chance", (2, 3, 4, 6, 6))
    args = (card, (1, 1, 3, 5, 6), 2, card.total + 250)
    ranked = fast.fast_options(jit, *args)
    got = {o.key: o.value for o in ranked}
    assert {o.key: o.value for o in fast.fast_options(plain, *args)} == pytest.approx(got, abs=1e-4)
    # the exact table (chance_table(solver, 300)): keep 6 is best at 20.003%, keep 5 19.932%
    assert ranked[0].key == ("keep", (6,))
    assert ranked[0].value == pytest.approx(0.20003, abs=0.005)  # 0.37 points above (1.4 with 16 levels)
    monkeypatch.setitem(curves._CURVES, rs, None)  # no curves: the moments' fit, farther off
    fast._LAST.clear()
    fitted = fast.fast_options(jit, *args)
    fast._LAST.clear()
    assert fitted[0].key == ("keep", (5,))
    assert fitted[0].value == pytest.approx(0.26203, abs=2e-4)  # 6.3 points above keep 5's exact 19.932%


def test_knots_hold_less_than_their_layer_beside_it() -> None:
    """The knots of a layer take less extra memory than the layer itself (Yahtzee's largest is 136 MB:
    a float64 copy and int64 masks of it had the curves' build peak at 1.2 GB)."""
    import tracemalloc

    rng = np.random.default_rng(1)
    lens = rng.integers(1, curves.CAP + 2, 4000)
    values = np.concatenate([np.sort(rng.random(n))[::-1] for n in lens.tolist()]).astype(np.float32)
    starts = np.concatenate(([0], np.cumsum(lens)[:-1])).astype(np.int64)
    tracemalloc.start()
    try:
        curves.knots(values, starts, lens, np.zeros(len(lens), dtype=np.bool_))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < values.nbytes
