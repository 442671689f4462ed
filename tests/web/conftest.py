"""Helpers for the web tests: an in-process app with TestClient sockets, and real server processes."""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession

from fivedice.table.seat import SeatKind
from fivedice.web.app import create_app
from fivedice.web.limits import Limits

Msg = dict[str, Any]
INTENT_TYPES = {"roll", "score", "undo", "redo", "start", "rematch"}
LOOSE = Limits(
    message_rate=1000,
    message_burst=1000,
    create_rate=1000,
    create_burst=1000,
    join_rate=1000,
    join_burst=1000,
    request_rate=10_000,
    request_burst=10_000,
)
"""Limits that stay out of the way of tests about something else."""


def with_version(msg: Msg, state: Msg) -> Msg:
    """An intent carries the room version its sender last saw, as the page sends it (unless the test gave one)."""
    if msg.get("type") in INTENT_TYPES and "version" not in msg:
        return {**msg, "version": state.get("version", 0)}
    return msg


class Conn:
    """A TestClient WebSocket that remembers the latest room state it received."""

    def __init__(self, ws: WebSocketTestSession) -> None:
        self.ws = ws
        self.state: Msg = {}
        self.you: int | None = None
        self.seen: list[Msg] = []

    def send(self, **msg: Any) -> None:
        self.ws.send_text(json.dumps(with_version(msg, self.state)))

    def recv(self) -> Msg:
        msg: Msg = self.ws.receive_json()
        self.seen.append(msg)
        if msg["type"] == "state":
            self.state, self.you = msg["state"], msg["you"]
        return msg

    def until(self, pred: Callable[[Msg], bool], limit: int = 500) -> Msg:
        for _ in range(limit):
            msg = self.recv()
            if pred(msg):
                return msg
        raise AssertionError(f"no matching message in {limit}; last {self.seen[-3:]}")

    def error(self) -> str:
        return str(self.until(lambda m: m["type"] == "error")["message"])

    def version(self, above: int) -> Msg:
        """Wait for a state newer than version ``above``."""
        if self.state.get("version", 0) > above:
            return self.state
        state: Msg = self.until(lambda m: m["type"] == "state" and m["state"]["version"] > above)["state"]
        return state


@contextmanager
def hello(client: TestClient, code: str, token: str | None) -> Iterator[Conn]:
    with client.websocket_connect(f"/ws/{code}") as ws:
        conn = Conn(ws)
        conn.send(type="hello", token=token)
        conn.until(lambda m: m["type"] == "state")
        yield conn


def intent(game: Msg) -> Msg:
    """A simple deterministic policy over the snapshot: roll, roll keeping dice 1-2, score the best box."""
    if game["phase"] == "rolloff" or game["dice"] is None:
        return {"type": "roll"}
    if game["rolls"] == 1:
        return {"type": "roll", "keep": [0, 1]}
    best = max(game["options"], key=lambda o: (o["points"], -o["card"]))
    return {"type": "score", "box": best["box"], "card": best["card"]}


def play(conns: dict[int, Conn], until: Callable[[Msg], bool] | None = None) -> Msg:
    """Drive every human seat in ``conns`` (computers move by themselves) until the game ends."""
    any_conn = next(iter(conns.values()))
    state = any_conn.state
    while state["status"] != "over" and not (until and until(state)):
        version = state["version"]
        seat = state["game"]["current"] if state["game"] else None
        if seat in conns:
            conns[seat].send(**intent(state["game"]), version=state["version"])
        for conn in conns.values():
            conn.version(version)
        state = any_conn.state
    return state


@pytest.fixture
def client() -> Iterator[TestClient]:
    app = create_app("sqlite://", pubsub="none", seed=7, computer_delay=0, scores=False, limits=LOOSE)
    with TestClient(app) as c:
        yield c


def create(client: TestClient, **body: Any) -> Msg:
    body.setdefault("name", "Ann")
    r = client.post("/api/rooms", json=body)
    assert r.status_code == 201, r.text
    data: Msg = r.json()
    return data


# -- real server processes ----------------------------------------------------------------
def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _port_free(port: int) -> bool:
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


class _PortTaken(Exception):
    """The port picked for a server was taken before it could listen."""


STARTUP = 120.0
"""Seconds a server may take to answer after it is started: only how long a test waits before it fails
(a start takes one to three seconds, longer when the machine is loaded)."""


class Server:
    """``python -m fivedice.web`` in a subprocess on a free loopback port."""

    def __init__(
        self,
        db: str | None,
        *args: str,
        port: int | None = None,
        log: Path | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        self.db, self.args, self.env = db, args, env or {}
        self.chosen_port = port is not None
        self.port = port or free_port()
        self.log = log
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def start(self) -> Server:
        """Start the server and wait until it answers (a port picked for it that another test's server took
        in the meantime, as parallel workers may, is picked again)."""
        for _attempt in range(3):
            try:
                return self._start()
            except _PortTaken:
                self.port = free_port()
        return self._start()

    def _start(self) -> Server:
        cmd = [sys.executable, "-m", "fivedice.web", "--port", str(self.port), "--rate", "1000"]
        cmd += ["--db", self.db] if self.db is not None else []
        cmd += self.args
        out = open(self.log, "ab") if self.log else subprocess.DEVNULL  # noqa: SIM115
        self.proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, env={**os.environ, **self.env})
        deadline = time.monotonic() + STARTUP
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                if not self.chosen_port and not _port_free(self.port):
                    raise _PortTaken
                raise RuntimeError(f"server exited with {self.proc.returncode}: {' '.join(cmd)}")
            try:
                if httpx.get(self.url + "/api/rules", timeout=1).status_code == 200:
                    return self
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"server did not start in {STARTUP} s")

    def kill(self) -> None:
        """SIGKILL: no clean shutdown at all."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


class RemoteConn:
    """A ``websockets`` sync client with the same helpers as :class:`Conn`."""

    def __init__(self, url: str, code: str, token: str | None) -> None:
        from websockets.sync.client import connect

        self.ws = connect(f"{url}/ws/{code}", open_timeout=10).__enter__()
        self.state: Msg = {}
        self.you: int | None = None
        self.send(type="hello", token=token)
        self.until(lambda m: m["type"] == "state")

    def send(self, **msg: Any) -> None:
        self.ws.send(json.dumps(with_version(msg, self.state)))

    def recv(self) -> Msg:
        msg: Msg = json.loads(self.ws.recv(timeout=15))
        if msg["type"] == "state":
            self.state, self.you = msg["state"], msg["you"]
        return msg

    def until(self, pred: Callable[[Msg], bool], limit: int = 1000) -> Msg:
        for _ in range(limit):
            msg = self.recv()
            if pred(msg):
                return msg
        raise AssertionError("no matching message")

    def error(self) -> str:
        return str(self.until(lambda m: m["type"] == "error")["message"])

    def version(self, above: int) -> Msg:
        if self.state.get("version", 0) > above:
            return self.state
        state: Msg = self.until(lambda m: m["type"] == "state" and m["state"]["version"] > above)["state"]
        return state

    def close(self) -> None:
        self.ws.close()


def recorded_rows(db: Path, query: str, timeout: float = 20.0) -> list[tuple[Any, ...]]:
    """The rows ``query`` finds in the SQLite score store at ``db`` once it finds any (the store and its tables
    are made when the server records its first game); an AssertionError after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            with sqlite3.connect(db) as store:
                found = store.execute(query).fetchall()
        except sqlite3.OperationalError as exc:  # not made yet ("no such table"), or locked by the writer
            found, last = [], str(exc)
        else:
            last = "no rows"
        if found:
            return found
        if time.monotonic() > deadline:
            raise AssertionError(f"{query!r} found nothing in {db} within {timeout} s ({last})")
        time.sleep(0.05)


def play_remote(conns: dict[int, RemoteConn], until: Callable[[Msg], bool] | None = None) -> Msg:
    """:func:`play` over real sockets."""
    any_conn = next(iter(conns.values()))
    state = any_conn.state
    while state["status"] != "over" and not (until and until(state)):
        version = state["version"]
        seat = state["game"]["current"] if state["game"] else None
        if seat in conns:
            conns[seat].send(**intent(state["game"]), version=state["version"])
        for conn in conns.values():
            conn.version(version)
        state = max((c.state for c in conns.values()), key=lambda s: int(s["version"]))
    for conn in conns.values():  # the others may hear the last move later than the one that saw the end
        conn.version(int(state["version"]) - 1)
    return state


def replays(log: Msg) -> Any:
    """Rebuild a game from the stored move log served at ``/api/rooms/{code}/log`` (on a table, as the
    server does: undo and redo by the table's policy)."""
    from fivedice.rules import parse_spec
    from fivedice.web.db import MoveRow, SeatRow
    from fivedice.web.rooms import table_from_moves

    seats = [SeatRow(i, name, SeatKind.HUMAN, None, None) for i, name in enumerate(log["players"])]
    moves = [MoveRow(m["seq"], m["seat"], m["by"], m["record"], 0.0) for m in log["moves"]]
    return table_from_moves(parse_spec(log["spec"]), seats, {"undo": True}, moves).game


CHROMIUM = "/usr/bin/chromium"
"""Debian's chromium: the browser tests never download a browser."""
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="module")
def chromium() -> Iterator[Any]:
    """One headless chromium per browser test module, through Playwright: a launch (Playwright's driver and
    the browser) costs about 2 s of CPU, once per module instead of once per test (``tests/conftest.py`` keeps
    a module's browser tests on one parallel worker). Not once per process: while Playwright's sync API is
    started, the async tests of another module that the same worker runs cannot start their event loop."""
    from playwright import sync_api

    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def browser(chromium: Any) -> Iterator[Any]:
    """Headless chromium through Playwright (the browser test modules skip when either is missing). Each
    test's pages and contexts are its own (``new_page``, ``new_context``: no cookies, storage or service
    workers shared) and are closed after it."""
    yield chromium
    for context in chromium.contexts:
        context.close()


def axe_problems(page: Any) -> list[str]:
    """axe-core's serious and critical violations on ``page`` as it is now (one line each, empty when none).

    axe-core comes with the ``axe-playwright-python`` test dependency (its vendored ``axe.min.js``),
    injected into the page by Playwright: nothing is fetched at run time.
    """
    from axe_playwright_python.base import AXE_SCRIPT

    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        page.evaluate(AXE_SCRIPT)
    found = page.evaluate("async () => (await axe.run(document, {resultTypes: ['violations']})).violations")
    return [
        f"{v['id']} ({v['impact']}): {v['help']} at {[n['target'] for n in v['nodes']][:3]}"
        for v in found
        if v["impact"] in ("serious", "critical")
    ]
