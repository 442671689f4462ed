"""Accounts across real server processes: two processes sharing PostgreSQL (sessions, sign-in rates, seats,
my games and the VAPID key are in the database; one turn is pushed once, whichever process sees it), and
a session that survives a restart on SQLite. Skips without PostgreSQL."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx2 as httpx

from tests.web.conftest import RemoteConn, Server, intent
from tests.web.pushservice import PushService
from tests.web.test_processes import pg_prefix  # noqa: F401 - the fixture

PASSWORD = "correct horse battery"


class Player:
    """An HTTP client with its own cookies that may talk to either process."""

    def __init__(self) -> None:
        self.cookies = httpx.Cookies()

    def call(self, server: Server, method: str, path: str, **kwargs: Any) -> httpx.Response:
        with httpx.Client(base_url=server.url, cookies=self.cookies, timeout=15) as client:
            response = client.request(method, path, **kwargs)
            self.cookies = httpx.Cookies(client.cookies)
        return response

    def socket(self, server: Server, code: str) -> RemoteConn:
        """The account's seat over a WebSocket, entered with the session cookie (no seat token)."""
        from websockets.sync.client import connect

        conn = RemoteConn.__new__(RemoteConn)
        cookie = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        conn.ws = connect(f"{server.ws}/ws/{code}", open_timeout=10, additional_headers={"Cookie": cookie}).__enter__()
        conn.state, conn.you = {}, None
        conn.ws.send(json.dumps({"type": "hello", "token": None}))
        conn.until(lambda m: m["type"] == "state")
        return conn


def play_turn(conn: RemoteConn) -> None:
    seat = conn.you
    while conn.state["game"]["current"] == seat and conn.state["status"] == "playing":
        version = conn.state["version"]
        conn.send(**intent(conn.state["game"]))
        conn.version(version)


def test_two_processes_share_accounts_and_push_each_turn_once(pg_prefix: tuple[str, str], tmp_path: Path) -> None:  # noqa: F811
    url, prefix = pg_prefix
    args = ("--table-prefix", prefix, "--computer-delay", "0", "--no-scores", "--push-loopback")
    with PushService() as pushes:
        a = Server(url, *args, log=tmp_path / "a.log").start()
        try:
            b = Server(url, *args, log=tmp_path / "b.log").start()
            try:
                _scenario(a, b, pushes)
            finally:
                b.stop()
        finally:
            a.stop()
        _only_claimed_turns_were_sent(url, prefix, pushes)


def _scenario(a: Server, b: Server, pushes: PushService) -> None:
    ann, bob = Player(), Player()
    assert ann.call(a, "POST", "/api/accounts", json={"name": "Ann", "password": PASSWORD}).status_code == 201
    assert ann.call(b, "GET", "/api/me").json()["name"] == "Ann"  # the session is the database's
    assert bob.call(b, "POST", "/api/accounts", json={"name": "Bob", "password": PASSWORD}).status_code == 201
    assert a.url != b.url
    assert httpx.get(a.url + "/api/push/key").json() == httpx.get(b.url + "/api/push/key").json()

    # failed sign-ins count together on both processes (five per name)
    mallory = Player()
    for i in range(5):
        server = a if i % 2 else b
        assert (
            mallory.call(server, "POST", "/api/login", json={"name": "Ann", "password": f"guess {i}"}).status_code
            == 401
        )
    locked = mallory.call(a, "POST", "/api/login", json={"name": "Ann", "password": PASSWORD})
    assert locked.status_code == 429

    # a game across the processes; Bob is told of his turns by push, once each
    device = pushes.device("bob")
    assert bob.call(b, "PUT", "/api/me/settings", json={"push": True}).status_code == 200
    assert bob.call(b, "POST", "/api/me/push", json=device.subscription(pushes.base)).status_code == 201
    made = ann.call(a, "POST", "/api/rooms", json={"name": "Ann", "humans": 2, "first": "host"}).json()
    code = made["code"]
    assert bob.call(b, "POST", f"/api/rooms/{code}/join", json={"name": "Bob"}).status_code == 200
    host = ann.socket(a, code)
    assert host.you == 0
    version = host.state["version"]
    host.send(type="start")
    host.version(version)
    play_turn(host)  # round 1: Bob's turn; process A wrote it, B holds the room too
    (first,) = pushes.wait(1)
    assert first.payload["body"] == f"Round 1 of 13 against Ann: room {code} waits for you."
    games = bob.call(b, "GET", "/api/me/games").json()
    assert [(g["code"], g["your_turn"]) for g in games["games"]] == [(code, True)]
    guest = bob.socket(b, code)
    assert guest.you == 1
    play_turn(guest)
    guest.close()
    host.version(guest.state["version"] - 1)
    play_turn(host)  # round 2: Bob's turn again, he is not connected
    deliveries = pushes.wait(2)
    assert [d.payload["body"][:10] for d in deliveries] == ["Round 1 of", "Round 2 of"]  # each turn once
    host.close()


def _only_claimed_turns_were_sent(url: str, prefix: str, pushes: PushService) -> None:
    """Every message sent was claimed once in the database, by one process (both processes heard each turn)."""
    from sqlalchemy import select

    from fivedice.web.account_tables import account_tables
    from fivedice.web.db import RoomStore

    store = RoomStore(url, prefix)
    try:
        sent = account_tables(store.tables).push_sent
        with store.engine.begin() as conn:
            turns = sorted(conn.execute(select(sent.c.turn).where(sent.c.state == "sent")).scalars())
    finally:
        store.dispose()
    assert len(turns) == len(set(turns)) == len(pushes.deliveries) == 2


def test_a_session_survives_a_restart(tmp_path: Path) -> None:
    server = Server(f"sqlite:///{tmp_path / 'rooms.db'}", "--no-scores", log=tmp_path / "server.log").start()
    ann = Player()
    try:
        assert ann.call(server, "POST", "/api/accounts", json={"name": "Ann", "password": PASSWORD}).status_code == 201
        server.kill()
        server.start()
        assert ann.call(server, "GET", "/api/me").json()["name"] == "Ann"
    finally:
        server.stop()
