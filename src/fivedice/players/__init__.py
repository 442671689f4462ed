"""Computer players: one small protocol that the engine, front ends and simulator drive.

A :class:`Strategy` has a ``name`` and ``choose(state) -> action``, returning an intent
(``Roll(held_positions)`` or ``Score(box, card)``; ``RollOff`` in a roll-off) that
:meth:`fivedice.Game.play` completes with dice.

>>> from fivedice import Game, rules
>>> game = Game(rules.get("yacht"), ["Ann"], seed=3)
>>> greedy = get("greedy", game.rules, seed=1)
>>> records = play_turn(game, greedy)
>>> type(records[-1]).__name__, game.state.turns
('Score', 1)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from fivedice.actions import Action
from fivedice.errors import FiveDiceError
from fivedice.game import Game
from fivedice.i18n import N_, _, ngettext
from fivedice.rules.ruleset import RuleSet
from fivedice.state import GameState

__all__ = [
    "LEVELS",
    "SOLVER_LEVELS",
    "Strategy",
    "UnknownStrategyError",
    "check_level",
    "get",
    "play_game",
    "play_turn",
]


@runtime_checkable
class Strategy(Protocol):
    """Anything that picks a move: ``choose(state)`` returns an intent for ``state.current``."""

    @property
    def name(self) -> str:
        """The level's name, e.g. ``"greedy"``."""
        ...

    def choose(self, state: GameState) -> Action:
        """The move to make in ``state``."""
        ...


class UnknownStrategyError(FiveDiceError):
    """A strategy level that does not exist."""


LEVELS: dict[str, str] = {
    "random": N_("picks uniformly among the legal moves"),
    "greedy": N_("maximises this turn's points (rerolls for their expectation), a classic baseline"),
    "tali": N_("GNOME Tali's computer: Monte Carlo rerolls rated by a one-step table"),
    "optimal": N_("the solver's best move: maximises the expected final score"),
    "easy": N_("the solver's values with much noise and blunders (mean near 180 in Yahtzee)"),
    "medium": N_("the solver's values with moderate noise (mean near 220 in Yahtzee)"),
    "hard": N_("the solver's values with a little noise (mean near 245 in Yahtzee)"),
    "win": N_("plays to finish first: the chance of beating the others, from the solver's values"),
}
"""Every built-in level with a one-line description."""

SOLVER_LEVELS = frozenset({"optimal", "easy", "medium", "hard", "win"})
"""Levels that need the solver (and so a rule set it handles)."""


def get(level: str, rules: RuleSet, *, seed: int | None = None) -> Strategy:
    """A fresh player of ``level`` for ``rules``; ``seed`` fixes its own randomness."""
    key = check_level(level, rules)
    if key in SOLVER_LEVELS:
        from fivedice.players import solved

        player: Strategy = solved.make(key, rules, seed)
        return player
    from fivedice.players import basic

    if key == "random":
        return basic.RandomPlayer(rules, seed)
    if key == "greedy":
        return basic.GreedyPlayer(rules, seed)
    return basic.TaliPlayer(rules, seed)


def check_level(level: str, rules: RuleSet) -> str:
    """The level's key if a player of ``level`` can play ``rules`` (cheap: builds nothing); otherwise
    raises :class:`UnknownStrategyError` in one sentence. Never a silent substitute."""
    key = level.strip().lower()
    if key not in LEVELS:
        raise UnknownStrategyError(
            _("Computer level {level!r} is unknown; expected one of: {known}.", level=level, known=", ".join(LEVELS))
        )
    reason = rules.solver_refusal() if key in SOLVER_LEVELS else None
    if reason is not None:
        plain = ", ".join(k for k in LEVELS if k not in SOLVER_LEVELS)
        raise UnknownStrategyError(
            _(
                "Computer level {level!r} needs the solver: {reason} Choose {levels}.",
                level=key,
                reason=reason,
                levels=plain,
            )
        )
    return key


def play_turn(game: Game, strategy: Strategy) -> list[Action]:
    """Let ``strategy`` play the current player's turn (or one roll-off roll) to its end.

    Returns the logged records, the last one a ``Score`` unless the game was in its roll-off.
    """
    records: list[Action] = []
    start = game.state.turns
    rolloff = game.state.contenders != ()
    while not game.is_over and game.state.turns == start:
        records.append(game.play(strategy.choose(game.state)))
        if rolloff:
            break
    return records


def play_game(game: Game, strategies: Sequence[Strategy]) -> Game:
    """Play ``game`` to its end, seat ``s`` moved by ``strategies[s]``; returns the game."""
    if len(strategies) != len(game.players):
        raise UnknownStrategyError(
            ngettext(
                "Expected {players} strategy, one per player, not {count}.",
                "Expected {players} strategies, one per player, not {count}.",
                len(game.players),
                count=len(strategies),
                players=len(game.players),
            )
        )
    while not game.is_over:
        action = strategies[game.state.current].choose(game.state)
        game.play(action)
    return game
