"""Suite-wide settings: an English locale whatever the machine's, a throwaway score store and
data folder (saved games), and one solver cache for the whole session (never the user's; tables
built once are shared)."""

from __future__ import annotations

import gc
import importlib.util
import os
from collections.abc import Iterator

import pytest

WARMUP = pytest.StashKey[str]()
"""What ``pytest_configure``'s numba warm-up reported."""


def pytest_configure(config: pytest.Config) -> None:
    """With parallel workers (``make test``) and numba's cache cold (a fresh clone, as in CI), the controller
    compiles the kernels once before it starts the workers (``tests/warmup.py``), instead of each worker
    compiling them again. A single process compiles them when a test first needs them, as before."""
    if hasattr(config, "workerinput") or not config.getoption("numprocesses", None):
        return
    if config.getoption("collectonly") or importlib.util.find_spec("numba") is None:
        return
    from fivedice.solver.cache import _jit_cached

    if _jit_cached():
        return
    from tests.warmup import warm

    config.stash[WARMUP] = warm(config.rootpath)


def pytest_report_header(config: pytest.Config) -> str | None:
    """How the numba warm-up went, when there was one."""
    return config.stash.get(WARMUP, None)


def pytest_unconfigure(config: pytest.Config) -> None:
    """After the last test: one collection (a leaked object's finalizer still reports through pytest's
    unraisable-exception hook), then freeze what is left, so that the collections pytest's own cleanup
    makes next (five in a row) and the one at interpreter exit skip the session's objects instead of
    walking them all: with the whole suite's objects alive they took about 25 s on a quiet machine."""
    gc.collect()
    gc.freeze()


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests that share something costly run in one process when the suite runs in parallel
    (``make test``: pytest-xdist with ``--dist loadgroup``): the tests of the official Yahtzee solver
    built from scratch once per process (``tests/solver/conftest.py``'s ``yahtzee``, two minutes on a
    loaded machine) go to one worker instead of being built again in each, and so do the brute-force
    comparisons, which share each tiny rule set's brute-force values within a process, and each browser test
    module's tests, which share one browser launch (``tests/web/conftest.py``'s ``chromium``). First among
    the hooks: pytest-xdist reads the groups in its own hook (a node id ending ``@group``), and a group marked
    after it was ignored (the Yahtzee solver was built in both workers and the brute-force tests spread)."""
    for item in items:
        if "yahtzee" in getattr(item, "fixturenames", ()) and "solver" in item.path.parts:
            item.add_marker(pytest.mark.xdist_group("yahtzee-solver"))
        elif item.path.name == "test_bruteforce.py":
            item.add_marker(pytest.mark.xdist_group("brute-force"))
        elif "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.xdist_group(f"browser-{item.path.stem}"))


@pytest.fixture(scope="session", autouse=True)
def shared_solver_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Solver tables go to one temporary directory for the run; tests of the cache itself point it
    elsewhere. With parallel workers it is one directory for all of them (the run's temporary folder,
    the parent of each worker's own): a table one worker built is loaded by the others instead of built
    again in each (the cache writes a temporary file and renames it, so workers never see half a file)."""
    if os.environ.get("PYTEST_XDIST_WORKER"):
        folder = tmp_path_factory.getbasetemp().parent / "solver-cache"
        folder.mkdir(exist_ok=True)
    else:
        folder = tmp_path_factory.mktemp("solver-cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("FIVEDICE_CACHE_DIR", str(folder))
        yield


@pytest.fixture(autouse=True)
def private_score_store(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Finished games go to a throwaway database, never the user's."""
    monkeypatch.setenv("FIVEDICE_DB", str(tmp_path_factory.mktemp("store") / "fivedice.db"))


@pytest.fixture(autouse=True)
def private_data_folder(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Games saved to be resumed (``fivedice.engine.saves.saves_dir()``) go to a throwaway folder, never the user's."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path_factory.mktemp("data")))


@pytest.fixture(autouse=True)
def english_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests assert English text, so the language the environment names is pinned to English;
    tests about other languages set their own environment or ``--lang``."""
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "C.UTF-8")
