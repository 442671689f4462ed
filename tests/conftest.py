"""Suite-wide settings: tests see an English locale whatever the machine's is."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def private_score_store(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Finished games go to a throwaway database, never the user's."""
    monkeypatch.setenv("FIVEDICE_DB", str(tmp_path_factory.mktemp("store") / "fivedice.db"))


@pytest.fixture(autouse=True)
def english_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests assert English text, so the language the environment names is pinned to English;
    tests about other languages set their own environment or ``--lang``."""
    for name in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "C.UTF-8")
