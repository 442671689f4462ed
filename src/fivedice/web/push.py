"""Web Push: a notification to an account's devices when its turn comes (or a friend invites it).

The server is a VAPID application server (RFC 8292): its P-256 key pair is made at first start and kept
in the database (``{prefix}secrets``, so every process signs with the same key and subscriptions survive
restarts), unless the operator gives one (``--vapid-key FILE``, a PEM private key). Browsers subscribe
with ``GET /api/push/key`` (the public key for ``pushManager.subscribe``) and ``POST /api/me/push`` (the
subscription); the payload is encrypted for the browser's keys (RFC 8291, ``aes128gcm``) and posted to the
push service (RFC 8030) with ``Urgency: high``, a ``Topic`` per room (a newer turn replaces an unseen one)
and a day's ``TTL``, by ``pywebpush`` in worker threads.

**Which turns.** Every process hears every change of the rooms it holds (its own and the others', through
the room service's listeners): when the turn passes to a seat owned by an account that turned push on,
that game's notifications on and whose seat is not connected at that moment (an open page notifies by
itself), the account's devices are told, once: the turn's key (room, game, round, seat) is claimed in
``{prefix}push_sent`` by exactly one process. During the account's quiet hours the turn is held and sent
when they end, if it is still the account's turn.

**Which endpoints.** Only ``https`` endpoints of the known push services (Google, Mozilla, Apple,
Microsoft) and of the hosts the operator adds (``--push-host``) are accepted, so a subscription cannot
make the server post to an address of the operator's network. ``--push-loopback`` (tests, a local push
service) also accepts ``http`` endpoints on loopback addresses.
"""

from __future__ import annotations

import asyncio
import base64
import logging
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

from fastapi import APIRouter, Request
from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.exc import IntegrityError

from fivedice import i18n
from fivedice.i18n import _
from fivedice.web.account_models import Prefs, PushKey, PushMessage, PushSent, PushSubscription, QuietHours, Subscribed
from fivedice.web.accounts_db import read_prefs
from fivedice.web.auth import AccountError
from fivedice.web.games import RoomSummary, Summaries

if TYPE_CHECKING:
    from fivedice.web.accounts import Accounts
    from fivedice.web.rooms import Room

__all__ = ["PUSH_SERVICES", "Push", "check_endpoint", "router"]

log = logging.getLogger("fivedice.web")
PUSH_SERVICES = (
    "fcm.googleapis.com",
    "android.googleapis.com",
    "updates.push.services.mozilla.com",
    "push.services.mozilla.com",
    "push.apple.com",
    "notify.windows.com",
)
"""Host names (and their subdomains) of the browsers' push services."""
LOOPBACK = ("127.0.0.1", "::1", "localhost")
DEVICES = 10
"""Subscriptions kept per account (the oldest go first)."""
TTL = 86400
APP = "fivedice"
"""The title of a test message (the app's name, the same in every language)."""
QUEUED = 200
"""Push messages waiting to be sent at most (each post has a 10 s timeout); more are dropped and logged."""


def check_endpoint(endpoint: str, hosts: tuple[str, ...] = (), loopback: bool = False) -> str:
    """``endpoint`` if the server may post to it, else a one-sentence :class:`AccountError`.

    >>> check_endpoint("https://fcm.googleapis.com/fcm/send/abc")
    'https://fcm.googleapis.com/fcm/send/abc'
    >>> check_endpoint("https://10.0.0.1/x")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    fivedice.web.account_errors.AccountError: Push endpoint 'https://10.0.0.1/x' is not a known push service; ...
    """
    parts = urlsplit(endpoint)
    host = (parts.hostname or "").lower().rstrip(".")
    known = any(host == h or host.endswith("." + h) for h in (*PUSH_SERVICES, *hosts))
    if parts.scheme == "https" and known and not parts.username and not parts.password:
        return endpoint
    if loopback and parts.scheme in ("http", "https") and host in LOOPBACK:
        return endpoint
    raise AccountError(
        _(
            "Push endpoint {endpoint!r} is not a known push service; expected an https address of a browser's"
            " push service.",
            endpoint=endpoint[:80],
        )
    )


def quiet_now(quiet: QuietHours | None, now: float) -> bool:
    """Whether ``now`` falls in the quiet hours ``{"start", "end", "zone"}`` (they may run past midnight).

    >>> night = QuietHours(start="22:00", end="07:00", zone="UTC")
    >>> quiet_now(night, 23 * 3600.0), quiet_now(night, 12 * 3600.0)
    (True, False)
    """
    if quiet is None:
        return False
    local = datetime.fromtimestamp(now, ZoneInfo(quiet.zone)).strftime("%H:%M")
    start, end = quiet.start, quiet.end
    return start <= local < end if start <= end else local >= start or local < end


class Push:
    """The VAPID key, the subscriptions and the sending of one server process."""

    quiet_every = 60.0
    """Seconds between looks at the turns held by quiet hours."""

    def __init__(self, accounts: Accounts, summaries: Summaries) -> None:
        self.accounts = accounts
        self.summaries = summaries
        self.settings = accounts.settings
        self.pool = ThreadPoolExecutor(2, thread_name_prefix="fivedice-push")
        self.vapid: Any = None
        self.public_key = ""
        self.last: OrderedDict[str, str] = OrderedDict()
        self.tasks: set[asyncio.Task[Any]] = set()
        self.sent = 0
        self.waiting = 0
        """Messages queued for the two sending threads (at most :data:`QUEUED`)."""

    # -- keys ------------------------------------------------------------------------------
    async def start(self) -> None:
        """Load the VAPID key: the operator's file, else the database's (made the first time)."""
        from cryptography.hazmat.primitives import serialization
        from py_vapid import Vapid02

        if self.settings.vapid_key:
            pem = await asyncio.to_thread(_read_pem, self.settings.vapid_key)
        else:

            def make() -> str:
                fresh = Vapid02()
                fresh.generate_keys()
                return bytes(fresh.private_pem()).decode()

            pem = await self.accounts.db(self.accounts.store.secret, "vapid", make)
        self.vapid = Vapid02.from_pem(pem.encode())
        raw = self.vapid.public_key.public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        self.public_key = base64.urlsafe_b64encode(raw).decode().rstrip("=")

    async def close(self) -> None:
        """Stop sending."""
        for task in list(self.tasks):
            task.cancel()
        self.pool.shutdown(wait=False)

    # -- turns ------------------------------------------------------------------------------
    def on_change(self, room: Room) -> None:
        """A room changed (see the module's docstring): notify the new turn's account, once (the room's summary
        is made only when the turn is new)."""
        key = RoomSummary.turn_key_of(room)
        if key is None or self.last.get(room.code) == key:
            return
        summary = self.summaries.remember(RoomSummary.of(room))
        self.last[room.code] = key
        self.last.move_to_end(room.code)
        while len(self.last) > 5000:
            self.last.popitem(last=False)
        if summary.current in room.presence.online():
            return  # the player's page is open: it tells them itself
        self._spawn(self.turn(summary))

    async def settled(self) -> None:
        """Wait until every notification under way has been claimed and sent (tests, shutdown)."""
        while self.tasks:
            await asyncio.gather(*list(self.tasks), return_exceptions=True)

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def turn(self, summary: RoomSummary) -> int:
        """Notify the owner of the seat to play in ``summary`` (unless held or already notified)."""
        key, seat = summary.turn_key(), summary.current
        if key is None or seat is None:
            return 0
        try:
            owners = await self.accounts.db(self.accounts.store.owners, summary.code)
            account = owners.get(seat)
            if account is None:
                return 0
            claimed = await self.accounts.db(self._claim, account, summary.code, key)
            if claimed is None:
                return 0
            prefs, state = claimed
            if state == "held":
                return 0
            return await self.send(account, self._turn_payload(summary, seat, prefs))
        except Exception as exc:
            log.warning("turn notification for room %s failed: %s", summary.code, exc)
            return 0

    def _claim(self, account: int, code: str, key: str) -> tuple[Prefs, str] | None:
        """Claim the notification of turn ``key`` for ``account``: None if push is off for it, or another
        process (or an earlier change) has claimed it; else the account's preferences and ``sent`` or ``held``."""
        t, now = self.accounts.store.t, self.accounts.service.clock()
        try:
            with self.accounts.store.begin() as conn:
                prefs = read_prefs(conn.execute(select(t.accounts.c.prefs).where(t.accounts.c.id == account)).scalar())
                notify = conn.execute(
                    select(t.seats.c.notify).where(t.seats.c.code == code, t.seats.c.account == account)
                ).scalar()
                devices = conn.execute(
                    select(func.count()).select_from(t.push).where(t.push.c.account == account)
                ).scalar()
                if not prefs.push or not notify or not devices:
                    return None
                state = "held" if quiet_now(prefs.quiet, now) else "sent"
                conn.execute(insert(t.push_sent).values(account=account, turn=key, state=state, at=now))
        except IntegrityError:  # claimed already, here or by another process
            return None
        return prefs, state

    def _turn_payload(self, summary: RoomSummary, seat: int, prefs: Prefs) -> PushMessage:
        others = ", ".join(n for i, n in enumerate(summary.names) if i != seat and n) or "?"
        with i18n.language(prefs.language):
            title = _("Your turn in {rules}", rules=_(summary.rules))
            body = _(
                "Round {round} of {rounds} against {players}: room {code} waits for you.",
                round=summary.round,
                rounds=summary.rounds,
                players=others,
                code=summary.code,
            )
        return PushMessage(type="turn", title=title, body=body, url=f"/r/{summary.code}", code=summary.code)

    async def release_held(self) -> int:
        """Send the turns held by quiet hours that are over, where it is still that account's turn."""
        t = self.accounts.store.t
        db = self.accounts.db

        def held() -> list[tuple[int, str, str]]:
            with self.accounts.store.begin() as conn:
                rows = conn.execute(
                    select(t.push_sent.c.account, t.push_sent.c.turn, t.accounts.c.prefs)
                    .join(t.accounts, t.accounts.c.id == t.push_sent.c.account)
                    .where(t.push_sent.c.state == "held")
                    .limit(200)
                ).all()
            return [(int(r.account), r.turn, r.prefs) for r in rows]

        def take(account: int, key: str, state: str) -> bool:
            with self.accounts.store.begin() as conn:
                done = conn.execute(
                    update(t.push_sent)
                    .where(t.push_sent.c.account == account, t.push_sent.c.turn == key, t.push_sent.c.state == "held")
                    .values(state=state)
                )
                return bool(done.rowcount == 1)

        sent, now = 0, self.accounts.service.clock()
        for account, key, prefs_text in await db(held):
            prefs = read_prefs(prefs_text)
            if quiet_now(prefs.quiet, now):
                continue
            code = key.split(":", 1)[0]
            summary = await self.summaries.of(code)
            still = summary is not None and summary.turn_key() == key
            if not await db(take, account, key, "sent" if still else "dropped") or not still:
                continue
            assert summary is not None
            assert summary.current is not None
            sent += await self.send(account, self._turn_payload(summary, summary.current, prefs))
        return sent

    # -- sending ----------------------------------------------------------------------------
    async def send(self, account: int, payload: PushMessage) -> int:
        """Post ``payload`` to every device of ``account``; returns how many took it (gone ones are forgotten)."""
        t = self.accounts.store.t

        def devices() -> list[dict[str, Any]]:
            with self.accounts.store.begin() as conn:
                rows = conn.execute(select(t.push).where(t.push.c.account == account)).mappings().all()
            return [dict(r) for r in rows]

        def forget(endpoint: str) -> None:
            with self.accounts.store.begin() as conn:
                conn.execute(delete(t.push).where(t.push.c.endpoint == endpoint))

        loop, done = asyncio.get_running_loop(), 0
        for device in await self.accounts.db(devices):
            if self.waiting >= QUEUED:  # push services answering slowly: drop rather than pile up
                log.warning("push queue full (%d waiting); a message to %s was dropped", self.waiting, payload.url)
                break
            self.waiting += 1
            try:
                status = await loop.run_in_executor(self.pool, self._post, device, payload)
            finally:
                self.waiting -= 1
            if status in (404, 410):
                await self.accounts.db(forget, device["endpoint"])
            elif status is not None and status < 300:
                done += 1
        self.sent += done
        return done

    def _post(self, device: dict[str, Any], payload: PushMessage) -> int | None:
        """One encrypted, signed POST to a push service; its status (None: it could not be reached)."""
        from pywebpush import WebPushException, webpush

        try:
            endpoint = check_endpoint(device["endpoint"], self.settings.push_hosts, self.settings.push_loopback)
        except AccountError:
            return 410  # no longer allowed here: forget it
        info = {"endpoint": endpoint, "keys": {"p256dh": device["p256dh"], "auth": device["auth"]}}
        headers = {"Urgency": "high", "Topic": ("t" + (payload.code or "fivedice"))[:32]}
        try:
            response = webpush(
                info,
                payload.model_dump_json(exclude_none=True),
                vapid_private_key=self.vapid,
                vapid_claims={"sub": self.settings.push_subject},
                ttl=TTL,
                timeout=10,
                headers=headers,
            )
        except WebPushException as exc:
            status = getattr(exc.response, "status_code", None)
            log.warning("push to %s refused: %s", urlsplit(endpoint).hostname, str(exc).splitlines()[0])
            return int(status) if status is not None else None
        except Exception as exc:
            log.warning("push to %s failed: %s", urlsplit(endpoint).hostname, exc)
            return None
        return int(getattr(response, "status_code", 201))

    # -- subscriptions -----------------------------------------------------------------------
    def subscribe(self, account: int, sub: PushSubscription, now: float) -> None:
        """Keep a device's subscription (moved to this account if another had it); at most :data:`DEVICES`."""
        t = self.accounts.store.t.push
        with self.accounts.store.begin() as conn:
            conn.execute(delete(t).where(t.c.endpoint == sub.endpoint))
            conn.execute(
                insert(t).values(
                    endpoint=sub.endpoint, account=account, p256dh=sub.keys.p256dh, auth=sub.keys.auth, created=now
                )
            )
            kept = select(t.c.endpoint).where(t.c.account == account).order_by(t.c.created.desc()).limit(DEVICES)
            conn.execute(delete(t).where(t.c.account == account, t.c.endpoint.not_in(kept.scalar_subquery())))

    def unsubscribe(self, account: int, endpoint: str) -> bool:
        """Forget a device's subscription."""
        t = self.accounts.store.t.push
        with self.accounts.store.begin() as conn:
            return bool(conn.execute(delete(t).where(t.c.endpoint == endpoint, t.c.account == account)).rowcount)


def _read_pem(path: str) -> str:
    from pathlib import Path

    return Path(path).read_text(encoding="ascii")


def router(accounts: Accounts, push: Push) -> APIRouter:
    """``GET /api/push/key``, ``POST``/``DELETE /api/me/push``, ``POST /api/me/push/test``."""
    api = APIRouter()
    auth, db, settings = accounts.auth, accounts.db, accounts.settings

    @api.get("/api/push/key")
    async def key() -> PushKey:
        return PushKey(key=push.public_key)

    @api.post("/api/me/push", status_code=201)
    async def subscribe(request: Request, body: PushSubscription) -> Subscribed:
        account, _session = await auth.require(request)
        check_endpoint(body.endpoint, settings.push_hosts, settings.push_loopback)
        await db(push.subscribe, account.id, body, accounts.service.clock())
        return Subscribed(endpoint=body.endpoint, subscribed=True)

    @api.delete("/api/me/push")
    async def unsubscribe(request: Request, body: PushSubscription) -> Subscribed:
        account, _session = await auth.require(request)
        found = await db(push.unsubscribe, account.id, body.endpoint)
        return Subscribed(endpoint=body.endpoint, subscribed=False, found=found)

    @api.post("/api/me/push/test")
    async def test(request: Request) -> PushSent:
        account, _session = await auth.require(request)
        with i18n.language(account.prefs.language):
            payload = PushMessage(
                type="test",
                title=APP,
                body=_("Notifications reach this device: you will hear when your turn comes."),
                url="/",
            )
        return PushSent(sent=await push.send(account.id, payload))

    return api
