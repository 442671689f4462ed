"""A server process's background upkeep: heartbeats between processes and the expiry of old rooms.

Every ``presence_ttl / 3`` seconds a process tells the others it is alive (over the pub/sub hub),
confirms its fan-out channel in the database (:meth:`RoomStore.heartbeat`) and forgets the
players of processes it has not heard of for ``presence_ttl`` (a killed process's players go
offline). Every ``sweep_every`` seconds it deletes the rooms whose game ended more than
``finished_expiry`` seconds ago or that waited in the lobby unchanged for ``idle_expiry`` seconds, after
their finished game went into the high scores and history; rooms with someone connected are kept, and a
room with a game in play never expires (its turns may wait days, :mod:`fivedice.web.timeouts`). At start
and before every sweep it records the finished games not marked as written to the high scores (a process
killed while recording them): :func:`record_missed`.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING

from fivedice.errors import FiveDiceError
from fivedice.web.db import RoomStatus

if TYPE_CHECKING:
    from fivedice.web.service import RoomService

__all__ = ["expire_rooms", "heartbeat", "heartbeats", "record_missed", "sweeps"]

log = logging.getLogger("fivedice.web")


async def heartbeats(service: RoomService) -> None:
    """Run :func:`heartbeat` forever."""
    while True:
        await asyncio.sleep(service.limits.presence_ttl / 3)
        await heartbeat(service)


async def heartbeat(service: RoomService) -> None:
    """Tell the other processes this one is alive, confirm the fan-out claim, forget silent processes."""
    await service.hub_publish({"proc": service.proc, "kind": "alive"})
    service.expire_peers()
    try:
        stored = await service.db(service.store.heartbeat, service.pubsub, service.clock())
    except FiveDiceError:
        return  # logged by service.db; the next beat tries again
    if stored != service.pubsub and "pubsub" not in service.warned:
        service.warned.add("pubsub")
        log.error(
            "the database now names pub/sub %s while this process uses %s: restart this process so that "
            "players on every process hear each other",
            stored,
            service.pubsub,
        )


async def sweeps(service: RoomService) -> None:
    """Run :func:`record_missed` at once, then it and :func:`expire_rooms` every ``sweep_every`` seconds."""
    while True:
        try:
            await record_missed(service)
        except FiveDiceError as exc:
            log.warning("the look for finished games missing from the high scores was skipped: %s", exc)
        await asyncio.sleep(service.limits.sweep_every)
        try:
            await expire_rooms(service)
        except FiveDiceError as exc:
            log.warning("room expiry skipped: %s", exc)


async def record_missed(service: RoomService) -> list[str]:
    """Start recording the finished games not marked as written to the high scores (see
    :meth:`~fivedice.web.results.Results.record`: their process was killed between writing and marking, or
    the score store failed), whoever else records them too: a room brought up to date whose finished game is
    unmarked is recorded (:meth:`~fivedice.web.service.RoomService.fresh`). Returns their invite codes."""
    if not service.scores:
        return []
    codes = await service.db(service.store.unrecorded)
    for code in codes:
        with contextlib.suppress(FiveDiceError):  # logged by service.db; the next sweep tries again
            room = service.rooms.get(code)
            await (service.room(code) if room is None else service.fresh(room))
    return codes


async def expire_rooms(service: RoomService) -> list[str]:
    """Delete the rooms past their expiry (see the module); returns their invite codes."""
    now, limits = service.clock(), service.limits
    rows = await service.db(service.store.expired, now - limits.finished_expiry, now - limits.idle_expiry)
    gone = []
    for row in rows:
        room = service.rooms.get(row.code)
        if room is not None and (
            room.presence.online() or room.presence.spectators() or room.flags.driving or room.lock.locked()
        ):
            continue  # someone is still there
        if row.status == RoomStatus.OVER and row.recorded < row.game_no and service.scores:
            room = room or await service.room(row.code)
            if not await service.results.record(room):
                continue  # keep the room until its game is in the history
        if not await service.db(service.store.delete_room, row.code, row.version):
            continue  # changed meanwhile
        expired = service.rooms.pop(row.code, None)
        if expired is not None:
            service.close_expired(expired)
        await service.hub_publish({"proc": service.proc, "room": row.code, "kind": "expired"})
        log.info("room %s expired (%s since %.0f)", row.code, row.status, row.updated)
        gone.append(row.code)
    return gone
