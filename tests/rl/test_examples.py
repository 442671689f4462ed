"""The examples run (briefly) and print what they promise."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"example_{name}", EXAMPLES / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while it runs
    spec.loader.exec_module(module)
    return module


def test_training_example_runs_and_reports_its_gap(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("fivedice.solver")
    argv = ["train_numpy.py", "--rules", "yacht", "--games", "96", "--batch", "16", "--report", "48", "--eval", "30"]
    monkeypatch.setattr(sys, "argv", argv)
    load("train_numpy").main()
    out = capsys.readouterr().out
    assert "     48 games  mean of last 48" in out
    assert "     96 games  mean of last 48" in out
    assert "yacht: 30 games, mean" in out
    assert "optimum 169.7739: gap" in out
    assert "points lost per decision" in out


def test_optimal_check_example_reports_the_mean(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A short run of a correct environment is within its interval (the exact optimum +- z standard errors)."""
    pytest.importorskip("fivedice.solver")
    for episodes in ("20", "60"):
        monkeypatch.setattr(sys, "argv", ["optimal_check.py", "--rules", "yacht", "--episodes", episodes])
        assert load("optimal_check").main() == 0
        out = capsys.readouterr().out
        assert f"yacht: {episodes} games" in out
        assert "is within 169.77 +- " in out
    monkeypatch.setattr(sys, "argv", ["optimal_check.py", "--rules", "yacht", "--episodes", "20", "--target", "100"])
    assert load("optimal_check").main() == 1
    assert "is OUTSIDE 100.00 +- " in capsys.readouterr().out
