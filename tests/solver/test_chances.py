"""Chances: the final-score distribution and threshold/beat tables against brute force on tiny rule
sets, the mean identity, and agreement with simulated games."""

from __future__ import annotations

import hashlib
import json
import math
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from fivedice import rules
from fivedice.engine.scorecard import Scorecard
from fivedice.solver import Solver, solve
from fivedice.solver.chances import (
    Distribution,
    TargetError,
    build_chances,
    chance_table,
    check_target,
    distribution,
)
from fivedice.solver.simulate import simulate_optimal
from tests.solver.test_bruteforce import CASES, brute_utility, card_key, outcomes, reachable_cards


def brute_distribution(solver: Solver) -> Callable[[Scorecard], dict[int, float]]:
    """The final-score distribution following the advisor's best option in every situation (memoised on
    :func:`card_key`, not on the card: see there)."""
    rs = solver.rules
    dists: dict[tuple[object, ...], dict[int, float]] = {}
    turns: dict[tuple[object, ...], dict[int, float]] = {}

    def dist(card: Scorecard) -> dict[int, float]:
        key = card_key(card)
        if key in dists:
            return dists[key]
        if card.is_full:
            dists[key] = {card.total: 1.0}
            return dists[key]
        out: dict[int, float] = defaultdict(float)
        for ms, p in outcomes(rs.dice):
            for x, q in turn(card, ms, rs.rolls - 1).items():
                out[x] += p * q
        dists[key] = dict(out)
        return dists[key]

    def turn(card: Scorecard, dice: tuple[int, ...], left: int) -> dict[int, float]:
        key = (*card_key(card), dice, left)
        if key in turns:
            return turns[key]
        best = solver.best(card, dice, left)
        if best.action == "score":
            assert best.box is not None
            turns[key] = dist(card.fill(best.box, dice, rs.rolls - left))
            return turns[key]
        out: dict[int, float] = defaultdict(float)
        for ms, p in outcomes(rs.dice - len(best.dice)):
            for x, q in turn(card, tuple(sorted(best.dice + ms)), left - 1).items():
                out[x] += p * q
        turns[key] = dict(out)
        return turns[key]

    return dist


@pytest.mark.parametrize("name", list(CASES))
def test_distribution_matches_brute_force(name: str) -> None:
    rs = CASES[name]
    solver = solve(rs, cache=False)
    expected = brute_distribution(solver)
    for card in [*sorted(reachable_cards(rs), key=lambda c: str(c.entries))[:12], Scorecard.empty(rs)]:
        if card.is_full:
            continue
        got = distribution(solver, card)
        want = expected(card)
        assert got.to_dict().keys() == {str(x) for x in want}
        for x, p in want.items():
            assert got.probs[got.scores == x][0] == pytest.approx(p, abs=1e-12)
        assert got.mean == pytest.approx(card.total + solver.state_value(card), abs=1e-9)


@pytest.mark.parametrize(
    ("name", "half"),
    [(name, 1.0) for name in CASES if name != "four-dice"]
    + [(name, 0.5) for name in ("forced-joker-bonus", "tiers-two-rolls", "chance-two-dice")],
)
def test_chance_tables_match_brute_force(name: str, half: float) -> None:
    rs = CASES[name]
    solver = solve(rs, cache=False)
    top = int(distribution(solver).scores.max())
    table = build_chances(solver, top + 1, half)
    cards = [*sorted(reachable_cards(rs), key=lambda c: str(c.entries))[:8], Scorecard.empty(rs)]
    for target in sorted({top // 3, top // 2, top - 5}):

        def utility(total: int, t: int = target) -> float:
            return 1.0 if total > t else half if total == t else 0.0

        value = brute_utility(rs, utility)
        for card in cards:
            need = target - card.total
            if need > table.cap:
                continue
            assert table.chance(card, need) == pytest.approx(value(card), abs=2e-6), (target, card.entries)


def test_threshold_play_beats_expectation_play_at_reaching_the_target() -> None:
    solver = solve(rules.get("yacht"), cache=False)
    dist = distribution(solver)
    table = chance_table(solver, 200, cache=False)
    empty = Scorecard.empty(solver.rules)
    for target in (120, 170, 200):
        assert table.chance(empty, target) >= dist.at_least(target) - 1e-6
    assert table.chance(empty, 200) > dist.at_least(200) + 0.01


@pytest.fixture(scope="session")
def yahtzee_distribution(yahtzee: Solver) -> Distribution:
    """The exact distribution of official Yahtzee from the start (about 15 s), once per process: a module
    fixture is made again whenever a test of another module runs in between, as a parallel worker's may."""
    return distribution(yahtzee)


def test_mean_of_the_yahtzee_distribution_is_the_optimal_expected_score(
    yahtzee: Solver, yahtzee_distribution: Distribution
) -> None:
    dist = yahtzee_distribution
    assert dist.probs.sum() == pytest.approx(1.0, abs=1e-12)
    assert abs(dist.mean - yahtzee.expected_score) < 1e-6
    assert dist.scores.min() >= 0
    assert 230 <= dist.quantile(0.5) <= 260


def test_distribution_agrees_with_simulated_games(yahtzee: Solver, yahtzee_distribution: Distribution) -> None:
    """Kolmogorov-Smirnov: 200,000 simulated games (a million take a minute; see bench/chances.py)
    against the exact distribution, at the 0.1% level (1.95 / sqrt(n); conservative for whole points)."""
    games = 200_000
    dist = yahtzee_distribution
    sim = simulate_optimal(yahtzee, games, seed=7)
    top = int(max(dist.scores.max(), sim.totals.max())) + 1
    exact = np.zeros(top)
    exact[dist.scores] = dist.probs
    seen = np.bincount(sim.totals, minlength=top) / games
    d = float(np.abs(np.cumsum(exact) - np.cumsum(seen)).max())
    assert d < 1.95 / math.sqrt(games)


def test_distribution_of_a_full_card_is_its_total(yahtzee: Solver) -> None:
    card = Scorecard(yahtzee.rules, yahtzee.rules.cards[0], tuple([0] * 12 + [50]))
    dist = distribution(yahtzee, card)
    assert dist.scores.tolist() == [50]
    assert dist.probs.tolist() == [1.0]


@pytest.mark.parametrize("bad", [-1, 2.5, "300", True])
def test_bad_targets_are_one_sentence(bad: object) -> None:
    with pytest.raises(TargetError, match=r"^Target .* is not valid; expected a whole number of points, 0 or more\.$"):
        check_target(bad)


def test_target_player_reaches_its_target_about_as_often_as_the_table_says() -> None:
    from fivedice.services.sim import simulate

    rs = rules.get("yacht")
    games = 600
    result = simulate(rs, ["target:200"], games, seed=3, workers=1)
    exact = chance_table(solve(rs), 200).chance(Scorecard.empty(rs), 200)
    share = result.reach(200)[0]
    assert abs(share - exact) < 4 * math.sqrt(exact * (1 - exact) / games)
    assert result.to_json([200])["seats"][0]["reach"] == {"200": share}


@pytest.mark.parametrize("level", ["target:x", "target:-5", "target:", "target:2.5"])
def test_bad_target_levels_are_one_sentence(level: str) -> None:
    from fivedice.players import UnknownStrategyError, get

    with pytest.raises(UnknownStrategyError, match=r"needs a whole number of points, 0 or more, after 'target:'"):
        get(level, rules.get("yacht"))


def test_target_level_is_refused_for_rule_sets_beyond_the_solver() -> None:
    from fivedice.players import UnknownStrategyError, get

    with pytest.raises(UnknownStrategyError, match="needs the solver"):
        get("target:300", rules.get("yahtzee", cards="jetsi"))


def test_a_cached_chance_table_loads_bit_for_bit_and_a_damaged_one_is_rebuilt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import zlib

    from fivedice.solver import chances

    monkeypatch.setenv("FIVEDICE_CACHE_DIR", str(tmp_path))
    solver = solve(rules.get("yacht"))
    built = chances.build_chances(solver, 120, 0.5)
    path = tmp_path / "t.chances"
    chances.build_chances(solver, 120, 0.5, path=path)
    loaded = chances._load(solver, 120, 0.5, path)
    assert loaded is not None
    assert loaded.source == "cache"
    assert np.array_equal(loaded.G, built.G)
    assert loaded.G.dtype == np.float32
    # only some rows: exactly those, in a table of their size
    from fivedice.solver.chancestream import plan

    p = plan(solver, 120)
    some = p.states[[0, len(p.states) // 2, -1]]
    rows = chances._load(solver, 120, 0.5, path, some)
    assert rows is not None
    assert rows.G.size == int(p.glen[some].sum())
    for s in some:
        a, n = int(p.goff[s]), int(p.glen[s])
        assert np.array_equal(rows.G[rows.goff[s] : rows.goff[s] + n], built.G[a : a + n])
    # damage: a truncated stream or one with bytes to spare is refused, never half-read
    magic, line, payload = path.read_bytes().split(b"\n", 2)
    header = json.loads(line)
    for bad in (payload[: len(payload) // 2], payload + zlib.compress(b"x"), zlib.compress(b"x" + built.G.tobytes())):
        header["payload_sha256"] = hashlib.sha256(bad).hexdigest()
        path.write_bytes(magic + b"\n" + json.dumps(header).encode() + b"\n" + bad)
        assert chances._load(solver, 120, 0.5, path) is None
        assert chances._load(solver, 120, 0.5, path, some) is None


def test_a_table_built_into_the_cache_equals_one_built_in_memory(tmp_path: Path) -> None:
    """The layer-by-layer build to a file (two layers in memory) gives the table built whole."""
    from fivedice.solver import chances

    solver = solve(rules.get("yacht"))
    whole = chances.build_chances(solver, 90, 1.0)
    path = tmp_path / "t.chances"
    streamed = chances.build_chances(solver, 90, 1.0, path=path)
    assert streamed.source == "built"
    assert np.array_equal(streamed.G, whole.G)
    empty = Scorecard.empty(solver.rules)
    first = chances.build_chances(solver, 90, 1.0, path=path, rows=np.array([solver.state_index(empty)]))
    assert first.G.size == 91
    assert first.chance(empty, 77) == whole.chance(empty, 77)


def test_a_build_without_a_layer_file_holds_the_layers_in_memory_and_gives_the_same_table(tmp_path: Path) -> None:
    """Where no temporary layer file can be made the build keeps its layers in memory: same values."""
    from fivedice.solver import chances
    from fivedice.solver.chancestream import stream_build

    solver = solve(rules.get("yacht"))
    whole = chances.build_chances(solver, 90, 1.0)
    layers: list[np.ndarray] = []
    shares: list[float] = []
    p = stream_build(
        solver, 90, 1.0, lambda _i, values: layers.append(values.copy()), progress=shares.append,
        spill=tmp_path / "missing",
    )  # fmt: skip
    assert not (tmp_path / "missing").exists()
    assert len(layers) == len(p.starts) - 1
    assert np.array_equal(np.concatenate(layers), whole.G)
    # the bar moves a chunk at a time, never back, and ends full
    assert len(shares) > len(layers)
    assert shares == sorted(shares)
    assert shares[-1] == 1.0


def test_a_layout_is_made_once_per_solver_and_cap() -> None:
    from fivedice.solver.chancestream import plan

    solver = solve(rules.get("yacht"))
    assert plan(solver, 90) is plan(solver, 90)
    assert plan(solver, 80) is not plan(solver, 90)
    other = solve(rules.get("yacht"), cache=False)
    assert plan(other, 90) is not plan(solver, 90)
    assert np.array_equal(plan(other, 90).goff, plan(solver, 90).goff)


def test_the_distribution_from_the_start_is_kept_in_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FIVEDICE_CACHE_DIR", str(tmp_path))
    solver = solve(rules.get("yacht"))
    first = distribution(solver)
    (path,) = tmp_path.glob("yacht-*.start.v*.distribution.json")
    data = json.loads(path.read_text())
    data["probs"] = data["probs"][::-1]  # a marked copy: what comes back next is read from the file
    path.write_text(json.dumps(data))
    assert np.array_equal(distribution(solver).probs, first.probs[::-1])
    assert np.array_equal(distribution(solver, cache=False).probs, first.probs)
    data["header"]["code_sha256"] = "0" * 64  # other scoring code: the file is ignored and rewritten
    path.write_text(json.dumps(data))
    assert np.array_equal(distribution(solver).probs, first.probs)
    path.write_text("{not json")
    assert np.array_equal(distribution(solver).probs, first.probs)
    assert json.loads(path.read_text())["probs"] == first.probs.tolist()


def test_target_and_win_levels_play_from_an_exact_table_already_at_hand(tmp_path: Path) -> None:
    """Once ``solve --target`` (or a build) has left the exact table in the cache, ``target:T`` reads
    it by itself; a table of other scoring code is not used (it would be rebuilt mid-game)."""
    import json as _json

    from fivedice.players.target import TargetPlayer
    from fivedice.players.win import WinPlayer, beat_cap
    from fivedice.solver import chances

    rs = rules.get("yacht")
    assert not TargetPlayer(rs, 150).uses_exact
    assert not WinPlayer(rs).uses_exact
    solver = TargetPlayer(rs, 150).optimal.solver
    built = chances.rows_table(solver, 150, 1.0, np.array([solver.state_index(Scorecard.empty(rs))]))
    assert built.path is not None
    assert TargetPlayer(rs, 150).uses_exact
    assert TargetPlayer(rs, 140).uses_exact  # the same table covers it
    assert not TargetPlayer(rs, 160).uses_exact
    chances.rows_table(solver, beat_cap(rs), 0.5, np.array([solver.state_index(Scorecard.empty(rs))]))
    assert WinPlayer(rs).uses_exact
    magic, line, payload = built.path.read_bytes().split(b"\n", 2)
    header = _json.loads(line) | {"code_sha256": "0" * 64}
    built.path.write_bytes(magic + b"\n" + _json.dumps(header).encode() + b"\n" + payload)
    assert not TargetPlayer(rs, 150).uses_exact
