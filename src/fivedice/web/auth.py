"""Who is asking: sign-in sessions in cookies, passwords, cross-site request checks and sign-in rates.

**Sessions.** Signing in (a password, a passkey, a new account) makes a new random 256-bit secret, sets
it in an ``HttpOnly``, ``SameSite=Lax`` cookie (``Secure`` and named ``__Host-fivedice_session`` behind
https) and stores only its SHA-256. A session id that existed before a sign-in is never kept: the
browser's previous session (if any) is ended and a new one is made, so a session planted in a browser
(fixation) is worthless. Sessions last 30 days from their last use; signing out ends one, *sign out
everywhere*, a password change and deleting the account end all of them.

**Cross-site requests.** :class:`CrossOrigin` refuses every state-changing request (``POST``, ``PUT``,
``PATCH``, ``DELETE``) that a browser marks as coming from another site: ``Sec-Fetch-Site`` other than
``same-origin``/``none``, or without it an ``Origin`` other than the server's own (``--origin``, else
the request's scheme and ``Host``). A request with neither header does not come from a browser and so
carries no one's cookies by accident; it passes (the algorithm of Go's ``http.CrossOriginProtection``).
Together with ``SameSite=Lax`` cookies, this protects every form of the API, the guests' included.

**Passwords** are hashed with argon2id (OWASP's first recommended setting: 19 MiB, 2 passes, 1 lane;
about 50 ms of one core) in two worker threads, never on the event loop, at most 32 waiting; an unknown
name is checked against a dummy hash, so both refusals cost the same time and read the same. Failed
sign-ins are limited per name (known or not) and per client address, in the database, so every process
counts them together.
"""

from __future__ import annotations

import asyncio
import hashlib
import secrets
import time
from collections.abc import Awaitable, Callable, MutableMapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, TypeVar
from urllib.parse import urlsplit

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from fastapi import Request, Response
from starlette.requests import HTTPConnection

from fivedice.i18n import _
from fivedice.web.account_errors import AccountError, BusyError, ConflictingError, ForbiddenError, SignInError
from fivedice.web.accounts_db import AccountRow, AccountStore, SessionRow
from fivedice.web.errors import LimitError
from fivedice.web.limits import KeyedBuckets

__all__ = [
    "AccountError",
    "AccountSettings",
    "Auth",
    "ConflictingError",
    "CrossOrigin",
    "ForbiddenError",
    "Passwords",
    "SignInError",
    "check_origin",
    "digest",
]

T = TypeVar("T")
Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
ASGIApp = Callable[[Scope, Callable[[], Awaitable[Message]], Callable[[Message], Awaitable[None]]], Awaitable[None]]

COOKIE = "fivedice_session"
SECURE_COOKIE = "__Host-fivedice_session"
UNSAFE = frozenset({"POST", "PUT", "PATCH", "DELETE"})
SESSION_TTL = 30 * 86400.0
TOUCH_EVERY = 3600.0
FRESH = 600.0
"""Seconds after a sign-in during which the session may delete its account without a password."""


@dataclass(frozen=True)
class AccountSettings:
    """The operator's settings of accounts, sessions and notifications (``fivedice serve`` options).

    ``origins``: the site's public origins (``https://dice.example``); empty, the request's own scheme and
    ``Host`` (fine without a reverse proxy, or one that passes ``Host`` and ``X-Forwarded-Proto`` on).
    ``secure``: always mark cookies ``Secure`` (else only on https requests). ``push_loopback``: let Web Push
    subscriptions name plain-http endpoints on loopback addresses (tests and local push services only;
    otherwise only https endpoints of the known push services and ``push_hosts`` are accepted).
    """

    origins: tuple[str, ...] = ()
    secure: bool = False
    session_ttl: float = SESSION_TTL
    argon2_memory_kib: int = 19456
    argon2_time: int = 2
    hash_workers: int = 2
    hash_queue: int = 32
    signin_name_burst: float = 5
    signin_name_rate: float = 1 / 180
    signin_address_burst: float = 20
    signin_address_rate: float = 1 / 30
    signup_burst: float = 5
    signup_rate: float = 5 / 3600
    ceremony_burst: float = 30
    ceremony_rate: float = 0.5
    push_loopback: bool = False
    push_hosts: tuple[str, ...] = ()
    push_subject: str = "mailto:operator@localhost"
    vapid_key: str | None = None
    """A PEM file with the VAPID private key (default: made at first start and kept in the database)."""
    extra: dict[str, Any] = field(default_factory=dict)


def digest(secret: str) -> str:
    """The stored form of a session secret.

    >>> len(digest("x"))
    64
    """
    return hashlib.sha256(secret.encode()).hexdigest()


class Passwords:
    """argon2id hashing in worker threads, at most ``queue`` waiting (then a one-sentence 503)."""

    def __init__(self, settings: AccountSettings) -> None:
        self.hasher = PasswordHasher(
            time_cost=settings.argon2_time, memory_cost=settings.argon2_memory_kib, parallelism=1
        )
        self.pool = ThreadPoolExecutor(settings.hash_workers, thread_name_prefix="fivedice-argon2")
        self.room = asyncio.Semaphore(settings.hash_workers + settings.hash_queue)
        self.dummy: str | None = None
        """A hash of a random password, checked for unknown names (made on first use, in a worker)."""
        self.checks = 0
        """Hashes verified (an unknown name costs one too: the tests count them)."""

    async def _run(self, fn: Callable[..., T], *args: Any) -> T:
        if self.room.locked():
            raise BusyError(_("The server is busy checking passwords; try again in a moment."))
        async with self.room:
            return await asyncio.get_running_loop().run_in_executor(self.pool, fn, *args)

    async def warm(self) -> None:
        """Make the dummy hash now, so that the first unknown name costs what a known one does."""
        if self.dummy is None:
            self.dummy = await self._run(self.hasher.hash, secrets.token_urlsafe(16))

    async def hash(self, password: str) -> str:
        """The argon2id hash of ``password``."""
        return await self._run(self.hasher.hash, password)

    async def verify(self, hashed: str | None, password: str) -> bool:
        """Whether ``password`` matches ``hashed`` (None: checked against the dummy hash, always False)."""

        def check() -> bool:
            self.checks += 1
            if hashed is None and self.dummy is None:
                self.dummy = self.hasher.hash(secrets.token_urlsafe(16))
            try:
                return bool(self.hasher.verify(hashed or self.dummy or "", password)) and hashed is not None
            except (VerificationError, InvalidHashError):
                return False

        return await self._run(check)

    def needs_rehash(self, hashed: str) -> bool:
        """Whether a stored hash was made with weaker parameters than today's."""
        return bool(self.hasher.check_needs_rehash(hashed))

    def close(self) -> None:
        """Stop the worker threads."""
        self.pool.shutdown(wait=False)


def request_origin(conn: HTTPConnection) -> str:
    """The origin a request was made to: its scheme and ``Host``."""
    scheme = "https" if conn.url.scheme in ("https", "wss") else "http"
    return f"{scheme}://{conn.headers.get('host', 'localhost')}"


def allowed_origins(conn: HTTPConnection, settings: AccountSettings) -> tuple[str, ...]:
    """The origins the site's own pages have (configured, else the request's own)."""
    return settings.origins or (request_origin(conn),)


class CrossOrigin:
    """ASGI middleware refusing cross-site state-changing HTTP requests (see the module's docstring)."""

    def __init__(self, app: ASGIApp, settings: AccountSettings) -> None:
        self.app = app
        self.settings = settings

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope.get("method") in UNSAFE:
            conn = HTTPConnection(scope)
            why = cross_site(conn, self.settings)
            if why is not None:
                from fastapi.responses import JSONResponse

                await JSONResponse({"error": why}, status_code=403)(scope, receive, send)
                return
        await self.app(scope, receive, send)


def cross_site(conn: HTTPConnection, settings: AccountSettings) -> str | None:
    """Why a request counts as cross-site (one sentence), or None when it comes from the site's own pages
    or from no browser at all."""
    site = conn.headers.get("sec-fetch-site")
    origin = conn.headers.get("origin")
    if site in ("same-origin", "none"):
        return None
    if site is None and origin is None:
        return None
    if origin is not None and origin in allowed_origins(conn, settings):
        return None
    return _(
        "Request from {origin} refused: this server accepts changes only from its own pages.",
        origin=(origin or site or "?")[:100],
    )


class Auth:
    """Sessions, passwords and sign-in rates of one server process (state kept in :class:`AccountStore`)."""

    def __init__(
        self,
        accounts: AccountStore,
        settings: AccountSettings,
        db: Callable[..., Awaitable[Any]],
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.accounts = accounts
        self.settings = settings
        self.db = db
        self.clock = clock
        self.passwords = Passwords(settings)
        self.ceremonies = KeyedBuckets(settings.ceremony_rate, settings.ceremony_burst)
        """WebAuthn challenges handed out per client address (each is a row for five minutes)."""

    # -- the asker ------------------------------------------------------------------------
    def secret_of(self, conn: HTTPConnection) -> str | None:
        """The session secret the request's cookie carries, if any."""
        value = conn.cookies.get(SECURE_COOKIE) or conn.cookies.get(COOKIE)
        return value if value and len(value) <= 100 else None

    async def session(self, conn: HTTPConnection) -> tuple[AccountRow, SessionRow] | None:
        """The live session of the request (looked up once per request)."""
        cached = conn.scope.setdefault("state", {}).get("fivedice_session", False)
        if cached is not False:
            return cached  # type: ignore[no-any-return]
        secret = self.secret_of(conn)
        found = None
        if secret is not None:
            found = await self.db(self.accounts.session, digest(secret), now=self.clock())
        conn.scope["state"]["fivedice_session"] = found
        return found

    async def account(self, conn: HTTPConnection) -> AccountRow | None:
        """The signed-in account of the request, if any."""
        found = await self.session(conn)
        return None if found is None else found[0]

    async def require(self, conn: HTTPConnection) -> tuple[AccountRow, SessionRow]:
        """The session of the request, or a 401 in one sentence."""
        found = await self.session(conn)
        if found is None:
            raise SignInError(_("You are not signed in; sign in or create an account first."))
        return found

    async def socket_account(self, conn: HTTPConnection) -> AccountRow | None:
        """The signed-in account of a WebSocket handshake from the site's own pages (a cross-site page's
        socket never rides a player's cookie)."""
        origin = conn.headers.get("origin")
        if origin is not None and origin not in allowed_origins(conn, self.settings):
            return None
        return await self.account(conn)

    # -- signing in and out -----------------------------------------------------------------
    def secure(self, conn: HTTPConnection) -> bool:
        """Whether cookies are marked ``Secure`` (https, or the operator says so)."""
        return self.settings.secure or conn.url.scheme == "https"

    async def sign_in(self, request: Request, response: Response, account: AccountRow) -> None:
        """Start a new session for ``account`` in ``response``'s cookie (the request's old one ends)."""
        secret = secrets.token_urlsafe(32)
        old = self.secret_of(request)
        agent = request.headers.get("user-agent", "")
        await self.db(
            self.accounts.add_session,
            account.id,
            digest(secret),
            now=self.clock(),
            ttl=self.settings.session_ttl,
            agent=agent,
            replace=None if old is None else digest(old),
        )
        self.set_cookie(request, response, secret)
        request.scope.setdefault("state", {})["fivedice_session"] = None

    def set_cookie(self, request: Request, response: Response, secret: str) -> None:
        """Put the session secret in the response's cookie."""
        secure = self.secure(request)
        response.set_cookie(
            SECURE_COOKIE if secure else COOKIE,
            secret,
            max_age=int(self.settings.session_ttl),
            path="/",
            secure=secure,
            httponly=True,
            samesite="lax",
        )

    def clear_cookie(self, request: Request, response: Response) -> None:
        """Remove the session cookie."""
        for name in (COOKIE, SECURE_COOKIE):
            if name in request.cookies:
                secure = name == SECURE_COOKIE
                response.delete_cookie(name, path="/", secure=secure, httponly=True, samesite="lax")

    async def keep_alive(self, request: Request, response: Response) -> None:
        """Extend the request's session (and its cookie) when it was last extended over an hour ago."""
        found = await self.session(request)
        secret = self.secret_of(request)
        if found is None or secret is None:
            return
        now = self.clock()
        if now - found[1].seen >= TOUCH_EVERY:
            await self.db(self.accounts.touch, found[1].id, now=now, ttl=self.settings.session_ttl)
            self.set_cookie(request, response, secret)

    # -- rates ------------------------------------------------------------------------------
    async def check_signin(self, name: str | None, address: str) -> None:
        """Refuse (429) a sign-in while the name (None: a passkey, no name) or the address has used up its
        failed attempts."""
        now = self.clock()
        waits = [await self.db(self.accounts.wait, [_address_key(address)], now=now, **self._address_rate())]
        if name is not None:
            waits.append(await self.db(self.accounts.wait, [_name_key(name)], now=now, **self._name_rate()))
        wait = max(waits)
        if wait > 0:
            seconds = max(1, round(wait))
            raise LimitError(
                _(
                    "Too many failed sign-ins for this name or from {address}; wait {seconds} s and try again.",
                    address=address,
                    seconds=seconds,
                ),
                retry_after=seconds,
            )

    async def failed_signin(self, name: str | None, address: str) -> None:
        """Count a failed sign-in against the name (unless None) and the address."""
        now = self.clock()
        await self.db(self.accounts.spend, [_address_key(address)], now=now, **self._address_rate())
        if name is not None:
            await self.db(self.accounts.spend, [_name_key(name)], now=now, **self._name_rate())

    def _name_rate(self) -> dict[str, float]:
        return {"rate": self.settings.signin_name_rate, "burst": self.settings.signin_name_burst}

    def _address_rate(self) -> dict[str, float]:
        return {"rate": self.settings.signin_address_rate, "burst": self.settings.signin_address_burst}

    def count_ceremony(self, address: str) -> None:
        """Count one WebAuthn challenge handed to ``address``; refuse (429) past the rate."""
        bucket = self.ceremonies.bucket(address)
        if not bucket.take():
            seconds = max(1, round(bucket.wait()))
            raise LimitError(
                _(
                    "Too many passkey requests from {address}; wait {seconds} s and try again.",
                    address=address,
                    seconds=seconds,
                ),
                retry_after=seconds,
            )

    async def count_signup(self, address: str) -> None:
        """Count a new account from ``address``; refuse (429) past the rate."""
        s, now, key = self.settings, self.clock(), ["s:" + address[:90]]
        wait = await self.db(self.accounts.wait, key, now=now, rate=s.signup_rate, burst=s.signup_burst)
        if wait > 0:
            seconds = max(1, round(wait))
            raise LimitError(
                _(
                    "Too many accounts made from {address}; wait {seconds} s and try again.",
                    address=address,
                    seconds=seconds,
                ),
                retry_after=seconds,
            )
        await self.db(self.accounts.spend, key, now=now, rate=s.signup_rate, burst=s.signup_burst)


def check_origin(origin: str) -> str:
    """An origin as the operator gives it (``https://dice.example``), checked; raises a one-sentence error.

    >>> check_origin("https://dice.example/")
    'https://dice.example'
    """
    parts = urlsplit(origin.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname or parts.path not in ("", "/") or parts.query:
        raise AccountError(
            _(
                "Origin {origin!r} is not valid; expected a scheme and a host like 'https://dice.example'.",
                origin=origin,
            )
        )
    return f"{parts.scheme}://{parts.netloc.lower()}"


def _name_key(name: str) -> str:
    from fivedice.web.accounts_db import name_key

    return "n:" + name_key(name)[:40]


def _address_key(address: str) -> str:
    return "a:" + address[:90]


def host_of(origin: str) -> str:
    """The host name of an origin (the WebAuthn relying party id).

    >>> host_of("https://dice.example:8443")
    'dice.example'
    """
    return urlsplit(origin).hostname or "localhost"
