"""Every terminal-game test starts and ends in English (a test may switch the process's language)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from fivedice import i18n


@pytest.fixture(autouse=True)
def english() -> Iterator[None]:
    i18n.set_language("en")
    yield
    i18n.set_language("en")
