"""RL tests: solver tables built here are cached in a temporary directory."""

from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True, scope="package")
def _solver_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("FIVEDICE_CACHE_DIR", str(tmp_path_factory.mktemp("solver-cache")))
        yield
