"""Fan-out between server processes: PostgreSQL LISTEN/NOTIFY, Redis pub/sub, or in-process.

An event is a small JSON object (``{"proc": ..., "room": ..., "kind": "changed" | "chat" |
"presence", ...}``); it never carries game state, only news that a room changed, so each
process re-reads the room from the database (where every action was committed first).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable, Coroutine
from typing import Any, Protocol

__all__ = ["Handler", "Hub", "MemoryHub", "NullHub", "PostgresHub", "RedisHub", "backoff", "channel", "make_hub"]

log = logging.getLogger("fivedice.web")

Handler = Callable[[dict[str, Any]], Coroutine[Any, Any, None]]
"""Receives every event published by the other processes."""


class Hub(Protocol):
    """Publishes a process's events to the others and delivers theirs to ``handler``."""

    name: str

    async def start(self, handler: Handler) -> None:
        """Begin listening."""
        ...

    async def publish(self, event: dict[str, Any]) -> None:
        """Send ``event`` to every other process."""
        ...

    async def close(self) -> None:
        """Stop listening and close connections."""
        ...

    def check(self) -> None:
        """Raise :class:`~fivedice.web.errors.PubSubError` (one sentence) if the channel cannot be reached."""
        ...


class NullHub:
    """A single process: nothing to tell anyone."""

    name = "none"

    async def start(self, handler: Handler) -> None:
        """Nothing to listen to."""

    async def publish(self, event: dict[str, Any]) -> None:
        """Nobody else to tell."""

    async def close(self) -> None:
        """Nothing to close."""

    def check(self) -> None:
        """Always reachable."""


class MemoryHub:
    """Several apps in one process (tests): a shared bus that delivers to every other subscriber."""

    name = "memory"

    def __init__(self, bus: list[MemoryHub] | None = None) -> None:
        self.bus: list[MemoryHub] = bus if bus is not None else []
        self.handler: Handler | None = None
        self.loop: asyncio.AbstractEventLoop | None = None

    def peer(self) -> MemoryHub:
        """Another hub on the same bus."""
        return MemoryHub(self.bus)

    async def start(self, handler: Handler) -> None:
        """Join the bus."""
        self.handler = handler
        self.loop = asyncio.get_running_loop()
        self.bus.append(self)

    async def publish(self, event: dict[str, Any]) -> None:
        """Deliver to every other hub on the bus (each on its own event loop, as a separate process would)."""
        for hub in list(self.bus):
            if hub is not self and hub.handler is not None and hub.loop is not None:
                asyncio.run_coroutine_threadsafe(hub.handler(json.loads(json.dumps(event))), hub.loop)

    async def close(self) -> None:
        """Leave the bus."""
        if self in self.bus:
            self.bus.remove(self)

    def check(self) -> None:
        """Always reachable."""


PUBLISH_TIMEOUT = 1.0
"""Seconds a Redis command of the publishing connection may wait for an answer."""


def backoff(failures: int) -> float:
    """Seconds before the next attempt to resubscribe after ``failures`` failed ones in a row (0.5 s doubling
    to 30 s, with a little jitter so that the processes do not all come back at once).

    >>> 0.5 <= backoff(0) < 0.6, 30 <= backoff(20) < 36
    (True, True)
    """
    import random

    return float(min(30.0, 0.5 * 2 ** min(failures, 10)) * (1 + random.random() / 5))


class _Listener:
    """A background task that keeps a subscription alive, reconnecting after a failure."""

    name = "listener"

    def __init__(self) -> None:
        self.task: asyncio.Task[None] | None = None
        self.handler: Handler | None = None
        self.ready = asyncio.Event()
        self.connected = False
        """Whether the subscription is live (``/healthz`` reports the fan-out degraded while it is not)."""
        self.error: str | None = None
        """Why the subscription was lost, while it is being restored."""

    async def start(self, handler: Handler) -> None:
        """Subscribe and wait until the subscription is live."""
        self.handler = handler
        self.task = asyncio.create_task(self._run())
        await asyncio.wait_for(self.ready.wait(), 10)

    async def _run(self) -> None:
        first, failures = True, 0
        while True:
            try:
                await self._listen(first)
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # a dropped connection: resubscribe, then resync every room
                self.error = (str(exc) or type(exc).__name__)[:200]
                failures = 0 if self.connected else failures + 1
                self.connected = False
                wait = backoff(failures)
                log.warning("%s pub/sub connection lost (%s); reconnecting in %.1f s", self.name, self.error, wait)
                await asyncio.sleep(wait)
            first = False

    def _subscribed(self) -> None:
        """The subscription is live (again)."""
        self.connected, self.error = True, None
        self.ready.set()

    async def _deliver(self, payload: str | bytes) -> None:
        try:
            event = json.loads(payload)
        except json.JSONDecodeError:
            return
        if self.handler is not None and isinstance(event, dict):
            await self.handler(event)

    async def _listen(self, first: bool) -> None:
        raise NotImplementedError

    async def _stop(self) -> None:
        if self.task is not None:
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.task


class PostgresHub(_Listener):
    """PostgreSQL LISTEN/NOTIFY on one channel (payloads stay far below the 8000-byte limit)."""

    name = "postgres"

    def __init__(self, url: str, channel: str) -> None:
        super().__init__()
        self.url = url
        self.channel = channel
        self.sender: Any = None
        self.lock = asyncio.Lock()

    async def _listen(self, first: bool) -> None:
        import psycopg

        async with await psycopg.AsyncConnection.connect(self.url, autocommit=True) as conn:
            await conn.execute(f'LISTEN "{self.channel}"')
            self._subscribed()
            if not first:
                await self._deliver(json.dumps({"kind": "resync"}))
            async for note in conn.notifies():
                await self._deliver(note.payload)

    async def publish(self, event: dict[str, Any]) -> None:
        """NOTIFY the other processes."""
        import psycopg

        payload = json.dumps(event)
        async with self.lock:
            for attempt in range(2):
                try:
                    if self.sender is None or self.sender.closed:
                        self.sender = await psycopg.AsyncConnection.connect(self.url, autocommit=True)
                    await self.sender.execute("SELECT pg_notify(%s, %s)", (self.channel, payload))
                    return
                except psycopg.OperationalError:
                    self.sender = None
                    if attempt:
                        raise

    async def close(self) -> None:
        """Stop listening and close both connections."""
        await self._stop()
        if self.sender is not None:
            await self.sender.close()

    def check(self) -> None:
        """Connect once to PostgreSQL."""
        import psycopg

        try:
            psycopg.connect(self.url, connect_timeout=5).close()
        except psycopg.Error as exc:
            raise _unreachable(self.name, self.url, exc) from None


class RedisHub(_Listener):
    """Redis pub/sub on one channel."""

    name = "redis"

    def __init__(self, url: str, channel: str) -> None:
        super().__init__()
        import redis.asyncio as aioredis

        self.channel = channel
        self.url = url
        # publishing is bounded in time (a hung Redis fails it quickly); the subscription waits for news as long
        # as there is none, on a connection of its own
        self.client: Any = aioredis.from_url(url, socket_timeout=PUBLISH_TIMEOUT, socket_connect_timeout=2)
        self.listener: Any = aioredis.from_url(url, socket_connect_timeout=2)

    async def _listen(self, first: bool) -> None:
        pubsub = self.listener.pubsub()
        try:
            await pubsub.subscribe(self.channel)
            self._subscribed()
            if not first:
                await self._deliver(json.dumps({"kind": "resync"}))
            async for message in pubsub.listen():
                if message.get("type") == "message":
                    await self._deliver(message["data"])
        finally:
            with contextlib.suppress(Exception):
                await pubsub.aclose()

    async def publish(self, event: dict[str, Any]) -> None:
        """PUBLISH to the other processes."""
        await self.client.publish(self.channel, json.dumps(event))

    async def close(self) -> None:
        """Unsubscribe and close the client."""
        await self._stop()
        for client in (self.client, self.listener):
            with contextlib.suppress(Exception):
                await client.aclose()

    def check(self) -> None:
        """PING Redis once."""
        import redis

        try:
            client = redis.Redis.from_url(self.url, socket_connect_timeout=5, socket_timeout=5)
            client.ping()
            client.close()
        except (redis.RedisError, OSError, ValueError) as exc:
            raise _unreachable(self.name, self.url, exc) from None


_PRODUCTS = {"postgres": "PostgreSQL", "redis": "Redis"}


def _unreachable(kind: str, url: str, exc: BaseException) -> Exception:
    from fivedice.i18n import _
    from fivedice.web.db import safe_url
    from fivedice.web.errors import PubSubError

    reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0][:100].rstrip(".")
    return PubSubError(
        _(
            "{what} at {url} is not reachable for pub/sub ({reason}); start it or choose another --pubsub.",
            what=_PRODUCTS.get(kind, kind),
            url=safe_url(url),
            reason=reason,
        )
    )


def channel(kind: str, db_url: str) -> str:
    """The fan-out a ``--pubsub`` value names, as stored with the database (a Redis URL without its password);
    ``auto`` stays ``auto``. Raises :class:`~fivedice.web.errors.PubSubError` for an unknown or unusable kind.

    >>> channel("redis://:secret@127.0.0.1:6379/0", "sqlite://")
    'redis://127.0.0.1:6379/0'
    """
    from fivedice.i18n import _
    from fivedice.web.db import normalize_url
    from fivedice.web.errors import PubSubError

    if kind in ("auto", "none"):
        return kind
    if kind == "postgres":
        if not normalize_url(db_url).startswith("postgresql"):
            raise PubSubError(_("Pub/sub 'postgres' needs a PostgreSQL database; the database is {url!r}.", url=db_url))
        return kind
    if kind.startswith(("redis://", "rediss://", "unix://")):
        from urllib.parse import urlsplit, urlunsplit

        parts = urlsplit(kind)
        if parts.scheme == "unix":
            return kind
        host = parts.netloc.rsplit("@", 1)[-1]
        return urlunsplit((parts.scheme, host, parts.path, "", ""))
    raise PubSubError(_("Pub/sub {kind!r} is unknown; expected auto, none, postgres or a redis:// URL.", kind=kind))


def make_hub(kind: str, db_url: str, channel: str) -> Hub:
    """``auto`` (PostgreSQL NOTIFY on a PostgreSQL database, else none), ``none``, ``postgres``,
    or a ``redis://`` URL."""
    from fivedice.i18n import _
    from fivedice.web.db import libpq_url, normalize_url
    from fivedice.web.errors import RoomError

    url = normalize_url(db_url)
    if kind == "auto":
        kind = "postgres" if url.startswith("postgresql") else "none"
    if kind == "none":
        return NullHub()
    if kind == "postgres":
        if not url.startswith("postgresql"):
            raise RoomError(_("Pub/sub 'postgres' needs a PostgreSQL database; the database is {url!r}.", url=db_url))
        return PostgresHub(libpq_url(url), channel)
    if kind.startswith(("redis://", "rediss://", "unix://")):
        return RedisHub(kind, channel)
    raise RoomError(_("Pub/sub {kind!r} is unknown; expected auto, none, postgres or a redis:// URL.", kind=kind))
