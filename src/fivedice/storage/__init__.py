"""Profiles, high scores and history: every finished game stored with its full move log.

>>> from fivedice import Game
>>> store = Store("sqlite://")   # in memory; by default a file under the user data dir
>>> game = Game("yacht", ["Ann"], seed=1)
>>> while not game.is_over:
...     _ = game.roll()
...     _ = game.score(next(iter(game.state.options()))[1])
>>> game_id = store.record_game(game)
>>> store.best("ann", "yacht") == game.state.total(0)
True
"""

from __future__ import annotations

from fivedice.storage.schema import SCHEMA_VERSION
from fivedice.storage.store import (
    GameSummary,
    History,
    PlayerProfile,
    ScoreRow,
    Store,
    StoreError,
)
from fivedice.storage.url import ENV_VAR, default_path, resolve_url

__all__ = [
    "ENV_VAR",
    "SCHEMA_VERSION",
    "GameSummary",
    "History",
    "PlayerProfile",
    "ScoreRow",
    "Store",
    "StoreError",
    "default_path",
    "resolve_url",
]
