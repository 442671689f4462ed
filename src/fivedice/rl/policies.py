"""Policies for the environments, and adapters between them and fivedice strategies.

A :class:`Policy` is any callable ``policy(observation, info) -> action index``; ``info``
is what the environments return (``action_mask`` and the engine ``state``). In the AEC
environment pass ``obs["observation"]`` and the agent's ``info`` from ``env.last()``.

- :func:`strategy_policy` makes any fivedice strategy level (``random``, ``greedy``,
  ``optimal`` ...) a policy; :class:`StrategyPolicy` wraps a strategy object.
- :class:`MaskedRandomPolicy` plays uniformly among the legal actions.
- :class:`PolicyStrategy` goes the other way: a trained policy becomes a fivedice
  :class:`~fivedice.players.Strategy`, able to seat at any game.

>>> import gymnasium, fivedice.rl
>>> env = gymnasium.make("fivedice/Solitaire-v0", rules="yacht")
>>> obs, info = env.reset(seed=0)
>>> policy = MaskedRandomPolicy(seed=1)
>>> bool(info["action_mask"][policy(obs, info)])
True
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np
from numpy.typing import NDArray

from fivedice.engine.actions import Action
from fivedice.engine.state import GameState, Phase
from fivedice.errors import IllegalActionError
from fivedice.i18n import _
from fivedice.rl.spaces import ActionCodec, EnvSetupError, ObservationLayout
from fivedice.rules import RuleSet

if TYPE_CHECKING:
    from fivedice.players import Strategy

__all__ = ["MaskedRandomPolicy", "Policy", "PolicyStrategy", "StrategyPolicy", "strategy_policy"]


class Policy(Protocol):
    """Picks an action index from an observation and the environment's ``info``."""

    def __call__(self, observation: NDArray[Any], info: Mapping[str, Any]) -> int:
        """The action to take."""
        ...


def _state(info: Mapping[str, Any]) -> GameState:
    state = info.get("state")
    if not isinstance(state, GameState):
        raise EnvSetupError(_("The info has no 'state'; make the environment with state_info=True."))
    return state


@dataclass(slots=True)
class MaskedRandomPolicy:
    """Uniformly random among the legal actions (``info["action_mask"]``)."""

    seed: int | None = None
    rng: np.random.Generator = field(init=False)

    def __post_init__(self) -> None:
        self.rng = np.random.default_rng(self.seed)

    def __call__(self, observation: NDArray[Any], info: Mapping[str, Any]) -> int:
        """A random legal action."""
        legal = np.flatnonzero(info["action_mask"])
        if legal.size == 0:
            raise IllegalActionError(_("No action is legal: the game is over or it is another player's turn."))
        return int(self.rng.choice(legal))


@dataclass(slots=True)
class StrategyPolicy:
    """A fivedice strategy (anything with ``choose(state) -> Action``) as a policy.

    It reads the engine state from ``info["state"]`` and maps the strategy's intent to
    the flat action index of :class:`~fivedice.rl.spaces.ActionCodec`.
    """

    strategy: Strategy
    _codecs: dict[RuleSet, ActionCodec] = field(default_factory=dict, init=False, repr=False)

    @property
    def name(self) -> str:
        """The strategy's name."""
        return str(getattr(self.strategy, "name", type(self.strategy).__name__))

    def __call__(self, observation: NDArray[Any], info: Mapping[str, Any]) -> int:
        """The strategy's move in ``info["state"]`` as an action index."""
        state = _state(info)
        codec = self._codecs.get(state.rules)
        if codec is None:
            codec = self._codecs[state.rules] = ActionCodec(state.rules)
        return codec.encode(self.strategy.choose(state), state)


def strategy_policy(level: str, rules: RuleSet, *, seed: int | None = None) -> StrategyPolicy:
    """The fivedice strategy ``level`` (see ``fivedice.players.LEVELS``) for ``rules`` as a policy."""
    from fivedice import players

    return StrategyPolicy(players.get(level, rules, seed=seed))


@dataclass(slots=True)
class PolicyStrategy:
    """A policy as a fivedice strategy: it sees the observation of the seat to act.

    The first roll of a turn and the roll-off, which have no choice, are made for it.
    """

    policy: Callable[[NDArray[Any], Mapping[str, Any]], int]
    rules: RuleSet
    players: int = 1
    name: str = "policy"
    codec: ActionCodec = field(init=False, repr=False)
    layout: ObservationLayout = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.codec = ActionCodec(self.rules)
        self.layout = ObservationLayout.of(self.rules, self.players)

    def choose(self, state: GameState) -> Action:
        """The policy's move in ``state`` as an engine intent."""
        if state.phase is not Phase.PLAY or state.dice is None:
            return state.legal_actions()[0]
        obs = self.layout.encode(state, state.current)
        index = self.policy(obs, {"action_mask": self.codec.mask(state), "state": state})
        return self.codec.decode(index, state)
