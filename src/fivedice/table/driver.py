"""The one driver every front end runs: a table's automatic actions, computers and stand-ins, step by step.

A :class:`Driver` reads :meth:`Table.next_step <fivedice.table.Table.next_step>` and carries it out until a
person is to act or the game is over, which it returns: it waits for a :class:`~fivedice.table.steps.Prepare`,
lets a :class:`~fivedice.table.steps.Think` choose in a worker thread (the table does not change
meanwhile) and commits the move, which the table refuses if the game moved on while it was chosen (the
driver then reads the next step again). Like python-chess's engine protocol, it is asynchronous, with a
thin synchronous wrapper (:meth:`Driver.run_sync`, the line mode's), in the way of ``SimpleEngine``.

A front end subclasses it to pace the steps and show them: the terminal game runs it as a Textual worker
(:mod:`fivedice.tui.play`); the web overrides :meth:`Driver.sync` (the room brought up to date from the
database) and :meth:`Driver.commit` (the database write and the broadcast: its persist hook), and drives
rooms whoever is connected (:mod:`fivedice.web.service`).

>>> from fivedice.table import Table
>>> table = Table("yacht", ["Ann", "Max:greedy"], seed=7, starter=1)
>>> type(Driver(table).run_sync()).__name__        # Max plays his turn; then Ann's first roll is made
'HumanTurn'
>>> [by.value for _record, by in table.log][-2:]
['computer', 'auto']
"""

from __future__ import annotations

import asyncio
import contextlib

from fivedice.engine.actions import Action
from fivedice.table.steps import Automatic, GameOver, HumanTurn, Move, Prepare, StaleStateError, Step, Think
from fivedice.table.table import Table

__all__ = ["Driver"]


class Driver:
    """Drives ``table`` (see the module's text); ``stand_in`` makes the stand-in play for the person to act."""

    def __init__(self, table: Table | None = None, *, stand_in: bool = False) -> None:
        self.table = table
        self.stand_in = stand_in

    # -- hooks a front end overrides ------------------------------------------------------
    async def sync(self) -> Table | None:
        """The table up to date before each step (None: stop driving)."""
        return self.table

    def stands_in(self, table: Table) -> bool:
        """Whether the stand-in plays for the person to act now (their time ran out)."""
        return self.stand_in

    def hands_over(self, step: Step) -> bool:
        """Whether ``step`` is the front end's to carry out (the driver stops and returns it): a person's turn
        and the end of the game; the line mode adds an automatic roll of physical dice, whose faces it asks."""
        return isinstance(step, HumanTurn | GameOver)

    async def pace(self, step: Step) -> None:
        """Wait before carrying out ``step`` (a view shows each action a moment); none by default."""

    async def prepare(self, step: Prepare) -> None:
        """Wait until the preparation of ``step`` is done."""
        while not await asyncio.to_thread(step.job.done.wait, 0.5):
            pass

    async def think(self, table: Table, step: Think) -> Action:
        """What the computer or stand-in of ``step`` chooses, worked out in a worker thread."""
        return await asyncio.to_thread(table.think, step)

    async def chosen(self, move: Move) -> None:
        """A computer or stand-in chose ``move`` (a view may show the dice it keeps before they roll)."""

    async def commit(self, table: Table, move: Move) -> None:
        """Carry out ``move``; raises :class:`StaleStateError` if the game moved on since it was chosen."""
        table.commit(move)

    # -- the loop -------------------------------------------------------------------------
    async def step(self) -> Step | None:
        """Carry out the next step unless it is the front end's; returns that step (None: no table)."""
        table = await self.sync()
        if table is None:
            return None
        step = table.next_step(self.stands_in(table))
        if self.hands_over(step):
            return step
        await self.pace(step)
        if isinstance(step, Prepare):
            await self.prepare(step)
            return step
        if isinstance(step, Think):
            move = Move(step.state, await self.think(table, step), step.by)
            await self.chosen(move)
        else:
            assert isinstance(step, Automatic)
            move = Move.of(step)
        with contextlib.suppress(StaleStateError):  # the game moved on: read the next step again
            await self.commit(table, move)
        return step

    async def run(self) -> Step | None:
        """Drive until a step is the front end's (:meth:`hands_over`: a person's turn, the end) and return it;
        None when :meth:`sync` has no table (a room that is not playing)."""
        while True:
            step = await self.step()
            if step is None or self.hands_over(step):
                return step

    def run_sync(self) -> Step | None:
        """:meth:`run` for synchronous callers (the line mode), on an event loop of its own."""
        return asyncio.run(self.run())
