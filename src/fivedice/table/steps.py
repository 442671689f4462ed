"""What happens next at a table, as a typed value: the step API every front end's driver reads.

:meth:`Table.next_step <fivedice.table.Table.next_step>` says what comes next: a :class:`HumanTurn` (a
person is to act: the front end waits for them), an :class:`Automatic` action (the table's own: a roll-off
roll, a turn's first roll), a :class:`Prepare` (a background preparation a computer needs before it can
choose), a :class:`Think` (a computer, or a stand-in for a person whose time ran out, is to choose: pure,
run it in a worker with :meth:`Table.think <fivedice.table.Table.think>`) or :class:`GameOver`. Each step
carries the state it was made for; :meth:`Table.commit <fivedice.table.Table.commit>` carries out a
:class:`Move` and refuses one whose state is no longer the table's (:class:`StaleStateError`).

>>> from fivedice.table import Table
>>> t = Table("yacht", ["Ann", "Max:greedy"], seed=7, starter=0)
>>> t.next_step()
Automatic(action=Roll(held=(), dice=None))
>>> t.commit(Move.of(t.next_step()))
Roll(held=(), dice=(3, 2, 4, 6, 1))
>>> type(t.next_step()).__name__
'HumanTurn'
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from fivedice.engine.actions import Action
from fivedice.engine.state import GameState
from fivedice.errors import FiveDiceError
from fivedice.services.chancejobs import Job

__all__ = ["Automatic", "By", "GameOver", "HumanTurn", "Move", "Prepare", "StaleStateError", "Step", "Think"]


class By(enum.StrEnum):
    """Who made an action (stored with every move: the values are those saves and databases hold)."""

    SEAT = "seat"
    """The seat's player."""
    AUTO = "auto"
    """The table by itself (a roll-off roll, a turn's first roll)."""
    COMPUTER = "computer"
    """A computer seat."""
    TIMER = "timer"
    """A computer standing in for a player whose time ran out."""


class StaleStateError(FiveDiceError):
    """A move was chosen for a state that has since changed."""


@dataclass(frozen=True, slots=True)
class _Step:
    state: GameState = field(repr=False)
    """The state the step was read from."""


@dataclass(frozen=True, slots=True)
class HumanTurn(_Step):
    """A person (here or elsewhere) is to act at ``seat``: the front end waits for their intent."""

    seat: int


@dataclass(frozen=True, slots=True)
class Automatic(_Step):
    """The table makes ``action`` by itself (a roll-off roll, a turn's first roll)."""

    action: Action


@dataclass(frozen=True, slots=True)
class Prepare(_Step):
    """The computer at ``seat`` waits for ``job`` (its chances, prepared once in the background) before it
    can choose; a view shows :func:`fivedice.services.chancejobs.describe` of it meanwhile."""

    seat: int
    job: Job


@dataclass(frozen=True, slots=True)
class Think(_Step):
    """The computer at ``seat`` (``by`` :attr:`By.COMPUTER`), or the stand-in for its person
    (:attr:`By.TIMER`), is to choose: :meth:`Table.think <fivedice.table.Table.think>` in a worker."""

    seat: int
    by: By


@dataclass(frozen=True, slots=True)
class GameOver(_Step):
    """The game has ended."""


Step = HumanTurn | Automatic | Prepare | Think | GameOver
"""What happens next at a table."""


@dataclass(frozen=True, slots=True)
class Move:
    """An ``action`` chosen ``by`` someone for ``state``: :meth:`Table.commit <fivedice.table.Table.commit>`
    refuses it once the table's state is another."""

    state: GameState
    action: Action
    by: By

    @classmethod
    def of(cls, step: Automatic) -> Move:
        """The move of an automatic step."""
        return cls(step.state, step.action, By.AUTO)
