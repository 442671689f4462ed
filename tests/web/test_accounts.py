"""Accounts over HTTP, as players and attackers use them: sign up and in, the session cookie, session
fixation, cross-site requests, name enumeration, sign-in rates, sign out (everywhere), password changes,
account deletion, and the existing guest flows untouched."""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from typing import Any

import httpx2 as httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from fivedice.table.seat import SeatKind
from fivedice.web.auth import AccountSettings
from tests.web.accounts_helpers import FAST, PASSWORD, Browser, database, make_app  # noqa: F401

WRONG = "That name and password do not match an account."


@pytest.fixture
def app(database: dict[str, Any]) -> Any:  # noqa: F811 - the imported fixture
    return make_app(**database)


@pytest.fixture
def client(app: Any) -> Iterator[TestClient]:
    with TestClient(app) as c:
        yield c


def accounts_of(client: TestClient) -> Any:
    return client.app.state.accounts  # type: ignore[attr-defined]


def plant(browser: Browser, secret: str) -> None:
    """Put a session cookie in the browser, as an attacker with a foothold on the site could."""
    browser.jar = httpx.Cookies()
    browser.jar.set("fivedice_session", secret, domain="testserver.local")


def cookie_header(response: Any) -> str:
    return str(response.headers["set-cookie"])


# -- the HTTP contract ----------------------------------------------------------------------
def test_sign_up_sets_an_http_only_lax_cookie_and_me_names_the_account(client: TestClient) -> None:
    ann = Browser(client)
    made = ann.post("/api/accounts", json={"name": "  Ann  ", "password": PASSWORD})
    assert made.status_code == 201
    assert made.json()["name"] == "Ann"
    header = cookie_header(made)
    assert header.startswith("fivedice_session=")
    assert "HttpOnly" in header
    assert "SameSite=lax" in header
    assert "Path=/" in header
    assert "Secure" not in header  # plain http: a Secure cookie would never come back
    assert ann.get("/api/me").json() == {
        "name": "Ann",
        "password": True,
        "passkeys": 0,
        "push": False,
        "quiet": None,
        "lang": None,
    }
    stranger = Browser(client)
    refused = stranger.get("/api/me")
    assert refused.status_code == 401
    assert refused.json() == {"error": "You are not signed in; sign in or create an account first."}


def test_behind_https_the_cookie_is_secure_with_the_host_prefix(app: Any) -> None:
    with TestClient(app, base_url="https://dice.example") as client:
        ann = Browser(client, origin="https://dice.example")
        header = cookie_header(ann.sign_up("Ann"))
        assert header.startswith("__Host-fivedice_session=")
        assert "Secure" in header
        assert "HttpOnly" in header
        assert ann.get("/api/me").json()["name"] == "Ann"


def test_sign_in_out_and_the_stored_session_is_only_a_hash(client: TestClient) -> None:
    Browser(client).sign_up("Ann")
    ann = Browser(client)
    answer = ann.sign_in("ANN")  # names are found as they look, case included
    assert answer.status_code == 200
    assert answer.json()["name"] == "Ann"
    secret = ann.jar["fivedice_session"]
    store = accounts_of(client).store
    with store.begin() as conn:
        ids = list(conn.execute(select(store.t.sessions.c.id)).scalars())
    assert secret not in ids
    assert hashlib.sha256(secret.encode()).hexdigest() in ids
    out = ann.post("/api/logout")
    assert out.status_code == 200
    assert "fivedice_session=" in cookie_header(out)  # the cookie is cleared
    plant(ann, secret)
    assert ann.get("/api/me").status_code == 401  # the session ended on the server, not only in the browser


def test_the_same_answer_for_an_unknown_name_and_a_wrong_password(client: TestClient) -> None:
    Browser(client).sign_up("Ann")
    passwords = accounts_of(client).auth.passwords
    mallory = Browser(client)
    before = passwords.checks
    wrong = mallory.sign_in("Ann", "not the password")
    checks_wrong = passwords.checks - before
    before = passwords.checks
    unknown = mallory.sign_in("Nobody", "not the password")
    checks_unknown = passwords.checks - before
    assert wrong.status_code == unknown.status_code == 401
    assert wrong.json() == unknown.json() == {"error": WRONG}
    assert wrong.headers.keys() == unknown.headers.keys()
    # the same work for both: one argon2id verification (an unknown name checks a dummy hash)
    assert checks_wrong == checks_unknown == 1
    assert "set-cookie" not in wrong.headers


def test_session_fixation_a_planted_session_is_never_kept(client: TestClient) -> None:
    Browser(client).sign_up("Ann")
    mallory = Browser(client)
    mallory.sign_up("Mallory")
    planted = mallory.jar["fivedice_session"]
    victim = Browser(client)
    plant(victim, planted)
    assert victim.get("/api/me").json()["name"] == "Mallory"  # the planted session works until...
    assert victim.sign_in("Ann").status_code == 200  # ... the victim signs in
    fresh = victim.jar["fivedice_session"]
    assert fresh != planted
    assert victim.get("/api/me").json()["name"] == "Ann"
    attacker = Browser(client)
    plant(attacker, planted)
    assert attacker.get("/api/me").status_code == 401  # the planted id was ended, not upgraded to Ann
    # a made-up id is not adopted either
    guess = Browser(client)
    plant(guess, "chosen-by-the-attacker")
    assert guess.sign_in("Ann").status_code == 200
    assert guess.jar["fivedice_session"] != "chosen-by-the-attacker"


# -- cross-site requests -------------------------------------------------------------------
@pytest.mark.parametrize(
    "headers",
    [
        {"origin": "https://evil.example"},
        {"origin": "null"},
        {"sec-fetch-site": "cross-site", "origin": "https://evil.example"},
        {"sec-fetch-site": "same-site", "origin": "http://sub.testserver"},
        {"sec-fetch-site": "cross-site"},
    ],
)
def test_cross_site_changes_are_refused_and_change_nothing(client: TestClient, headers: dict[str, str]) -> None:
    ann = Browser(client, origin=None)
    ann.sign_up("Ann")
    attempts = [
        ("POST", "/api/logout", {"everywhere": True}),
        ("PUT", "/api/me/password", {"current": PASSWORD, "new": "owned by evil"}),
        ("DELETE", "/api/me", {"password": PASSWORD}),
        ("POST", "/api/rooms", {"name": "Ann", "humans": 2}),
        ("POST", "/api/accounts", {"name": "Sockpuppet", "password": PASSWORD}),
    ]
    for method, path, body in attempts:
        refused = ann.request(method, path, json=body, headers=headers)
        assert refused.status_code == 403, (path, refused.text)
        error = refused.json()["error"]
        assert error.endswith("this server accepts changes only from its own pages."), error
    assert ann.get("/api/me").json()["name"] == "Ann"  # still signed in, the account still there
    assert ann.sign_in("Ann").status_code == 200  # the password unchanged
    assert ann.games()["games"] == []  # no room was made in Ann's name
    assert Browser(client).sign_in("Sockpuppet", PASSWORD).status_code == 401


def test_the_sites_own_pages_and_non_browser_clients_pass(client: TestClient) -> None:
    page = Browser(client, origin="http://testserver")
    page.sign_up("Ann")
    assert page.post("/api/rooms", json={"name": "Ann"}, headers={"sec-fetch-site": "same-origin"}).status_code == 201
    script = Browser(client, origin=None)  # curl, the tests: no Origin, no Sec-Fetch-Site, no one's cookies
    assert script.post("/api/rooms", json={"name": "Zed"}).status_code == 201


def test_a_configured_public_origin_replaces_the_host_header() -> None:
    app = make_app(settings=AccountSettings(origins=("https://dice.example",), argon2_memory_kib=1024, argon2_time=1))
    with TestClient(app) as client:
        behind_proxy = Browser(client, origin="https://dice.example")  # the proxy passed Host: 127.0.0.1:8000
        assert behind_proxy.post("/api/rooms", json={"name": "Ann"}).status_code == 201
        assert Browser(client, origin="http://testserver").post("/api/rooms", json={"name": "Bo"}).status_code == 403


# -- sign-in rates ---------------------------------------------------------------------------
def test_failed_sign_ins_are_limited_per_name_known_or_not(client: TestClient) -> None:
    Browser(client).sign_up("Ann")
    service = client.app.state.service  # type: ignore[attr-defined]
    t0 = service.clock()
    service.clock = lambda: t0
    for name in ("Ann", "Nobody"):
        for i in range(5):  # a different address each time: only the name's limit applies
            response = _from(client, f"10.0.0.{i}", name)
            assert response.status_code == 401, response.text
        blocked = _from(client, "10.0.0.99", name, PASSWORD)
        assert blocked.status_code == 429
        assert blocked.json()["error"].startswith("Too many failed sign-ins for this name or from 10.0.0.99; wait")
        assert int(blocked.headers["retry-after"]) >= 1
    # the right password is refused too while the name is locked; time heals
    service.clock = lambda: t0 + 181
    assert _from(client, "10.0.0.100", "Ann", PASSWORD).status_code == 200


def test_failed_sign_ins_are_limited_per_address(client: TestClient) -> None:
    service = client.app.state.service  # type: ignore[attr-defined]
    t0 = service.clock()
    service.clock = lambda: t0
    for i in range(20):
        assert _from(client, "10.9.9.9", f"Name{i}").status_code == 401
    refused = _from(client, "10.9.9.9", "Another")
    assert refused.status_code == 429
    assert "from 10.9.9.9" in refused.json()["error"]
    assert _from(client, "10.9.9.10", "Another").status_code == 401  # another address is not held up


def _from(client: TestClient, address: str, name: str, password: str = "a wrong password") -> Any:
    """A sign-in from ``address`` (the client address as a trusted proxy would have set it)."""
    from starlette.testclient import TestClient as Raw

    raw = Raw(client.app, client=(address, 50000))
    return raw.post("/api/login", json={"name": name, "password": password})


def test_sign_ups_are_limited_per_address(client: TestClient) -> None:
    for i in range(5):
        Browser(client).sign_up(f"Player{i}")
    refused = Browser(client).post("/api/accounts", json={"name": "Player9", "password": PASSWORD})
    assert refused.status_code == 429
    assert refused.json()["error"].startswith("Too many accounts made from testclient; wait")


# -- sessions, passwords, deletion -------------------------------------------------------------
def test_sign_out_everywhere_ends_every_device(client: TestClient) -> None:
    phone, laptop = Browser(client), Browser(client)
    phone.sign_up("Ann")
    assert laptop.sign_in("Ann").status_code == 200
    assert phone.post("/api/logout", json={"everywhere": True}).json() == {"signed_out": 2}
    assert phone.get("/api/me").status_code == 401
    assert laptop.get("/api/me").status_code == 401


def test_changing_the_password(client: TestClient) -> None:
    phone, laptop = Browser(client), Browser(client)
    phone.sign_up("Ann")
    laptop.sign_in("Ann")
    old_cookie = phone.jar["fivedice_session"]
    wrong = phone.put("/api/me/password", json={"current": "not it at all", "new": "a new password"})
    assert wrong.status_code == 401
    assert wrong.json() == {"error": "The current password is not right; the password was not changed."}
    short = phone.put("/api/me/password", json={"current": PASSWORD, "new": "short"})
    assert short.status_code == 422
    assert short.json()["error"] == (
        "Request field 'new' is not valid: a password needs at least 8 characters; this one has 5."
    )
    done = phone.put("/api/me/password", json={"current": PASSWORD, "new": "a new password"})
    assert done.status_code == 200
    assert phone.jar["fivedice_session"] != old_cookie  # a new session for the device that changed it
    assert phone.get("/api/me").status_code == 200
    assert laptop.get("/api/me").status_code == 401  # every other session ended
    assert Browser(client).sign_in("Ann").status_code == 401
    assert Browser(client).sign_in("Ann", "a new password").status_code == 200


def test_names_follow_the_player_name_rules(client: TestClient) -> None:
    Browser(client).sign_up("Ann")
    taken = Browser(client).post("/api/accounts", json={"name": "Аnn", "password": PASSWORD})  # Cyrillic А
    assert taken.status_code == 409
    assert taken.json() == {"error": "Name 'Аnn' is taken; choose another."}
    invisible = Browser(client).post("/api/accounts", json={"name": "A\u3164B", "password": PASSWORD})
    assert invisible.status_code == 422
    assert "contains control or invisible characters" in invisible.json()["error"]
    extra = Browser(client).post("/api/accounts", json={"name": "Bob", "password": PASSWORD, "admin": True})
    assert extra.status_code == 422
    assert extra.json()["error"].startswith("Request field 'admin' is not valid")
    assert Browser(client).post("/api/login", json={"name": "Ann"}).status_code == 422


def test_deleting_the_account_keeps_its_games_under_an_anonymous_name(client: TestClient) -> None:
    ann, bob = Browser(client), Browser(client)
    ann.sign_up("Ann")
    made = ann.create(humans=2)
    bob.join(made["code"], "Bob")
    ann.post(f"/api/rooms/{made['code']}/join", json={"name": "x"})  # ignored: Ann plays there already
    wrong = ann.delete("/api/me", json={"password": "not the password"})
    assert wrong.status_code == 401
    assert ann.get("/api/me").status_code == 200
    gone = ann.delete("/api/me", json={"password": PASSWORD})
    assert gone.status_code == 200
    assert gone.json() == {"deleted": "Ann", "games": 1}
    assert ann.get("/api/me").status_code == 401
    room = client.get(f"/api/rooms/{made['code']}").json()
    former = room["seats"][0]["name"]
    assert former.startswith("Former player ")
    assert room["seats"][1]["name"] == "Bob"
    assert Browser(client).sign_in("Ann").status_code == 401
    Browser(client).sign_up("Ann")  # the name is free again


# -- guests -----------------------------------------------------------------------------------
def test_guests_play_as_before_but_not_under_an_accounts_name(client: TestClient) -> None:
    Browser(client).sign_up("Ann")
    guest = Browser(client)
    made = guest.create(name="Zoe", humans=2)
    assert set(made) == {"code", "token", "seat", "link"}  # the guest answer is unchanged
    refused = guest.post(f"/api/rooms/{made['code']}/join", json={"name": "ANN"})
    assert refused.status_code == 409
    assert refused.json() == {"error": "Name 'ANN' belongs to an account; sign in as Ann, or choose another name."}
    assert guest.post("/api/rooms", json={"name": "ann"}).status_code == 409
    with guest.socket(made["code"], made["token"]) as zoe:
        assert zoe.you == 0


def test_a_guest_claims_their_seats_into_a_new_account(client: TestClient) -> None:
    guest = Browser(client)
    first = guest.create(name="Zoe", humans=2)
    second = guest.create(name="Zoe", humans=1)
    other = Browser(client).create(name="Yan", humans=2)
    guest.sign_up("Zoe")
    claimed = guest.post(
        "/api/me/seats",
        json={
            "seats": [
                {"code": first["code"], "token": first["token"]},
                {"code": second["code"], "token": second["token"]},
                {"code": other["code"], "token": first["token"]},  # not this guest's seat
                {"code": "NOPE2345", "token": "x"},
            ]
        },
    ).json()
    assert claimed["claimed"] == [{"code": first["code"], "seat": 0}, {"code": second["code"], "seat": 0}]
    assert [r["code"] for r in claimed["refused"]] == [other["code"], "NOPE2345"]
    assert claimed["refused"][0]["error"] == (
        f"That token is not a seat of room {other['code']!r}; nothing was claimed."
    )
    assert {g["code"] for g in guest.games()["games"]} == {first["code"], second["code"]}
    # another account cannot take the seat over with the same token
    thief = Browser(client)
    thief.sign_up("Thief")
    stolen = thief.post("/api/me/seats", json={"seats": [{"code": first["code"], "token": first["token"]}]}).json()
    assert stolen["claimed"] == []
    assert stolen["refused"][0]["error"] == f"Your seat in room {first['code']!r} already belongs to another account."


def test_any_signed_in_device_enters_its_seat_without_the_token(client: TestClient) -> None:
    laptop = Browser(client)
    laptop.sign_up("Ann")
    made = laptop.create(humans=2)
    assert made["account"] == "Ann"
    phone = Browser(client)
    phone.sign_in("Ann")
    with phone.socket(made["code"]) as conn:  # no token: this browser never had it
        assert conn.you == 0
        assert conn.state["seats"][0]["name"] == "Ann"
    # a page of another site cannot ride the cookie into the seat: it only watches
    with phone.socket(made["code"], origin="https://evil.example") as conn:
        assert conn.you is None
    with Browser(client).socket(made["code"]) as conn:  # signed out: a spectator, as before
        assert conn.you is None


def test_a_signed_in_player_plays_under_the_accounts_name(client: TestClient) -> None:
    ann, bob = Browser(client), Browser(client)
    ann.sign_up("Ann")
    bob.sign_up("Bob")
    made = ann.create(name="Whatever", humans=2)
    joined = bob.join(made["code"], "Robert")
    assert joined["account"] == "Bob"
    room = client.get(f"/api/rooms/{made['code']}").json()
    assert [s["name"] for s in room["seats"]] == ["Ann", "Bob"]
    again = bob.post(f"/api/rooms/{made['code']}/join", json={"name": "Bob"})
    assert again.status_code == 400
    assert again.json() == {"error": f"You already play in room {made['code']!r}; open it from your games."}


def test_fast_settings_are_argon2id() -> None:
    from argon2 import PasswordHasher

    assert FAST.argon2_memory_kib < AccountSettings().argon2_memory_kib
    hashed = PasswordHasher(memory_cost=FAST.argon2_memory_kib, time_cost=FAST.argon2_time).hash("x" * 8)
    assert hashed.startswith("$argon2id$")
    assert AccountSettings().argon2_memory_kib == 19456
    assert AccountSettings().argon2_time == 2


def test_a_schema_2_database_gains_the_account_tables_and_keeps_its_rooms(tmp_path: Any) -> None:
    from sqlalchemy import inspect, text

    from fivedice.web.account_tables import account_tables
    from fivedice.web.db import SCHEMA_VERSION, RoomStore, SeatRow

    url = f"sqlite:///{tmp_path / 'rooms.db'}"
    old = RoomStore(url)
    old.create("KEEP2345", "yacht", {}, [SeatRow(0, "Ann", SeatKind.HUMAN, None, "h")], now=1.0)
    with old.engine.begin() as conn:  # as the previous fivedice left it: schema 2, no account tables
        for table in reversed(account_tables(old.tables).metadata.sorted_tables):
            table.drop(conn)
        conn.execute(text("UPDATE web_meta SET value = '2' WHERE key = 'schema'"))
    old.dispose()
    store = RoomStore(url)
    assert SCHEMA_VERSION == 5
    assert "web_accounts" in inspect(store.engine).get_table_names()
    assert store.room("KEEP2345").seats[0].name == "Ann"
    with store.engine.begin() as conn:
        assert conn.execute(text("SELECT value FROM web_meta WHERE key = 'schema'")).scalar() == "5"
    store.dispose()
