"""A server process's background upkeep: heartbeats between processes and the expiry of old rooms.

Every ``presence_ttl / 3`` seconds a process tells the others it is alive (over the pub/sub hub),
confirms its fan-out channel in the database (:meth:`RoomStore.heartbeat`) and forgets the
players of processes it has not heard of for ``presence_ttl`` (a killed process's players go
offline). Every ``sweep_every`` seconds it deletes the rooms whose game ended more than
``finished_expiry`` seconds ago or that waited in the lobby unchanged for ``idle_expiry`` seconds, after
their finished game went into the high scores and history; rooms with someone connected are kept, and a
room with a game in play never expires (its turns may wait days, :mod:`fivedice.web.timeouts`).
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from fivedice.errors import FiveDiceError
from fivedice.web.db import RoomStatus

if TYPE_CHECKING:
    from fivedice.web.service import RoomService

__all__ = ["expire_rooms", "heartbeat", "heartbeats", "sweeps"]

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
    """Run :func:`expire_rooms` forever."""
    while True:
        await asyncio.sleep(service.limits.sweep_every)
        try:
            await expire_rooms(service)
        except FiveDiceError as exc:
            log.warning("room expiry skipped: %s", exc)


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
