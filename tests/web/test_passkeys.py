"""Passkeys over the API with a software authenticator: sign up and in, and the attacks a relying party
must refuse (a replayed challenge, a replayed assertion, another site's origin, another relying party, an
unknown credential, a forged signature), passkeys added and removed, and deleting a passkey-only account."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.web.accounts_helpers import Browser, make_app
from tests.web.softkey import SoftKey

UNKNOWN = "That passkey does not sign in to an account here."
USED = "That passkey request has expired or was used; start again."


@pytest.fixture
def client() -> Iterator[TestClient]:
    with TestClient(make_app()) as c:
        yield c


def sign_up(browser: Browser, key: SoftKey, name: str) -> Any:
    asked = browser.post("/api/passkeys/register/options", json={"name": name}).json()
    assert asked["options"]["rp"]["id"] == "testserver"
    assert asked["options"]["authenticatorSelection"]["residentKey"] == "required"
    answer = browser.post(
        "/api/passkeys/register", json={"ceremony": asked["ceremony"], "credential": key.create(asked["options"])}
    )
    return asked, answer


def sign_in(browser: Browser, key: SoftKey, **tamper: Any) -> Any:
    asked = browser.post("/api/passkeys/login/options", json={}).json()
    credential = key.get(asked["options"], **tamper)
    return (
        asked,
        credential,
        browser.post("/api/passkeys/login", json={"ceremony": asked["ceremony"], "credential": credential}),
    )


def test_sign_up_and_in_with_a_passkey(client: TestClient) -> None:
    key = SoftKey()
    phone = Browser(client)
    _asked, made = sign_up(phone, key, "Cleo")
    assert made.status_code == 201, made.text
    assert made.json()["name"] == "Cleo"
    assert made.json()["password"] is False
    assert made.json()["passkeys"] == 1
    assert "HttpOnly" in made.headers["set-cookie"]
    laptop = Browser(client)
    _asked, _credential, answer = sign_in(laptop, key)
    assert answer.status_code == 200, answer.text
    assert laptop.get("/api/me").json()["name"] == "Cleo"
    # the name is taken for the next one, with a password or a passkey
    taken = Browser(client).post("/api/passkeys/register/options", json={"name": "CLEO"})
    assert taken.status_code == 409
    assert taken.json() == {"error": "Name 'CLEO' is taken; choose another."}


def test_replays_other_sites_and_forgeries_are_refused(client: TestClient) -> None:
    key = SoftKey()
    asked, _made = sign_up(Browser(client), key, "Cleo")
    again = Browser(client).post(
        "/api/passkeys/register", json={"ceremony": asked["ceremony"], "credential": key.create(asked["options"])}
    )
    assert again.status_code == 400
    assert again.json() == {"error": USED}  # each challenge is answered once
    mallory = Browser(client)
    login, credential, first = sign_in(mallory, key)
    assert first.status_code == 200
    replayed = mallory.post("/api/passkeys/login", json={"ceremony": login["ceremony"], "credential": credential})
    assert replayed.json() == {"error": USED}
    fresh = mallory.post("/api/passkeys/login/options", json={}).json()
    stale = mallory.post("/api/passkeys/login", json={"ceremony": fresh["ceremony"], "credential": credential})
    assert (stale.status_code, stale.json()) == (401, {"error": UNKNOWN})  # an old assertion for a new challenge
    for tamper in ({"origin": "https://evil.example"}, {"rp_id": "evil.example"}):
        _asked, _credential, refused = sign_in(Browser(client), key, **tamper)
        assert (refused.status_code, refused.json()) == (401, {"error": UNKNOWN}), tamper
    forger = SoftKey(ident=key.ident, handle=key.handle, count=99)  # the right id, another key
    _asked, _credential, forged = sign_in(Browser(client), forger)
    assert (forged.status_code, forged.json()) == (401, {"error": UNKNOWN})
    _asked, _credential, unknown = sign_in(Browser(client), SoftKey())
    assert (unknown.status_code, unknown.json()) == (401, {"error": UNKNOWN})
    assert "set-cookie" not in unknown.headers


def test_failed_passkey_sign_ins_are_limited_per_address(client: TestClient) -> None:
    stranger = SoftKey()
    browser = Browser(client)
    for _attempt in range(20):
        assert sign_in(browser, stranger)[2].status_code == 401
    limited = sign_in(browser, stranger)[2]
    assert limited.status_code == 429
    assert limited.json()["error"].startswith("Too many failed sign-ins for this name or from testclient")


def test_a_passkey_added_to_a_password_account_and_removed(client: TestClient) -> None:
    ann = Browser(client)
    ann.sign_up("Ann")
    key = SoftKey()
    asked = ann.post("/api/passkeys/register/options", json={}).json()
    added = ann.post(
        "/api/passkeys/register", json={"ceremony": asked["ceremony"], "credential": key.create(asked["options"])}
    )
    assert added.status_code == 200
    assert added.json()["passkeys"] == 1
    listed = ann.get("/api/me/passkeys").json()["passkeys"]
    assert len(listed) == 1
    assert sign_in(Browser(client), key)[2].json()["name"] == "Ann"
    again = ann.post("/api/passkeys/register/options", json={}).json()
    assert [c["id"] for c in again["options"]["excludeCredentials"]] == [listed[0]["id"]]  # not registered twice
    assert ann.delete(f"/api/me/passkeys/{listed[0]['id']}").status_code == 200  # the password remains
    assert sign_in(Browser(client), key)[2].status_code == 401


def test_a_passkey_only_account_keeps_its_last_passkey_and_deletes_when_fresh(client: TestClient) -> None:
    key = SoftKey()
    cleo = Browser(client)
    sign_up(cleo, key, "Cleo")
    ident = cleo.get("/api/me/passkeys").json()["passkeys"][0]["id"]
    last = cleo.delete(f"/api/me/passkeys/{ident}")
    assert last.status_code == 400
    assert last.json() == {"error": "This is the account's only way to sign in; set a password or add a passkey first."}
    service = client.app.state.service  # type: ignore[attr-defined]
    now = service.clock()
    service.clock = lambda: now + 3600  # an hour after signing in: deleting needs a fresh sign-in
    stale = cleo.delete("/api/me", json={})
    assert stale.status_code == 401
    assert stale.json() == {"error": "Sign in again (with your passkey) to delete the account; it was not deleted."}
    sign_in(cleo, key)
    assert cleo.delete("/api/me", json={}).json() == {"deleted": "Cleo", "games": 0}
    assert sign_in(Browser(client), key)[2].status_code == 401
