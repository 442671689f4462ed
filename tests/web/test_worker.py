"""The database worker and its group commit: the writes queued together on SQLite are one transaction, a write
refused by the room's rules or by its own statement is rolled back alone, and a group rolled back whole fails
every write of it (the rooms go back to what is stored: nothing is broadcast that was not committed)."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.exc import DBAPIError

from fivedice.table.seat import SeatKind
from fivedice.web import decisions
from fivedice.web.db import MoveRow, RoomStore, SeatRow
from fivedice.web.errors import RoomError, StoreError
from fivedice.web.models import CreateRoom, JoinRoom, RollIntent
from fivedice.web.rooms import Room
from fivedice.web.service import RoomService
from fivedice.web.worker import Workers
from fivedice.web.writes import Writes


class Recorder:
    """A stand-in for :meth:`Writes.group`: records the calls made in each group; ``fail`` rolls one back."""

    def __init__(self) -> None:
        self.groups: list[list[str]] = []
        self.current: list[str] | None = None
        self.fail: BaseException | None = None

    @contextmanager
    def group(self) -> Iterator[Recorder]:
        self.current = []
        try:
            yield self
        finally:
            self.groups.append(self.current)
            self.current = None

    def error(self) -> BaseException | None:
        return self.fail

    def call(self, name: str, fails: bool = False) -> str:
        if self.current is not None:
            self.current.append(name)
        if fails:
            raise RoomError(f"{name} refused")
        return name


def test_writes_queued_together_share_a_group_and_a_rolled_back_group_fails_those_that_seemed_done() -> None:
    async def run() -> tuple[list[Any], list[Any]]:
        rec = Recorder()
        workers = Workers(1, "test", rec.group)
        gate = threading.Event()
        try:
            held = workers.run(gate.wait)  # the thread is busy: what follows is queued together
            calls = [
                workers.run(rec.call, "a", grouped=True),
                workers.run(rec.call, "read"),
                workers.run(rec.call, "b", True, grouped=True),
                workers.run(rec.call, "c", grouped=True),
            ]
            gate.set()
            await held
            first = await asyncio.gather(*calls, return_exceptions=True)
            assert rec.groups == [["a", "b", "c"]]  # the read ran outside the group
            rec.fail = OSError("disk full")
            gate.clear()
            held = workers.run(gate.wait)
            calls = [workers.run(rec.call, n, n == "e", grouped=True) for n in ("d", "e")]
            gate.set()
            await held
            second = await asyncio.gather(*calls, return_exceptions=True)
            return first, second
        finally:
            workers.shutdown()

    first, second = asyncio.run(run())
    assert [first[0], first[1], first[3]] == ["a", "read", "c"]
    assert isinstance(first[2], RoomError)
    assert isinstance(second[0], OSError)  # it seemed done, but its group was rolled back
    assert isinstance(second[1], RoomError)  # its own error, not the group's


def test_a_cancelled_call_is_not_made_and_a_lone_write_is_not_grouped() -> None:
    async def run() -> Recorder:
        rec = Recorder()
        workers = Workers(1, "test", rec.group)
        gate = threading.Event()
        try:
            held = workers.run(gate.wait)
            dropped = workers.run(rec.call, "dropped", grouped=True)
            kept = workers.run(rec.call, "kept", grouped=True)
            dropped.cancel()
            gate.set()
            await held
            assert await kept == "kept"
            return rec
        finally:
            workers.shutdown()

    assert asyncio.run(run()).groups == [["kept"]]


def _store(tmp_path: Path, codes: tuple[str, ...]) -> tuple[RoomStore, Writes]:
    store = RoomStore(f"sqlite:///{tmp_path / 'rooms.db'}")
    for code in codes:
        store.create(code, "yacht", {}, [SeatRow(0, "Ann", SeatKind.HUMAN, None, "x")], now=1.0)
    return store, Writes(store)


def _write(writes: Writes, code: str, seq: int = 1) -> None:
    with writes.begin(code) as tx:
        assert tx.claim(1, now=2.0)
        tx.add_move(1, MoveRow(seq, 0, "seat", {"type": "roll"}, 2.0))


def _refused(writes: Writes, code: str) -> None:
    with writes.begin(code) as tx:
        assert tx.claim(1, now=2.0)
        raise RoomError("refused by the rules")


def _trigger(store: RoomStore, code: str, how: str) -> None:
    path = store.url.removeprefix("sqlite:///")
    with sqlite3.connect(path) as conn:
        conn.execute(
            f"CREATE TRIGGER refuse BEFORE INSERT ON {store.tables.moves.name} WHEN NEW.code = '{code}' "
            f"BEGIN SELECT RAISE({how}, 'refused'); END"
        )


def test_a_group_is_one_transaction_of_savepoints(tmp_path: Path) -> None:
    store, writes = _store(tmp_path, ("AAAA2222", "BBBB2222", "CCCC2222", "DDDD2222"))
    _trigger(store, "DDDD2222", "ABORT")  # the statement fails, the transaction stays
    lost: list[str] = []
    with writes.group() as group:
        _write(writes, "AAAA2222")
        writes.on_lost(partial(lost.append, "A"))
        with pytest.raises(RoomError):
            _refused(writes, "BBBB2222")
        with pytest.raises(DBAPIError):
            _write(writes, "DDDD2222")
        _write(writes, "CCCC2222")
    assert group.error() is None
    assert not lost
    assert [store.room(c).version for c in ("AAAA2222", "BBBB2222", "CCCC2222", "DDDD2222")] == [2, 1, 2, 1]
    assert [len(store.moves(c, 1, 0)) for c in ("AAAA2222", "BBBB2222", "CCCC2222", "DDDD2222")] == [1, 0, 1, 0]


def test_a_group_rolled_back_whole_loses_every_write(tmp_path: Path) -> None:
    store, writes = _store(tmp_path, ("AAAA2222", "BBBB2222", "CCCC2222"))
    _trigger(store, "BBBB2222", "ROLLBACK")  # the whole transaction is rolled back
    lost: list[str] = []
    with writes.group() as group:
        _write(writes, "AAAA2222")
        writes.on_lost(partial(lost.append, "A"))
        with pytest.raises(DBAPIError):
            _write(writes, "BBBB2222")
        with pytest.raises(DBAPIError):  # nothing more is written in a group that is gone
            _write(writes, "CCCC2222")
    assert isinstance(group.error(), DBAPIError)
    assert lost == ["A"]
    assert [store.room(c).version for c in ("AAAA2222", "BBBB2222", "CCCC2222")] == [1, 1, 1]
    assert not store.moves("AAAA2222", 1, 0)


def test_a_group_whose_commit_fails_loses_every_write(tmp_path: Path) -> None:
    store, writes = _store(tmp_path, ("AAAA2222",))
    lost: list[str] = []
    with writes.group() as group:
        _write(writes, "AAAA2222")
        writes.on_lost(partial(lost.append, "A"))
        with writes.begin("ZZZZ2222") as tx:  # a move of no room: its key is checked only at the commit
            tx.driver.execute("PRAGMA defer_foreign_keys = ON")
            tx.add_move(1, MoveRow(1, 0, "seat", {"type": "roll"}, 2.0))
        writes.on_lost(partial(lost.append, "Z"))
    assert isinstance(group.error(), DBAPIError)
    assert lost == ["A", "Z"]
    assert store.room("AAAA2222").version == 1
    assert not store.moves("AAAA2222", 1, 0)


async def _rooms(service: RoomService, count: int) -> list[Room]:
    rooms = []
    for _i in range(count):
        made = await service.create(CreateRoom(name="Ann", rules="yacht", humans=2))
        await service.join(made["code"], JoinRoom(name="Bob"))
        room = await service.room(made["code"])
        await service._change(room, 0, "seat", partial(decisions.start, 0))
        rooms.append(room)
    return rooms


async def _settled(rooms: list[Room]) -> list[int]:
    """The rooms' versions once the table's own roll-off rolls are done."""
    for _i in range(500):
        if all(r.table is not None and r.table.automatic() is None and not r.flags.driving for r in rooms):
            break
        await asyncio.sleep(0.01)
    return [r.version for r in rooms]


async def _rolls(service: RoomService, rooms: list[Room]) -> list[Any]:
    """One roll in each room, queued together behind a busy worker (so that they are one group)."""
    await _settled(rooms)
    busy, gate = threading.Event(), threading.Event()

    def hold() -> None:
        busy.set()
        gate.wait()

    held = asyncio.ensure_future(service.db(hold))  # the worker busy (a bare coroutine held nothing)
    assert await asyncio.to_thread(busy.wait, 30)
    plays = []
    for room in rooms:
        assert room.table is not None
        assert room.table.automatic() is None
        seat = room.table.state.current
        intent = RollIntent(type="roll", version=room.version)
        plays.append(service._change(room, seat, "seat", partial(decisions.play, seat, intent), intent.version))
    tasks = [asyncio.ensure_future(p) for p in plays]
    # every write is queued behind the held call before it is let go (with no call held and a fixed 50 ms
    # wait, a write queued after the worker had taken the others committed on its own under load)
    for _i in range(2000):
        if service.executor._queue.qsize() >= len(rooms):
            break
        await asyncio.sleep(0.005)
    else:
        raise AssertionError(f"{len(rooms)} writes were never queued together")
    gate.set()
    await held
    return list(await asyncio.gather(*tasks, return_exceptions=True))


def test_the_room_service_commits_its_queued_writes_together_and_loses_none(tmp_path: Path) -> None:
    async def run() -> None:
        store = RoomStore(f"sqlite:///{tmp_path / 'rooms.db'}")
        service = RoomService(store, seed=5, scores=False, chances=False, computer_delay=0.0)
        try:
            rooms = await _rooms(service, 3)
            versions = await _settled(rooms)
            assert not [r for r in await _rolls(service, rooms) if isinstance(r, BaseException)]
            assert [r.version for r in rooms] == [v + 1 for v in versions]
            _trigger(store, rooms[1].code, "ROLLBACK")
            outcomes = await _rolls(service, rooms)
            assert all(isinstance(r, StoreError) for r in outcomes)  # the group was rolled back: all of it
            for room in rooms:  # nothing of it is held or shown: each room is as stored
                assert room.version == versions[rooms.index(room)] + 1 == store.room(room.code).version
                fresh = await service.fresh(room)
                assert fresh.seq == len(store.moves(room.code, 1, 0))
            with sqlite3.connect(tmp_path / "rooms.db") as conn:
                conn.execute("DROP TRIGGER refuse")
            assert not [r for r in await _rolls(service, rooms) if isinstance(r, BaseException)]
            for room in rooms:
                stored = store.moves(room.code, 1, 0)
                assert room.seq == len(stored) == stored[-1].seq
                assert room.version == store.room(room.code).version
        finally:
            await service.close()

    asyncio.run(run())
