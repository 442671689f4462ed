"""Chaos benchmark: many rooms played on loopback while servers are killed, the database is locked,
connections are dropped and malformed, duplicated, replayed and oversized input is sent.

Players are WebSocket clients that reconnect to any live server. Each intent carries the room
version the player last saw; the server answers an accepted one with an ``ack`` (sent only after
the commit). Faults, at random while the games go on:

- ``kill``: a server process gets SIGKILL and is started again on its port a moment later;
- ``lock``: the database is locked for a while (SQLite ``BEGIN EXCLUSIVE`` from another process,
  PostgreSQL ``LOCK TABLE ... ACCESS EXCLUSIVE``);
- ``drop``: a player's connection is cut right after it sends an intent;
- ``duplicate``: an intent is sent twice (to the same server, or to two servers at once);
- ``replay``: an intent already answered is sent again;
- ``malformed``/``oversized``/``binary``: bad WebSocket frames; ``chunked``/``badjson``: bad HTTP requests;
- ``attack``: a hostile visitor's requests (:data:`ATTACKS`): file paths as rule sets (a readable rule-set
  file, ``/etc/passwd``, a missing path, an empty name), resource orders (a computer aiming at 100,000
  points), and inputs outside the API's shape (unknown routes and methods, invalid UTF-8, a 5,000-digit
  number, deep nesting). Each must be refused at once with a 4xx ``{"error": "<one sentence>"}`` and the
  same sentence for every unknown rule set (``attacks_not_refused`` counts the others).
- ``flood``: one address (127.0.0.2) opens more connections than the server allows one address
  (``--max-address-connections``) while the players' address (127.0.0.1) must still be served;
- ``redis_kill``/``redis_hang``: the bench's own Redis (when ``redis-server`` is installed and the
  fan-out is Redis) is killed and restarted, or stopped (SIGSTOP) for a while and continued: no
  request may wait for it, and players on other processes must still see every move.

At the end every stored log is read from the database and checked: every acknowledged action is
there exactly once (``lost``), every stored action is one the players sent, at the version they
sent it for (``duplicated``: an action applied twice, or at a version its sender did not see),
every log replays through the engine, and every refusal was one sentence. Bounded by
``--duration`` (plus a short grace to finish games); loopback only.

    python bench/chaos.py                  # 24 rooms x 2 players, 2 servers, SQLite (+ Redis when present)
    python bench/chaos.py --quick --json   # the fast subset the test suite runs
    python bench/chaos.py --db postgresql://postgres@127.0.0.1:5432/test --servers 3

The report adds the time from sending an intent to seeing the state it caused (``answer_ms``: median,
99th percentile, most) and, for the floods, how many of the flooding address's connections were refused
and how many requests from the players' address were answered meanwhile.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import secrets
import selectors
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2 as httpx
from load import intent  # the same simple client as the load benchmark (bench/ is the script's folder)
from websockets.asyncio.client import ClientConnection, connect

from fivedice.engine import notation
from fivedice.engine.game import Game
from fivedice.rules import parse_spec

INTENT_WAIT = 3.0
"""Seconds a player waits for the answer to an intent before it reconnects and looks again."""


def free_port() -> int:
    """A free TCP port on the loopback interface."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def redis_url() -> str | None:
    """The local Redis, if one answers."""
    url = os.environ.get("FIVEDICE_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")
    try:
        import redis

        redis.Redis.from_url(url, socket_connect_timeout=2).ping()
    except Exception:
        return None
    return url


class Servers:
    """Server processes on fixed loopback ports (a killed one comes back on the same port)."""

    def __init__(self, db: str, count: int, args: list[str], logs: Path) -> None:
        self.db, self.args, self.logs = db, args, logs
        self.ports = [free_port() for _ in range(count)]
        self.procs: list[subprocess.Popen[bytes] | None] = [None] * count

    def url(self, i: int) -> str:
        return f"http://127.0.0.1:{self.ports[i]}"

    def start(self, i: int) -> None:
        cmd = [sys.executable, "-m", "fivedice.web", "--port", str(self.ports[i]), "--db", self.db, *self.args]
        log = open(self.logs / f"server{i}.log", "ab")  # noqa: SIM115
        self.procs[i] = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)

    def wait(self, i: int, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if httpx.get(self.url(i) + "/api/rules", timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise SystemExit(f"server {i} did not start; see {self.logs}")

    def kill(self, i: int) -> None:
        proc = self.procs[i]
        if proc is not None and proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            proc.wait(10)

    def live(self) -> list[int]:
        return [i for i, p in enumerate(self.procs) if p is not None and p.poll() is None]

    def stop(self) -> None:
        for proc in self.procs:
            if proc is not None and proc.poll() is None:
                proc.terminate()
        for proc in self.procs:
            if proc is not None:
                try:
                    proc.wait(10)
                except subprocess.TimeoutExpired:
                    proc.kill()


class RedisProc:
    """The bench's own redis-server on a free loopback port, to kill and hang."""

    def __init__(self) -> None:
        self.port = free_port()
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        cmd = [shutil.which("redis-server") or "redis-server", "--port", str(self.port), "--bind", "127.0.0.1"]
        cmd += ["--save", "", "--appendonly", "no"]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        import redis

        for _ in range(100):
            with contextlib.suppress(redis.RedisError):
                redis.Redis.from_url(self.url, socket_connect_timeout=0.5).ping()
                return
            time.sleep(0.05)

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGCONT)
            self.proc.kill()
            self.proc.wait(10)

    def hang(self, seconds: float) -> None:
        """SIGSTOP for ``seconds``, then SIGCONT."""
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.send_signal(signal.SIGSTOP)
        time.sleep(seconds)
        self.proc.send_signal(signal.SIGCONT)


FLOOD_ADDRESS = "127.0.0.2"


def flood(port: int, count: int, tally: Tally) -> None:
    """Open ``count`` connections from :data:`FLOOD_ADDRESS`; count those refused (503 within 2 s, before the
    head timeout) and whether a request from 127.0.0.1 is still answered while they are held."""
    try:
        if httpx.get(f"http://127.0.0.1:{port}/api/rules", timeout=5).status_code != 200:
            return
    except httpx.HTTPError:
        return  # a server being restarted: flood another time
    held: list[socket.socket] = []
    try:
        for _ in range(count):
            sock = socket.socket()
            try:
                sock.bind((FLOOD_ADDRESS, 0))
                sock.settimeout(2)
                sock.connect(("127.0.0.1", port))
            except OSError:
                sock.close()
                continue
            held.append(sock)
        refused = 0
        with selectors.DefaultSelector() as sel:  # a refusal is answered at once
            for sock in held:
                sel.register(sock, selectors.EVENT_READ)
            readable: list[object] = []
            deadline = time.monotonic() + 2
            while len(readable) < len(held) and time.monotonic() < deadline:
                found = [key.fileobj for key, _events in sel.select(max(0.0, deadline - time.monotonic()))]
                for fileobj in found:
                    sel.unregister(fileobj)
                readable += found
        for answered in readable:
            assert isinstance(answered, socket.socket)
            with contextlib.suppress(OSError):
                if answered.recv(64).startswith(b"HTTP/1.1 503"):
                    refused += 1
        tally.faults["flood"] += 1
        tally.flood["opened"] += len(held)
        tally.flood["refused"] += refused
        try:
            ok = httpx.get(f"http://127.0.0.1:{port}/api/rules", timeout=5).status_code == 200
        except httpx.HTTPError:
            ok = False
        tally.flood["others_served" if ok else "others_refused"] += 1
    finally:
        for sock in held:
            sock.close()


@dataclass
class Room:
    """One room: its players' tokens, what they sent and what was acknowledged."""

    code: str
    tokens: list[str]
    sent: dict[int, set[tuple[int, str]]] = field(default_factory=dict)
    """Room version intents were sent for -> their (seat, intent type)s (a refused one may be followed by another)."""
    acked: dict[int, tuple[int, int]] = field(default_factory=dict)
    """Move sequence number -> (seat, version after it), from the acks."""
    final: dict[str, Any] | None = None
    started: asyncio.Event = field(default_factory=asyncio.Event)


@dataclass
class Tally:
    """Counts for the report."""

    faults: Counter[str] = field(default_factory=Counter)
    refusals: Counter[str] = field(default_factory=Counter)
    bad_refusals: list[str] = field(default_factory=list)
    reconnects: int = 0
    attacks: Counter[str] = field(default_factory=Counter)
    attack_problems: list[str] = field(default_factory=list)
    attack_ms: list[float] = field(default_factory=list)
    unknown_sentences: set[str] = field(default_factory=set)
    answers: list[float] = field(default_factory=list)
    """Seconds from sending an intent to seeing the state it caused."""
    flood: Counter[str] = field(default_factory=Counter)


TOML = 'base = "yahtzee"\nname = "smuggled"\n'
"""A readable rule-set file on the server's disk: a visitor naming it must not get it read."""
ATTACKS: list[tuple[str, str, str, bytes | None]] = [
    ("path", "GET", "/api/challenges/today?rules=/etc/passwd", None),
    ("path", "GET", "/api/challenges/today?rules=/nonexistent/x.toml", None),
    ("path", "GET", "/api/challenges/today?rules={toml}", None),
    ("path", "GET", "/api/challenges/today?rules=", None),
    ("order", "POST", "/api/rooms", b'{"name": "Eve", "rules": "yahtzee", "computers": ["target:100000"]}'),
    ("order", "POST", "/api/rooms", b'{"name": "Eve", "rules": "kismet", "computers": ["target:99999999"]}'),
    ("shape", "GET", "/nope", None),
    ("shape", "DELETE", "/api/rules", None),
    ("shape", "POST", "/api/rooms", b'{"name": "\xff\xfe"}'),
    ("shape", "POST", "/api/rooms", b'{"name": "Eve", "humans": ' + b"9" * 5000 + b"}"),
    ("shape", "POST", "/api/rooms", b"[" * 4000 + b"]" * 4000),
]
"""A hostile visitor's requests: (kind, method, path, body); ``{toml}`` is a rule-set file's path."""


async def attack(http: httpx.AsyncClient, base: str, toml: Path, tally: Tally) -> None:
    """Send every :data:`ATTACKS` request; each must be a quick 4xx with one sentence."""
    for kind, method, path, body in ATTACKS:
        path = path.replace("{toml}", str(toml))
        started = time.monotonic()
        try:
            r = await http.request(method, base + path, content=body, headers={"content-type": "application/json"})
        except httpx.ConnectError:
            return  # that server was just killed: the next round tries a live one
        except httpx.HTTPError as exc:
            tally.attack_problems.append(f"{method} {path[:60]}: no answer ({type(exc).__name__})")
            continue
        finally:
            tally.attack_ms.append(1000 * (time.monotonic() - started))
        tally.attacks[kind] += 1
        try:
            error = (
                r.json().get("error", "") if r.headers.get("content-type", "").startswith("application/json") else ""
            )
        except (ValueError, AttributeError):
            error = ""
        if not 400 <= r.status_code < 500 or not one_sentence(str(error)):
            tally.attack_problems.append(f"{method} {path[:60]}: {r.status_code} {r.text[:100]}")
        elif "rules=" in path:
            name = path.split("rules=", 1)[1]
            tally.unknown_sentences.add(str(error).replace(repr(name[:40]), "NAME"))


def one_sentence(text: str) -> bool:
    """A refusal is one plain sentence: one line, no traceback, ending with a full stop."""
    return "\n" not in text and "Traceback" not in text and text.endswith(".") and 0 < len(text) < 400


class Player:
    """One seat's client: plays its turns, reconnecting to any live server, and sometimes misbehaves."""

    def __init__(
        self, room: Room, seat: int, servers: Servers, tally: Tally, rng: random.Random, fault: float, think: float
    ) -> None:
        self.room, self.seat, self.servers, self.tally, self.rng = room, seat, servers, tally, rng
        self.fault, self.think = fault, think
        self.state: dict[str, Any] = {}
        self.last: dict[str, Any] | None = None

    async def _connect(self) -> ClientConnection:
        while True:
            live = self.servers.live() or [0]
            url = self.servers.url(self.rng.choice(live)).replace("http", "ws", 1)
            try:
                ws = await connect(f"{url}/ws/{self.room.code}", open_timeout=5, max_size=2**22)
                await ws.send(json.dumps({"type": "hello", "token": self.room.tokens[self.seat]}))
                return ws
            except (OSError, TimeoutError, Exception):
                await asyncio.sleep(0.3)

    async def run(self, until: float) -> None:
        while time.monotonic() < until and self.room.final is None:
            ws = await self._connect()
            try:
                await self._play(ws, until)
            except Exception:
                pass
            finally:
                with contextlib.suppress(Exception):
                    await ws.close()
            if self.room.final is None:
                self.tally.reconnects += 1
                await asyncio.sleep(0.2)

    async def _recv(self, ws: ClientConnection, timeout: float) -> dict[str, Any] | None:
        try:
            raw = await asyncio.wait_for(ws.recv(), timeout)
        except TimeoutError:
            return None
        msg: dict[str, Any] = json.loads(raw)
        if msg["type"] == "error":
            text = str(msg["message"])
            self.tally.refusals[text.split(" ")[0] + " " + text.split(" ")[1] if " " in text else text] += 1
            if not one_sentence(text):
                self.tally.bad_refusals.append(text)
        elif msg["type"] == "state":
            if msg["state"]["version"] >= self.state.get("version", 0):
                self.state = msg["state"]
        elif msg["type"] == "ack":
            seq, version = int(msg["seq"]), int(msg["version"])
            if seq and msg["game_no"] == 1:
                self.room.acked[seq] = (self.seat, version)
        return msg

    async def _send(self, ws: ClientConnection, msg: dict[str, Any]) -> None:
        if msg.get("type") in ("roll", "score", "start"):
            self.room.sent.setdefault(int(msg["version"]), set()).add((self.seat, str(msg["type"])))
        await ws.send(json.dumps(msg))

    async def _misbehave(self, ws: ClientConnection) -> None:
        kind = self.rng.choice(["malformed", "oversized", "binary", "replay"])
        if kind == "malformed":
            await ws.send('{"type": "roll", "keep": [1, ')
        elif kind == "oversized":
            await ws.send(json.dumps({"type": "chat", "text": "x" * 5000}))
        elif kind == "binary":
            await ws.send(b"\x00\x01\x02")
        elif self.last is not None:
            await ws.send(json.dumps(self.last))  # an intent already answered, sent again
        self.tally.faults[kind] += 1

    async def _play(self, ws: ClientConnection, until: float) -> None:
        pending: int | None = None
        since = time.monotonic()
        while time.monotonic() < until:
            msg = await self._recv(ws, 0.5)
            state = self.state
            if state.get("status") == "over":
                self.room.final = state
                return
            if pending is not None:
                answered = state.get("version", 0) > pending or (msg is not None and msg["type"] == "error")
                if not answered and time.monotonic() - since < INTENT_WAIT:
                    continue
                if not answered:
                    return  # no answer (a killed server): reconnect and look again
                if state.get("version", 0) > pending:
                    self.tally.answers.append(time.monotonic() - since)
                pending = None
            if self.seat == 0 and state.get("status") == "lobby" and all(s["taken"] for s in state["seats"]):
                act: dict[str, Any] = {"type": "start", "version": state["version"]}
            elif state.get("status") == "playing" and state["game"]["current"] == self.seat:
                act = {**intent(state["game"], self.rng), "version": state["version"]}
            else:
                continue
            await asyncio.sleep(self.think * (0.5 + self.rng.random()))
            if self.rng.random() < self.fault:
                await self._misbehave(ws)
            act["id"] = self.rng.randrange(1 << 30)
            pending, since = state["version"], time.monotonic()
            await self._send(ws, act)
            self.last = act
            roll = self.rng.random()
            if roll < self.fault:
                self.tally.faults["duplicate"] += 1
                if self.rng.random() < 0.5 or len(self.servers.live()) < 2:
                    await ws.send(json.dumps(act))
                else:  # the same intent to another server at the same moment
                    other = await self._connect()
                    await other.send(json.dumps(act))
                    await asyncio.sleep(0.05)
                    await other.close()
            elif roll < 2 * self.fault:
                self.tally.faults["drop"] += 1
                ws.transport.abort()  # cut, no close handshake
                return


async def monkey(
    servers: Servers,
    db: str,
    prefix: str,
    tally: Tally,
    rng: random.Random,
    until: float,
    redis: RedisProc | None = None,
    flood_count: int = 0,
) -> None:
    """Kill and restart servers, lock the database, send bad HTTP requests, flood from one address, kill and
    hang the bench's own Redis, send attacks, until ``until``."""
    toml = servers.logs / "smuggled.toml"
    toml.write_text(TOML)
    kinds = ["lock", "kill", "chunked", "badjson", "attack"]
    kinds += ["flood"] if flood_count else []
    kinds += ["redis_kill", "redis_hang"] if redis is not None else []
    n = 0
    while time.monotonic() < until - 2:
        await asyncio.sleep(rng.uniform(0.5, 1.5))
        kind = kinds[n % len(kinds)]
        n += 1
        if kind == "kill":
            live = servers.live()
            if len(live) < 1:
                continue
            victim = rng.choice(live)
            servers.kill(victim)
            await asyncio.sleep(rng.uniform(0.3, 1.0))
            servers.start(victim)  # back on its port once it has started (the players retry meanwhile)
        elif kind == "lock":
            await asyncio.to_thread(lock_database, db, prefix, rng.uniform(0.5, 2.0))
        elif kind == "attack":
            with contextlib.suppress(httpx.HTTPError):
                async with httpx.AsyncClient(timeout=10) as http:
                    await attack(http, servers.url(rng.choice(servers.live() or [0])), toml, tally)
        elif kind == "flood":
            await asyncio.to_thread(flood, servers.ports[rng.choice(servers.live() or [0])], flood_count, tally)
            continue  # counted by flood() when a server was up to take it
        elif kind == "redis_kill" and redis is not None:
            redis.kill()
            await asyncio.sleep(rng.uniform(1.0, 3.0))
            await asyncio.to_thread(redis.start)
        elif kind == "redis_hang" and redis is not None:
            await asyncio.to_thread(redis.hang, rng.uniform(1.0, 3.0))
        elif kind == "chunked":
            await asyncio.to_thread(chunked_body, servers.ports[rng.choice(servers.live() or [0])])
        else:
            with contextlib.suppress(httpx.HTTPError):
                async with httpx.AsyncClient(timeout=5) as http:
                    r = await http.post(
                        servers.url(rng.choice(servers.live() or [0])) + "/api/rooms",
                        content=b'{"name": "x", "humans": }',
                        headers={"content-type": "application/json"},
                    )
                    if not one_sentence(r.json().get("error", "")):
                        tally.bad_refusals.append(r.text)
        tally.faults[kind] += 1


def lock_database(db: str, prefix: str, seconds: float) -> None:
    """Hold the database locked from another connection for ``seconds``."""
    if db.startswith("sqlite:///"):
        conn = sqlite3.connect(db.removeprefix("sqlite:///"), timeout=10)
        conn.execute("BEGIN EXCLUSIVE")
        time.sleep(seconds)
        conn.rollback()
        conn.close()
        return
    import psycopg

    url = "postgresql://" + db.split("://", 1)[1]
    with psycopg.connect(url) as pg:
        pg.execute(f'LOCK TABLE "{prefix}rooms" IN ACCESS EXCLUSIVE MODE')
        time.sleep(seconds)
        pg.rollback()


def chunked_body(port: int) -> None:
    """A chunked request body far over the limit; the server must refuse it early."""
    with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=5) as sock:
        sock.sendall(b"POST /api/rooms HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n")
        for _ in range(64):
            sock.sendall(b"%x\r\n%s\r\n" % (65536, b"x" * 65536))


def verify(rooms: list[Room], db: str, prefix: str, players: int) -> dict[str, Any]:
    """Read every room's stored log from the database and compare it with what the players saw."""
    from fivedice.web.db import RoomStore

    store = RoomStore(db, prefix)
    lost = duplicated = replayed = stored = 0
    problems: list[str] = []
    try:
        for room in rooms:
            row = store.room(room.code)
            log = store.moves(room.code, 1)
            stored += len(log)
            by_seq = {m.seq: m for m in log}
            for seq, (seat, _version) in room.acked.items():
                if seq not in by_seq or by_seq[seq].seat != seat:
                    lost += 1
                    problems.append(f"{room.code}: acknowledged move {seq} of seat {seat} is not stored")
            start_version = players + 1  # created 1, each join +1, start +1
            for move in log:
                if move.by != "seat":
                    continue  # the table's own move (the roll-off), or a computer's
                sent = room.sent.get(start_version + move.seq - 1, set())
                kind = move.record.get("type")
                if (move.seat, "roll" if kind == "rolloff" else kind) not in sent:
                    duplicated += 1
                    problems.append(f"{room.code}: stored move {move.seq} ({kind}) matches no intent sent for it")
            game = Game(parse_spec(row.spec), [s.name or "?" for s in row.seats])
            try:
                for move in log:
                    game.push(notation.from_json(move.record))
            except Exception as exc:
                problems.append(f"{room.code}: the log does not replay ({exc})")
                continue
            if room.final is not None and list(game.state.totals) != room.final["game"]["totals"]:
                problems.append(f"{room.code}: replayed totals differ from the final state the players saw")
                continue
            replayed += 1
    finally:
        store.dispose()
    return {"lost": lost, "duplicated": duplicated, "replayed": replayed, "stored": stored, "problems": problems}


async def chaos(
    opts: argparse.Namespace, servers: Servers, db: str, prefix: str, redis: RedisProc | None = None
) -> dict[str, Any]:
    """Create the rooms, play them under faults, verify; returns the report."""
    rng = random.Random(opts.seed)
    tally = Tally()
    rooms: list[Room] = []
    async with httpx.AsyncClient(timeout=30) as http:
        for r in range(opts.rooms):
            home = servers.url(r % len(servers.ports))
            body = {"name": "P1", "rules": opts.rules, "humans": opts.players, "hints": False}
            made = (await http.post(home + "/api/rooms", json=body)).json()
            tokens = [made["token"]]
            for seat in range(1, opts.players):
                joined = await http.post(f"{home}/api/rooms/{made['code']}/join", json={"name": f"P{seat + 1}"})
                tokens.append(joined.json()["token"])
            rooms.append(Room(made["code"], tokens))
    t0 = time.monotonic()
    until = t0 + opts.duration
    players = [
        Player(room, seat, servers, tally, random.Random(rng.random()), opts.fault, opts.think / 1000)
        for room in rooms
        for seat in range(opts.players)
    ]
    tasks = [asyncio.create_task(p.run(until + opts.grace)) for p in players]
    chaos_rng = random.Random(rng.random())
    faults = asyncio.create_task(monkey(servers, db, prefix, tally, chaos_rng, until, redis, opts.flood))
    await faults
    for i in range(len(servers.ports)):  # every server up for the end
        if servers.procs[i] is None or servers.procs[i].poll() is not None:  # type: ignore[union-attr]
            servers.start(i)
            await asyncio.to_thread(servers.wait, i)
    await asyncio.wait(tasks, timeout=max(1.0, until + opts.grace - time.monotonic()))
    for task in tasks:
        task.cancel()
    wall = time.monotonic() - t0
    checked = await asyncio.to_thread(verify, rooms, db, prefix, opts.players)
    acked = sum(len(r.acked) for r in rooms)
    return {
        "rooms": opts.rooms,
        "players": opts.players,
        "servers": len(servers.ports),
        "finished": sum(r.final is not None for r in rooms),
        "actions_acknowledged": acked,
        "actions_stored": checked["stored"],
        "faults": dict(sorted(tally.faults.items())),
        "faults_total": sum(tally.faults.values()),
        "refusals": sum(tally.refusals.values()),
        "refusals_not_one_sentence": len(tally.bad_refusals),
        "reconnects": tally.reconnects,
        "answer_ms": _percentiles(tally.answers),
        "flood": dict(sorted(tally.flood.items())),
        "lost": checked["lost"],
        "duplicated": checked["duplicated"],
        "logs_replayed": checked["replayed"],
        "attacks": dict(sorted(tally.attacks.items())),
        "attacks_not_refused": len(tally.attack_problems),
        "attack_ms_max": round(max(tally.attack_ms, default=0.0), 1),
        "unknown_rule_set_sentences": len(tally.unknown_sentences),
        "problems": checked["problems"][:10] + tally.bad_refusals[:5] + tally.attack_problems[:8],
        "wall_s": round(wall, 1),
    }


def _percentiles(seconds: list[float]) -> dict[str, float]:
    """Median, 99th percentile and most, in milliseconds."""
    if not seconds:
        return {}
    ordered = sorted(seconds)

    def at(q: float) -> float:
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]

    return {"p50": round(at(0.5) * 1000), "p99": round(at(0.99) * 1000), "max": round(ordered[-1] * 1000)}


def main() -> int:
    """Parse the options, start the servers, run, print the report; exit 1 on any lost or duplicated action."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rooms", type=int, default=24, help="rooms (default 24)")
    parser.add_argument("--players", type=int, default=2, help="players per room (default 2)")
    parser.add_argument("--servers", type=int, default=2, help="server processes (default 2)")
    parser.add_argument("--duration", type=float, default=60, help="seconds of faults (default 60)")
    parser.add_argument("--grace", type=float, default=20, help="seconds more for the games to finish (20)")
    parser.add_argument("--fault", type=float, default=0.04, help="chance a player misbehaves per intent (0.04)")
    parser.add_argument("--think", type=float, default=80, help="mean think time before an intent, ms (80)")
    parser.add_argument("--rules", default="yacht")
    parser.add_argument("--db", default=None, help="database URL (default: a temporary SQLite file)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--flood", type=int, default=None, help="connections one address opens in a flood (400; --quick: 0, none)"
    )
    parser.add_argument(
        "--own-redis",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="a Redis of our own to kill and hang (default: when redis-server is installed, except with --quick)",
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help="the fast subset: 6 rooms, 16 s of faults, then up to 240 s for the games to finish (a loaded machine's)",
    )
    parser.add_argument("--json", action="store_true", help="print the report as one JSON line")
    opts = parser.parse_args()
    if opts.quick:
        opts.rooms, opts.duration, opts.grace, opts.fault = 6, 16, 240, 0.08
    if opts.flood is None:
        opts.flood = 0 if opts.quick else 400
    if opts.own_redis is None:
        opts.own_redis = not opts.quick
    tmp = tempfile.TemporaryDirectory()
    db = opts.db or f"sqlite:///{Path(tmp.name) / 'chaos.db'}"
    prefix = f"chaos{secrets.token_hex(3)}_"
    redis = None
    if not db.startswith("postgres") and opts.own_redis and shutil.which("redis-server"):
        redis = RedisProc()
        redis.start()
    pubsub = "postgres" if db.startswith("postgres") else redis.url if redis else (redis_url() or "none")
    if pubsub == "none":
        opts.servers = 1  # several processes on SQLite need Redis to hear each other
    args = ["--table-prefix", prefix, "--pubsub", pubsub, "--no-scores", "--computer-delay", "0", "--rate", "1000"]
    args += ["--db-timeout", "1", "--presence-ttl", "3", "--header-timeout", "3", "--rooms-per-minute", "1e6"]
    args += ["--joins-per-minute", "1e6", "--requests-per-second", "1e6"]
    # a flood of 400 from one address must leave room for the players' address under the global cap (an older
    # server, without per-address caps, is run with the global cap alone: the before of a before/after)
    args += ["--max-connections", "400"]
    if (
        "--max-address-connections"
        in subprocess.run(
            [sys.executable, "-m", "fivedice.web", "--help"], capture_output=True, text=True, check=False
        ).stdout
    ):
        args += ["--max-address-connections", "150"]
    servers = Servers(db, opts.servers, args, Path(tmp.name))
    try:
        servers.start(0)
        servers.wait(0)  # the first creates the tables and claims the channel
        for i in range(1, opts.servers):
            servers.start(i)
        for i in range(1, opts.servers):
            servers.wait(i)
        report = asyncio.run(chaos(opts, servers, db, prefix, redis))
    finally:
        servers.stop()
        if redis is not None:
            redis.kill()
        if opts.db:
            from fivedice.web.db import RoomStore

            store = RoomStore(opts.db, prefix)
            store.drop()
            store.dispose()
        tmp.cleanup()
    report["database"] = "postgresql" if db.startswith("postgres") else "sqlite"
    report["pubsub"] = pubsub.split("://")[0]
    if opts.json:
        print(json.dumps(report))
    else:
        for key, value in report.items():
            print(f"{key:28} {value}")
    bad = report["lost"] or report["duplicated"] or report["refusals_not_one_sentence"] or report["attacks_not_refused"]
    bad = bad or report["unknown_rule_set_sentences"] > 1
    return 1 if bad or report["logs_replayed"] != report["rooms"] else 0


if __name__ == "__main__":
    sys.exit(main())
