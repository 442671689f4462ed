"""Solver tests: every cache goes to a temporary directory; the shipped tables are hidden."""

from __future__ import annotations

from pathlib import Path

import pytest

from fivedice import rules
from fivedice.solver import Solver, solve


@pytest.fixture(autouse=True)
def _cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty user cache, and no shipped tables (tests that want them say so); nor the chance tables
    and shipped curves an earlier test of the same process kept in memory (a test elsewhere that loaded
    Yacht's shipped curves changed the fast chances a solver test pins)."""
    monkeypatch.setenv("FIVEDICE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr("fivedice.solver.cache.DATA", tmp_path / "no-shipped-tables")
    monkeypatch.setattr("fivedice.solver.curves._CURVES", {})
    monkeypatch.setattr("fivedice.solver.chances._TABLES", {})
    monkeypatch.setattr("fivedice.solver.fast._LAST", {})
    monkeypatch.setattr("fivedice.players.win._LAST", {})
    return tmp_path / "cache"


@pytest.fixture
def shipped_tables(monkeypatch: pytest.MonkeyPatch) -> Path:
    """The tables shipped with fivedice, not hidden: for the tests that read them (after ``_cache_dir``, which
    hides them, as an autouse fixture)."""
    from fivedice.solver import cache

    data = Path(cache.__file__).with_name("data")
    monkeypatch.setattr(cache, "DATA", data)
    return data


@pytest.fixture(scope="session")
def yahtzee() -> Solver:
    """The official Yahtzee solver, built once (no cache)."""
    return solve(rules.get("yahtzee"), cache=False)
