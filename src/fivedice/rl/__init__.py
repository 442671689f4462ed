"""Reinforcement-learning environments for every fivedice rule set (the ``rl`` extra).

Importing this package registers ``fivedice/Solitaire-v0`` with Gymnasium, so
``gymnasium.make("fivedice/Solitaire-v0", rules="yahtzee", options={"joker": "free"})``
works; ``gymnasium.make("fivedice.rl:fivedice/Solitaire-v0")`` imports it on the fly.
"""

from __future__ import annotations

import gymnasium

from fivedice.rl.solitaire import SolitaireEnv, resolve_rules
from fivedice.rl.spaces import ActionCodec, Field, ObservationLayout, ascending_positions

__all__ = [
    "ENV_ID",
    "ActionCodec",
    "Field",
    "ObservationLayout",
    "SolitaireEnv",
    "ascending_positions",
    "resolve_rules",
]

ENV_ID = "fivedice/Solitaire-v0"
"""The Gymnasium id of :class:`SolitaireEnv`."""

if ENV_ID not in gymnasium.registry:
    gymnasium.register(ENV_ID, entry_point="fivedice.rl.solitaire:SolitaireEnv")
