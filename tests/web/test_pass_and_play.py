"""Pass and play: several seats of one room on one device (one connection), only where the host asked for
them, each action naming and checked against its seat."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from fastapi.testclient import TestClient

from tests.web.conftest import Conn, create, intent


@contextmanager
def device(client: TestClient, code: str, token: str | None, tokens: list[str]) -> Iterator[Conn]:
    """One connection for several seats, as the page on a shared device opens it."""
    with client.websocket_connect(f"/ws/{code}") as ws:
        conn = Conn(ws)
        conn.send(type="hello", token=token, tokens=tokens)
        conn.until(lambda m: m["type"] in ("state", "error"))
        yield conn


def refused(client: TestClient, code: str, token: str | None, tokens: list[str]) -> str:
    with client.websocket_connect(f"/ws/{code}") as ws:
        ws.send_text(json.dumps({"type": "hello", "token": token, "tokens": tokens}))
        msg: dict[str, Any] = ws.receive_json()
        assert msg["type"] == "error"
        return str(msg["message"])


def test_two_local_seats_play_a_game_on_one_connection(client: TestClient) -> None:
    made = create(client, rules="yacht", humans=3, local=["Bob"], computers=["greedy"])
    assert made["seat"] == 0
    assert len(made["tokens"]) == 1
    room = client.get(f"/api/rooms/{made['code']}").json()
    assert [(s["name"], s["taken"]) for s in room["seats"]] == [
        ("Ann", True),
        ("Bob", True),
        (None, False),
        ("Computer 1", True),
    ]
    assert room["settings"]["local"] == 2
    cy = client.post(f"/api/rooms/{made['code']}/join", json={"name": "Cy"}).json()
    with (
        device(client, made["code"], made["token"], made["tokens"]) as ann_bob,
        device(client, made["code"], cy["token"], []) as cy_conn,
    ):
        state = next(m for m in ann_bob.seen if m["type"] == "state")
        assert (state["you"], state["seats"]) == (0, [0, 1])
        assert [s["online"] for s in ann_bob.state["seats"]] in ([True, True, False, True], [True, True, True, True])
        ann_bob.send(type="start")
        state = ann_bob.until(lambda m: m["type"] == "state" and m["state"]["status"] == "playing")["state"]
        turns = {0: 0, 1: 0, 2: 0}
        while state["status"] != "over" and min(turns[0], turns[1]) < 3:
            version, game = state["version"], state["game"]
            seat = game["current"]
            if game["phase"] == "play" and seat in (0, 1):
                ann_bob.send(**intent(game), seat=seat, version=version)
                turns[seat] += game["rolls"] == 2 or intent(game)["type"] == "score"
            elif game["phase"] == "play" and seat == 2:
                cy_conn.version(version - 1)
                cy_conn.send(**intent(game), version=version)
            state = ann_bob.version(version)
        log = client.get(f"/api/rooms/{made['code']}/log").json()["moves"]
        scored = {m["seat"] for m in log if m["record"]["type"] == "score" and m["by"] == "seat"}
        assert {0, 1} <= scored  # both local seats scored, each under its own seat


def test_each_action_is_checked_against_its_seat(client: TestClient) -> None:
    made = create(client, rules="yacht", humans=3, local=["Bob"], first="host")
    cy = client.post(f"/api/rooms/{made['code']}/join", json={"name": "Cy"}).json()
    with device(client, made["code"], made["token"], made["tokens"]) as ann_bob:
        ann_bob.send(type="start")
        state = ann_bob.until(lambda m: m["type"] == "state" and m["state"]["status"] == "playing")["state"]
        assert state["game"]["current"] == 0
        ann_bob.send(type="roll", seat=1)  # Bob's seat, but it is Ann's turn
        assert ann_bob.error() == "It is Ann's turn, not Bob's."
        ann_bob.send(type="roll", seat=2)  # Cy's seat is not on this device
        assert ann_bob.error() == "Seat 3 is not played on this connection."
        ann_bob.send(type="roll")  # no seat named: the connection's own (Ann's)
        ann_bob.until(lambda m: m["type"] == "ack")
    assert cy["seat"] == 2


def test_several_seats_on_one_connection_only_where_the_host_asked(client: TestClient) -> None:
    plain = create(client, rules="yacht", humans=2)
    bob = client.post(f"/api/rooms/{plain['code']}/join", json={"name": "Bob"}).json()
    assert refused(client, plain["code"], plain["token"], [bob["token"]]) == (
        f"Room {plain['code']!r} has no seats played on one device; a connection plays one seat."
    )
    made = create(client, rules="yacht", humans=3, local=["Bob"])
    cy = client.post(f"/api/rooms/{made['code']}/join", json={"name": "Cy"}).json()
    assert refused(client, made["code"], made["token"], [cy["token"]]) == (
        f"Only the seats made for one device in room {made['code']!r} can be played together."
    )
    first = refused(client, made["code"], None, made["tokens"])
    assert first == "More seats on one device need the first seat's token too."
    assert refused(client, made["code"], made["token"], ["nope"]) == (
        f"That token is not a seat of room {made['code']!r}; join the room again."
    )


def test_local_players_are_validated_before_anything_changes(client: TestClient) -> None:
    r = client.post("/api/rooms", json={"name": "Ann", "humans": 2, "local": ["Bob", "Cy"]})
    assert r.status_code == 422
    assert r.json()["error"] == (
        "Request body is not valid: 2 players on this device and the host make more than the 2 people playing."
    )
    r = client.post("/api/rooms", json={"name": "Ann", "humans": 2, "local": ["ann"]})
    assert r.status_code == 400
    assert r.json()["error"] == "Name 'Ann' is taken by another seat; choose another."
