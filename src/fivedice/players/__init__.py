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

from fivedice.engine.actions import Action
from fivedice.engine.game import Game
from fivedice.i18n import ngettext
from fivedice.players.levels import (
    LEVELS,
    SOLVER_LEVELS,
    TARGET_LEVEL,
    Strategy,
    UnknownStrategyError,
    check_level,
    target_of,
)
from fivedice.rules.ruleset import RuleSet

__all__ = [
    "LEVELS",
    "SOLVER_LEVELS",
    "TARGET_LEVEL",
    "Strategy",
    "UnknownStrategyError",
    "check_level",
    "get",
    "play_game",
    "play_turn",
    "prepare",
]


def get(level: str, rules: RuleSet, *, seed: int | None = None) -> Strategy:
    """A fresh player of ``level`` for ``rules``; ``seed`` fixes its own randomness."""
    key = check_level(level, rules)
    target = target_of(key)
    if target is not None:
        from fivedice.players.target import TargetPlayer

        return TargetPlayer(rules, target, seed)
    if key == "win":
        from fivedice.players.win import WinPlayer

        return WinPlayer(rules, seed)
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


def prepare(levels: Sequence[str], rules: RuleSet, workers: int = 1) -> None:
    """Load (or build) what ``levels`` need (solver tables, the fast chances' moments) once, e.g. before
    worker processes are forked so that they share it."""
    if any(level in SOLVER_LEVELS for level in levels):
        from fivedice.players import solved

        solved.prepare(levels, rules, workers)
    if "win" in levels:
        from fivedice.players.win import prepare_win

        prepare_win(rules)
    if any(target_of(check_level(level, rules)) is not None for level in levels):
        from fivedice.players.solved import solver_for
        from fivedice.solver.fast import moments

        moments(solver_for(rules))  # the fast chances' moments: shipped (built only for other options)


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
