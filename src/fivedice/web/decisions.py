"""What an intent decides, inside the write transaction once the room is up to date: play, undo, redo,
start, rematch. Each is a :data:`Decide` that checks the request against the room's table (which plays
it) and returns the :class:`Change` to store."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fivedice.engine import notation
from fivedice.i18n import _
from fivedice.table import Table
from fivedice.web.db import RoomStatus, SeatRow
from fivedice.web.errors import RoomError
from fivedice.web.models import RollIntent, ScoreIntent
from fivedice.web.rooms import Room

__all__ = ["Change", "Decide", "play", "redo", "rematch", "start", "undo"]


@dataclass
class Change:
    """What a decision does: a move to append, room columns to set, new seats (the names and tokens that differ
    are stored), a result to return."""

    entry: dict[str, Any] | None = None
    values: dict[str, Any] = field(default_factory=dict)
    seats: tuple[SeatRow, ...] | None = None
    result: Any = None


Decide = Callable[[Room], Change]


def _playing(room: Room, seat: int) -> Table:
    if room.status == RoomStatus.LOBBY:
        raise RoomError(_("The game has not started yet; the host starts it from the lobby."))
    if room.status == RoomStatus.OVER or room.table is None:
        raise RoomError(_("The game is over; start a rematch to play again."))
    current = room.table.state.current
    if current != seat:
        raise RoomError(
            _("It is {current}'s turn, not {player}'s.", current=room.names[current], player=room.names[seat])
        )
    return room.table


def play(seat: int, msg: RollIntent | ScoreIntent, room: Room) -> Change:
    table = _playing(room, seat)
    if table.automatic() is not None:
        raise RoomError(_("The table rolls the roll-off by itself; wait a moment."))
    record = table.roll(msg.keep) if isinstance(msg, RollIntent) else table.score(msg.box, msg.card)
    return Change(entry=notation.to_json(record))


def undo(seat: int, room: Room) -> Change:
    if not room.settings.get("undo"):
        raise RoomError(_("This room does not allow undo."))
    if room.status != RoomStatus.PLAYING or room.table is None:
        raise RoomError(_("Only a game in play can be undone."))
    room.table.undo(seat)  # the table's one policy: one's own last score, before the next roll is seen
    return Change(entry={"type": "undo"})


def redo(seat: int, room: Room) -> Change:
    if room.status != RoomStatus.PLAYING or room.table is None:
        raise RoomError(_("Only a game in play can be redone."))
    reason = room.table.why_not_redo()
    if reason is not None:
        raise RoomError(reason)
    _playing(room, seat)
    room.table.redo()
    return Change(entry={"type": "redo"})


def start(seat: int, room: Room) -> Change:
    if seat != 0:
        raise RoomError(_("Only the host, {host}, can start the game.", host=room.names[0]))
    if room.status != RoomStatus.LOBBY:
        raise RoomError(_("The game has already started."))
    waiting = [s.seat + 1 for s in room.seats if s.name is None]
    if waiting:
        raise RoomError(_("Seats {seats} are still open; wait until every player has joined.", seats=waiting))
    return Change(values={"status": RoomStatus.PLAYING})


def rematch(seat: int, room: Room) -> Change:
    if room.status != RoomStatus.OVER:
        raise RoomError(_("A rematch can start only when the game is over."))
    return Change(values={"status": RoomStatus.PLAYING, "game_no": room.row.game_no + 1})
