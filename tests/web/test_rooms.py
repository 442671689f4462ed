"""A room as one process holds it, in its typed parts: the rebuilt table runs ahead of the database only
inside a write, and a write that fails leaves it to be rebuilt from the stored moves; presence is merged
from this process's connections and the other processes' reports."""

from __future__ import annotations

import json
import random

from fivedice.dice import RandomRoller
from fivedice.engine import notation
from fivedice.table.seat import SeatKind
from fivedice.web.db import MoveRow, RoomRow, RoomStatus, SeatRow
from fivedice.web.rooms import Client, Room


def stored_room(status: RoomStatus = RoomStatus.PLAYING, version: int = 1) -> RoomRow:
    seats = (SeatRow(0, "Ann", SeatKind.HUMAN, None, "x"), SeatRow(1, "Bob", SeatKind.HUMAN, None, "y"))
    return RoomRow("ABCD2345", "yacht", {"undo": True}, status, 1, version, 0, 0.0, 0.0, seats, 0.0)


def test_a_failed_write_leaves_the_table_to_be_rebuilt_from_the_stored_moves() -> None:
    room = Room(stored_room(), [], RandomRoller(random.Random(3)))
    table = room.table
    assert table is not None
    roll_off = table.automatic()  # two people: the roll-off decides who starts
    assert roll_off is not None
    first = table.play(roll_off, "auto")
    stored = [MoveRow(1, -1, "auto", notation.to_json(first), 1.0)]
    room.line.note(stored[0])  # committed: the move is the stored one
    room.apply(stored_room(version=2), [])
    assert (room.seq, room.version, room.stale) == (1, 2, False)
    assert room.table is table
    # a change plays on the table inside the write transaction, before the commit ...
    table.run_automatic()
    ahead = len(table.game.log)
    assert ahead > 1
    # ... and the write fails: the room is marked stale, and the next refresh rebuilds the stored game
    room.invalidate()
    assert room.needs_reload(stored_room(version=2))
    room.load(stored_room(version=2), stored)
    assert room.table is not table
    assert room.table is not None
    assert len(room.table.game.log) == 1
    assert room.table.game.log[0] == first
    assert (room.seq, room.stale) == (1, False)


def test_presence_joins_this_processs_connections_and_the_other_processes_reports() -> None:
    room = Room(stored_room(RoomStatus.LOBBY), [], RandomRoller(random.Random(1)))
    assert room.table is None  # the lobby has no game yet
    before = room.snapshot()
    room.presence.clients.add(Client(0))
    room.presence.clients.add(Client(None, name="Cleo"))
    room.presence.elsewhere["other"] = frozenset({1})
    room.presence.watchers["other"] = (None,)
    assert json.loads(room.snapshot()) == json.loads(before)  # cached per version and presence revision
    room.presence.changed()
    seats = json.loads(room.snapshot())["seats"]
    assert [s["online"] for s in seats] == [True, True]
    assert json.loads(room.presence.message()) == {
        "type": "presence",
        "online": [0, 1],
        "watchers": 2,
        "spectators": ["Cleo", None],
    }


def test_a_seat_kind_is_stored_as_its_text_and_read_back_as_a_seat_kind() -> None:
    """Databases hold the text ``human``/``computer``; a loaded seat's kind is the ``SeatKind`` member."""
    from sqlalchemy import select

    from fivedice.web.db import RoomStore

    store = RoomStore("sqlite://")
    seats = [SeatRow(0, "Ann", SeatKind.HUMAN, None, "x"), SeatRow(1, "Computer 1", SeatKind.COMPUTER, "greedy", None)]
    store.create("ABCD2345", "yacht", {}, seats, now=1.0)
    with store.engine.connect() as conn:
        stored = list(conn.execute(select(store.tables.seats.c.kind).order_by(store.tables.seats.c.seat)).scalars())
    assert stored == ["human", "computer"]
    assert [s.kind for s in store.room("ABCD2345").seats] == [SeatKind.HUMAN, SeatKind.COMPUTER]
    assert store.room("ABCD2345").seats[1].kind is SeatKind.COMPUTER
