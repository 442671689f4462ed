"""``fivedice/Solitaire-v0``: one player, one game, as a Gymnasium environment.

The environment drives the engine's immutable :class:`~fivedice.engine.state.GameState`; every
rule (legality, the Joker, fill orders, bonuses) is the engine's. Each turn's first roll
is made by the environment, so the agent always sees dice. Rewards are the points a
score action adds to the grand total (upper and extra-Yahtzee bonuses included, on the
step that earns them); rerolls reward 0, so an episode's return is the final score.

>>> import gymnasium, fivedice.rl
>>> env = gymnasium.make("fivedice/Solitaire-v0", rules="yahtzee", options={"joker": "free"})
>>> obs, info = env.reset(seed=1)
>>> obs.shape, int(env.action_space.n), int(info["action_mask"].sum())
((43,), 45, 44)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium
import numpy as np
from numpy.typing import NDArray

from fivedice import rules as rules_mod
from fivedice.dice import DiceRoller, make_roller
from fivedice.engine.actions import Action
from fivedice.engine.render import score_table
from fivedice.engine.state import GameState, Phase
from fivedice.errors import IllegalActionError, RuleSetError
from fivedice.i18n import _
from fivedice.rl.spaces import ActionCodec, ActionIndex, EnvSetupError, ObservationLayout
from fivedice.rules import RuleSet

__all__ = ["ILLEGAL_MODES", "SolitaireEnv", "describe_state", "resolve_rules", "roll_first"]

ILLEGAL_MODES = ("ignore", "raise")
"""What an illegal action does: ``ignore`` (no change, ``illegal_reward``, the reason in
``info["illegal"]``) or ``raise`` (:class:`~fivedice.errors.IllegalActionError`)."""


def resolve_rules(rules: RuleSet | str, options: Mapping[str, object] | None = None) -> RuleSet:
    """A rule set from a :class:`RuleSet`, a name or a spec (``"yahtzee joker=free"``), plus options."""
    if isinstance(rules, RuleSet):
        if options:
            raise RuleSetError(
                _("Options {options} cannot be applied to a built rule set; pass its name.", options=sorted(options))
            )
        return rules
    name, *pairs = str(rules).split() or [""]
    merged: dict[str, object] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep:
            raise RuleSetError(_("Option {option!r} is not of the form key=value.", option=pair))
        merged[key] = value
    merged.update(options or {})
    return rules_mod.get(name, **merged)


def roll_first(state: GameState, roller: DiceRoller, log: list[Action] | None = None) -> GameState:
    """Make the turn's first roll if the player to act has no dice yet (and play any roll-off)."""
    while state.phase is not Phase.OVER and state.dice is None:
        state, record = state.step(state.legal_actions()[0], roller)
        if log is not None:
            log.append(record)
    return state


def describe_state(state: object) -> str:
    """A short description of a would-be start state, for error messages."""
    if isinstance(state, GameState):
        return _("(a {players}-player game of {rules})", players=len(state.players), rules=state.rules.spec)
    return f"{type(state).__name__!r}"


class SolitaireEnv(gymnasium.Env[NDArray[Any], np.int64]):
    """A one-player game of any rule set (see :mod:`fivedice.rl.spaces` for the spaces).

    ``rules`` is a :class:`RuleSet`, a name or a spec; ``options`` are rule-set options
    (``{"joker": "free"}``). ``reset(options={"state": state})`` starts from a given
    one-player :class:`GameState` instead of a fresh card. ``info`` carries
    ``action_mask`` (int8) and ``state`` (the engine state, immutable). ``log`` holds the
    game's completed records since the reset, so ``Game.replay(rules, ["player"], env.log,
    starter=0)`` rebuilds a fresh game (to save it, or view it in any front end).
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 4}  # noqa: RUF012 (an instance attribute of Env)

    def __init__(
        self,
        rules: RuleSet | str = "yahtzee",
        options: Mapping[str, object] | None = None,
        render_mode: str | None = None,
        illegal: str = "ignore",
        illegal_reward: float = 0.0,
    ) -> None:
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise EnvSetupError(_("Render mode {mode!r} is not supported; expected 'ansi' or None.", mode=render_mode))
        if illegal not in ILLEGAL_MODES:
            raise EnvSetupError(
                _("Illegal-action mode {mode!r} is not valid; expected 'ignore' or 'raise'.", mode=illegal)
            )
        self.rules = resolve_rules(rules, options)
        self.codec = ActionCodec(self.rules)
        self.layout = ObservationLayout.of(self.rules, 1)
        self.action_space = gymnasium.spaces.Discrete(self.codec.size)
        self.observation_space = self.layout.space()
        self.render_mode = render_mode
        self.illegal = illegal
        self.illegal_reward = float(illegal_reward)
        self.log: list[Action] = []
        self._state = GameState.new(self.rules, ("player",), starter=0)
        self._roller = make_roller(None, 0)

    @property
    def game_state(self) -> GameState:
        """The current engine state."""
        return self._state

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[NDArray[np.float32], dict[str, Any]]:
        """Start a new game (or the game in ``options["state"]``) and make its first roll."""
        super().reset(seed=seed)
        self._roller = make_roller(self.np_random)
        options = dict(options or {})
        start = options.pop("state", None)
        if options:
            raise EnvSetupError(
                _("Reset options {options} are unknown; expected only 'state'.", options=sorted(options))
            )
        self.log = []
        if start is None:
            start = GameState.new(self.rules, ("player",), starter=0)
        elif not isinstance(start, GameState) or len(start.players) != 1 or start.rules != self.rules:
            what = describe_state(start)
            raise EnvSetupError(
                _("The start state {state} is not a one-player game of {rules}.", state=what, rules=self.rules.spec)
            )
        self._state = roll_first(start, self._roller, self.log)
        return self._outputs()

    def step(self, action: ActionIndex) -> tuple[NDArray[np.float32], float, bool, bool, dict[str, Any]]:
        """Play action ``action``; returns observation, points gained, terminated, truncated, info."""
        state = self._state
        if state.is_over:
            raise IllegalActionError(_("The game is over; call reset() to start a new one."))
        intent = self.codec.decode(action, state)
        reason = state.why_not(intent)
        if reason is not None:
            if self.illegal == "raise":
                raise IllegalActionError(reason)
            obs, info = self._outputs()
            info["illegal"] = reason
            return obs, self.illegal_reward, False, False, info
        before = state.total(0)
        state, record = state.step(intent, self._roller)
        self.log.append(record)
        state = roll_first(state, self._roller, self.log)
        self._state = state
        obs, info = self._outputs()
        return obs, float(state.total(0) - before), state.is_over, False, info

    def action_masks(self) -> NDArray[np.bool_]:
        """The legal actions now, as booleans (the convention of sb3-contrib's MaskablePPO)."""
        return self.codec.mask(self._state).astype(bool)

    def render(self) -> str | None:
        """The score card, dice and rolls as text (``render_mode="ansi"``)."""
        if self.render_mode != "ansi":
            return None
        state = self._state
        lines = [score_table(state)]
        if state.is_over:
            lines.append(f"Game over: {state.total(0)} points.")
        elif state.dice is not None:
            dice = " ".join(map(str, state.dice))
            lines.append(f"Round {state.round}, roll {state.rolls} of {self.rules.rolls}: dice {dice}")
        return "\n".join(lines) + "\n"

    def _outputs(self) -> tuple[NDArray[np.float32], dict[str, Any]]:
        state = self._state
        options = state.options()
        obs = self.layout.encode(state, 0, options)
        return obs, {"action_mask": self.codec.mask(state, options), "state": state}
