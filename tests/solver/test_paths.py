"""The numpy and numba paths agree to the bit; readiness, progress and the shipped tables."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from fivedice import rules
from fivedice.errors import RuleSetError
from fivedice.solver import Solver, readiness, ship, solve
from fivedice.solver import cache as solver_cache
from fivedice.solver.cache import load_or_build
from fivedice.solver.ship import SHIPPED, check

from .test_tables import random_card

SPECS = [
    "yahtzee", "yahtzee joker=free", "yahtzee order=bottom_up", "yacht", "yatzy forced=yes", "generala",
    "generala instant_win=no served_bonus=10",
]  # fmt: skip


def same(a: object, b: object) -> bool:
    return bool(np.asarray(a).tobytes() == np.asarray(b).tobytes())


@pytest.mark.parametrize("spec", SPECS)
def test_numpy_path_equals_the_kernel_to_the_bit(spec: str, yahtzee: Solver) -> None:
    rs = rules.parse_spec(spec)
    table = yahtzee.table if spec == "yahtzee" else load_or_build(rs, cache=False)
    jit, plain = Solver(table, jit=True), Solver(table, jit=False)
    rng = random.Random(spec)
    for _ in range(40):
        card = random_card(rs, rng)
        dice = tuple(rng.randint(1, 6) for _ in range(rs.dice))
        if rng.random() < 0.2:
            dice = (rng.randint(1, 6),) * rs.dice  # five alike: Joker and extra bonus
        left = rng.randrange(rs.rolls)
        a, b = jit.values(card, dice, left), plain.values(card, dice, left)
        assert a.best == b.best
        assert a.bonus == b.bonus
        assert a.keeps.tolist() == b.keeps.tolist()
        assert same(a.keep_values, b.keep_values)
        assert a.box_points.tolist() == b.box_points.tolist()
        assert same(a.box_values, b.box_values)
        assert jit.advise(card, dice, left) == plain.advise(card, dice, left)


def test_values_and_advise_agree(yahtzee: Solver) -> None:
    card = random_card(yahtzee.rules, random.Random(5))
    advice = yahtzee.values(card, (2, 2, 3, 5, 6), 2)
    ranked = yahtzee.advise(card, (2, 2, 3, 5, 6), 2)
    assert advice.best_option() == ranked[0] == yahtzee.best(card, (2, 2, 3, 5, 6), 2)
    assert advice.options() == ranked
    assert advice.value == ranked[0].value
    assert len(ranked) == int((advice.box_points >= 0).sum()) + len(advice.keeps)


def test_readiness_refuses_what_the_solver_cannot_solve() -> None:
    with pytest.raises(RuleSetError, match="single-card"):
        readiness(rules.get("yahtzee", cards="jetsi"))


def test_readiness_and_progress(tmp_path: Path) -> None:
    rs = rules.get("yacht", four_kind="four_dice")
    before = readiness(rs)
    assert not before.ready
    assert before.source is None
    assert before.seconds > 0
    shares: list[float] = []
    solver = solve(rs, progress=shares.append)
    assert shares[0] == 0.0
    assert shares[-1] == 1.0
    assert shares == sorted(shares)
    assert len(shares) >= 3
    after = readiness(rs)
    assert after.ready
    assert after.source == "cache"
    shares.clear()
    assert solve(rs, progress=shares.append).expected_score == solver.expected_score
    assert shares == []  # loaded: no build, no progress


def test_shipped_tables_are_found_without_a_build(shipped_tables: Path, yahtzee: Solver) -> None:
    assert check() == []
    rs = rules.get("yahtzee")
    assert readiness(rs).ready
    assert readiness(rs).source == "package"
    table = load_or_build(rs)
    assert table.source == "package"
    assert table.values.tobytes() == yahtzee.table.values.tobytes()  # the same as a fresh build
    assert set(SHIPPED) == {"yahtzee", "yacht", "yatzy", "kismet", "generala"}
    for name, mean in [("yatzy", 248.4399894), ("kismet", 315.0240286), ("generala", 149.1132551)]:
        assert Solver(load_or_build(rules.get(name)), jit=False).expected_score == pytest.approx(mean, abs=1e-7)


def test_shipped_small_tables_equal_fresh_builds(shipped_tables: Path) -> None:
    for name in ("yacht", "generala"):
        rs = rules.get(name)
        shipped = load_or_build(rs)
        assert shipped.source == "package"
        assert shipped.values.tobytes() == load_or_build(rs, cache=False).values.tobytes()


def test_advise_command_needs_no_numba(tmp_path: Path) -> None:
    code = (
        "import sys; from fivedice.cli import main\n"
        "try:\n    main(['advise', 'yahtzee', '--dice', '1', '3', '3', '5', '6', '--rolls-left', '2'])\n"
        "except SystemExit:\n    pass\n"
        "print('numba' in sys.modules, file=sys.stderr)\n"
    )
    env = {"FIVEDICE_CACHE_DIR": str(tmp_path), "PATH": "/usr/bin:/bin"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert "keep 3 3 and roll" in out.stdout
    assert out.stderr.strip().splitlines()[-1] == "False"
    assert "Preparing" not in out.stderr


def test_shipped_tables_are_current() -> None:
    """An edit of the hashed scoring code leaves the shipped headers stale: the message says what to run."""
    problems = ship.check()
    assert problems == [], f"{problems}: run python -m fivedice.solver.ship --refresh (or without --refresh to rebuild)"


def test_refresh_rewrites_only_the_headers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = Path(solver_cache.__file__).with_name("data")
    copy = tmp_path / "data"
    copy.mkdir()
    for file in real.iterdir():
        (copy / file.name).write_bytes(file.read_bytes())
    monkeypatch.setattr(solver_cache, "DATA", copy)
    monkeypatch.setattr(ship, "DATA", copy)
    path = copy / solver_cache.file_name(rules.get("yacht"))
    before = path.read_bytes()
    path.write_bytes(before.replace(b'"code_sha256": "', b'"code_sha256": "0'))  # written by other scoring code
    assert not solver_cache._fresh(path)
    assert ship.refresh() == []
    assert path.read_bytes() == before  # the header is current again, the payload untouched
    assert ship.check() == []


def test_the_hashed_scoring_sources_exist() -> None:
    """The code digest names real files (a module moved without updating SOURCES broke every load)."""
    from fivedice.solver import cache

    root = Path(cache.__file__).resolve().parent.parent
    assert all((root / name).exists() for name in cache.SOURCES)
    assert len(cache.code_digest()) == 64
