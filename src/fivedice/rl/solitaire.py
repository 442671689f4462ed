"""``fivedice/Solitaire-v0``: one player, one game, as a Gymnasium environment.

Every rule (legality, the Joker, fill orders, bonuses) is the engine's: the environment plays on
:class:`~fivedice.rl.fast.FastGame`, the engine's tables on plain lists (tens of thousands of
steps a second), and builds the engine's immutable :class:`~fivedice.engine.state.GameState`
when asked (``env.game_state``, ``info["state"]`` with ``state_info=True``, rendering). Each
turn's first roll is made by the environment, so the agent always sees dice. Rewards are the
points a score action adds to the grand total (upper and extra-Yahtzee bonuses included, on
the step that earns them); rerolls reward 0, so a legal episode's return is the final score.

Illegal actions (an agent without masks): nothing changes, the reward is ``illegal_reward``
(-1 by default), ``info["illegal"]`` gives the engine's reason, and the episode is truncated
at the ``max_illegal``-th illegal action (50 by default), so every episode ends. Masked
algorithms never meet either. ``illegal="raise"`` raises instead.

Observations are scaled to [0, 1] by default (each field divided by its exact maximum, see
:mod:`fivedice.rl.spaces`); ``scaled=False`` gives the raw whole numbers.

>>> import gymnasium, fivedice.rl
>>> env = gymnasium.make("fivedice/Solitaire-v0", rules="yahtzee", options={"joker": "free"})
>>> obs, info = env.reset(seed=1)
>>> obs.shape, int(env.action_space.n), int(info["action_mask"].sum()), float(obs.max()) <= 1.0
((43,), 45, 44, True)
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import gymnasium
import numpy as np
from gymnasium.utils import seeding
from numpy.typing import NDArray

from fivedice import rules as rules_mod
from fivedice.dice import DiceRoller
from fivedice.engine.actions import Action, Roll, Score
from fivedice.engine.render import score_table
from fivedice.engine.state import GameState, Phase
from fivedice.errors import IllegalActionError, RuleSetError
from fivedice.i18n import _
from fivedice.rl.encoding import Encoder
from fivedice.rl.fast import FastGame, Tables, draw
from fivedice.rl.spaces import ActionCodec, ActionIndex, EnvSetupError, ObservationLayout
from fivedice.rules import RuleSet

__all__ = ["ILLEGAL_MODES", "RENDER_MODES", "SolitaireEnv", "describe_state", "resolve_rules", "roll_first"]

ILLEGAL_MODES = ("ignore", "raise")
"""What an illegal action does: ``ignore`` (no change, ``illegal_reward``, the reason in
``info["illegal"]``, truncation at ``max_illegal``) or ``raise``
(:class:`~fivedice.errors.IllegalActionError`)."""

RENDER_MODES = ("ansi", "rgb_array")
"""``ansi``: the score card and dice as text; ``rgb_array``: a picture (:mod:`fivedice.rl.picture`)."""

MAX_ILLEGAL = 50
"""Illegal actions after which an episode is truncated, by default."""


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
    one-player :class:`GameState` instead of a fresh card. ``info`` carries ``action_mask``
    (int8), ``state`` (the engine state) only with ``state_info=True`` (building it costs more
    than a step), and ``illegal`` after an illegal action. ``log`` holds the game's completed
    records since the reset, so ``Game.replay(rules, ["player"], env.log, starter=0)`` rebuilds
    a fresh game (to save it, or view it in any front end).
    """

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 4}  # noqa: RUF012 (an instance attribute of Env)

    def __init__(
        self,
        rules: RuleSet | str = "yahtzee",
        options: Mapping[str, object] | None = None,
        render_mode: str | None = None,
        illegal: str = "ignore",
        illegal_reward: float = -1.0,
        max_illegal: int | None = MAX_ILLEGAL,
        scaled: bool = True,
        state_info: bool = False,
    ) -> None:
        if render_mode is not None and render_mode not in RENDER_MODES:
            modes = ", ".join(repr(m) for m in RENDER_MODES)
            raise EnvSetupError(
                _("Render mode {mode!r} is not supported; expected {modes} or None.", mode=render_mode, modes=modes)
            )
        if illegal not in ILLEGAL_MODES:
            raise EnvSetupError(
                _("Illegal-action mode {mode!r} is not valid; expected 'ignore' or 'raise'.", mode=illegal)
            )
        if max_illegal is not None and (
            isinstance(max_illegal, bool) or not isinstance(max_illegal, int) or max_illegal < 1
        ):
            raise EnvSetupError(
                _("max_illegal {count!r} is not valid; expected a whole number from 1, or None.", count=max_illegal)
            )
        self.rules = resolve_rules(rules, options)
        self.codec = ActionCodec(self.rules)
        self.layout = ObservationLayout.of(self.rules, 1)
        self.action_space = gymnasium.spaces.Discrete(self.codec.size)
        self.observation_space = self.layout.space(scaled)
        self.render_mode = render_mode
        self.illegal = illegal
        self.illegal_reward = float(illegal_reward)
        self.max_illegal = max_illegal
        self.scaled = scaled
        self.state_info = state_info
        self.illegal_count = 0
        """Illegal actions since the reset."""
        self._tables = Tables.of(self.rules)
        self._dice_rng = random.Random()
        self._generator: np.random.Generator | None = None
        self._generator_seed: int | None = None
        self._dice_seeded = False
        self._game = FastGame(self.rules, self._tables, self._dice_rng)
        self._log: list[Action] = []
        """The log so far: a start state's first roll, then the fast game's moves up to ``_logged``."""
        self._logged = 0
        self._size = self.codec.size
        self._rerolls = self.codec.rerolls
        self._boxes = len(self.rules.boxes)
        self._max_rolls = self.rules.rolls
        self._rounds = self.rules.rounds
        self._names = self.rules.box_names
        self._encoder = Encoder.of(self.layout, scaled)
        self._obs = np.zeros(self.layout.size, dtype=np.float32)
        """The observation, kept up to date in place; each step hands over a copy."""
        self._view = self._encoder.bind(self._obs)
        self._mask = self._encoder.empty
        """The action mask now (shared with the tables: never handed over)."""
        self._redraw()

    @property
    def _np_random(self) -> np.random.Generator | None:
        """Gymnasium's generator (``np_random``), built from the last reset's seed when first asked
        for: the dice have their own, so a seeded reset does not spend ~50 us building one."""
        if self._generator is None and self._generator_seed is not None:
            self._generator = seeding.np_random(self._generator_seed)[0]
            self._generator_seed = None
        return self._generator

    @_np_random.setter
    def _np_random(self, value: np.random.Generator | None) -> None:
        self._generator, self._generator_seed = value, None

    @property
    def game_state(self) -> GameState:
        """The current engine state."""
        return self._game.state()

    @property
    def log(self) -> list[Action]:
        """The game's completed records since the reset (built from the fast game's moves when asked)."""
        moves, names, log = self._game.moves, self._names, self._log
        for move in moves[self._logged :]:
            if len(move) == 2:
                log.append(Roll(move[0], move[1]))
            else:
                log.append(Score(names[move[0]], move[1], move[2]))
        self._logged = len(moves)
        return log

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[NDArray[np.float32], dict[str, Any]]:
        """Start a new game (or the game in ``options["state"]``) and make its first roll.

        ``seed`` seeds the dice; without one they go on drawing (seeded from ``np_random`` at first)."""
        if seed is not None:
            if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
                super().reset(seed=seed)  # Gymnasium's own error for a seed it does not take
            self._generator, self._generator_seed, self._np_random_seed = None, seed, seed
            self._dice_rng.seed(seed)
            self._dice_seeded = True
        elif not self._dice_seeded:
            self._dice_rng.seed(int(self.np_random.integers(1 << 63)))
            self._dice_seeded = True
        options = dict(options or {})
        start = options.pop("state", None)
        if options:
            raise EnvSetupError(
                _("Reset options {options} are unknown; expected only 'state'.", options=sorted(options))
            )
        self.illegal_count = 0
        self._log, self._logged = [], 0
        if start is None:
            self._game = FastGame(self.rules, self._tables, self._dice_rng)
        elif not isinstance(start, GameState) or len(start.players) != 1 or start.rules != self.rules:
            what = describe_state(start)
            raise EnvSetupError(
                _("The start state {state} is not a one-player game of {rules}.", state=what, rules=self.rules.spec)
            )
        else:
            start = roll_first(start, _Roller(self._tables, self._dice_rng), self._log)
            self._game = FastGame.of(start, self._tables, self._dice_rng)
        self._redraw()
        if self._game.dice is None and not self._game.over:
            self._game.first_roll()
            self._show_roll()
        return self._obs.copy(), self._info()

    def step(self, action: ActionIndex) -> tuple[NDArray[np.float32], float, bool, bool, dict[str, Any]]:
        """Play action ``action``; returns observation, points gained, terminated, truncated, info."""
        game = self._game
        if game.over:
            raise IllegalActionError(_("The game is over; call reset() to start a new one."))
        if type(action) is not int:  # (a plain int, the common case, skips the isinstance)
            if isinstance(action, bool) or not isinstance(action, int | np.integer):
                self.codec.decode(action, self.game_state)  # raises the engine's one-sentence error
            action = int(action)
        if not 0 <= action < self._size:
            self.codec.decode(action, self.game_state)
        if action < self._rerolls:
            if action == 0 or game.rolls >= self._max_rolls:
                return self._refuse(action)
            game.reroll_mask(action)
            self._mask = self._view.roll(game.rolls, game.multiset, game.turn, game.special)
            reward = 0.0
        else:
            j = action - self._rerolls
            special = game.special
            if not (game.turn.legal >> j & 1 if special is None else j in special):
                return self._refuse(action)
            card, box = divmod(j, self._boxes)
            reward = float(game.score(card, box))
            self._show_score(j, card)
            if not game.over:
                game.first_roll()
                self._mask = self._view.roll(game.rolls, game.multiset, game.turn, game.special)
        info: dict[str, Any] = {"action_mask": self._mask.copy()}  # the caller may keep or change it
        if self.state_info:
            info["state"] = self.game_state
        return self._obs.copy(), reward, game.over, False, info

    def action_masks(self) -> NDArray[np.bool_]:
        """The legal actions now, as booleans (the convention of sb3-contrib's MaskablePPO)."""
        return self._mask.astype(bool)

    def render(self) -> str | NDArray[np.uint8] | None:
        """The table as text (``render_mode="ansi"``) or as an RGB picture (``"rgb_array"``)."""
        if self.render_mode == "rgb_array":
            from fivedice.rl.picture import frame

            return frame(self.game_state)
        if self.render_mode != "ansi":
            return None
        state = self.game_state
        lines = [score_table(state)]
        if state.is_over:
            lines.append(f"Game over: {state.total(0)} points.")
        elif state.dice is not None:
            dice = " ".join(map(str, state.dice))
            lines.append(f"Round {state.round}, roll {state.rolls} of {self.rules.rolls}: dice {dice}")
        return "\n".join(lines) + "\n"

    # -- the fast path -------------------------------------------------------------------------
    # The observation is kept in place: the dice part and the scores change with each roll, the
    # filled boxes and the cards' totals with each score.
    def _redraw(self) -> None:
        """Write the whole observation of the game (after a reset)."""
        game, obs, encoder = self._game, self._obs, self._encoder
        obs[:] = 0
        encoder.show_filled(obs, game.filled)
        y = game.tables.yahtzee
        for k in range(len(self.rules.cards)):
            encoder.show_card(obs, k, game.upper[k], game.entries[k][y] if y >= 0 else None)
        encoder.show_totals(obs, (game.total,))
        encoder.show_round(obs, game.count)
        self._mask = encoder.empty
        if game.dice is not None and not game.over:
            self._show_roll()

    def _show_roll(self) -> None:
        game = self._game
        self._mask = self._view.roll(game.rolls, game.multiset, game.turn, game.special)

    def _show_score(self, j: int, card: int) -> None:
        game = self._game
        y = game.tables.yahtzee
        self._view.score(j, card, game.upper[card], game.entries[card][y] if y >= 0 else None, game.total, game.count)
        if game.over:
            self._encoder.hide_roll(self._obs)
            self._mask = self._encoder.empty

    def _refuse(self, action: int) -> tuple[NDArray[np.float32], float, bool, bool, dict[str, Any]]:
        state = self.game_state
        reason = state.why_not(self.codec.decode(action, state))
        if reason is None:
            raise RuntimeError(f"The fast path refused action {action}, which the engine allows.")
        if self.illegal == "raise":
            raise IllegalActionError(reason)
        self.illegal_count += 1
        truncated = self.max_illegal is not None and self.illegal_count >= self.max_illegal
        info = self._info()
        info["illegal"] = reason
        return self._obs.copy(), self.illegal_reward, False, truncated, info

    def _info(self) -> dict[str, Any]:
        info: dict[str, Any] = {"action_mask": self._mask.copy()}  # the caller may keep or change it
        if self.state_info:
            info["state"] = self.game_state
        return info


class _Roller:
    """A :class:`~fivedice.dice.DiceRoller` drawing as :class:`FastGame` does (for a start state's first roll)."""

    def __init__(self, tables: Tables, rng: random.Random) -> None:
        self.tables, self.rng = tables, rng

    def roll(self, n: int) -> tuple[int, ...]:
        """Roll ``n`` dice."""
        return draw(self.tables, self.rng, n)
