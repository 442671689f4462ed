"""The lean core and its extras: what ``fivedice --help`` imports, and what a command says when
the extra it needs is not installed (one sentence naming the extra, exit code 2).

A missing package is simulated the way Python itself sees one: the module set to None in
``sys.modules`` of a fresh interpreter, so every ``import`` of it raises ModuleNotFoundError.
"""

from __future__ import annotations

import importlib.metadata
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import click
import pytest
from packaging.requirements import Requirement

from fivedice import extras
from fivedice.cli import main
from fivedice.cli.app import LAZY_COMMANDS, _short_help

ROOT = Path(__file__).resolve().parents[1]
HEAVY = ("numpy", "numba", "sqlalchemy", "alembic", "textual", "fastapi", "uvicorn", "matplotlib", "gymnasium")


def run_without(blocked: tuple[str, ...], *args: str, cache: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``fivedice ARGS`` in a fresh interpreter where the modules ``blocked`` are not installed."""
    code = (
        "import sys\n"
        f"for name in {list(blocked)!r}:\n"
        "    sys.modules[name] = None\n"
        "from fivedice.cli import main\n"
        "main(sys.argv[1:], prog_name='fivedice')\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "LANGUAGE": "en", "LC_ALL": "C"}
    if cache is not None:
        env["FIVEDICE_CACHE_DIR"] = str(cache)
    return subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


def test_help_imports_no_subsystem() -> None:
    code = (
        "import sys\nfrom fivedice.cli import main\n"
        "try:\n    main(['--help'], prog_name='fivedice')\nexcept SystemExit:\n    pass\n"
        f"print(sorted(m for m in {HEAVY!r} if m in sys.modules), file=sys.stderr)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert "simulate" in out.stdout
    assert "serve" in out.stdout
    assert out.stderr.strip().splitlines()[-1] == "[]"


WEB_LATER = ("alembic", "webauthn", "OpenSSL", "pyasn1", "pywebpush", "http_ece", "segno", "numpy", "numba")
"""What a web server imports only on the path that needs it: a schema upgrade, a passkey, a push, a QR code,
the chances (each server the tests start would pay for them otherwise)."""


def test_a_web_server_starts_without_the_libraries_of_its_rarer_paths(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'web.db'}"
    code = (
        "import sys\nfrom fastapi.testclient import TestClient\nfrom fivedice.web.app import create_app\n"
        f"with TestClient(create_app({db!r})) as client:\n"
        "    assert client.get('/healthz').status_code == 200\n"
        f"print(sorted(m for m in {WEB_LATER!r} if m in sys.modules), file=sys.stderr)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stderr.strip().splitlines()[-1] == "[]"


@pytest.mark.parametrize("name", sorted(LAZY_COMMANDS))
def test_the_help_listed_for_a_lazy_command_is_its_own(name: str) -> None:
    ctx = click.Context(main)
    command = main.get_command(ctx, name)
    assert command is not None
    assert command.help == LAZY_COMMANDS[name].help
    assert _short_help(LAZY_COMMANDS[name].help, 60) == _short_help(command, 60)


def test_every_extra_is_declared_in_pyproject() -> None:
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert set(extras.EXTRAS) <= set(declared)
    assert set(declared["all"][0].partition("[")[2].rstrip("]").split(",")) == set(extras.EXTRAS) - {"scores"}
    core = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    for deps in declared.values():
        assert not set(deps) & set(core)


@pytest.mark.parametrize(
    ("blocked", "args", "extra"),
    [
        (("fastapi",), ["serve", "--port", "1"], "web"),
        (("sqlalchemy",), ["scores"], "scores"),
        (("sqlalchemy",), ["history", "Ann"], "scores"),
        (("matplotlib",), ["simulate", "yacht", "--strategy", "greedy", "--games", "5", "--plot", "x.png"], "plot"),
        (("numba",), ["solve", "yacht", "-o", "four_kind=four_dice"], "fast"),
        (("numba",), ["simulate", "yacht", "--games", "5"], "fast"),
    ],
)
def test_a_command_whose_extra_is_missing_names_it(
    blocked: tuple[str, ...], args: list[str], extra: str, tmp_path: Path
) -> None:
    out = run_without(blocked, *args, cache=tmp_path)
    assert out.returncode == 2, out.stderr
    lines = out.stderr.strip().splitlines()
    assert lines[-1].startswith("Error: ")
    assert lines[-1].endswith(f"needs the '{extra}' extra: pip install 'fivedice[{extra}]'.")
    assert "Traceback" not in out.stderr
    assert not (tmp_path / "x.png").exists()


def test_the_full_screen_game_without_textual_points_to_the_extra_and_plain() -> None:
    code = (
        "import io, sys\nsys.modules['textual'] = None\n"
        "class Tty(io.StringIO):\n    def isatty(self):\n        return True\n"
        "sys.stdin, sys.stdout = Tty(), Tty()\n"
        "from fivedice.cli import main\nmain(['play'], prog_name='fivedice')\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "LANGUAGE": "en"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == 2
    assert out.stderr.strip() == (
        "Error: The full-screen game needs the 'tui' extra: pip install 'fivedice[tui]' (or play with --plain)."
    )


def test_the_core_answers_without_any_extra(tmp_path: Path) -> None:
    every = tuple(m for modules in extras.EXTRAS.values() for m in modules)
    out = run_without(
        every, "advise", "yahtzee", "--dice", "1", "3", "3", "5", "6", "--rolls-left", "2", cache=tmp_path
    )
    assert out.returncode == 0, out.stderr
    assert "keep 3 3 and roll" in out.stdout
    out = run_without(every, "score", "yahtzee", "chance", "1", "2", "3", "4", "5")
    assert (out.returncode, out.stdout) == (0, "15\n")


def test_plain_play_without_the_scores_extra_finishes_and_says_why_nothing_was_kept(tmp_path: Path) -> None:
    code_args = ["play", "--plain", "--rules", "yacht", "--players", "A:greedy,B:random", "--seed", "3", "--pace", "0"]
    out = run_without(("sqlalchemy", "textual"), *code_args, cache=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "The game was not stored: Keeping high scores needs the 'scores' extra" in out.stderr


def test_the_rl_package_without_gymnasium_names_its_extra() -> None:
    code = "import sys\nsys.modules['gymnasium'] = None\nimport fivedice.rl\n"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "LANGUAGE": "en"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert out.returncode == 1
    assert out.stderr.strip().splitlines()[-1] == (
        "fivedice.extras.MissingExtraError: fivedice.rl needs the 'rl' extra: pip install 'fivedice[rl]'."
    )


def test_missing_extra_error_is_an_import_error_and_a_fivedice_error() -> None:
    with pytest.raises(ImportError) as caught, extras.needed_by("'x'"):
        import_missing()
    assert isinstance(caught.value, extras.MissingExtraError)
    assert caught.value.extra == "fast"
    assert str(caught.value) == "'x' needs the 'fast' extra: pip install 'fivedice[fast]'."
    with pytest.raises(ModuleNotFoundError, match="nosuchmodule"), extras.needed_by("'x'"):
        __import__("nosuchmodule")  # not an extra's module: unchanged


def import_missing() -> None:
    saved = sys.modules.get("numba")
    sys.modules["numba"] = None  # type: ignore[assignment]
    try:
        __import__("numba")
    finally:
        if saved is None:
            del sys.modules["numba"]
        else:
            sys.modules["numba"] = saved


def _distribution_name(requirement: str) -> str:
    """The normalised distribution name of a requirement string (``"rich>=13.7; ..."`` -> ``"rich"``)."""
    return re.sub(r"[-_.]+", "-", Requirement(requirement).name).lower()


def test_the_core_install_is_at_most_eight_packages() -> None:
    """``pip install fivedice`` (no extra) brings at most 8 packages besides fivedice itself (issue 29): the
    core dependencies in pyproject.toml and everything they require in turn (as installed here), markers
    that no extra turns on being evaluated for this interpreter."""
    core = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    seen: set[str] = set()
    todo = [_distribution_name(r) for r in core]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for text in importlib.metadata.requires(name) or []:
            requirement = Requirement(text)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                todo.append(_distribution_name(text))
    assert "fivedice" not in seen
    assert len(seen) <= 8, sorted(seen)
