"""Accounts over HTTP: sign up, sign in and out (everywhere), the account, its password, its deletion,
and guest seats claimed into it.

=====================================  =============================================================
``POST   /api/accounts``               ``{"name", "password"}``: 201 and the session cookie
``POST   /api/login``                  ``{"name", "password"}``: 200 and the cookie, else 401 in one
                                       sentence (the same for an unknown name and a wrong password)
``POST   /api/logout``                 ``{"everywhere": true}`` ends every session of the account
``GET    /api/me``                     ``{"name", "password", "passkeys", "push", "quiet", "lang"}``
``PUT    /api/me/password``            ``{"current", "new"}``: the other sessions end, this one is new
``PUT    /api/me/settings``            push notifications, quiet hours, language
``DELETE /api/me``                     ``{"password"}``: the account goes, its games stay under an
                                       anonymous name
``POST   /api/me/seats``               ``{"seats": [{"code", "token"}]}``: guest seats into the account
=====================================  =============================================================

Passkeys are in :mod:`fivedice.web.passkeys`, the games in :mod:`fivedice.web.games`.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import logging
import secrets
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

from fastapi import APIRouter, Request, Response
from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError

from fivedice.errors import FiveDiceError
from fivedice.i18n import N_, _
from fivedice.web.account_models import (
    ChangePassword,
    Claimed,
    ClaimedSeat,
    ClaimSeats,
    DeleteAccount,
    Deleted,
    Logout,
    Me,
    NewAccount,
    Refusal,
    Settings,
    SignedOut,
    SignIn,
)
from fivedice.web.accounts_db import AccountRow, AccountStore, SeatRef
from fivedice.web.auth import FRESH, AccountError, AccountSettings, Auth, SignInError
from fivedice.web.guard import client_address
from fivedice.web.presence import hash_token
from fivedice.web.service import check_code

if TYPE_CHECKING:
    from fivedice.web.service import RoomService

__all__ = ["FORMER", "Accounts", "router"]

log = logging.getLogger("fivedice.web")
T = TypeVar("T")
FORMER = N_("Former player {id}")
"""The name a deleted account's seats and results take (English, stored: the name of a player)."""


class Accounts:
    """The accounts of one server process: the store, sessions and passwords, and the room service."""

    def __init__(self, service: RoomService, settings: AccountSettings) -> None:
        self.service = service
        self.settings = settings
        self.store = AccountStore(service.store)
        self.auth = Auth(self.store, settings, self.db, clock=lambda: service.clock())

    async def db(self, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """Run a database call in the room service's worker threads (see :meth:`RoomService.db`). A call
        that lost a race to insert the same row (two processes on PostgreSQL: a friend added twice, one
        seat claimed twice, the first failed sign-in of a name) runs once more and finds the row there."""
        return await self.service.db(partial(_retrying, partial(fn, *args, **kwargs)))

    async def me(self, account: AccountRow) -> Me:
        """What ``GET /api/me`` says about ``account``."""
        keys = await self.db(self.store.passkeys_of, account.id)
        prefs = account.prefs
        return Me(
            name=account.name,
            password=account.password is not None,
            passkeys=len(keys),
            push=prefs.push,
            quiet=prefs.quiet,
            lang=prefs.lang,
        )

    async def owned_seat(self, code: str, account: AccountRow) -> int | None:
        """The seat the account owns in room ``code``, if any."""
        owners = await self.db(self.store.owners, code)
        return next((seat for seat, owner in sorted(owners.items()) if owner == account.id), None)

    async def claim(self, account: AccountRow, code: str, token: str) -> int:
        """Put the guest seat whose token is ``token`` into the account; returns the seat."""
        room = await self.db(self.service.store.room, code)  # the stored seats: no game is rebuilt
        found = hash_token(token)
        seat = next((s.seat for s in room.seats if s.token and hmac.compare_digest(s.token, found)), None)
        if seat is None:
            raise AccountError(_("That token is not a seat of room {code!r}; nothing was claimed.", code=room.code))
        if not await self.db(self.store.bind, room.code, seat, account.id, now=self.service.clock()):
            raise AccountError(_("Your seat in room {code!r} already belongs to another account.", code=room.code))
        return seat

    async def anonymise(self, account: AccountRow, owned: list[SeatRef]) -> None:
        """Rename a deleted account's seats, chat lines and high-score results to an anonymous name."""
        former = FORMER.format(id=secrets.token_hex(2).upper())
        by_room: dict[str, dict[int, str]] = {}
        for ref in owned:
            by_room.setdefault(ref.code, {})[ref.seat] = former
        chat = self.service.extras.chat_table
        for code, names in by_room.items():
            try:
                await self.service.rename_seats(code, names)
            except FiveDiceError as exc:  # a room gone meanwhile: nothing to rename
                log.warning("could not anonymise the seats of room %s: %s", code, exc)
                continue

            await self.db(self._rename_chat, chat, code, sorted(names), former)
        if self.service.scores:
            await asyncio.to_thread(self._anonymise_results, account.name, former)

    def _rename_chat(self, chat: Any, code: str, seats: list[int], former: str) -> None:
        with self.store.begin() as conn:
            conn.execute(update(chat).where(chat.c.code == code, chat.c.seat.in_(seats)).values(name=former))

    def _anonymise_results(self, name: str, former: str) -> None:
        """The web games of the high scores: results under the account's name (reserved for the account,
        so no guest played under it) and the names in the games' saves."""
        from fivedice.storage.schema import games, results

        store = self.service.results.score_store()
        key = name.strip().casefold()
        with store.engine.begin() as conn:
            ids = [
                int(i)
                for i in conn.execute(
                    select(results.c.game_id)
                    .join(games, games.c.id == results.c.game_id)
                    .where(results.c.name_key == key, games.c.source == "web")
                ).scalars()
            ]
            if not ids:
                return
            conn.execute(
                update(results)
                .where(results.c.name_key == key, results.c.game_id.in_(ids))
                .values(name=former, name_key=former.casefold())
            )
            for game_id, saved in conn.execute(select(games.c.id, games.c.save_json).where(games.c.id.in_(ids))).all():
                conn.execute(
                    update(games).where(games.c.id == game_id).values(save_json=_rename_save(saved, name, former))
                )


def _retrying(call: Callable[[], T], attempts: int = 3) -> T:
    """``call()``, again after a unique-key conflict (its transaction was rolled back: nothing is half done)."""
    for attempt in range(attempts):
        try:
            return call()
        except IntegrityError:
            if attempt == attempts - 1:
                raise
    raise AssertionError("unreachable")  # pragma: no cover


def _rename_save(saved: str, name: str, former: str) -> str:
    """A stored game's save with the player ``name`` renamed (its players and its table's seats).

    >>> _rename_save('{"players": ["Ann", "Bob"], "table": {"seats": [{"name": "Ann"}]}}', "Ann", "X")
    '{"players": ["X", "Bob"], "table": {"seats": [{"name": "X"}]}}'
    """
    data = json.loads(saved)
    if isinstance(data.get("players"), list):
        data["players"] = [former if p == name else p for p in data["players"]]
    seats = (data.get("table") or {}).get("seats")
    for seat in seats if isinstance(seats, list) else []:
        if isinstance(seat, dict) and seat.get("name") == name:
            seat["name"] = former
    return json.dumps(data)


def router(accounts: Accounts) -> APIRouter:
    """The routes of the module's docstring."""
    api = APIRouter()
    auth, store, db = accounts.auth, accounts.store, accounts.db

    @api.post("/api/accounts", status_code=201)
    async def sign_up(request: Request, response: Response, body: NewAccount) -> Me:
        await auth.count_signup(client_address(request.scope))
        hashed = await auth.passwords.hash(body.password)
        account = await db(store.create, body.name, hashed, now=accounts.service.clock())
        await auth.sign_in(request, response, account)
        return await accounts.me(account)

    @api.post("/api/login")
    async def sign_in(request: Request, response: Response, body: SignIn) -> Me:
        address = client_address(request.scope)
        await auth.check_signin(body.name, address)
        account = await db(store.by_name, body.name)
        ok = await auth.passwords.verify(account.password if account else None, body.password)
        if account is None or not ok:
            await auth.failed_signin(body.name, address)
            raise SignInError(_("That name and password do not match an account."))
        if account.password and auth.passwords.needs_rehash(account.password):
            await db(store.set_password, account.id, await auth.passwords.hash(body.password))
        await auth.sign_in(request, response, account)
        return await accounts.me(account)

    @api.post("/api/logout")
    async def sign_out(request: Request, response: Response, body: Logout | None = None) -> SignedOut:
        found = await auth.session(request)
        ended = 0
        if found is not None:
            if body is not None and body.everywhere:
                ended = await db(store.end_sessions, found[0].id)
            else:
                await db(store.end_session, found[1].id)
                ended = 1
        auth.clear_cookie(request, response)
        return SignedOut(signed_out=ended)

    @api.get("/api/me")
    async def me(request: Request, response: Response) -> Me:
        account, _session = await auth.require(request)
        await auth.keep_alive(request, response)
        return await accounts.me(account)

    @api.put("/api/me/password")
    async def change_password(request: Request, response: Response, body: ChangePassword) -> Me:
        account, _session = await auth.require(request)
        address = client_address(request.scope)
        if account.password is not None:
            await auth.check_signin(account.name, address)
            if body.current is None or not await auth.passwords.verify(account.password, body.current):
                await auth.failed_signin(account.name, address)
                raise SignInError(_("The current password is not right; the password was not changed."))
        await db(store.set_password, account.id, await auth.passwords.hash(body.new))
        await db(store.end_sessions, account.id)
        await auth.sign_in(request, response, account)
        return await accounts.me(account)

    @api.put("/api/me/settings")
    async def settings(request: Request, body: Settings) -> Me:
        account, _session = await auth.require(request)
        prefs = account.prefs
        if body.push is not None:
            prefs = prefs.model_copy(update={"push": body.push})
        if body.quiet is not None:
            prefs = prefs.model_copy(update={"quiet": body.quiet})
        elif body.clear_quiet:
            prefs = prefs.model_copy(update={"quiet": None})
        if body.lang is not None:
            from fivedice import i18n

            found = i18n.resolve(body.lang)
            if found is None:
                raise AccountError(_("Language {code!r} is not available.", code=body.lang))
            prefs = prefs.model_copy(update={"lang": found})
        await db(store.set_prefs, account.id, prefs)
        fresh = await db(store.by_id, account.id)
        return await accounts.me(fresh or account)

    @api.delete("/api/me")
    async def delete_account(request: Request, response: Response, body: DeleteAccount | None = None) -> Deleted:
        account, session = await auth.require(request)
        given = body.password if body is not None else None
        if given is not None or account.password is not None:
            address = client_address(request.scope)
            await auth.check_signin(account.name, address)
            if given is None or not await auth.passwords.verify(account.password, given):
                await auth.failed_signin(account.name, address)
                raise SignInError(_("The password is not right; the account was not deleted."))
        elif accounts.service.clock() - session.verified > FRESH:
            raise SignInError(_("Sign in again (with your passkey) to delete the account; it was not deleted."))
        owned = await db(store.delete, account.id)
        await accounts.anonymise(account, owned)
        auth.clear_cookie(request, response)
        return Deleted(deleted=account.name, games=len(owned))

    @api.post("/api/me/seats")
    async def claim_seats(request: Request, body: ClaimSeats) -> Claimed:
        account, _session = await auth.require(request)
        claimed: list[ClaimedSeat] = []
        refused: list[Refusal] = []
        for item in body.seats:
            try:
                code = check_code(item.code)
                seat = await accounts.claim(account, code, item.token)
                claimed.append(ClaimedSeat(code=code, seat=seat))
            except FiveDiceError as exc:  # a room gone, a wrong token: that one is refused, not the rest
                refused.append(Refusal(code=item.code[:20], error=str(exc)))
        return Claimed(claimed=claimed, refused=refused)

    return api
