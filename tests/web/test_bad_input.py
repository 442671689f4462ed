"""Every kind of bad input gets a clear message to that client only and changes nothing."""

from __future__ import annotations

import dataclasses
import json

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from fivedice.web.app import create_app
from fivedice.web.models import parse_message
from tests.web.conftest import LOOSE, Conn, create, hello


def started(client: TestClient, conn: Conn) -> int:
    conn.send(type="start")
    return int(conn.version(conn.state["version"])["version"])


def unchanged(client: TestClient, code: str, version: int, conn: Conn) -> None:
    """Nothing was stored and the room is still at ``version``."""
    room = client.get(f"/api/rooms/{code}").json()
    assert room["version"] == version
    assert conn.state["version"] == version


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("not json", "Message is not valid JSON"),
        ("[1, 2]", "not a JSON object with a string 'type'"),
        ('{"keep": [1]}', "not a JSON object with a string 'type'"),
        ('{"type": "teleport"}', "Message type 'teleport' is unknown."),
        ('{"type": "roll", "keep": "12", "version": 2}', "Message field 'keep' is not valid"),
        ('{"type": "roll", "keep": [12], "version": 2}', "Message field 'keep.0' is not valid"),
        ('{"type": "roll", "keep": [true], "version": 2}', "Message field 'keep.0' is not valid"),
        ('{"type": "score", "box": "chance", "cheat": 1, "version": 2}', "Message field 'cheat' is not valid"),
        ('{"type": "score", "version": 2}', "Message field 'box' is not valid"),
        ('{"type": "roll"}', "Message field 'version' is not valid: field required."),
        ('{"type": "roll", "version": "2"}', "Message field 'version' is not valid"),
        ('{"type": "chat", "text": "' + "x" * 201 + '"}', "chat text 'xxx"),
        ('{"type": "chat", "text": "bell\\u0007"}', "contains control"),
        ('{"type": "roll", "pad": "' + "x" * 3000 + '"}', "Message of 3027 characters is too long"),
    ],
    ids=lambda v: str(v)[:24],
)
def test_malformed_and_oversized_messages_get_a_clear_error(client: TestClient, text: str, expected: str) -> None:
    made = create(client, rules="yacht", humans=1)
    with hello(client, made["code"], made["token"]) as ann:
        version = started(client, ann)
        ann.ws.send_text(text)
        assert expected in ann.error()
        ann.send(type="ping", id=1)  # the connection still works
        assert ann.until(lambda m: m["type"] == "pong")["id"] == 1
        unchanged(client, made["code"], version, ann)


def test_binary_messages_are_refused(client: TestClient) -> None:
    made = create(client, rules="yacht", humans=1)
    with hello(client, made["code"], made["token"]) as ann:
        ann.ws.send_bytes(b'{"type": "roll", "version": 1}')
        assert ann.error() == "Binary messages are not accepted; send JSON text."


def test_wrong_turn_wrong_seat_and_illegal_moves_change_nothing(client: TestClient) -> None:
    made = create(client, rules="yacht", humans=2)
    code = made["code"]
    bob_token = client.post(f"/api/rooms/{code}/join", json={"name": "Bob"}).json()["token"]
    with hello(client, code, made["token"]) as ann, hello(client, code, bob_token) as bob:
        bob.send(type="start")
        assert bob.error() == "Only the host, Ann, can start the game."
        started(client, ann)
        # the table rolls the roll-off by itself; then illegal moves on the player to act
        bob.until(lambda m: m["type"] == "state" and m["state"]["game"]["phase"] == "play")
        ann.version(bob.state["version"] - 1)
        waiting = (ann, bob)[1 - bob.state["game"]["current"]]
        waiting.send(type="roll", id=9)
        err = waiting.until(lambda m: m["type"] == "error")
        names = ["Ann", "Bob"]
        mover, idle = names[bob.state["game"]["current"]], names[1 - bob.state["game"]["current"]]
        assert err == {"type": "error", "message": f"It is {mover}'s turn, not {idle}'s.", "id": 9}
        current = (ann, bob)[bob.state["game"]["current"]]
        other = (ann, bob)[1 - bob.state["game"]["current"]]
        version = current.state["version"]
        current.send(type="score", box="choice")
        assert "must roll before scoring" in current.error()
        current.send(type="roll", keep=[2])
        assert "cannot keep dice before the turn's first roll" in current.error()
        current.send(type="roll")
        version = current.version(version)["version"]
        other.version(version - 1)
        mark = len(other.seen)
        current.send(type="score", box="nonsense")
        assert "Box 'nonsense' is not in the yacht rule set" in current.error()
        current.send(type="score", box="choice", card=3)
        assert "Card 4 is not one of Ann's cards; expected 1 to 1." in current.error()
        current.send(type="roll", keep=[7])
        assert "Die position 8 is not a die; expected 1 to 5." in current.error()
        current.send(type="roll", keep=[0, 1, 2, 3, 4])
        assert "Keeping all 5 dice is the same as stopping" in current.error()
        other.send(type="score", box="choice")
        assert "turn, not" in other.error()
        current.send(type="undo")
        assert current.error() == "This room does not allow undo."
        current.send(type="rematch")
        assert "only when the game is over" in current.error()
        current.send(type="hello", token=None)
        assert "already said hello" in current.error()
        unchanged(client, code, version, current)
        # the other player's socket saw only its own error and no new state
        other.send(type="ping")
        other.until(lambda m: m["type"] == "pong")
        later = other.seen[mark:]
        assert [m["type"] for m in later] == ["error", "pong"]


def test_joining_rules(client: TestClient) -> None:
    made = create(client, rules="yacht", humans=2)
    code = made["code"]
    r = client.post(f"/api/rooms/{code}/join", json={"name": " ann "})
    assert r.status_code == 400
    assert r.json()["error"] == f"Name 'ann' is already taken in room '{code}'; choose another."
    r = client.post(f"/api/rooms/{code}/join", json={})
    assert "needs a name" in r.json()["error"]
    assert client.post(f"/api/rooms/{code}/join", json={"name": "Bob"}).status_code == 200
    r = client.post(f"/api/rooms/{code}/join", json={"name": "Cy"})
    assert r.json()["error"] == f"Room '{code}' is full; join it as a spectator."
    with hello(client, code, made["token"]) as ann:
        started(client, ann)
    r = client.post(f"/api/rooms/{code}/join", json={"name": "Dee"})
    assert "has already started" in r.json()["error"]


def test_starting_needs_every_seat_taken(client: TestClient) -> None:
    made = create(client, rules="yacht", humans=3)
    with hello(client, made["code"], made["token"]) as ann:
        ann.send(type="start")
        assert ann.error() == "Seats [2, 3] are still open; wait until every player has joined."


@pytest.mark.parametrize(
    ("body", "status", "expected"),
    [
        ({"name": "x" * 25}, 422, "name 'xxxxxxxxxxxxxxxxxxxxxxxxx' is 25 characters long; expected at most 24"),
        ({"name": "   "}, 422, "name is empty"),
        ({"name": "A\u202eB"}, 422, "contains control"),
        ({"name": "Ann", "rules": "monopoly"}, 400, "Rule set 'monopoly' is unknown"),
        ({"name": "Ann", "rules": "/etc/passwd.toml"}, 400, "is unknown"),
        ({"name": "Ann", "options": {"joker": "wild"}}, 400, "joker"),
        ({"name": "Ann", "computers": ["genius"]}, 400, "Computer level 'genius' is unknown"),
        ({"name": "Ann", "humans": 5, "computers": ["greedy"] * 4}, 422, "too many seats"),
        ({"name": "Ann", "humans": 0}, 422, "field 'humans'"),
        ({"name": "Ann", "timer": 1}, 422, "field 'timer'"),
        ({"name": "Computer 1", "humans": 1, "computers": ["greedy"]}, 400, "taken by a computer seat"),
        ({"name": "Ann", "admin": True}, 422, "field 'admin'"),
    ],
)
def test_bad_room_requests(client: TestClient, body: dict[str, object], status: int, expected: str) -> None:
    r = client.post("/api/rooms", json=body)
    assert r.status_code == status, r.text
    assert expected in r.json()["error"]


def test_oversized_request_bodies_and_unknown_rooms(client: TestClient) -> None:
    r = client.post("/api/rooms", content=json.dumps({"name": "Ann", "pad": "x" * 9000}))
    assert r.status_code == 413
    assert "too large" in r.json()["error"]
    r = client.get("/api/rooms/ZZZZZZZZ")
    assert r.status_code == 404
    assert r.json()["error"] == "Room 'ZZZZZZZZ' does not exist; check the invite code."
    assert client.get("/api/rooms/../../etc").status_code == 404
    assert "does not exist" in client.get("/api/rooms/abc").json()["error"]


def test_socket_handshake_errors(client: TestClient) -> None:
    made = create(client, rules="yacht", humans=1)
    other = create(client, rules="yacht", humans=1)
    for code, first, expected in [
        ("ZZZZZZZZ", {"type": "hello"}, "does not exist"),
        (made["code"], {"type": "roll"}, "The first message must be"),
        (made["code"], {"type": "hello", "token": "guess"}, "That token is not a seat"),
        (made["code"], {"type": "hello", "token": other["token"]}, "That token is not a seat"),
    ]:
        with client.websocket_connect(f"/ws/{code}") as ws:
            ws.send_text(json.dumps(first))
            msg = ws.receive_json()
            assert msg["type"] == "error"
            assert expected in msg["message"]


def test_a_room_never_hears_of_another(client: TestClient) -> None:
    one = create(client, rules="yacht", humans=1)
    two = create(client, rules="yacht", humans=1, name="Zed")
    with hello(client, one["code"], one["token"]) as a, hello(client, two["code"], two["token"]) as z:
        version = started(client, z)
        z.send(type="chat", text="secret")
        z.until(lambda m: m["type"] == "chat")
        z.send(type="roll")
        z.version(version)
        a.send(type="ping")
        a.until(lambda m: m["type"] == "pong")
        text = json.dumps(a.seen)
        assert two["code"] not in text
        assert "Zed" not in text
        assert "secret" not in text
        assert one["token"] not in text  # not even a room's own tokens are ever broadcast
        assert all(m["type"] in ("state", "pong") or m == {"type": "chat_history", "lines": []} for m in a.seen)


def test_the_rate_limit_is_per_seat_and_counts_every_frame() -> None:
    """Three connections of one seat share one budget, and binary frames count (both bypassed it before)."""
    limits = dataclasses.replace(LOOSE, message_rate=0.5, message_burst=4)
    app = create_app("sqlite://", pubsub="none", seed=1, computer_delay=0, scores=False, limits=limits)
    with TestClient(app) as c:
        made = create(c, rules="yacht", humans=1)
        code, token = made["code"], made["token"]
        with hello(c, code, token) as one, hello(c, code, token) as two, hello(c, code, token) as three:
            conns = (one, two, three)
            for conn in conns:
                conn.ws.send_bytes(b"\x00" * 10)  # refused, but counted
            for i in range(6):
                for conn in conns:
                    conn.send(type="ping", id=i)
            for conn in conns:
                conn.send(type="chat", text="marker")
            slow_down = "Too many messages; slow down (at most 0.5 a second)."
            for conn in conns:
                conn.until(lambda m: m.get("message") == slow_down)
            replies = [m for conn in conns for m in conn.seen]
    accepted = [m for m in replies if m["type"] == "pong" or m.get("message", "").startswith("Binary")]
    assert len(accepted) <= 5  # the seat's burst of 4 (and one more at most while the test runs), not 4 each
    assert any(m.get("message", "").startswith("Binary") for m in replies)


def test_a_flood_of_frames_closes_the_connection() -> None:
    limits = dataclasses.replace(LOOSE, message_rate=1, message_burst=2, abuse_close=30)
    app = create_app("sqlite://", pubsub="none", seed=1, computer_delay=0, scores=False, limits=limits)
    with TestClient(app) as c:
        made = create(c, rules="yacht", humans=1)
        with hello(c, made["code"], made["token"]) as ann:
            for i in range(40):
                ann.send(type="ping", id=i)
            messages: list[dict[str, object]] = []

            def read_all() -> None:
                while True:
                    messages.append(ann.recv())

            with pytest.raises(WebSocketDisconnect) as closed:
                read_all()
    assert closed.value.code == 1008
    errors = [m["message"] for m in messages if m["type"] == "error"]
    assert errors == [
        "Too many messages; slow down (at most 1 a second).",
        "Too many messages in a row were refused; this connection is closed.",
    ]


def test_parse_message_is_strict() -> None:
    assert parse_message('{"type": "score", "box": "chance", "card": 0, "version": 4, "id": 3}').id == 3  # type: ignore[union-attr]
