"""The three actions of a game, each a small frozen record.

An action with its outcome left as ``None`` is an *intent* (what a player or strategy
asks for); the engine fills in the outcome (the dice rolled, the points scored) and logs
the completed *record*, which replays exactly.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Action", "Roll", "RollOff", "Score"]


@dataclass(frozen=True, slots=True)
class RollOff:
    """A roll of all the dice by ``seat`` to decide who starts; ``dice`` is the outcome."""

    seat: int
    dice: tuple[int, ...] | None = None


@dataclass(frozen=True, slots=True)
class Roll:
    """Keep the dice at positions ``held`` (0-based) and roll the others.

    ``dice`` is every die's face after the roll (the held ones unchanged), or None in an
    intent.
    """

    held: tuple[int, ...] = ()
    dice: tuple[int, ...] | None = None


@dataclass(frozen=True, slots=True)
class Score:
    """Fill ``box`` on card ``card`` with the current dice; ``points`` is the outcome."""

    box: str
    card: int = 0
    points: int | None = None


Action = RollOff | Roll | Score
