"""One address cannot take every connection: per-address caps on connections and WebSockets below the global
one, and idle spectators let go. The flooding address is 127.0.0.2, the other visitor 127.0.0.1 (both
loopback, against a real server process)."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest

from tests.web.conftest import RemoteConn, Server
from tests.web.test_faults import read_response
from tests.web.test_processes import new_room

FLOOD = "127.0.0.2"


def from_address(port: int, address: str = FLOOD) -> socket.socket:
    """A TCP connection to the server from ``address``."""
    sock = socket.socket()
    sock.bind((address, 0))
    sock.connect(("127.0.0.1", port))
    return sock


def watch(stack: ExitStack, server: Server, code: str, hello: bool = True) -> Any:
    """A spectator's WebSocket from the flooding address, after its hello (closed with ``stack``)."""
    from websockets.sync.client import connect

    ws = stack.enter_context(connect(f"{server.ws}/ws/{code}", sock=from_address(server.port), open_timeout=10))
    if hello:
        ws.send(json.dumps({"type": "hello", "token": None}))
    return ws


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    caps = ("--max-connections", "40", "--max-address-connections", "8", "--max-address-sockets", "4")
    srv = Server(f"sqlite:///{tmp_path / 'rooms.db'}", "--no-scores", "--header-timeout", "30", *caps).start()
    yield srv
    srv.stop()


def test_one_address_cannot_take_every_connection(server: Server) -> None:
    held = [from_address(server.port) for _ in range(8)]
    extra = from_address(server.port)
    status, body = read_response(extra)
    assert status == 503
    assert body["error"] == f"There are 8 open connections from {FLOOD}, its limit; close some and try again."
    assert httpx.get(server.url + "/api/rules").status_code == 200  # another address still gets in
    for sock in [*held, extra]:
        sock.close()


def test_one_address_cannot_take_every_websocket(server: Server) -> None:
    made = new_room(server, humans=1)
    with ExitStack() as stack:  # the WebSockets close when the test ends, failed or not
        flood = [watch(stack, server, made["code"]) for _ in range(4)]
        for ws in flood:
            assert json.loads(ws.recv(timeout=10))["type"] == "state"
        refused = watch(stack, server, made["code"], hello=False)  # refused before its hello
        assert json.loads(refused.recv(timeout=10)) == {
            "type": "error",
            "message": f"There are 4 open WebSockets from {FLOOD}, its limit; close some and try again.",
        }
        from websockets.exceptions import ConnectionClosed

        with pytest.raises(ConnectionClosed) as closed:
            refused.recv(timeout=10)
        assert closed.value.rcvd is not None
        assert closed.value.rcvd.code == 4429
        player = RemoteConn(server.ws, made["code"], made["token"])  # from 127.0.0.1: in
        assert player.state["watchers"] == 4
        player.close()


def test_an_idle_spectator_is_let_go_and_a_player_is_not(tmp_path: Path) -> None:
    srv = Server(f"sqlite:///{tmp_path / 'rooms.db'}", "--no-scores", "--watch-idle", "1").start()
    try:
        made = new_room(srv, humans=1)
        player = RemoteConn(srv.ws, made["code"], made["token"])
        watcher = RemoteConn(srv.ws, made["code"], None)
        assert watcher.error() == "Watching stopped after 1 s without a sign from this page; reload it to watch again."
        from websockets.exceptions import ConnectionClosed

        with pytest.raises(ConnectionClosed) as closed:
            watcher.recv()
        assert closed.value.rcvd is not None
        assert closed.value.rcvd.code == 4408
        player.send(type="ping", id=1)  # the player, as quiet, is still connected
        assert player.until(lambda m: m["type"] == "pong")["id"] == 1
        player.close()
    finally:
        srv.stop()
