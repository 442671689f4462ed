"""Solver tests: every cache goes to a temporary directory; the shipped tables are hidden."""

from __future__ import annotations

from pathlib import Path

import pytest

from fivedice import rules
from fivedice.solver import Solver, solve


@pytest.fixture(autouse=True)
def _cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty user cache, and no shipped tables (tests that want them say so)."""
    monkeypatch.setenv("FIVEDICE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr("fivedice.solver.cache.DATA", tmp_path / "no-shipped-tables")
    return tmp_path / "cache"


@pytest.fixture(scope="session")
def yahtzee() -> Solver:
    """The official Yahtzee solver, built once (no cache)."""
    return solve(rules.get("yahtzee"), cache=False)
