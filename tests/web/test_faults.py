"""Findings of a hostile test, against real server processes as attackers and operators meet them:
raw sockets (chunked bodies, slow headers, too many connections), a locked and a read-only SQLite
file, read-only and locked PostgreSQL, processes killed, and the pub/sub channel of a database."""

from __future__ import annotations

import json
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx2 as httpx
import pytest
from sqlalchemy import select

from fivedice.web.db import RoomStore
from tests.web.conftest import RemoteConn, Server, free_port
from tests.web.test_processes import _postgres_or_skip, _redis_or_skip, join, new_room, pg_prefix, start

__all__ = ["pg_prefix"]  # the fixture, imported for these tests


def rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    raise AssertionError("no VmRSS")


def read_response(sock: socket.socket, limit: float = 10) -> tuple[int, dict[str, object]]:
    """Status and JSON body of one HTTP response read from a raw socket."""
    sock.settimeout(limit)
    data = b""
    while b"\r\n\r\n" not in data or len(data.split(b"\r\n\r\n", 1)[1]) < _length(data):
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    head, body = data.split(b"\r\n\r\n", 1)
    return int(head.split()[1]), json.loads(body[: _length(data)])


def _length(data: bytes) -> int:
    head = data.split(b"\r\n\r\n", 1)[0].decode("latin-1").lower()
    for line in head.split("\r\n"):
        if line.startswith("content-length:"):
            return int(line.split(":")[1])
    return 0


@pytest.fixture
def sqlite_server(tmp_path: Path) -> Iterator[Server]:
    db = f"sqlite:///{tmp_path / 'rooms.db'}"
    args = ("--seed", "3", "--computer-delay", "0", "--no-scores", "--db-timeout", "1", "--header-timeout", "2")
    server = Server(db, *args, "--max-connections", "40", log=tmp_path / "server.log").start()
    yield server
    server.stop()


# -- finding 2: a chunked body is capped by the bytes read ------------------------------------------
def test_a_chunked_body_is_capped_by_the_bytes_actually_read(sqlite_server: Server) -> None:
    pid = sqlite_server.proc.pid  # type: ignore[union-attr]
    before = rss_kib(pid)
    with socket.create_connection(("127.0.0.1", sqlite_server.port)) as sock:
        sock.sendall(
            b"POST /api/rooms HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n"
        )
        chunk = b"%x\r\n%s\r\n" % (65536, b"x" * 65536)
        sent = 0
        try:
            for _ in range(64 * 16):  # up to 64 MiB, far past the 8 KiB limit
                sock.sendall(chunk)
                sent += 65536
        except OSError:
            pass  # the server closed the connection: good
        status, body = read_response(sock)
    assert status == 413
    assert body["error"] == "Request body of 73728+ bytes is too large; expected at most 8192." or str(
        body["error"]
    ).endswith("is too large; expected at most 8192.")
    assert sent < 32 * 2**20  # the server stopped reading long before the end
    assert rss_kib(pid) - before < 20_000  # nothing of it kept (it grew by 864 MB before)


# -- finding 8: slow headers, too many connections --------------------------------------------------
def test_slow_header_sockets_are_closed_and_connections_are_capped(sqlite_server: Server) -> None:
    slow = []
    for _ in range(30):
        sock = socket.create_connection(("127.0.0.1", sqlite_server.port))
        sock.sendall(b"GET /api/rules HTTP/1.1\r\nHost: x\r\n")  # and never the blank line
        slow.append(sock)
    extra = [socket.create_connection(("127.0.0.1", sqlite_server.port)) for _ in range(15)]
    refused = 0
    for sock in extra:
        sock.settimeout(3)
        try:
            status, body = read_response(sock, 3)
        except (OSError, ValueError):
            continue
        if status == 408:  # one of the first 40: it sent nothing, so its head timed out
            continue
        assert status == 503
        assert body["error"] == "The server has 40 open connections, its limit; try again in a moment."
        refused += 1
    assert refused >= 5
    t0 = time.monotonic()
    for sock in slow:
        sock.sendall(b"X-Slow: 1\r\n")  # trickling bytes do not keep the connection alive
    status, body = read_response(slow[0], 5)
    assert status == 408
    assert body["error"] == "The request head did not arrive within 2 s; send it at once."
    assert time.monotonic() - t0 < 4
    for sock in slow + extra:
        sock.close()
    time.sleep(0.3)
    assert httpx.get(sqlite_server.url + "/api/rules").status_code == 200  # the server is fine afterwards


def test_watchers_per_room_are_capped(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'rooms.db'}"
    server = Server(db, "--no-scores", "--max-watchers", "3").start()
    try:
        made = new_room(server, humans=1)
        watchers = [RemoteConn(server.ws, made["code"], None) for _ in range(3)]
        from websockets.sync.client import connect

        with connect(f"{server.ws}/ws/{made['code']}") as ws:
            ws.send(json.dumps({"type": "hello", "token": None}))
            msg = json.loads(ws.recv(timeout=10))
        assert msg == {
            "type": "error",
            "message": f"Room '{made['code']}' already has 3 spectators, the most it allows; try again later.",
        }
        player = RemoteConn(server.ws, made["code"], made["token"])  # players still get in
        assert player.state["watchers"] == 3
        for conn in [*watchers, player]:
            conn.close()
    finally:
        server.stop()


# -- finding 3: a locked SQLite database ------------------------------------------------------------
def test_a_locked_sqlite_database_is_answered_and_the_server_stays_responsive(
    sqlite_server: Server, tmp_path: Path
) -> None:
    made = new_room(sqlite_server, humans=1)
    code, token = made["code"], made["token"]
    ann = RemoteConn(sqlite_server.ws, code, token)
    start({0: ann})
    other = new_room(sqlite_server, humans=1, name="Bo")
    bo = RemoteConn(sqlite_server.ws, other["code"], other["token"])
    locker = sqlite3.connect(tmp_path / "rooms.db", timeout=5)
    locker.execute("BEGIN EXCLUSIVE")  # another program holds the database
    try:
        t0 = time.monotonic()
        ann.send(type="roll", id=7)
        bo.send(type="ping", id=1)
        assert bo.until(lambda m: m["type"] == "pong")["id"] == 1  # the event loop is free
        assert time.monotonic() - t0 < 0.9
        assert httpx.get(sqlite_server.url + "/api/rules", timeout=5).status_code == 200
        error = ann.until(lambda m: m["type"] == "error")
        assert error["message"] == (
            "The database stayed locked for more than 1 s; nothing was changed, try again in a moment."
        )
        assert error["id"] == 7
        assert time.monotonic() - t0 < 5
        r = httpx.post(sqlite_server.url + "/api/rooms", json={"name": "Cy"}, timeout=10)
        assert r.status_code == 503
        assert "stayed locked" in r.json()["error"]
    finally:
        locker.rollback()
        locker.close()
    ann.send(type="ping", id=2)  # the same connection goes on
    ann.until(lambda m: m["type"] == "pong")
    ann.send(type="roll", id=8)
    assert ann.until(lambda m: m["type"] == "ack")["id"] == 8
    log = httpx.get(f"{sqlite_server.url}/api/rooms/{code}/log").json()["moves"]
    assert [m["record"]["type"] for m in log] == ["roll"]  # the refused roll left nothing behind
    assert "stayed locked" in (tmp_path / "server.log").read_text()
    ann.close()
    bo.close()


# -- finding 6: a read-only database --------------------------------------------------------------
def serve_exit(db: str, *args: str) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "fivedice.web", "--port", str(free_port()), "--db", db, *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=60)


def test_a_read_only_sqlite_database_is_refused_at_start(tmp_path: Path) -> None:
    path = tmp_path / "rooms.db"
    server = Server(f"sqlite:///{path}", "--no-scores").start()  # the tables exist
    server.stop()
    done = serve_exit(f"sqlite:///file:{path}?mode=ro&uri=true", "--no-scores")
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("Error: Database sqlite:///file")
    assert lines[0].endswith(
        "is read-only (attempt to write a readonly database); fivedice serve needs to write its rooms."
    )


def test_read_only_postgresql_is_refused_at_start_and_answered_in_json_at_run_time(
    pg_prefix: tuple[str, str], tmp_path: Path
) -> None:
    import psycopg

    url, prefix = pg_prefix
    read_only = url + "?options=-c%20default_transaction_read_only%3Don"
    server = Server(url, "--table-prefix", prefix, "--no-scores").start()
    server.stop()
    done = serve_exit(read_only, "--table-prefix", prefix, "--no-scores")
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    expected = "is read-only (cannot execute UPDATE in a read-only transaction); fivedice serve needs to write"
    assert expected in done.stderr
    # at run time: the database turns read-only under a running server (a fail-over to a replica)
    admin = psycopg.connect(url, autocommit=True)
    name = f"{prefix}db"
    admin.execute(f'CREATE DATABASE "{name}"')
    own = url.rsplit("/", 1)[0] + "/" + name
    server = Server(own, "--no-scores", log=tmp_path / "server.log").start()
    try:
        made = new_room(server, humans=1)
        ann = RemoteConn(server.ws, made["code"], made["token"])
        admin.execute(f'ALTER DATABASE "{name}" SET default_transaction_read_only = on')
        admin.execute(f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'")
        ann = RemoteConn(server.ws, made["code"], made["token"])  # the old socket may have been cut
        ann.send(type="start", id=3)
        error = ann.until(lambda m: m["type"] == "error")
        assert error["message"].startswith("The database is read-only (")
        assert error["message"].endswith("); nothing was changed.")
        r = httpx.post(server.url + "/api/rooms", json={"name": "Cy"})
        assert r.status_code == 503
        assert r.json()["error"].startswith("The database is read-only")
        assert r.headers["content-security-policy"]
        ann.send(type="ping", id=4)  # the socket is still there
        assert ann.until(lambda m: m["type"] == "pong")["id"] == 4
        ann.close()
    finally:
        server.stop()
        admin.execute(f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'")
        admin.execute(f'DROP DATABASE IF EXISTS "{name}"')
        admin.close()


# -- finding 14 (start): an unreachable Redis -------------------------------------------------------
def test_an_unreachable_redis_is_one_sentence_and_exit_2(tmp_path: Path) -> None:
    done = serve_exit(f"sqlite:///{tmp_path / 'r.db'}", "--pubsub", f"redis://127.0.0.1:{free_port()}/0")
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("Error: Redis at redis://127.0.0.1:")
    assert lines[0].endswith("; start it or choose another --pubsub.")


# -- finding 1: every process of a database on one channel -----------------------------------------
def test_processes_of_one_database_share_one_channel(pg_prefix: tuple[str, str], tmp_path: Path) -> None:
    url, prefix = pg_prefix
    redis_url = _redis_or_skip()
    common = ("--table-prefix", prefix, "--no-scores", "--computer-delay", "0", "--presence-ttl", "3")
    a = Server(url, *common, "--pubsub", redis_url, log=tmp_path / "a.log").start()
    try:
        done = serve_exit(url, *common, "--pubsub", "postgres")  # what the docs used to show
        assert done.returncode == 2
        assert (
            done.stderr.strip()
            == (
                f"Error: The server processes of this database announce changes through {redis_url} (confirmed 0 s"
                f" ago), not postgres; start every process with --pubsub {redis_url} or auto."
            )
            or "announce changes through" in done.stderr
        )
        b = Server(url, *common, log=tmp_path / "b.log").start()  # auto: takes the database's channel
        try:
            made = new_room(a, humans=2)
            code = made["code"]
            bob_token = join(b, code, "Bob")
            ann = RemoteConn(a.ws, code, made["token"])
            bob = RemoteConn(b.ws, code, bob_token)
            if not bob.state["seats"][0]["online"]:
                bob.until(lambda m: m["type"] == "presence" and 0 in m["online"])  # they hear each other
            start({0: ann, 1: bob})
            while (top := max(ann.state["version"], bob.state["version"])) > min(
                ann.state["version"], bob.state["version"]
            ):  # the game's first automatic move may reach one of them before the other
                for conn in (ann, bob):
                    conn.version(top - 1)
            assert bob.state["game"] == ann.state["game"]
            ann.close()
            bob.close()
        finally:
            b.stop()
    finally:
        a.stop()
    _outlive_the_channel(url, prefix, 3.0)
    c = Server(url, *common, "--pubsub", "postgres", log=tmp_path / "c.log").start()  # now a switch is fine
    c.stop()


def _outlive_the_channel(url: str, prefix: str, window: float) -> None:
    """Wait until no process has confirmed the database's fan-out channel for ``window`` seconds: from the
    last confirmation the stopped processes stored (they confirm it every third of the window), not a
    guess from the time they stopped."""
    store = RoomStore(url, prefix)
    try:
        meta = store.tables.meta
        with store.engine.connect() as conn:
            seen = float(conn.execute(select(meta.c.value).where(meta.c.key == "pubsub_seen")).scalar_one())
    finally:
        store.dispose()
    left = seen + window - time.time()
    assert left <= window, f"the channel was confirmed {left - window:.1f} s in the future"
    time.sleep(max(0.0, left) + 0.05)  # the window itself is what is waited for: nothing else signals its end


# -- finding 5: presence expires across processes -------------------------------------------------
def test_a_killed_processs_players_go_offline(pg_prefix: tuple[str, str], tmp_path: Path) -> None:
    url, prefix = pg_prefix
    common = ("--table-prefix", prefix, "--no-scores", "--pubsub", "postgres", "--presence-ttl", "3")
    a = Server(url, *common, log=tmp_path / "a.log").start()
    b = Server(url, *common, log=tmp_path / "b.log").start()
    try:
        made = new_room(a, humans=2)
        code = made["code"]
        bob_token = join(a, code, "Bob")
        ann = RemoteConn(a.ws, code, made["token"])
        bob = RemoteConn(b.ws, code, bob_token)
        if 1 not in [s["seat"] for s in ann.state["seats"] if s["online"]]:
            ann.until(lambda m: m["type"] == "presence" and 1 in m["online"])
        b.kill()  # SIGKILL: Bob's process says nothing more
        t0 = time.monotonic()
        gone = ann.until(lambda m: m["type"] == "presence" and 1 not in m["online"])
        assert gone["online"] == [0]
        assert time.monotonic() - t0 < 8
        assert httpx.get(f"{a.url}/api/rooms/{code}").json()["seats"][1]["online"] is False
        ann.close()
        bob.ws.close()
    finally:
        a.stop()
        b.stop()


def test_a_locked_postgresql_room_table_is_answered_in_time(pg_prefix: tuple[str, str], tmp_path: Path) -> None:
    import psycopg

    url, prefix = pg_prefix
    server = Server(url, "--table-prefix", prefix, "--no-scores", "--db-timeout", "1").start()
    try:
        made = new_room(server, humans=1)
        ann = RemoteConn(server.ws, made["code"], made["token"])
        with psycopg.connect(url) as locker:
            locker.execute(f'LOCK TABLE "{prefix}rooms" IN ACCESS EXCLUSIVE MODE')
            t0 = time.monotonic()
            ann.send(type="start", id=5)
            error = ann.until(lambda m: m["type"] == "error")
            assert "stayed locked for more than 1 s" in error["message"]
            assert time.monotonic() - t0 < 5
            locker.rollback()
        ann.send(type="start", id=6)
        assert ann.until(lambda m: m["type"] == "ack")["id"] == 6
        ann.close()
    finally:
        server.stop()


def test_the_postgres_helpers_skip_cleanly() -> None:
    assert _postgres_or_skip()
