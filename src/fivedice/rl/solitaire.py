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
from numpy.typing import NDArray

from fivedice import rules as rules_mod
from fivedice.dice import DiceRoller
from fivedice.engine.actions import Action, Roll, Score
from fivedice.engine.render import score_table
from fivedice.engine.state import GameState, Phase
from fivedice.errors import IllegalActionError, RuleSetError
from fivedice.i18n import _
from fivedice.rl.fast import FastGame, Tables
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

MASK_CACHE = 1 << 14
"""Distinct action masks an environment remembers (a single-card game has at most about 2**14)."""


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
        self.log: list[Action] = []
        self.illegal_count = 0
        """Illegal actions since the reset."""
        self._tables = Tables.of(self.rules)
        self._game = FastGame(self.rules, self._tables)
        self._start_turns = 0
        self._size = self.codec.size
        self._rerolls = self.codec.rerolls
        self._boxes = len(self.rules.boxes)
        self._at = {field.name: field.start for field in self.layout.fields}
        self._scale = np.float32(1) / self.layout.space().high
        self._reroll_list = list(range(1, self._rerolls))
        self._max_rolls = self.rules.rolls
        self._helds: dict[tuple[int, ...], list[tuple[int, ...]]] = {}
        """The held positions of every reroll mask, by dice (lists shared by dice of one order)."""
        self._by_order: dict[tuple[int, ...], list[tuple[int, ...]]] = {}
        self._masks: dict[tuple[int, ...], NDArray[np.int8]] = {}
        """The action mask of each list of legal actions seen (copied out, never handed over)."""
        tables = self._tables
        self._prefix = [[float(x) for x in (*c, *m)] for c, m in zip(tables.counts, tables.sets, strict=True)]
        """The counts and dice fields of the observation, by multiset."""
        self._rounds = self.rules.rounds
        self._mask = np.zeros(self._size, dtype=np.int8)
        self._live: list[float] = []
        self._filled: list[float] = []
        self._score_part: list[float] = []
        self._tail: list[float] = []
        self._mask_list: list[int] = []
        self._redraw()

    @property
    def game_state(self) -> GameState:
        """The current engine state."""
        return self._game.state()

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[NDArray[np.float32], dict[str, Any]]:
        """Start a new game (or the game in ``options["state"]``) and make its first roll."""
        super().reset(seed=seed)
        rng = random.Random(int(self.np_random.integers(1 << 63)))
        options = dict(options or {})
        start = options.pop("state", None)
        if options:
            raise EnvSetupError(
                _("Reset options {options} are unknown; expected only 'state'.", options=sorted(options))
            )
        self.log = []
        self.illegal_count = 0
        if start is None:
            self._game = FastGame(self.rules, self._tables, rng)
        elif not isinstance(start, GameState) or len(start.players) != 1 or start.rules != self.rules:
            what = describe_state(start)
            raise EnvSetupError(
                _("The start state {state} is not a one-player game of {rules}.", state=what, rules=self.rules.spec)
            )
        else:
            start = roll_first(start, _Roller(rng), self.log)
            self._game = FastGame.of(start, self._tables, rng)
        self._redraw()
        if self._game.dice is None and not self._game.over:
            self._first_roll()
        return self._outputs()

    def step(self, action: ActionIndex) -> tuple[NDArray[np.float32], float, bool, bool, dict[str, Any]]:
        """Play action ``action``; returns observation, points gained, terminated, truncated, info."""
        game = self._game
        if game.over:
            raise IllegalActionError(_("The game is over; call reset() to start a new one."))
        wrong_type = type(action) is not int and (isinstance(action, bool) or not isinstance(action, int | np.integer))
        if wrong_type or not 0 <= action < self._size:  # (a plain int, the common case, skips the isinstance)
            self.codec.decode(action, self.game_state)  # raises the engine's one-sentence error
        a = int(action)
        dice = game.dice
        assert dice is not None
        if a < self._rerolls:
            if a == 0 or game.rolls >= self._max_rolls:
                return self._refuse(a)
            helds = self._helds.get(dice)
            if helds is None:  # ascending faces, ties by position (at most 6**dice of them)
                helds = self._helds[dice] = self._helds_of(tuple(sorted(range(len(dice)), key=dice.__getitem__)))
            held = helds[a]
            self.log.append(Roll(held, game.reroll(held)))
            self._show_roll()
            return self._outputs_step(0.0, False)
        points = game.options.get(a - self._rerolls)
        if points is None:
            return self._refuse(a)
        card, box = divmod(a - self._rerolls, self._boxes)
        gained = game.score(card, box)
        self.log.append(Score(self.rules.boxes[box].name, card, points))
        self._show_score(card, box, points)
        if not game.over:
            self._first_roll()
        return self._outputs_step(float(gained), game.over)

    def _helds_of(self, order: tuple[int, ...]) -> list[tuple[int, ...]]:
        """The held positions of every reroll mask for dice whose ascending order is ``order``."""
        helds = self._by_order.get(order)
        if helds is None:
            helds = self._by_order[order] = [
                tuple(sorted(p for i, p in enumerate(order) if not a >> i & 1)) for a in range(self._rerolls)
            ]
        return helds

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
    # The observation is kept as Python lists, one per part that changes together, and becomes
    # one array per step: counts + dice + [roll, round] | filled | scores | the cards' totals.
    def _first_roll(self) -> None:
        game = self._game
        self.log.append(Roll((), game.reroll(())))
        self._show_roll()

    def _redraw(self) -> None:
        """Write the whole observation of the game (after a reset)."""
        game, b = self._game, self._boxes
        self._filled = [0.0] * (len(game.entries) * b)
        for k, entries in enumerate(game.entries):
            for i, entry in enumerate(entries):
                if entry is not None:
                    self._filled[k * b + i] = 1.0
        self._show_cards()
        self._live = self._idle()
        self._score_part = [0.0] * len(self._filled)
        self._mask_list = []
        if game.dice is not None and not game.over:
            self._show_roll()

    def _idle(self) -> list[float]:
        """The dice part of the observation when no dice show."""
        return [0.0] * (self._at["roll"] + 1) + [float(min(self._game.count + 1, self._rounds))]

    def _show_roll(self) -> None:
        game = self._game
        self._live = [*self._prefix[game.multiset], game.rolls, min(game.count + 1, self._rounds)]
        scores = [0.0] * len(self._filled)
        first = self._rerolls
        legal = self._reroll_list.copy() if game.rolls < self._max_rolls else []
        for j, points in game.options.items():
            scores[j] = points
            legal.append(first + j)
        self._score_part = scores
        self._mask_list = legal

    def _show_cards(self) -> None:
        game, rules = self._game, self.rules
        y = game.tables.yahtzee
        ready = [1.0 if rules.yahtzee_bonus and y >= 0 and entries[y] else 0.0 for entries in game.entries]
        bonus = [rules.upper_bonus_for(u) for u in game.upper]
        self._tail = [*game.upper, *bonus, *ready, game.total]

    def _show_score(self, card: int, box: int, points: int) -> None:
        self._filled[card * self._boxes + box] = 1.0
        self._show_cards()
        if self._game.over:
            self._live = self._idle()
            self._score_part = [0.0] * len(self._filled)
            self._mask_list = []

    def _refuse(self, action: int) -> tuple[NDArray[np.float32], float, bool, bool, dict[str, Any]]:
        state = self.game_state
        reason = state.why_not(self.codec.decode(action, state))
        if reason is None:
            raise RuntimeError(f"The fast path refused action {action}, which the engine allows.")
        if self.illegal == "raise":
            raise IllegalActionError(reason)
        self.illegal_count += 1
        truncated = self.max_illegal is not None and self.illegal_count >= self.max_illegal
        obs, info = self._outputs()
        info["illegal"] = reason
        return obs, self.illegal_reward, False, truncated, info

    def _outputs_step(self, reward: float, done: bool) -> tuple[NDArray[np.float32], float, bool, bool, dict[str, Any]]:
        obs, info = self._outputs()
        return obs, reward, done, False, info

    def _outputs(self) -> tuple[NDArray[np.float32], dict[str, Any]]:
        raw = np.array(self._live + self._filled + self._score_part + self._tail, dtype=np.float32)
        if self.scaled:
            raw *= self._scale  # raw is this step's own array
        key = tuple(self._mask_list)
        known = self._masks.get(key)
        if known is None:
            known = np.zeros(self._size, dtype=np.int8)
            known[self._mask_list] = 1
            if len(self._masks) < MASK_CACHE:
                self._masks[key] = known
        mask = self._mask = known.copy()  # the caller may keep or change it
        info: dict[str, Any] = {"action_mask": mask}
        if self.state_info:
            info["state"] = self.game_state
        return raw, info


class _Roller:
    """A :class:`~fivedice.dice.DiceRoller` on a ``random.Random`` drawing as :class:`FastGame` does."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def roll(self, n: int) -> tuple[int, ...]:
        """Roll ``n`` dice."""
        return tuple(int(self.rng.random() * 6) + 1 for _die in range(n))
