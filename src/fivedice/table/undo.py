"""The one undo policy of every table: what undo may take back, and why not when it may not.

**Undo takes back decisions, never chance** (the dice stay on the tape). In solitaire any decision can be
taken back, with the automatic and computer actions after it; with several players (and in a challenge) a
player may take back their own last score until the next roll is seen; a room or game may turn undo off.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence

from fivedice.engine.actions import Action, Roll, Score
from fivedice.engine.game import Game
from fivedice.errors import IllegalActionError
from fivedice.i18n import _
from fivedice.table.steps import By

__all__ = ["UndoPolicy", "UndoRefusedError", "default_policy", "undo_count", "why_not_undo"]


class UndoPolicy(enum.Enum):
    """What undo may take back (one policy for every front end)."""

    NONE = "none"
    """Nothing."""
    LAST_SCORE = "last_score"
    """A player's own last score, until the next roll is seen (several players; challenges)."""
    ANY = "any"
    """Any decision, any time (solitaire)."""


class UndoRefusedError(IllegalActionError):
    """Undo or redo is not allowed now."""


def default_policy(players: int, challenge: str | None) -> UndoPolicy:
    """Solitaire: any decision; several players or a challenge: the own last score before the next roll.

    >>> default_policy(1, None), default_policy(2, None), default_policy(1, "ABC")
    (<UndoPolicy.ANY: 'any'>, <UndoPolicy.LAST_SCORE: 'last_score'>, <UndoPolicy.LAST_SCORE: 'last_score'>)
    """
    return UndoPolicy.ANY if players == 1 and challenge is None else UndoPolicy.LAST_SCORE


def undo_count(policy: UndoPolicy, log: Sequence[Action], by: Sequence[By]) -> int:
    """How many actions of the game line ``log`` (made by ``by``) one undo pops: 0 if nothing may be taken
    back, else back to the last decision of a seat's player (under ``LAST_SCORE``: only that player's own
    score, while it is the last action)."""
    if policy is UndoPolicy.NONE or not log:
        return 0
    if policy is UndoPolicy.LAST_SCORE:
        return 1 if isinstance(log[-1], Score) and by[-1] is By.SEAT else 0
    for i in range(len(log) - 1, -1, -1):
        if by[i] is By.SEAT:
            return len(log) - i
    return 0


def why_not_undo(policy: UndoPolicy, game: Game, by: Sequence[By], seat: int | None = None) -> str | None:
    """Why an undo of ``game`` (whose actions ``by`` made; asked by ``seat``, if given) is not allowed now,
    as a sentence, or None when it is."""
    if policy is UndoPolicy.NONE:
        return _("Undo is turned off for this game.")
    if game.is_over:
        return _("The game is over; its scores are final.")
    n = undo_count(policy, game.log, by)
    if n == 0:
        if policy is UndoPolicy.LAST_SCORE and game.log and isinstance(game.log[-1], Roll):
            return _("Only a score can be taken back, and only before the next roll is seen.")
        return _("There is nothing to undo.")
    owner = game.states[-n - 1].current
    if seat is not None and seat != owner:
        return _("{player} can only take back their own score, before anyone else acts.", player=game.players[seat])
    return None
