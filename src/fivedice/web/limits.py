"""The server's limits in one value, and the token buckets that enforce the rates.

>>> bucket = TokenBucket(rate=1.0, burst=2.0)
>>> bucket.take(), bucket.take(), bucket.take()
(True, True, False)
>>> per_client = KeyedBuckets(rate=1.0, burst=1.0, keys=2)
>>> per_client.take("10.0.0.1"), per_client.take("10.0.0.1"), per_client.take("10.0.0.2")
(True, False, True)
"""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass

__all__ = ["DEFAULT_LIMITS", "KeyedBuckets", "Limits", "TokenBucket"]


@dataclass(frozen=True, slots=True)
class Limits:
    """Every bound the web server enforces (``fivedice serve`` sets them from its options).

    Rates are per second with a burst allowance; ``message_*`` counts every WebSocket frame of a
    seat (all its connections to this process together), ``create_*``/``join_*``/``request_*``
    count HTTP requests per client address. Times are in seconds.
    """

    message_rate: float = 10.0
    message_burst: float = 20.0
    create_rate: float = 10 / 60
    create_burst: float = 10.0
    join_rate: float = 1.0
    join_burst: float = 20.0
    request_rate: float = 50.0
    request_burst: float = 100.0
    max_body: int = 8192
    body_timeout: float = 10.0
    header_timeout: float = 10.0
    keep_alive: int = 5
    connections: int = 1000
    address_connections: int = 100
    """Open connections from one client address at most (below ``connections``, so that one address cannot
    take them all; not counted behind a reverse proxy, where every connection comes from the proxy)."""
    address_sockets: int = 50
    """Open WebSockets from one client address at most (the forwarded address behind a trusted proxy)."""
    watch_idle: float = 900.0
    """Seconds a spectator's WebSocket stays open without a frame from it (the page pings while it is shown)."""
    watchers: int = 50
    seat_connections: int = 4
    db_timeout: float = 5.0
    presence_ttl: float = 30.0
    finished_expiry: float = 3600.0
    idle_expiry: float = 7 * 86400.0
    sweep_every: float = 60.0
    abuse_close: int = 100
    """Refused frames in a row after which a WebSocket is closed."""
    chance_builds: int = 2
    """Tables (chances, solvers) this process prepares at once at most, queued ones included."""
    chance_memory: int | None = None
    """Resident MB of this process above which no preparation starts (None: no bound; ``fivedice serve`` sets one)."""


DEFAULT_LIMITS = Limits()


class TokenBucket:
    """``rate`` events a second on average, bursts up to ``burst``."""

    __slots__ = ("burst", "rate", "stamp", "tokens")

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.stamp = time.monotonic()

    def take(self) -> bool:
        """Whether one more event is allowed now (and count it)."""
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False

    def wait(self) -> float:
        """Seconds until the next event would be allowed."""
        return max(0.0, (1 - self.tokens) / self.rate) if self.rate > 0 else 60.0


class KeyedBuckets:
    """One :class:`TokenBucket` per key (a client address), at most ``keys`` of them (least recent go first)."""

    def __init__(self, rate: float, burst: float, keys: int = 10_000) -> None:
        self.rate = rate
        self.burst = burst
        self.keys = keys
        self._buckets: OrderedDict[str, TokenBucket] = OrderedDict()

    def bucket(self, key: str) -> TokenBucket:
        """The bucket of ``key`` (a fresh, full one for a key not seen lately)."""
        found = self._buckets.get(key)
        if found is None:
            found = self._buckets[key] = TokenBucket(self.rate, self.burst)
            if len(self._buckets) > self.keys:
                self._buckets.popitem(last=False)
        else:
            self._buckets.move_to_end(key)
        return found

    def take(self, key: str) -> bool:
        """Whether ``key`` may make one more request now."""
        return self.bucket(key).take()
