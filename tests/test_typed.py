"""fivedice is a typed package (PEP 561): a user's ``mypy --strict`` checks their program against
the annotations of the built wheel, and catches a misuse of them."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

PROGRAM = """\
import random

from fivedice import Game, IllegalActionError, Score, rules
from fivedice.solver import solve


def chance_points(dice: tuple[int, ...]) -> int:
    return rules.get("yahtzee").score("chance", dice)


def play_one_turn(seed: int) -> int:
    game = Game(rules.get("yacht"), ["Ann"], rng=random.Random(seed))
    game.roll()
    try:
        record = game.score("chance")
    except IllegalActionError:
        return 0
    assert isinstance(record, Score) and record.points is not None
    return record.points


expected: float = solve(rules.get("yacht")).expected_score
points: int = chance_points((1, 2, 3, 4, 5)) + play_one_turn(1)
"""

MISUSE = PROGRAM + 'wrong: str = rules.get("yacht").score("chance", (1, 2, 3, 4, 5))\n'


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A virtual environment holding only the wheel built from this tree (its python)."""
    pytest.importorskip("hatchling", reason="the 'dev' extra builds the wheel with hatchling")
    pytest.importorskip("mypy")
    tmp = tmp_path_factory.mktemp("wheel")
    build = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(tmp), str(ROOT)]
    subprocess.run(build, check=True, capture_output=True, timeout=300)
    (wheel,) = tmp.glob("fivedice-*.whl")
    env = tmp / "venv"
    venv.create(env, with_pip=False)
    (site,) = env.glob("lib/python3.*/site-packages")
    with zipfile.ZipFile(wheel) as archive:
        assert "fivedice/py.typed" in archive.namelist()
        archive.extractall(site)
    return env / "bin" / "python"


def mypy(python: Path, source: str, where: Path) -> subprocess.CompletedProcess[str]:
    (where / "user.py").write_text(source)
    command = [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--python-executable", str(python)]
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MYPYPATH")}  # only the wheel is seen
    return subprocess.run([*command, "user.py"], cwd=where, capture_output=True, text=True, timeout=600, env=env)


def test_a_strict_user_program_checks_against_the_wheel(installed: Path, tmp_path: Path) -> None:
    out = mypy(installed, PROGRAM, tmp_path)
    assert out.returncode == 0, out.stdout
    assert "Success: no issues found" in out.stdout


def test_the_annotations_catch_a_misuse(installed: Path, tmp_path: Path) -> None:
    out = mypy(installed, MISUSE, tmp_path)
    assert out.returncode == 1
    assert 'Incompatible types in assignment (expression has type "int", variable has type "str")' in out.stdout
    assert "py.typed" not in out.stdout


def test_without_the_marker_mypy_sees_no_types(installed: Path, tmp_path: Path) -> None:
    marker = next(installed.parent.parent.glob("lib/python3.*/site-packages/fivedice/py.typed"))
    marker.unlink()
    try:
        out = mypy(installed, PROGRAM, tmp_path)
    finally:
        marker.touch()
    assert out.returncode == 1
    assert "missing library stubs or py.typed marker" in out.stdout


def _untyped_kernel_arguments(path: Path) -> list[str]:
    """``module:function(argument)`` of each numba kernel argument (or result) of ``path`` annotated ``Any``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.FunctionDef) or not any("njit" in ast.unparse(d) for d in node.decorator_list):
            continue
        args = node.args.posonlyargs + node.args.args + node.args.kwonlyargs
        for name, note in [*((a.arg, a.annotation) for a in args), ("return", node.returns)]:
            if note is None or "Any" in ast.unparse(note):
                found.append(f"{path.stem}:{node.name}({name})")
    return found


def test_the_numba_kernels_arguments_are_typed_arrays() -> None:
    """Every compiled kernel of the solver names its arguments' array types (issue 24 item 2), not ``Any``."""
    solver = ROOT / "src" / "fivedice" / "solver"
    kernels = sorted(solver.glob("*.py"))
    assert [found for path in kernels for found in _untyped_kernel_arguments(path)] == []
    assert sum(1 for path in kernels if "njit" in path.read_text(encoding="utf-8")) >= 5
