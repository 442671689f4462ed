"""Computer seats, hints and end-of-game analysis, from the players and solver subsystems when present.

Until ``fivedice.players`` exists a simple greedy fallback plays; hints fall back to the
engine's own list of boxes with their points; analysis is None without ``fivedice.analysis``.
Every choice is an intent that the engine then verifies, so no rule is decided here.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Mapping
from functools import cache
from typing import Any

from fivedice.actions import Action, Roll, RollOff, Score
from fivedice.errors import FiveDiceError
from fivedice.game import Game
from fivedice.i18n import N_, _
from fivedice.rules import RuleSet
from fivedice.state import GameState, Phase
from fivedice.web.errors import RoomError

__all__ = ["analysis", "choose", "default_level", "greedy", "hint", "levels"]

DEFAULT_LEVEL = "greedy"
"""The level that plays a timed-out turn when it exists."""
_FALLBACK = {"greedy": N_("Scores the best box for the dice showing; otherwise rerolls toward more of a kind.")}


def _module(name: str) -> Any:
    try:
        if importlib.util.find_spec(name) is None:
            return None
        return importlib.import_module(name)
    except ImportError:
        return None


def levels() -> dict[str, str]:
    """The computer levels a room may seat, with one-line descriptions."""
    players = _module("fivedice.players")
    found = getattr(players, "LEVELS", None) if players is not None else None
    if isinstance(found, Mapping) and found:
        return {str(k): _(str(v)) for k, v in found.items()}
    if isinstance(found, list | tuple) and found:
        return {str(item[0]) if isinstance(item, tuple) else str(item): "" for item in found}
    return {k: _(v) for k, v in _FALLBACK.items()}


def default_level() -> str:
    """The level that plays a timed-out player's turn: greedy if there is one, else the first."""
    names = levels()
    return DEFAULT_LEVEL if DEFAULT_LEVEL in names else next(iter(names))


def check_level(level: str) -> str:
    """``level`` if it is one of :func:`levels`; raises :class:`RoomError` otherwise."""
    names = levels()
    if level not in names:
        raise RoomError(
            _("Computer level {level!r} is unknown; expected one of: {known}.", level=level, known=", ".join(names))
        )
    return level


@cache
def _strategy(level: str, rules: RuleSet) -> Any:
    players = _module("fivedice.players")
    if players is None or not hasattr(players, "get"):
        return None
    try:
        return players.get(level, rules)
    except FiveDiceError:
        return None


def greedy(state: GameState) -> Action:
    """Score the best box if it is worth it (or no rolls are left), else keep the most common face."""
    options = state.options()
    best = max(options.items(), key=lambda kv: (kv[1], -kv[0][0]))
    if state.rolls_left <= 0 or best[1] >= 25 or state.dice is None:
        (card, box), _points = best
        return Score(box, card)
    face = max(range(1, 7), key=lambda f: (state.counts[f - 1], f))
    keep = tuple(p for p, v in enumerate(state.dice) if v == face)
    if len(keep) == len(state.dice):
        (card, box), _points = best
        return Score(box, card)
    return Roll(keep)


def choose(level: str, state: GameState) -> Action:
    """The intent a computer of ``level`` takes in ``state`` (roll-offs and first rolls are forced)."""
    if state.phase is Phase.ROLLOFF:
        return RollOff(state.current)
    if state.dice is None:
        return Roll()
    strategy = _strategy(level, state.rules)
    if strategy is not None:
        action: Action = strategy.choose(state)
        if state.can(action):
            return action
    return greedy(state)


def hint(state: GameState) -> dict[str, Any]:
    """Ranked advice for the player to act: from the solver when it exists, else the boxes by points."""
    if state.phase is not Phase.PLAY or state.dice is None:
        raise RoomError(_("A hint needs dice on the table; roll first."))
    solver = _module("fivedice.solver")
    card = state.cards[state.current][0]
    if solver is not None and hasattr(solver, "solve") and len(state.cards[state.current]) == 1:
        try:
            options = solver.solve(state.rules).advise(card, tuple(state.dice), state.rolls_left)
            return {"source": "solver", "options": [_option(o) for o in list(options)[:6]]}
        except FiveDiceError:
            pass
    ranked = sorted(state.options().items(), key=lambda kv: -kv[1])
    return {
        "source": "points",
        "options": [{"action": "score", "card": c, "box": b, "points": p} for (c, b), p in ranked[:6]],
    }


def _option(option: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"action": str(getattr(option, "action", ""))}
    for key in ("dice", "box", "points", "value", "loss"):
        value = getattr(option, key, None)
        if isinstance(value, tuple):
            value = list(value)
        elif isinstance(value, float):
            value = round(value, 3)
        out[key] = value
    return out


def analysis(game: Game) -> dict[str, Any] | None:
    """The per-decision analysis of a finished game, or None without ``fivedice.analysis``."""
    module = _module("fivedice.analysis")
    if module is None or not hasattr(module, "analyze"):
        return None
    try:
        result = module.analyze(game)
    except FiveDiceError:
        return None
    data = result.to_json() if hasattr(result, "to_json") else result
    if isinstance(data, str):
        import json

        data = json.loads(data)
    return data if isinstance(data, dict) else {"analysis": data}
