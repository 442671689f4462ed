"""The events a process tells the others, sent off the request path: a request never waits for the pub/sub
channel (Redis or PostgreSQL), however slow or dead it is.

An event goes into a bounded queue and a background sender publishes it with a short time bound. A
failure (the channel killed, hung or unreachable) marks the fan-out degraded until a publish goes through
again: the events meanwhile are dropped (every change is in the database first, so nothing is lost: each
process re-reads its rooms from the database, on every reload and, while the fan-out is degraded, every
few seconds), and ``/healthz`` says so.

>>> import asyncio
>>> from fivedice.web.pubsub import NullHub
>>> async def demo() -> dict[str, object]:
...     out = Outbox(NullHub())
...     out.put({"kind": "alive"})
...     task = asyncio.create_task(out.run())
...     await out.idle()
...     task.cancel()
...     return out.health()
>>> asyncio.run(demo())["ok"]
True
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from typing import Any

from fivedice.web.pubsub import Hub, NullHub

__all__ = ["PUBLISH_TIMEOUT", "Outbox"]

log = logging.getLogger("fivedice.web")

PUBLISH_TIMEOUT = 1.0
"""Seconds one publish may take before the channel counts as hung (the event is dropped)."""


class Outbox:
    """A process's outgoing events: :meth:`put` never blocks, :meth:`run` publishes them in order."""

    def __init__(self, hub: Hub, timeout: float = PUBLISH_TIMEOUT, size: int = 10_000) -> None:
        self.hub = hub
        self.alone = isinstance(hub, NullHub)
        """No other process listens: events are counted as sent and dropped at once."""
        self.timeout = timeout
        self.events: deque[dict[str, Any]] = deque()
        self.size = size
        self.ready = asyncio.Event()
        self.error: str | None = None
        """Why the last publish failed (None: the last one went through)."""
        self.since: float | None = None
        """Since when (wall clock) publishing has failed."""
        self.sent = 0
        self.dropped = 0
        self._idle = asyncio.Event()
        self._idle.set()

    def put(self, event: dict[str, Any]) -> None:
        """Queue ``event`` (the oldest is dropped past ``size``: the database has every change anyway); a single
        process (:class:`~fivedice.web.pubsub.NullHub`) has nobody to tell, so nothing is queued or woken."""
        if self.alone:
            self.sent += 1
            return
        if len(self.events) >= self.size:
            self.events.popleft()
            self.dropped += 1
        self.events.append(event)
        self._idle.clear()
        self.ready.set()

    async def idle(self) -> None:
        """Wait until every queued event has been published or dropped."""
        await self._idle.wait()

    async def run(self) -> None:
        """Publish the queued events forever, each within ``timeout`` seconds."""
        while True:
            await self.ready.wait()
            while self.events:
                event = self.events.popleft()
                try:
                    await asyncio.wait_for(self.hub.publish(event), self.timeout)
                except asyncio.CancelledError:
                    raise
                except Exception as exc:
                    self._failed(event, exc)
                else:
                    self.sent += 1
                    if self.error is not None:
                        log.warning("%s pub/sub publishes again", self.hub.name)
                    self.error, self.since = None, None
            self.ready.clear()
            self._idle.set()

    def _failed(self, event: dict[str, Any], exc: BaseException) -> None:
        self.dropped += 1
        timed_out = isinstance(exc, TimeoutError)
        reason = f"no answer within {self.timeout:g} s" if timed_out else str(exc) or type(exc).__name__
        if self.error is None:
            log.warning("could not publish %s for room %s: %s", event.get("kind"), event.get("room"), reason)
            self.since = time.time()
        self.error = reason[:200]

    def health(self) -> dict[str, Any]:
        """The fan-out's state: ``ok`` unless publishing fails or the subscription is down."""
        listening = bool(getattr(self.hub, "connected", True))
        listen_error = getattr(self.hub, "error", None)
        return {
            "kind": self.hub.name,
            "ok": self.error is None and listening,
            "publishing": self.error is None,
            "listening": listening,
            "error": self.error or (None if listening else listen_error),
            "since": self.since,
            "queued": len(self.events),
            "sent": self.sent,
            "dropped": self.dropped,
        }
