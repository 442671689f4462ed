"""The web's driver of a room: the table's one driver (:class:`fivedice.table.driver.Driver`) with the web's
hooks, run by :class:`~fivedice.web.service.RoomService` whoever is connected to the room.

Before each step the room is brought up to date from the database (:meth:`RoomDriver.sync`); each automatic,
computer or stand-in move is paced (``computer_delay``, shorter for the table's own rolls and a stand-in),
chosen in a worker thread, and committed in one database transaction that refuses it if the game moved on
meanwhile (:meth:`RoomDriver.commit`: the persist hook), then broadcast to this process's clients and
published to the other processes. The stand-in plays for a person whose turn timer ran out in a room whose
timeout policy says so (the computer plays, or forfeit after some missed turns).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from fivedice.engine import notation
from fivedice.engine.actions import Score
from fivedice.i18n import _
from fivedice.table import By, StaleStateError, Table
from fivedice.table.driver import Driver
from fivedice.table.steps import Automatic, Move, Prepare, Step, Think
from fivedice.web.decisions import Change
from fivedice.web.presence import notice
from fivedice.web.rooms import Room
from fivedice.web.timeouts import NOTICES, Timeout, on_timeout

if TYPE_CHECKING:
    from fivedice.web.service import RoomService

__all__ = ["RoomDriver", "stand_in_due"]


def stand_in_due(room: Room, now: float) -> bool:
    """Whether the stand-in plays for the person to act in ``room`` now: their time ran out and the room's
    policy lets the computer play for them (:func:`fivedice.web.timeouts.on_timeout`)."""
    deadline, seat = room.deadline, room.current_seat()
    if deadline is None or seat is None or now < deadline:
        return False
    return on_timeout(room.policy, room.missed(seat.seat)) is not Timeout.WAIT


class RoomDriver(Driver):
    """Drives one room of ``service`` (see the module's text)."""

    def __init__(self, service: RoomService, room: Room) -> None:
        super().__init__()
        self.service = service
        self.room = room
        self.record = False
        """The game ended on a move of this driver, marked as being recorded: the service records it when the
        driver is done (:meth:`~fivedice.web.service.RoomService._after_change`), as after a person's move."""

    async def sync(self) -> Table | None:
        """The room up to date from the database (broadcast if it changed); None outside play."""
        service, room = self.service, self.room
        async with room.lock:
            if await service.db(service._refresh, room):
                service._broadcast(room)
            return room.table if room.current_seat() is not None else None

    def stands_in(self, table: Table) -> bool:
        """The stand-in plays once a person's turn timer ran out, where the room says so."""
        return stand_in_due(self.room, self.service.clock())

    async def pace(self, step: Step) -> None:
        """The room's computer delay before a computer's move; at most 0.3 s before the table's own rolls and
        a stand-in's moves."""
        delay = self.service.computer_delay
        quick = isinstance(step, Automatic) or (isinstance(step, Think) and step.by is By.TIMER)
        await asyncio.sleep(min(delay, 0.3) if quick else delay)

    async def prepare(self, step: Prepare) -> None:
        """Tell the room what the computer waits for, and wait (the room free meanwhile)."""
        await self.service._prepared(self.room, step.job)

    async def commit(self, table: Table, move: Move) -> None:
        """The persist hook: one transaction appends the move (refused if the stored game moved on), then the
        new state is broadcast and published to the other processes."""
        service, room = self.service, self.room

        def decide(r: Room) -> Change:
            if r.table is None:
                raise StaleStateError(_("The game moved on while the computer was thinking."))
            return Change(entry=notation.to_json(r.table.commit(move)))

        seat = move.state.current
        forfeits = (
            move.by is By.TIMER
            and isinstance(move.action, Score)
            and on_timeout(room.policy, room.missed(seat)) is Timeout.FORFEIT
        )
        async with room.lock:
            try:
                await service.db(service._write, room, seat, move.by, decide, write=True)
            finally:
                self.record |= service._mark_recording(room)  # before anyone hears the game is over
                service._broadcast(room)
        await service._publish(room, "changed", version=room.version)
        if forfeits:  # this missed turn was one too many: the room is told once
            await service._message(room, notice(NOTICES[Timeout.FORFEIT], who=room.names[seat]))
