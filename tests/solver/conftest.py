"""Solver tests: every cache goes to a temporary directory."""

from __future__ import annotations

from pathlib import Path

import pytest

from fivedice import rules
from fivedice.solver import Solver, solve


@pytest.fixture(autouse=True)
def _cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("FIVEDICE_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.fixture(scope="session")
def yahtzee() -> Solver:
    """The official Yahtzee solver, built once (no cache)."""
    return solve(rules.get("yahtzee"), cache=False)
