"""Friends, blocks, invitations and the invite link's QR code.

=======================================  ==============================================================
``GET    /api/me/friends``               ``{"friends", "played_with", "blocked"}`` (names, last game)
``POST   /api/me/friends``               ``{"name"}``: a player you played with becomes a friend
``DELETE /api/me/friends/{name}``        no longer a friend
``POST   /api/me/blocks``                ``{"name"}``: block a player you played with (no longer friends either way)
``DELETE /api/me/blocks/{name}``         unblock
``POST   /api/me/invites``               ``{"name", "code"}``: invite a friend to a room you play in
``DELETE /api/me/invites/{code}``        decline an invitation
``GET    /api/rooms/{code}/qr.svg``      the room's invite link as a QR code (SVG, made on the server)
=======================================  ==============================================================

A friend is a player one has played with (both seats owned by accounts), added one way, like a
favourite. An invitation reaches the friend's game list and their devices (Web Push, when on). A block
ends the friendship both ways and keeps the two apart: neither can add or invite the other, and neither
can take a seat in a room where the other owns one (when signed in).

These routes never tell which names have an account: a name nobody has gets the same answer as a player one
never played with (or who is not a friend, or not blocked), worded by the name as given.
"""

from __future__ import annotations

import asyncio
import io
from typing import TYPE_CHECKING

from fastapi import APIRouter, Request
from fastapi.responses import Response
from sqlalchemy import and_, delete, insert, or_, select

from fivedice import i18n
from fivedice.i18n import _
from fivedice.table.seat import SeatKind
from fivedice.web.account_models import (
    Blocked,
    BlockRemoved,
    BlockSet,
    Declined,
    Friend,
    FriendAdded,
    FriendRemoved,
    FriendsList,
    Invite,
    InviteSent,
    Met,
    PersonName,
    PushMessage,
)
from fivedice.web.accounts_db import AccountRow
from fivedice.web.auth import AccountError, ForbiddenError, allowed_origins
from fivedice.web.db import RoomStatus
from fivedice.web.service import check_code

if TYPE_CHECKING:
    from fivedice.web.accounts import Accounts
    from fivedice.web.push import Push

__all__ = ["FRIENDS", "qr_svg", "router"]

FRIENDS = 200
"""Friends, blocked players and players met listed at most."""


class NotListedError(AccountError):
    """A name not among one's friends or blocked players (whether an account has it or not is not told)."""

    status = 404


def qr_svg(link: str) -> bytes:
    """The QR code of ``link`` as an SVG image (dark modules on white, a quiet zone of four).

    >>> qr_svg("https://dice.example/r/K7QM2PXA").startswith(b"<?xml")
    True
    """
    import segno

    out = io.BytesIO()
    segno.make(link, error="m", micro=False).save(out, kind="svg", scale=6, border=4, title=link, svgclass="qr")
    return out.getvalue()


def router(accounts: Accounts, push: Push) -> APIRouter:
    """The routes of the module's docstring."""
    api = APIRouter()
    auth, store, db = accounts.auth, accounts.store, accounts.db
    t = store.t

    async def person(name: str, me: AccountRow) -> AccountRow | None:
        """The account named ``name``, or None. Every answer about someone else is worded by the name as given
        and is the same whether an account has that name or not: these routes never tell which names exist."""
        other = await db(store.by_name, name[:200])
        if other is not None and other.id == me.id:
            raise AccountError(_("That is your own name; choose another player."))
        return other

    def stranger(name: str) -> AccountError:
        return AccountError(
            _("You have not played with {name} yet; friends are players you played with.", name=name[:40])
        )

    def listing(account: int) -> FriendsList:
        a = t.accounts
        with store.begin() as conn:
            friends = conn.execute(
                select(a.c.name, t.friends.c.created)
                .join(a, a.c.id == t.friends.c.friend)
                .where(t.friends.c.account == account)
                .order_by(a.c.name)
                .limit(FRIENDS)
            ).all()
            blocked = conn.execute(
                select(a.c.name)
                .join(a, a.c.id == t.blocks.c.blocked)
                .where(t.blocks.c.account == account)
                .order_by(a.c.name)
                .limit(FRIENDS)
            ).all()
            met = conn.execute(
                select(a.c.name, t.met.c.last)
                .join(a, a.c.id == t.met.c.other)
                .where(t.met.c.account == account)
                .order_by(t.met.c.last.desc())
                .limit(FRIENDS)
            ).all()
        friend_names = {f.name for f in friends}
        blocked_names = {b.name for b in blocked}
        return FriendsList(
            friends=[Friend(name=f.name, since=f.created) for f in friends],
            played_with=[
                Met(name=m.name, last=m.last, friend=m.name in friend_names) for m in met if m.name not in blocked_names
            ],
            blocked=[Blocked(name=b.name) for b in blocked],
        )

    @api.get("/api/me/friends")
    async def friends(request: Request) -> FriendsList:
        account, _session = await auth.require(request)
        return await db(listing, account.id)

    def befriend(account: int, other: AccountRow, typed: str, now: float) -> None:
        """Add a friend (in a worker thread, in the request's language); refuses strangers and blocks."""
        with store.begin() as conn:
            met = conn.execute(select(t.met.c.last).where(t.met.c.account == account, t.met.c.other == other.id))
            if met.first() is None:
                raise stranger(typed)
            if store.blocked_between(account, [other.id], conn):
                raise ForbiddenError(
                    _("A block stands between you and {name}; they cannot be your friend.", name=other.name)
                )
            if not conn.execute(
                select(t.friends.c.created).where(t.friends.c.account == account, t.friends.c.friend == other.id)
            ).first():
                conn.execute(insert(t.friends).values(account=account, friend=other.id, created=now))

    @api.post("/api/me/friends", status_code=201)
    async def add_friend(request: Request, body: PersonName) -> FriendAdded:
        account, _session = await auth.require(request)
        other = await person(body.name, account)
        if other is None:
            raise stranger(body.name)
        await db(befriend, account.id, other, body.name, accounts.service.clock())
        return FriendAdded(friend=other.name)

    @api.delete("/api/me/friends/{name:path}")
    async def drop_friend(request: Request, name: str) -> FriendRemoved:
        account, _session = await auth.require(request)
        other = await person(name, account)

        def drop(other: AccountRow) -> bool:
            f = t.friends
            with store.begin() as conn:
                return conn.execute(delete(f).where(f.c.account == account.id, f.c.friend == other.id)).rowcount > 0

        if other is None or not await db(drop, other):
            raise NotListedError(_("{name} is not among your friends.", name=name[:40]))
        return FriendRemoved(friend=other.name, removed=True)

    @api.post("/api/me/blocks", status_code=201)
    async def block(request: Request, body: PersonName) -> BlockSet:
        account, _session = await auth.require(request)
        other = await person(body.name, account)
        now = accounts.service.clock()
        not_met = AccountError(
            _("You have not played with {name}; you can block players you played with.", name=body.name[:40])
        )
        if other is None:
            raise not_met

        def add(other: AccountRow) -> None:
            f, i = t.friends, t.invites
            with store.begin() as conn:
                met = conn.execute(
                    select(t.met.c.last).where(
                        or_(
                            and_(t.met.c.account == account.id, t.met.c.other == other.id),
                            and_(t.met.c.account == other.id, t.met.c.other == account.id),
                        )
                    )
                ).first()
                blocked = conn.execute(
                    select(t.blocks.c.created).where(t.blocks.c.account == account.id, t.blocks.c.blocked == other.id)
                ).first()
                if met is None and blocked is None:
                    raise not_met
                conn.execute(
                    delete(f).where(
                        or_(
                            and_(f.c.account == account.id, f.c.friend == other.id),
                            and_(f.c.account == other.id, f.c.friend == account.id),
                        )
                    )
                )
                conn.execute(
                    delete(i).where(
                        or_(
                            and_(i.c.sender == account.id, i.c.recipient == other.id),
                            and_(i.c.sender == other.id, i.c.recipient == account.id),
                        )
                    )
                )
                if blocked is None:
                    conn.execute(insert(t.blocks).values(account=account.id, blocked=other.id, created=now))

        await db(add, other)
        return BlockSet(blocked=other.name)

    @api.delete("/api/me/blocks/{name:path}")
    async def unblock(request: Request, name: str) -> BlockRemoved:
        account, _session = await auth.require(request)
        other = await person(name, account)

        def drop(other: AccountRow) -> bool:
            b = t.blocks
            with store.begin() as conn:
                return conn.execute(delete(b).where(b.c.account == account.id, b.c.blocked == other.id)).rowcount > 0

        if other is None or not await db(drop, other):
            raise NotListedError(_("{name} is not among the players you blocked.", name=name[:40]))
        return BlockRemoved(blocked=other.name, removed=True)

    def not_friend(name: str) -> AccountError:
        return AccountError(_("{name} is not your friend; add them first (players you played with).", name=name[:40]))

    def invite_row(sender: int, other: AccountRow, typed: str, code: str, now: float) -> bool:
        """Store an invitation (in a worker thread); False if it was there already; refuses the rest."""
        with store.begin() as conn:
            if not conn.execute(
                select(t.friends.c.created).where(t.friends.c.account == sender, t.friends.c.friend == other.id)
            ).first():
                raise not_friend(typed)
            if store.blocked_between(sender, [other.id], conn):
                raise ForbiddenError(
                    _("A block stands between you and {name}; they cannot be invited.", name=other.name)
                )
            owners = store.owners(code, conn)
            if sender not in owners.values():
                raise ForbiddenError(
                    _("You have no seat in room {code!r}; invite friends to your own rooms.", code=code)
                )
            if other.id in owners.values():
                raise AccountError(_("{name} already plays in room {code!r}.", name=other.name, code=code))
            if conn.execute(
                select(t.invites.c.id).where(t.invites.c.recipient == other.id, t.invites.c.code == code)
            ).first():
                return False
            conn.execute(insert(t.invites).values(sender=sender, recipient=other.id, code=code, created=now))
        return True

    @api.post("/api/me/invites", status_code=201)
    async def invite(request: Request, body: Invite) -> InviteSent:
        account, _session = await auth.require(request)
        code = check_code(body.code)
        other = await person(body.name, account)
        room = await accounts.service.room(code)
        if room.status != RoomStatus.LOBBY or not any(s.kind == SeatKind.HUMAN and s.name is None for s in room.seats):
            raise AccountError(
                _("Room {code!r} has no open seat; invite friends to a room waiting for players.", code=code)
            )
        if other is None:
            raise not_friend(body.name)
        new = await db(invite_row, account.id, other, body.name, code, accounts.service.clock())
        sent = 0
        if new and other.prefs.push:
            with i18n.language(other.prefs.language):
                payload = PushMessage(
                    type="invite",
                    title=_("{name} invites you to play", name=account.name),
                    body=_(
                        "{rules} in room {code}: a seat is kept open for you.", rules=_(room.rules.title), code=code
                    ),
                    url=f"/r/{code}",
                    code=code,
                )
            sent = await push.send(other.id, payload)
        return InviteSent(invited=other.name, code=code, notified=sent)

    @api.delete("/api/me/invites/{code}")
    async def decline(request: Request, code: str) -> Declined:
        account, _session = await auth.require(request)
        code = check_code(code)
        await db(store.drop_invites, account.id, code)
        return Declined(code=code, declined=True)

    @api.get("/api/rooms/{code}/qr.svg")
    async def qr(request: Request, code: str) -> Response:
        room = await accounts.service.room(code)
        link = f"{allowed_origins(request, accounts.settings)[0]}/r/{room.code}"
        headers = {
            "Cache-Control": "public, max-age=86400",
            "Content-Disposition": f'inline; filename="{room.code}.svg"',
        }
        svg = await asyncio.to_thread(qr_svg, link)  # 15 ms of CPU: off the event loop
        return Response(svg, media_type="image/svg+xml", headers=headers)

    return api
