"""Web Push end to end: turns notified to a push service on loopback that checks the VAPID signature and
decrypts the payload itself; online players, per-game opt-out, quiet hours, gone devices, endpoints the
server refuses, and the VAPID key kept with the database."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from fivedice.web.auth import AccountSettings
from tests.web.accounts_helpers import Browser, make_app
from tests.web.pushservice import PushService
from tests.web.test_accounts_games import score_once, start

LOOPBACK = AccountSettings(
    argon2_memory_kib=1024, argon2_time=1, push_loopback=True, push_subject="mailto:ops@dice.example"
)


@pytest.fixture
def pushes() -> Iterator[PushService]:
    with PushService() as service:
        yield service


@pytest.fixture
def client() -> Iterator[TestClient]:
    with TestClient(make_app(settings=LOOPBACK)) as c:
        yield c


def subscribe(browser: Browser, service: PushService, name: str) -> Any:
    device = service.device(name)
    assert browser.put("/api/me/settings", json={"push": True}).json()["push"] is True
    answer = browser.post("/api/me/push", json=device.subscription(service.base))
    assert answer.status_code == 201, answer.text
    return device


def two_players(client: TestClient) -> tuple[Browser, Browser, str]:
    ann, bob = Browser(client), Browser(client)
    ann.sign_up("Ann")
    bob.sign_up("Bob")
    made = ann.create(humans=2, first="host")
    bob.join(made["code"])
    return ann, bob, str(made["code"])


def sent_turns(client: TestClient) -> list[tuple[str, str]]:
    push = client.app.state.push  # type: ignore[attr-defined]
    assert client.portal is not None
    client.portal.call(push.settled)
    store = client.app.state.accounts.store  # type: ignore[attr-defined]
    with store.begin() as conn:
        return [(r.turn, r.state) for r in conn.execute(select(store.t.push_sent)).all()]


def test_a_turn_is_pushed_encrypted_and_signed_to_the_players_device(client: TestClient, pushes: PushService) -> None:
    ann, bob, code = two_players(client)
    subscribe(bob, pushes, "bob-phone")
    key = client.get("/api/push/key").json()["key"]
    start(ann, code)
    score_once(ann, code)  # Bob's turn, and Bob has no page open
    (delivery,) = pushes.wait(1)
    assert delivery.payload == {
        "type": "turn",
        "title": "Your turn in Yahtzee",
        "body": f"Round 1 of 13 against Ann: room {code} waits for you.",
        "url": f"/r/{code}",
        "code": code,
    }
    assert delivery.vapid_key == key  # signed with the server's application key
    assert delivery.claims["aud"] == pushes.base
    assert delivery.claims["sub"] == "mailto:ops@dice.example"
    assert time.time() < delivery.claims["exp"] <= time.time() + 24 * 3600
    assert delivery.headers["urgency"] == "high"
    assert delivery.headers["ttl"] == "86400"
    assert delivery.headers["topic"] == f"t{code}"
    assert sent_turns(client) == [(f"{code}:1:1:1", "sent")]


def test_no_push_while_the_page_is_open_nor_for_a_muted_game(client: TestClient, pushes: PushService) -> None:
    ann, bob, code = two_players(client)
    subscribe(bob, pushes, "bob-phone")
    start(ann, code)
    with bob.socket(code) as page:  # Bob's page is open when his turn comes: the page tells him itself
        version = page.state["version"]
        score_once(ann, code)
        page.until(
            lambda m: m["type"] == "state" and m["state"]["version"] > version and m["state"]["game"]["current"] == 1
        )
        score_once(bob, code)
    bob.put(f"/api/me/games/{code}", json={"notify": False})
    score_once(ann, code)  # round 2: Bob's turn, but this game is muted
    score_once(bob, code)
    bob.put(f"/api/me/games/{code}", json={"notify": True})
    score_once(ann, code)  # round 3: notified
    (delivery,) = pushes.wait(1)
    assert delivery.payload["body"].startswith("Round 3 of 13")
    assert [turn for turn, _state in sent_turns(client)] == [f"{code}:1:3:1"]


def test_quiet_hours_hold_the_turn_until_they_end(client: TestClient, pushes: PushService) -> None:
    ann, bob, code = two_players(client)
    subscribe(bob, pushes, "bob-phone")
    now = time.gmtime()
    around = {"start": f"{(now.tm_hour - 1) % 24:02d}:00", "end": f"{(now.tm_hour + 2) % 24:02d}:00", "zone": "UTC"}
    assert bob.put("/api/me/settings", json={"quiet": around}).json()["quiet"] == around
    start(ann, code)
    score_once(ann, code)
    assert sent_turns(client) == [(f"{code}:1:1:1", "held")]
    assert client.portal.call(_release, client) == 0  # type: ignore[union-attr]
    later = {"start": f"{(now.tm_hour + 3) % 24:02d}:00", "end": f"{(now.tm_hour + 4) % 24:02d}:00", "zone": "UTC"}
    bob.put("/api/me/settings", json={"quiet": later})
    assert client.portal.call(_release, client) == 1  # type: ignore[union-attr]
    (delivery,) = pushes.wait(1)
    assert delivery.payload["body"].startswith("Round 1 of 13 against Ann")
    assert sent_turns(client) == [(f"{code}:1:1:1", "sent")]


async def _release(client: TestClient) -> int:
    return int(await client.app.state.push.release_held())  # type: ignore[attr-defined]


def test_a_device_the_push_service_forgot_is_forgotten(client: TestClient, pushes: PushService) -> None:
    ann, bob, code = two_players(client)
    gone = subscribe(bob, pushes, "old-phone")
    gone.status = 410
    subscribe(bob, pushes, "new-phone")
    start(ann, code)
    score_once(ann, code)
    (delivery,) = pushes.wait(1)
    assert delivery.path == "/push/new-phone"
    store = client.app.state.accounts.store  # type: ignore[attr-defined]

    def endpoints() -> list[str]:
        with store.begin() as conn:
            return sorted(conn.execute(select(store.t.push.c.endpoint)).scalars())

    assert endpoints() == [pushes.base + "/push/new-phone"]
    test = bob.post("/api/me/push/test")
    assert test.json() == {"sent": 1}
    assert pushes.wait(2)[1].payload["type"] == "test"


def test_the_server_posts_only_to_push_services() -> None:
    with PushService() as pushes, TestClient(make_app()) as client:
        bob = Browser(client)
        bob.sign_up("Bob")
        device = pushes.device("x").subscription(pushes.base)
        refused = bob.post("/api/me/push", json=device)
        assert refused.status_code == 400
        assert refused.json()["error"] == (
            f"Push endpoint {device['endpoint']!r} is not a known push service; expected an https address of a"
            " browser's push service."
        )
        for endpoint in ("https://10.0.0.1/wp", "https://fcm.googleapis.com.evil.example/x", "file:///etc/passwd"):
            assert bob.post("/api/me/push", json={**device, "endpoint": endpoint}).status_code == 400
        fcm = {**device, "endpoint": "https://fcm.googleapis.com/fcm/send/abc:def"}
        assert bob.post("/api/me/push", json=fcm).status_code == 201
        bad_keys = {**device, "keys": {"p256dh": "short", "auth": "x"}}
        assert bob.post("/api/me/push", json=bad_keys).status_code == 422
        assert Browser(client).post("/api/me/push", json=fcm).status_code == 401


def test_the_vapid_key_is_made_once_and_kept_with_the_database(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'rooms.db'}"
    with TestClient(make_app(db)) as first:
        key = first.get("/api/push/key").json()["key"]
    with TestClient(make_app(db)) as second:
        assert second.get("/api/push/key").json()["key"] == key
    assert len(key) == 87  # an uncompressed P-256 point, base64url without padding
