"""Reinforcement-learning environments for every fivedice rule set (the ``rl`` extra).

Importing this package registers ``fivedice/Solitaire-v0`` with Gymnasium, so
``gymnasium.make("fivedice/Solitaire-v0", rules="yahtzee", options={"joker": "free"})``
works; ``gymnasium.make("fivedice.rl:fivedice/Solitaire-v0")`` imports it on the fly.
``MultiplayerEnv`` (PettingZoo) is imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from fivedice.extras import needed_by

with needed_by("fivedice.rl"):  # without Gymnasium: one sentence naming the 'rl' extra
    import gymnasium

    from fivedice.rl.evaluate import Evaluation, evaluate
    from fivedice.rl.policies import MaskedRandomPolicy, Policy, PolicyStrategy, StrategyPolicy, strategy_policy
    from fivedice.rl.solitaire import SolitaireEnv, resolve_rules
    from fivedice.rl.spaces import ActionCodec, EnvSetupError, Field, ObservationLayout, ascending_positions

if TYPE_CHECKING:
    from fivedice.rl.multi import MultiplayerEnv

__all__ = [
    "ENV_ID",
    "ActionCodec",
    "EnvSetupError",
    "Evaluation",
    "Field",
    "MaskedRandomPolicy",
    "MultiplayerEnv",
    "ObservationLayout",
    "Policy",
    "PolicyStrategy",
    "SolitaireEnv",
    "StrategyPolicy",
    "ascending_positions",
    "evaluate",
    "resolve_rules",
    "strategy_policy",
]

ENV_ID = "fivedice/Solitaire-v0"
"""The Gymnasium id of :class:`SolitaireEnv`."""

if ENV_ID not in gymnasium.registry:
    gymnasium.register(ENV_ID, entry_point="fivedice.rl.solitaire:SolitaireEnv")


def __getattr__(name: str) -> Any:
    if name == "MultiplayerEnv":
        from fivedice.rl.multi import MultiplayerEnv

        return MultiplayerEnv
    raise AttributeError(f"module 'fivedice.rl' has no attribute {name!r}")
