"""A PettingZoo AEC environment for N players of any rule set.

Agents are ``player_0`` ... ``player_{N-1}`` by seat; the agent to act is the engine's
current player, who acts several times in a row within a turn (rerolls, then a score).
Spaces are those of :mod:`fivedice.rl.spaces`; each observation is a dict with
``observation`` (the seat's view, opponents' totals included) and ``action_mask``.

Rewards (``reward=``): ``"win"`` pays at the end only: a player alone in first place gets
+1, every other player -1, and ``k`` players tied for first each get ``2/k - 1`` (the
expected value if the tie were broken by a fair draw). ``"points"`` pays each score action
the points it adds, so a player's return is their final total.

>>> env = MultiplayerEnv("yacht", players=2, reward="win")
>>> env.reset(seed=3)
>>> env.agent_selection, int(env.observe("player_0")["action_mask"].sum())
('player_0', 43)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, NamedTuple

import gymnasium
import numpy as np
from numpy.typing import NDArray
from pettingzoo import AECEnv  # type: ignore[import-untyped]
from pettingzoo.utils import wrappers  # type: ignore[import-untyped]

from fivedice.dice import make_roller
from fivedice.engine.actions import Action, Roll, Score
from fivedice.engine.render import score_table, standings_text
from fivedice.engine.scorecard import Scorecard
from fivedice.engine.state import GameState, Phase
from fivedice.errors import IllegalActionError
from fivedice.i18n import _
from fivedice.rl.encoding import Encoder
from fivedice.rl.fast import Turn, filled_bits
from fivedice.rl.solitaire import ILLEGAL_MODES, MAX_ILLEGAL, describe_state, resolve_rules, roll_first
from fivedice.rl.spaces import ActionCodec, ActionIndex, EnvSetupError, ObservationLayout
from fivedice.rules import RuleSet

__all__ = ["REWARD_MODES", "MultiplayerEnv", "env", "win_rewards"]

REWARD_MODES = ("win", "points")
"""``win``: +1 / -1 at the end, ties for first split; ``points``: points as they are scored."""


def win_rewards(state: GameState) -> tuple[float, ...]:
    """Each seat's end-of-game reward under ``reward="win"``.

    >>> from fivedice import rules
    >>> from fivedice.engine.state import GameState
    >>> win_rewards(GameState.new(rules.get("yacht"), ("a", "b")))   # tied at 0: the win is split
    (0.0, 0.0)
    """
    places = {s.seat: s.place for s in state.standings()}
    k = sum(1 for p in places.values() if p == 1)
    return tuple(2 / k - 1 if places[seat] == 1 else -1.0 for seat in range(len(state.players)))


class MultiplayerEnv(AECEnv):  # type: ignore[misc]
    """N players, one agent per seat, of any rule set.

    ``starter`` is the seat that begins (None plays the engine's roll-off). ``illegal``,
    ``illegal_reward`` (-1), ``max_illegal`` (50 in a game: then every agent is truncated),
    ``scaled`` (observations in [0, 1]) and ``state_info`` work as in
    :class:`~fivedice.rl.solitaire.SolitaireEnv`. Each agent's ``info`` holds its
    ``action_mask``, and the engine ``state`` with ``state_info=True``.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["ansi"], "name": "fivedice_v0", "is_parallelizable": False}

    def __init__(
        self,
        rules: RuleSet | str = "yahtzee",
        options: Mapping[str, object] | None = None,
        players: int = 2,
        reward: str = "win",
        starter: int | None = 0,
        render_mode: str | None = None,
        illegal: str = "ignore",
        illegal_reward: float = -1.0,
        max_illegal: int | None = MAX_ILLEGAL,
        scaled: bool = True,
        state_info: bool = False,
    ) -> None:
        super().__init__()
        if isinstance(players, bool) or not isinstance(players, int) or players < 1:
            raise EnvSetupError(
                _("Player count {count!r} is not valid; expected a whole number from 1.", count=players)
            )
        if reward not in REWARD_MODES:
            raise EnvSetupError(_("Reward mode {mode!r} is not valid; expected 'win' or 'points'.", mode=reward))
        if illegal not in ILLEGAL_MODES:
            raise EnvSetupError(
                _("Illegal-action mode {mode!r} is not valid; expected 'ignore' or 'raise'.", mode=illegal)
            )
        if render_mode is not None and render_mode != "ansi":
            raise EnvSetupError(_("Render mode {mode!r} is not supported; expected 'ansi' or None.", mode=render_mode))
        if max_illegal is not None and (
            isinstance(max_illegal, bool) or not isinstance(max_illegal, int) or max_illegal < 1
        ):
            raise EnvSetupError(
                _("max_illegal {count!r} is not valid; expected a whole number from 1, or None.", count=max_illegal)
            )
        self.rules = resolve_rules(rules, options)
        self.codec = ActionCodec(self.rules)
        self.layout = ObservationLayout.of(self.rules, players)
        self.reward_mode = reward
        self.starter = starter
        self.render_mode = render_mode
        self.illegal = illegal
        self.illegal_reward = float(illegal_reward)
        self.max_illegal = max_illegal
        self.scaled = scaled
        self.state_info = state_info
        self.illegal_count = 0
        """Illegal actions in this game, by every agent."""
        self.possible_agents = [f"player_{i}" for i in range(players)]
        mask_space = gymnasium.spaces.Box(0, 1, (self.codec.size,), dtype=np.int8)
        self.observation_spaces = {
            a: gymnasium.spaces.Dict({"observation": self.layout.space(scaled), "action_mask": mask_space})
            for a in self.possible_agents
        }
        self.action_spaces = {a: gymnasium.spaces.Discrete(self.codec.size) for a in self.possible_agents}
        self._game = GameState.new(self.rules, tuple(self.possible_agents), starter)
        self._roller = make_roller(None, 0)
        self.np_random = np.random.default_rng()
        self._encoder = Encoder.of(self.layout, scaled)
        self._tables = self._encoder.tables
        self._seats: dict[int, _Seat] = {}
        """Each seat's part of every observation, by the identity of its cards (kept in the entry)."""
        self._positions = {name: i for i, name in enumerate(self.rules.box_names)}
        self._roll: _Roll | None = None
        """The dice showing, for the current seat (None when none show)."""
        self._legal = self._encoder.empty
        """The current seat's action mask (never handed over: copies are)."""

    @property
    def game_state(self) -> GameState:
        """The current engine state."""
        return self._game

    def observation_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        """The observation space of ``agent`` (the same object every call)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        """The action space of ``agent`` (the same object every call)."""
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game; ``options["state"]`` may give a :class:`GameState` to start from
        (other keys are ignored, as PettingZoo's API test passes arbitrary ones)."""
        if seed is not None:
            self.np_random = np.random.default_rng(seed)
        self._roller = make_roller(self.np_random)
        start = (options or {}).get("state")
        if start is None:
            start = GameState.new(self.rules, tuple(self.possible_agents), self.starter)
        elif not isinstance(start, GameState) or start.players != tuple(self.possible_agents):
            who = ", ".join(self.possible_agents)
            raise EnvSetupError(
                _("The start state {state} is not a game of {players}.", state=describe_state(start), players=who)
            )
        self._game = roll_first(start, self._roller)
        self.illegal_count = 0
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[self._game.current]
        self._refresh()

    def observe(self, agent: str) -> dict[str, NDArray[Any]]:
        """``agent``'s observation and action mask (all zero when it is not their turn)."""
        seat = self.possible_agents.index(agent)
        observation = self._encode(seat)
        return {"observation": observation, "action_mask": self._mask(seat)}

    def step(self, action: ActionIndex | None) -> None:
        """Play ``action`` for the agent to act (None for an agent whose game has ended)."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self._game
        seat = state.current
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        if action is None:
            raise IllegalActionError(
                _("Agent {agent!r} must act; None is only for agents whose game has ended.", agent=agent)
            )
        intent = self.codec.decode(action, state)
        if not self._legal[int(action)]:
            reason = state.why_not(intent)
            if reason is None:
                raise RuntimeError(f"The action mask refused action {action}, which the engine allows.")
            if self.illegal == "raise":
                raise IllegalActionError(reason)
            self.rewards[agent] = self.illegal_reward
            self.illegal_count += 1
            if self.max_illegal is not None and self.illegal_count >= self.max_illegal:
                self.truncations = dict.fromkeys(self.agents, True)
            self._accumulate_rewards()
            self._refresh()
            self.infos[agent]["illegal"] = reason
            return
        before = state.total(seat)
        state = self._play(state, intent)
        if not state.is_over and state.dice is None:
            state = self._play(state, Roll())  # the next turn's first roll
        self._game = state
        if self.reward_mode == "points":
            self.rewards[agent] = float(state.total(seat) - before)
        if state.is_over:
            if self.reward_mode == "win":
                for a, r in zip(self.possible_agents, win_rewards(state), strict=True):
                    self.rewards[a] = r
            self.terminations = dict.fromkeys(self.agents, True)
        self.agent_selection = self.possible_agents[state.current]
        self._accumulate_rewards()
        self._refresh()

    def render(self) -> str | None:
        """Every card side by side, then the dice (or the standings), as text."""
        if self.render_mode != "ansi":
            return None
        state = self._game
        lines = [score_table(state)]
        if state.is_over:
            lines.append(standings_text(state))
        elif state.dice is not None:
            dice = " ".join(map(str, state.dice))
            lines.append(f"{state.current_player} round {state.round}, roll {state.rolls}: dice {dice}")
        return "\n".join(lines) + "\n"

    def close(self) -> None:
        """Nothing to release."""

    def _encode(self, seat: int) -> NDArray[np.float32]:
        """``ObservationLayout.encode`` of the state for ``seat`` (scaled if asked), from each seat's cached part."""
        state, encoder = self._game, self._encoder
        out = np.zeros(encoder.size, dtype=np.float32)
        now = self._roll
        if now is not None:
            encoder.show_dice(out, now.rolls, now.multiset)
            if seat == state.current:
                encoder.show_scores(out, now.rolls, now.multiset, now.turn, now.special)
        n = len(self.possible_agents)
        views = [self._seat(state, s) for s in range(n)]
        mine = views[seat]
        out[mine.head] = mine.values[mine.head]
        out[mine.tail] = mine.values[mine.tail]
        encoder.show_totals(out, [views[(seat + j) % n].total for j in range(n)])
        return out

    def _seat(self, state: GameState, seat: int) -> _Seat:
        cards = state.cards[seat]
        known = self._seats.get(seat)
        if known is None or known.cards is not cards:
            encoder, at = self._encoder, self._encoder.at
            values = np.zeros(encoder.size, dtype=np.float32)
            bits = filled_bits(cards)
            encoder.show_filled(values, bits)
            encoder.show_round(values, bits.bit_count())
            for k, card in enumerate(cards):
                encoder.show_card(values, k, card.upper_total, encoder.yahtzee_of(card.entries))
            known = self._seats[seat] = _Seat(
                cards,
                values,
                slice(at["round"], at["scores"]),
                slice(at["upper_total"], at["totals"]),
                sum(card.total for card in cards),
                bits,
            )
        return known

    def _play(self, state: GameState, intent: Action) -> GameState:
        """The engine's transition for a legal intent (the engine verifies the completed record, the
        points of a score included: those come from the tables, or the engine's options for five alike)."""
        if isinstance(intent, Score) and self._roll is not None:
            now = self._roll
            j = intent.card * len(self._positions) + self._positions[intent.box]
            points = now.special[j] if now.special is not None else self._tables.flat[now.rolls - 1][now.multiset][j]
            return state.apply(Score(intent.box, intent.card, points))
        rolled = None
        if isinstance(intent, Roll):
            rolled = self._roller.roll(state.rolled_count(intent))
        return state.apply(state.complete(intent, rolled))

    def _mask(self, seat: int) -> NDArray[np.int8]:
        if seat != self._game.current:
            return np.zeros(self.codec.size, dtype=np.int8)
        return self._legal.copy()

    def _refresh(self) -> None:
        """The dice and action mask of the state (once per state), and every agent's info."""
        state, t = self._game, self._tables
        if state.phase is Phase.PLAY and state.dice is not None:
            m = t.multiset(state.dice)
            turn = t.turn(self._seat(state, state.current).bits)
            special = None
            if t.five[m]:  # the Joker rule and the extra-Yahtzee bonus: the engine's answer
                b, positions = t.boxes, self._positions
                special = {card * b + positions[name]: p for (card, name), p in state.options().items()}
            self._roll = _Roll(state.rolls, m, turn, special)
            self._legal = self._encoder.mask(state.rolls, turn, special)
        else:
            self._roll = None
            self._legal = self._encoder.empty
        for a in self.agents:
            self.infos[a] = {"action_mask": self._mask(self.possible_agents.index(a))}
            if self.state_info:
                self.infos[a]["state"] = state


class _Roll(NamedTuple):
    """The dice showing: the turn's roll, their multiset, the current seat's :class:`Turn` and the engine's
    options for five alike (``{card * boxes + box: points}``), as :class:`~fivedice.rl.encoding.Encoder` takes."""

    rolls: int
    multiset: int
    turn: Turn
    special: dict[int, int] | None


class _Seat(NamedTuple):
    """One seat's part of every observation, for its cards ``cards``."""

    cards: tuple[Scorecard, ...]
    values: NDArray[np.float32]
    """An observation holding the seat's round, filled boxes and cards' fields (as it sees them)."""
    head: slice
    """The round and filled fields."""
    tail: slice
    """The upper totals, upper bonuses and extra-Yahtzee readiness."""
    total: int
    bits: int
    """:func:`filled_bits` of the cards."""


def env(**kwargs: Any) -> Any:
    """PettingZoo's convention: :class:`MultiplayerEnv` (same arguments) inside the
    ``OrderEnforcingWrapper``, which insists on ``reset()`` before anything else."""
    return wrappers.OrderEnforcingWrapper(MultiplayerEnv(**kwargs))
