"""Redis faults under two server processes on PostgreSQL: a Redis of the test's own (on a free port) killed,
then hung (SIGSTOP). Requests never wait for Redis, a player on the other process catches up (and a
reload reads the database), the subscription comes back with Redis, and ``/healthz`` says when the
fan-out is degraded."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2 as httpx
import pytest

from tests.web.conftest import RemoteConn, Server, free_port
from tests.web.test_processes import join, new_room, pg_prefix, start, two_servers

__all__ = ["pg_prefix"]  # the fixture, imported for these tests

REDIS_SERVER = shutil.which("redis-server")


class Redis:
    """A redis-server process of the test's own, on a fixed loopback port."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> Redis:
        assert REDIS_SERVER is not None
        args = [REDIS_SERVER, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        self.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        import redis

        for _ in range(100):
            try:
                redis.Redis.from_url(self.url, socket_connect_timeout=0.5).ping()
                return self
            except redis.RedisError:
                time.sleep(0.05)
        raise AssertionError("redis-server did not start")

    def kill(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait(10)

    def signal(self, sig: int) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, sig)


@pytest.fixture
def redis_server() -> Iterator[Redis]:
    if REDIS_SERVER is None:
        pytest.skip("redis-server is not installed; the Redis fault tests are skipped.")
    server = Redis(free_port()).start()
    yield server
    if server.proc is not None and server.proc.poll() is None:
        server.signal(signal.SIGCONT)
        server.kill()


def health(server: Server) -> str:
    return str(httpx.get(server.url + "/healthz").json()["status"])


def until_health(server: Server, status: str, limit: float = 60) -> None:
    deadline = time.monotonic() + limit
    while health(server) != status:
        assert time.monotonic() < deadline, f"/healthz never said {status}"
        time.sleep(0.1)


def roll(conn: RemoteConn, keep: tuple[int, ...] = ()) -> tuple[int, float]:
    """Roll and wait for the acknowledgement; returns the version it made and the seconds it took."""
    version = conn.state["version"]
    t0 = time.monotonic()
    conn.send(type="roll", keep=list(keep))
    ack = conn.until(lambda m: m["type"] == "error" or (m["type"] == "ack" and m["version"] > version))
    assert ack["type"] == "ack", ack
    return int(ack["version"]), time.monotonic() - t0


def test_redis_killed_then_hung_never_stalls_a_request_nor_leaves_a_player_stale(
    pg_prefix: tuple[str, str], redis_server: Redis, tmp_path: Path
) -> None:
    url, prefix = pg_prefix
    # a heartbeat (a publish, which finds out that Redis is back or hung) every second instead of every 10 s
    a, b = two_servers(url, prefix, redis_server.url, tmp_path, "--presence-ttl", "3")
    try:
        made = new_room(a, humans=2, first="host")
        code = made["code"]
        bob_token = join(b, code, "Bob")  # through the other process
        ann = RemoteConn(a.ws, code, made["token"])
        bob = RemoteConn(b.ws, code, bob_token)
        start({0: ann, 1: bob})
        assert health(a) == health(b) == "ok"
        player, other, other_server = ann, bob, b  # Ann starts

        redis_server.kill()  # killed: the other process hears nothing from this one
        version, took = roll(player)
        assert took < 1
        assert other.version(version - 1)["version"] >= version  # caught up from the database
        again = RemoteConn(other_server.ws, code, None)  # a reload reads the database
        assert again.state["version"] >= version
        again.close()
        until_health(other_server, "degraded")
        body = httpx.get(other_server.url + "/healthz").json()
        assert body["fanout"]["kind"] == "redis"
        assert body["fanout"]["listening"] is False

        redis_server.start()  # back on its port: the subscriptions come back by themselves
        until_health(a, "ok")
        until_health(b, "ok")

        redis_server.signal(signal.SIGSTOP)  # hung: connections stay open, nothing answers
        version, took = roll(player, (0, 1))
        assert took < 1  # each publish stalled the connection about 5 s before
        assert other.version(version - 1)["version"] >= version
        version, took = roll(player, (0, 1, 2))
        assert took < 1
        assert other.version(version - 1)["version"] >= version
        until_health(a, "degraded")
        redis_server.signal(signal.SIGCONT)
        ann.close()
        bob.close()
    finally:
        a.stop()
        b.stop()
