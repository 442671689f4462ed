"""Player tests: solver tables are cached in one temporary directory for the session."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest


@pytest.fixture(scope="session", autouse=True)
def _solver_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    old = os.environ.get("FIVEDICE_CACHE_DIR")
    os.environ["FIVEDICE_CACHE_DIR"] = str(tmp_path_factory.mktemp("solver-cache"))
    yield
    if old is None:
        os.environ.pop("FIVEDICE_CACHE_DIR", None)
    else:
        os.environ["FIVEDICE_CACHE_DIR"] = old
