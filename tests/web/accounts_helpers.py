"""Helpers of the account tests: an app with cheap password hashing, and browsers with their own cookies
sharing one in-process app."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx2 as httpx
import pytest
from fastapi.testclient import TestClient

from fivedice.web.app import create_app
from fivedice.web.auth import AccountSettings
from tests.web.conftest import LOOSE, Conn

FAST = AccountSettings(argon2_memory_kib=1024, argon2_time=1)
"""Cheap argon2id for tests about something else than the hash's cost (the algorithm is the same)."""
PASSWORD = "correct horse battery"


@pytest.fixture(params=["sqlite", "postgresql"])
def database(request: pytest.FixtureRequest) -> Iterator[dict[str, Any]]:
    """The account tests run on SQLite (in memory) and on PostgreSQL (tables of their own, dropped after)."""
    if request.param == "sqlite":
        yield {"db": "sqlite://"}
        return
    from fivedice.web.db import RoomStore
    from tests.web.test_processes import _postgres_or_skip

    url, prefix = _postgres_or_skip(), f"t{secrets.token_hex(4)}_"
    yield {"db": url, "prefix": prefix}
    store = RoomStore(url, prefix)
    store.drop()
    store.dispose()


def make_app(db: str = "sqlite://", settings: AccountSettings = FAST, **kwargs: Any) -> Any:
    options: dict[str, Any] = {"pubsub": "none", "seed": 7, "computer_delay": 0, "scores": False, "limits": LOOSE}
    options.update(kwargs)
    return create_app(db, accounts=settings, **options)


class Browser:
    """One browser: its own cookie jar on a shared :class:`TestClient` (one app, one event loop)."""

    def __init__(self, client: TestClient, origin: str | None = "http://testserver") -> None:
        self.client = client
        self.jar = httpx.Cookies()
        self.origin = origin
        self.tokens: dict[str, str] = {}

    def request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        headers = dict(kwargs.pop("headers", {}) or {})
        if self.origin is not None and method != "GET":
            headers.setdefault("origin", self.origin)
        self.client.cookies = self.jar
        try:
            response: httpx.Response = self.client.request(method, path, headers=headers, **kwargs)
        finally:
            self.jar = httpx.Cookies(self.client.cookies)
            self.client.cookies = httpx.Cookies()
        return response

    def get(self, path: str, **kwargs: Any) -> httpx.Response:
        return self.request("GET", path, **kwargs)

    def post(self, path: str, **kwargs: Any) -> httpx.Response:
        return self.request("POST", path, **kwargs)

    def put(self, path: str, **kwargs: Any) -> httpx.Response:
        return self.request("PUT", path, **kwargs)

    def delete(self, path: str, **kwargs: Any) -> httpx.Response:
        return self.request("DELETE", path, **kwargs)

    def sign_up(self, name: str, password: str = PASSWORD) -> httpx.Response:
        response = self.post("/api/accounts", json={"name": name, "password": password})
        assert response.status_code == 201, response.text
        return response

    def sign_in(self, name: str, password: str = PASSWORD) -> httpx.Response:
        return self.post("/api/login", json={"name": name, "password": password})

    def create(self, **body: Any) -> dict[str, Any]:
        body.setdefault("name", "Guest")
        response = self.post("/api/rooms", json=body)
        assert response.status_code == 201, response.text
        made: dict[str, Any] = response.json()
        self.tokens[made["code"]] = made["token"]
        return made

    def join(self, code: str, name: str = "Guest") -> dict[str, Any]:
        response = self.post(f"/api/rooms/{code}/join", json={"name": name})
        assert response.status_code == 200, response.text
        made: dict[str, Any] = response.json()
        self.tokens[made["code"]] = made["token"]
        return made

    def games(self) -> dict[str, Any]:
        response = self.get("/api/me/games")
        assert response.status_code == 200, response.text
        found: dict[str, Any] = response.json()
        return found

    @contextmanager
    def socket(self, code: str, token: str | None = None, origin: str | None = "http://testserver") -> Iterator[Conn]:
        """A WebSocket with this browser's cookies (and ``token``, None: enter by the account)."""
        cookie = "; ".join(f"{k}={v}" for k, v in self.jar.items())
        headers = {"cookie": cookie} if cookie else {}
        if origin is not None:
            headers["origin"] = origin
        with self.client.websocket_connect(f"/ws/{code}", headers=headers) as ws:
            conn = Conn(ws)
            conn.send(type="hello", token=token)
            conn.until(lambda m: m["type"] in ("state", "error"))
            yield conn


def one_sentence(response: Any) -> str:
    """The one sentence of a refusal (``{"error": "<one sentence>"}``), checked to be exactly that."""
    body = response.json()
    assert set(body) == {"error"}
    text = str(body["error"])
    assert text.endswith(".")
    assert "\n" not in text
    return text
