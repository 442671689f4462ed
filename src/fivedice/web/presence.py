"""Connections, presence and the news between server processes: the part of the room service that
tracks who is connected where, enforces the per-connection limits and relays the other processes' events.

:class:`Connections` is a mixin of :class:`~fivedice.web.service.RoomService`.
"""

from __future__ import annotations

import hmac
import json
import logging
import time
from typing import TYPE_CHECKING, Any

from fivedice.i18n import N_, _
from fivedice.web.errors import LimitError, RoomError, StoreError
from fivedice.web.fanout import Outbox
from fivedice.web.limits import KeyedBuckets, Limits, TokenBucket
from fivedice.web.lobby import RoomExtras
from fivedice.web.models import Hello
from fivedice.web.pubsub import Hub
from fivedice.web.rooms import Client, Room

if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = ["Connections", "hash_token", "notice"]

log = logging.getLogger("fivedice.web")


def hash_token(token: str) -> str:
    """The stored form of a seat's secret (the secret itself is only ever in the owner's browser)."""
    import hashlib

    return hashlib.sha256(token.encode()).hexdigest()


def notice(msg: str, **args: Any) -> dict[str, Any]:
    """A notice to a whole room: the English ``text`` and the message with its fields for each client to translate.

    >>> notice("{who} joined.", who="Ann")
    {'type': 'notice', 'text': 'Ann joined.', 'msg': '{who} joined.', 'args': {'who': 'Ann'}}
    """
    return {"type": "notice", "text": msg.format(**args), "msg": msg, "args": args}


class Connections:
    """Who is connected to which room, on this process and (through the hub) on the others."""

    rooms: dict[str, Room]
    limits: Limits
    hub: Hub
    outbox: Outbox
    proc: str
    peers: dict[str, float]
    http: dict[str, KeyedBuckets]
    extras: RoomExtras

    if TYPE_CHECKING:
        clock: Callable[[], float]

        async def room(self, code: str) -> Room: ...
        def _broadcast(self, room: Room) -> None: ...
        def _refresh(self, room: Room) -> bool: ...
        def _after_change(self, room: Room, drive: bool = True) -> None: ...
        async def db(self, fn: Callable[..., Any], *args: Any) -> Any: ...

    def _send_all(self, room: Room, message: dict[str, Any]) -> None:
        text = json.dumps(message)
        for client in list(room.presence.clients):
            if not client.send(text):
                self._drop(room, client)

    def _drop(self, room: Room, client: Client) -> None:
        room.presence.clients.discard(client)
        room.presence.changed()  # its seat shows offline in the next snapshot
        while not client.queue.empty():
            client.queue.get_nowait()
        client.queue.put_nowait(None)  # the writer closes the socket

    async def _publish(self, room: Room, kind: str, **extra: Any) -> None:
        await self.hub_publish({"proc": self.proc, "room": room.code, "kind": kind, **extra})

    async def hub_publish(self, event: dict[str, Any]) -> None:
        """Tell the other processes, off the request path (never waits for the channel; a failure is logged
        and the others catch up from the database, where every move is committed first)."""
        self.outbox.put(event)

    def _send_presence(self, room: Room, skip: Client | None = None) -> None:
        text = room.presence.message()
        for client in list(room.presence.clients):
            if client is not skip and not client.send(text):
                self._drop(room, client)

    async def _on_event(self, event: dict[str, Any]) -> None:
        proc = str(event.get("proc"))
        if proc == self.proc:
            return
        kind = event.get("kind")
        if event.get("proc") is not None:
            self.peers[proc] = time.monotonic()
        if kind == "alive":
            return
        if kind == "expired":
            room = self.rooms.pop(str(event.get("room")), None)
            if room is not None:
                self.close_expired(room)
            return
        rooms = list(self.rooms.values()) if kind == "resync" else [self.rooms.get(str(event.get("room")))]
        for room in rooms:
            if room is None:
                continue
            if kind in ("changed", "resync"):
                if kind == "changed" and int(event.get("version", 0)) <= room.version and not room.stale:
                    continue  # this process has already seen that version
                async with room.lock:
                    if await self.db(self._refresh, room):
                        self._broadcast(room)
                self._after_change(room, drive=kind == "resync")
            elif kind == "message" and isinstance(event.get("message"), dict):
                self._send_all(room, event["message"])
            elif kind == "timeout" and isinstance(event.get("message"), dict):
                if self._first_timeout(room, event.get("turn")):  # else told here already (every timer sees it)
                    self._send_all(room, event["message"])
            elif kind == "presence":
                room.presence.elsewhere[proc] = frozenset(int(s) for s in event.get("seats", []))
                watchers = event.get("watchers", [])
                watchers = watchers if isinstance(watchers, list) else []
                room.presence.watchers[proc] = tuple(str(w)[:40] if w else None for w in watchers[:200])
                room.presence.changed()
                self._send_presence(room)
                if event.get("hello"):
                    await self._publish_presence(room)

    @staticmethod
    def _first_timeout(room: Room, told: Any) -> bool:
        """Whether another process's "time is up" for turn ``told`` (``[game_no, turns scored]``) is news here:
        neither this process's own timer nor another process told its clients of that turn."""
        if not isinstance(told, list) or len(told) != 2:
            return False  # not a turn: nothing to tell
        turn = (int(told[0]), int(told[1]))
        if room.flags.notified_timeout == turn:
            return False
        room.flags.notified_timeout = turn  # nor will this process's timer tell it again
        return True

    async def _publish_presence(self, room: Room, hello: bool = False) -> None:
        seats = sorted({seat for c in room.presence.clients for seat in c.seats})
        watchers = [c.name for c in room.presence.clients if c.seat is None]
        await self._publish(room, "presence", seats=seats, hello=hello, watchers=watchers)

    def expire_peers(self) -> None:
        """Forget the connections of processes not heard of for ``presence_ttl`` (killed, cut off)."""
        cutoff = time.monotonic() - self.limits.presence_ttl
        gone = {proc for proc, seen in self.peers.items() if seen < cutoff}
        if not gone:
            return
        for proc in gone:
            del self.peers[proc]
            log.warning(
                "server process %s has been silent for %g s; its players show offline", proc, self.limits.presence_ttl
            )
        for room in list(self.rooms.values()):
            if gone & (room.presence.elsewhere.keys() | room.presence.watchers.keys()):
                for proc in gone:
                    room.presence.elsewhere.pop(proc, None)
                    room.presence.watchers.pop(proc, None)
                room.presence.changed()
                self._send_presence(room)

    def close_expired(self, room: Room) -> None:
        """Tell the clients of a room that expired and close their connections."""
        self._send_all(room, notice(N_("This room has expired; its finished games are in the history.")))
        for client in list(room.presence.clients):
            room.presence.clients.discard(client)
            client.close(4404)  # gone: the page offers the lobby
        room.presence.changed()

    # -- WebSocket clients ---------------------------------------------------------------
    async def connect(self, code: str, hello: Hello, owned: int | None = None) -> tuple[Room, Client]:
        """Attach a connection to a room, as the seat whose token it gives, else the seat ``owned`` (the
        signed-in account's seat there, see :mod:`fivedice.web.seating`), else as a spectator."""
        held = code.upper() in self.rooms  # else just loaded from the database
        room = await self.room(code)
        async with room.lock:  # a reload always shows what the database holds (the fan-out may have failed)
            try:
                if held and await self.db(self._refresh, room):
                    self._broadcast(room)
            except StoreError:
                pass  # logged; a database that cannot be read now still lets the page show the room as it is
        seat = owned if hello.token is None and owned is not None and owned < len(room.seats) else None
        if hello.token is not None:
            seat = self._token_seat(room, hello.token)
        local = self._local_seats(room, seat, hello.tokens)
        limits = self.limits
        if seat is None and len(room.presence.spectators()) >= limits.watchers:
            raise LimitError(
                _(
                    "Room {code!r} already has {count} spectators, the most it allows; try again later.",
                    code=room.code,
                    count=limits.watchers,
                )
            )
        if seat is not None and sum(c.seat == seat for c in room.presence.clients) >= limits.seat_connections:
            raise LimitError(
                _(
                    "{player} already has {count} connections to room {code!r}; close one first.",
                    player=room.names[seat],
                    count=limits.seat_connections,
                    code=room.code,
                )
            )
        client = Client(seat, name=hello.name if seat is None else None, local=local, deltas=hello.deltas)
        first = not room.presence.clients
        chat = await self.db(self.extras.chat, room.code)
        async with room.lock:
            room.presence.clients.add(client)
            room.presence.changed()
            client.send(room.message_for(client))
            self._send_presence(room, skip=client)
        client.send(json.dumps({"type": "chat_history", "lines": chat}))
        await self._publish_presence(room, hello=first)
        return room, client

    @staticmethod
    def _token_seat(room: Room, token: str) -> int:
        digest = hash_token(token)
        match = [s.seat for s in room.seats if s.token and hmac.compare_digest(s.token, digest)]
        if not match:
            raise RoomError(_("That token is not a seat of room {code!r}; join the room again.", code=room.code))
        return match[0]

    def _local_seats(self, room: Room, seat: int | None, tokens: list[str]) -> tuple[int, ...]:
        """Every seat of a pass-and-play connection (``seat`` first), or none for a connection that plays
        one seat; more seats on one connection only where the host asked for seats on one device."""
        if not tokens:
            return ()
        local = int(room.settings.get("local") or 0)
        if not local:
            raise RoomError(
                _("Room {code!r} has no seats played on one device; a connection plays one seat.", code=room.code)
            )
        if seat is None:
            raise RoomError(_("More seats on one device need the first seat's token too."))
        seats = [seat] + [self._token_seat(room, token) for token in tokens]
        if max(seats) >= local:
            raise RoomError(
                _("Only the seats made for one device in room {code!r} can be played together.", code=room.code)
            )
        return tuple(dict.fromkeys(seats))

    async def disconnect(self, room: Room, client: Client) -> None:
        """Detach a connection; the others see the seat go offline (a small presence update)."""
        async with room.lock:
            room.presence.clients.discard(client)
            room.presence.changed()
            self._send_presence(room)
        await self._publish_presence(room)

    def allow(self, room: Room, client: Client) -> bool:
        """Whether one more frame from ``client`` is within the rate: a seat's connections to this process
        share one budget (a spectator has its own)."""
        if client.seat is None:
            if client.bucket is None:
                client.bucket = TokenBucket(self.limits.message_rate, self.limits.message_burst)
            return client.bucket.take()
        bucket = room.presence.buckets.get(client.seat)
        if bucket is None:
            bucket = room.presence.buckets[client.seat] = TokenBucket(
                self.limits.message_rate, self.limits.message_burst
            )
        return bucket.take()

    def check_http(self, kind: str, address: str) -> None:
        """Count one room creation or join from a client address; raises :class:`LimitError` past the rate."""
        buckets = self.http[kind]
        bucket = buckets.bucket(address)
        if bucket.take():
            return
        wait = max(1, round(bucket.wait()))
        if kind == "create":
            text = _(
                "Too many rooms created from {address}; wait {seconds} s and try again.", address=address, seconds=wait
            )
        else:
            text = _("Too many joins from {address}; wait {seconds} s and try again.", address=address, seconds=wait)
        raise LimitError(text, retry_after=wait)
