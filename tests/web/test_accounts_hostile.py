"""The account API under hostile input: paths where names go, absurd sizes and values, credentials in push
endpoints, oversized cookies, floods of sessions and passkey challenges. Every refusal is one sentence."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from fivedice.web.accounts_db import SESSIONS_KEPT
from tests.web.accounts_helpers import Browser, make_app, one_sentence


@pytest.fixture
def client() -> Iterator[TestClient]:
    with TestClient(make_app()) as c:
        yield c


@pytest.mark.parametrize(
    ("quiet", "expected"),
    [
        ({"start": "22:00", "end": "07:00", "zone": "../../etc/passwd"}, "time zone '../../etc/passwd' is unknown"),
        ({"start": "22:00", "end": "07:00", "zone": "Mars/Olympus"}, "time zone 'Mars/Olympus' is unknown"),
        ({"start": "25:00", "end": "07:00", "zone": "UTC"}, "time '25:00' is not valid"),
        ({"start": "22:00", "end": "7", "zone": "UTC"}, "time '7' is not valid"),
    ],
)
def test_quiet_hours_refuse_paths_and_impossible_times(
    client: TestClient, quiet: dict[str, str], expected: str
) -> None:
    ann = Browser(client)
    ann.sign_up("Ann")
    refused = ann.put("/api/me/settings", json={"quiet": quiet})
    assert refused.status_code == 422
    assert expected in one_sentence(refused)
    assert ann.get("/api/me").json()["quiet"] is None


def test_absurd_sizes_and_values_are_refused_in_one_sentence(client: TestClient) -> None:
    ann = Browser(client)
    ann.sign_up("Ann")
    too_many = [{"code": "ABCD2345", "token": "x"}] * 101
    assert ann.post("/api/me/seats", json={"seats": too_many}).status_code == 422
    assert ann.post("/api/login", json={"name": "A" * 201, "password": "x" * 8}).status_code == 422
    long_password = Browser(client).post("/api/accounts", json={"name": "Bo", "password": "p" * 257})
    assert long_password.status_code == 422
    assert "at most 256" in one_sentence(long_password)
    spaces = Browser(client).post("/api/accounts", json={"name": "Bo", "password": " " * 12})
    assert "a password cannot be only spaces" in one_sentence(spaces)
    huge = ann.post("/api/me/friends", json={"name": "x" * 9000})
    assert huge.status_code == 413
    one_sentence(huge)
    not_json = ann.post("/api/logout", content=b"{nope", headers={"content-type": "application/json"})
    assert not_json.status_code == 422
    assert one_sentence(not_json).startswith("Request body is not valid JSON")
    assert ann.get("/api/me").status_code == 200  # nothing happened
    assert ann.put("/api/me/settings", json={"lang": "../../it"}).status_code == 400


def test_paths_where_names_go(client: TestClient) -> None:
    ann = Browser(client)
    ann.sign_up("Ann")
    for name in ("..%2F..%2Fetc%2Fpasswd", "%00", "C:%5Cboot.ini", "%E2%80%AEnnA"):
        answer = ann.delete(f"/api/me/friends/{name}")
        assert answer.status_code == 404, name
        assert one_sentence(answer).endswith("is not among your friends."), name
    assert one_sentence(ann.delete("/api/me/blocks/Ann%20")) == "That is your own name; choose another player."
    assert ann.delete("/api/me/passkeys/" + "x" * 2000).status_code == 400
    refused = ann.put("/api/me/games/ABC", json={"notify": True})
    assert refused.status_code == 404
    assert one_sentence(refused) == "Room 'ABC' does not exist; an invite code is 8 letters and digits."


def test_push_endpoints_with_credentials_or_odd_schemes_are_refused(client: TestClient) -> None:
    bob = Browser(client)
    bob.sign_up("Bob")
    keys = {"p256dh": "B" + "A" * 86, "auth": "A" * 22}
    for endpoint in (
        "https://user:secret@fcm.googleapis.com/fcm/send/x",
        "http://fcm.googleapis.com/fcm/send/x",
        "javascript:alert(1)//fcm.googleapis.com",
        "https://fcm.googleapis.com@10.0.0.1/x",
    ):
        refused = bob.post("/api/me/push", json={"endpoint": endpoint, "keys": keys})
        assert refused.status_code == 400, endpoint
        assert one_sentence(refused).startswith("Push endpoint")


def test_an_oversized_or_forged_cookie_is_ignored(client: TestClient) -> None:
    for value in ("x" * 4000, "' OR 1=1 --", ""):
        stranger = Browser(client)
        stranger.jar.set("fivedice_session", value, domain="testserver.local")
        assert stranger.get("/api/me").status_code == 401


def test_an_account_keeps_a_bounded_number_of_sessions(client: TestClient) -> None:
    Browser(client).sign_up("Ann")
    store = client.app.state.accounts.store  # type: ignore[attr-defined]
    devices = [Browser(client) for _ in range(SESSIONS_KEPT + 5)]
    for device in devices:
        assert device.sign_in("Ann").status_code == 200
    assert store.sessions_of(store.by_name("Ann").id) == SESSIONS_KEPT
    assert devices[-1].get("/api/me").status_code == 200
    assert devices[0].get("/api/me").status_code == 401  # the least recently used went first


def test_passkey_challenges_are_limited_per_address(client: TestClient) -> None:
    browser = Browser(client)
    start, accepted = time.monotonic(), 0
    while (refused := browser.post("/api/passkeys/login/options", json={})).status_code == 200:
        accepted += 1
        assert accepted <= 1000, "no passkey request was ever refused"
    # a burst of 30, and half a challenge a second after it (however slowly this machine sent them)
    assert 30 <= accepted <= 31 + 0.5 * (time.monotonic() - start)
    assert refused.status_code == 429
    assert one_sentence(refused).startswith("Too many passkey requests from testclient; wait")
    assert int(refused.headers["retry-after"]) >= 1
