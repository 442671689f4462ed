"""Seats and accounts: a room created or joined by a signed-in player gives the seat to the account, and
any signed-in device of the account enters that seat without the browser's seat token.

The hooks run around the room service's own ``create`` and ``join`` (``web/app.py`` calls them):

- signed in, the seat takes the account's name and, once taken, belongs to the account
  (``{prefix}account_seats``); a player cannot join a room where a block stands between them and
  one of its players;
- a guest keeps playing exactly as before, except under a name that belongs to an account (names that
  look alike included): that name is the account's;
- a WebSocket ``hello`` with ``"token": null`` from a signed-in page of the site enters the account's
  seat in that room (the seat token stays the way for guests and for clients without cookies).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from starlette.requests import HTTPConnection

from fivedice.i18n import _
from fivedice.web.accounts_db import AccountRow
from fivedice.web.auth import AccountError, ForbiddenError
from fivedice.web.models import CreateRoom, Hello, JoinRoom
from fivedice.web.service import check_code

if TYPE_CHECKING:
    from fivedice.web.accounts import Accounts

__all__ = ["NameReservedError", "Seating"]


class NameReservedError(AccountError):
    """A guest asked for a name that belongs to an account."""

    status = 409


class Seating:
    """The hooks of the module's docstring, for one server process."""

    def __init__(self, accounts: Accounts) -> None:
        self.accounts = accounts

    async def _guest_name(self, name: str) -> None:
        db, store = self.accounts.db, self.accounts.store
        owner = await db(store.by_name, name)
        if owner is not None:
            raise NameReservedError(
                _(
                    "Name {name!r} belongs to an account; sign in as {owner}, or choose another name.",
                    name=name,
                    owner=owner.name,
                )
            )

    async def before_create(self, conn: HTTPConnection, req: CreateRoom) -> tuple[CreateRoom, AccountRow | None]:
        """The room to create (under the account's name when signed in) and the signed-in account."""
        account = await self.accounts.auth.account(conn)
        for name in req.local:  # the people playing on the creator's device are guests
            await self._guest_name(name)
        if account is None:
            await self._guest_name(req.name)
            return req, None
        return req.model_copy(update={"name": account.name}), account

    async def before_join(self, conn: HTTPConnection, code: str, req: JoinRoom) -> tuple[JoinRoom, AccountRow | None]:
        """The seat to ask for (under the account's name when signed in) and the signed-in account."""
        if req.spectator:
            return req, None
        account = await self.accounts.auth.account(conn)
        if account is None:
            if req.name is not None:
                await self._guest_name(req.name)
            return req, None
        db, store = self.accounts.db, self.accounts.store
        code = check_code(code)
        owners = await db(store.owners, code)
        if account.id in owners.values():
            raise AccountError(_("You already play in room {code!r}; open it from your games.", code=code))
        if await db(store.blocked_between, account.id, sorted(set(owners.values()))):
            raise ForbiddenError(
                _("You cannot join room {code!r}: a block stands between you and one of its players.", code=code)
            )
        return req.model_copy(update={"name": account.name}), account

    async def after(self, account: AccountRow | None, made: dict[str, Any]) -> dict[str, Any]:
        """Give the seat just taken to the account (and drop its invitation to that room)."""
        if account is not None and made.get("seat") is not None:
            service = self.accounts.service
            await self.accounts.db(
                self.accounts.store.bind, made["code"], made["seat"], account.id, now=service.clock()
            )
            await self.accounts.db(self.accounts.store.drop_invites, account.id, made["code"])
            made = {**made, "account": account.name}
        return made

    async def socket_seat(self, conn: HTTPConnection, code: str, hello: Hello) -> int | None:
        """The seat a tokenless hello enters: the signed-in account's seat in the room, if any."""
        if hello.token is not None:
            return None
        account = await self.accounts.auth.socket_account(conn)
        if account is None:
            return None
        return await self.accounts.owned_seat(check_code(code), account)
