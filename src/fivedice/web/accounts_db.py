"""Synchronous access to the account tables (the server calls it from its database worker threads).

Accounts are found by the key of their name (:func:`name_key`: the SHA-256 of its UTS #39 skeleton, so
``Ann``, ``ANN`` and ``Аnn`` with a Cyrillic А are one account); sessions by the SHA-256 of the cookie's
secret, never by the secret itself. Every rate of failed sign-ins is a token bucket kept in the database,
so all the server processes of one database count together.

>>> from fivedice.web.db import RoomStore
>>> accounts = AccountStore(RoomStore("sqlite://"))
>>> ann = accounts.create("Ann", None, now=1.0)
>>> accounts.by_name("ANN").id == ann.id, accounts.by_name("Bob")
(True, None)
>>> accounts.add_session(ann.id, "d1", now=1.0, ttl=60, agent="test")
>>> accounts.session("d1", now=2.0)[0].name, accounts.session("d1", now=99.0)
('Ann', None)
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, and_, delete, func, insert, or_, select, text, update
from sqlalchemy.exc import IntegrityError

from fivedice.i18n import _
from fivedice.web.account_errors import NameTakenError
from fivedice.web.account_models import Prefs
from fivedice.web.account_tables import AccountTables, account_tables
from fivedice.web.db import RoomStore
from fivedice.web.names import skeleton

__all__ = ["SESSIONS_KEPT", "AccountRow", "AccountStore", "NameTakenError", "SeatRef", "SessionRow", "name_key"]

SESSIONS_KEPT = 50
"""Sessions an account keeps at most (signing in once more ends the least recently used)."""


def name_key(name: str) -> str:
    """The key an account is found by: equal for names that look alike.

    >>> name_key("Ann") == name_key("АNN") == name_key("  ann ")
    True
    """
    return hashlib.sha256(skeleton(" ".join(name.split())).encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class AccountRow:
    """An account: ``password`` is its argon2id hash (None: it signs in with passkeys only)."""

    id: int
    name: str
    password: str | None
    handle: str
    prefs: Prefs
    created: float


@dataclass(frozen=True, slots=True)
class SessionRow:
    """A sign-in session (found by the hash of its secret): when it last proved who it is (``verified``)."""

    id: str
    account: int
    created: float
    seen: float
    expires: float
    verified: float


@dataclass(frozen=True, slots=True)
class SeatRef:
    """A seat owned by an account: room, seat number, and whether its turns are notified."""

    code: str
    seat: int
    notify: bool


def read_prefs(text: str | None) -> Prefs:
    """Stored preferences (a field this version does not know is ignored; a broken row reads as the defaults)."""
    try:
        return Prefs.model_validate_json(text or "{}")
    except ValueError:
        return Prefs()


def _account(m: Any) -> AccountRow:
    return AccountRow(m["id"], m["name"], m["password"], m["handle"], read_prefs(m["prefs"]), m["created"])


class AccountStore:
    """The account tables of a :class:`~fivedice.web.db.RoomStore`'s database (created by its schema step 3)."""

    def __init__(self, store: RoomStore) -> None:
        self.store = store
        self.t: AccountTables = account_tables(store.tables)

    @contextmanager
    def begin(self) -> Iterator[Connection]:
        """A transaction (SQLite: the one writer's ``BEGIN IMMEDIATE``)."""
        with self.store.engine.begin() as conn:
            yield conn

    # -- accounts -------------------------------------------------------------------------
    def create(self, name: str, password: str | None, *, now: float, handle: str | None = None) -> AccountRow:
        """A new account; raises :class:`NameTakenError` when the name (or one like it) is taken."""
        a = self.t.accounts
        handle = handle or secrets.token_urlsafe(32)
        values = {
            "name": name,
            "name_key": name_key(name),
            "password": password,
            "handle": handle,
            "prefs": "{}",
            "created": now,
        }
        try:
            with self.begin() as conn:
                new = conn.execute(insert(a).values(**values).returning(a.c.id)).scalar_one()
        except IntegrityError:
            raise NameTakenError(_("Name {name!r} is taken; choose another.", name=name)) from None
        return self.by_id(int(new)) or AccountRow(int(new), name, password, handle, Prefs(), now)

    def by_name(self, name: str, conn: Connection | None = None) -> AccountRow | None:
        """The account called ``name`` (or a name that looks like it), if any."""
        return self._one(self.t.accounts.c.name_key == name_key(name), conn)

    def by_id(self, account: int, conn: Connection | None = None) -> AccountRow | None:
        """The account with id ``account``, if it still exists."""
        return self._one(self.t.accounts.c.id == account, conn)

    def by_handle(self, handle: str) -> AccountRow | None:
        """The account whose WebAuthn user handle is ``handle``."""
        return self._one(self.t.accounts.c.handle == handle)

    def _one(self, where: Any, conn: Connection | None = None) -> AccountRow | None:
        if conn is None:
            with self.begin() as c:
                return self._one(where, c)
        row = conn.execute(select(self.t.accounts).where(where)).mappings().first()
        return None if row is None else _account(row)

    def names(self, ids: list[int]) -> dict[int, str]:
        """The names of the accounts ``ids`` that exist."""
        if not ids:
            return {}
        a = self.t.accounts
        with self.begin() as conn:
            return {int(r.id): r.name for r in conn.execute(select(a.c.id, a.c.name).where(a.c.id.in_(ids)))}

    def set_password(self, account: int, hashed: str | None) -> None:
        """Store a new password hash."""
        a = self.t.accounts
        with self.begin() as conn:
            conn.execute(update(a).where(a.c.id == account).values(password=hashed))

    def set_prefs(self, account: int, prefs: Prefs) -> None:
        """Store the account's preferences (push, quiet hours, language)."""
        a = self.t.accounts
        with self.begin() as conn:
            conn.execute(update(a).where(a.c.id == account).values(prefs=prefs.model_dump_json(exclude_none=True)))

    def delete(self, account: int) -> list[SeatRef]:
        """Delete an account with its sessions, passkeys, friends and subscriptions (the foreign keys
        cascade); returns the seats it owned, whose names the caller anonymises (the games stay)."""
        with self.begin() as conn:
            owned = self.seats_of(account, conn)
            conn.execute(delete(self.t.accounts).where(self.t.accounts.c.id == account))
        return owned

    # -- sessions -------------------------------------------------------------------------
    def add_session(
        self, account: int, digest: str, *, now: float, ttl: float, agent: str, replace: str | None = None
    ) -> None:
        """Start a session (``digest``: the hash of its secret), ending the session ``replace`` (the one the
        browser held before: a sign-in never keeps a session id that existed before it)."""
        s = self.t.sessions
        with self.begin() as conn:
            if replace is not None:
                conn.execute(delete(s).where(s.c.id == replace))
            conn.execute(delete(s).where(s.c.account == account, s.c.expires < now))
            conn.execute(
                insert(s).values(
                    id=digest,
                    account=account,
                    created=now,
                    seen=now,
                    expires=now + ttl,
                    verified=now,
                    agent=agent[:200],
                )
            )
            kept = select(s.c.id).where(s.c.account == account).order_by(s.c.seen.desc()).limit(SESSIONS_KEPT)
            conn.execute(delete(s).where(s.c.account == account, s.c.id.not_in(kept.scalar_subquery())))

    def session(self, digest: str, *, now: float) -> tuple[AccountRow, SessionRow] | None:
        """The account and session of a live session, else None."""
        s, a = self.t.sessions, self.t.accounts
        with self.begin() as conn:
            row = conn.execute(
                select(s, a.c.name, a.c.password, a.c.handle, a.c.prefs, a.c.created.label("made"))
                .join(a, a.c.id == s.c.account)
                .where(s.c.id == digest)
            ).mappings().first()  # fmt: skip
        if row is None or row["expires"] <= now:
            return None
        account = AccountRow(
            row["account"], row["name"], row["password"], row["handle"], read_prefs(row["prefs"]), row["made"]
        )
        return account, SessionRow(
            row["id"], row["account"], row["created"], row["seen"], row["expires"], row["verified"]
        )

    def touch(self, digest: str, *, now: float, ttl: float) -> None:
        """Extend a session that is in use (the caller does it at most once an hour)."""
        s = self.t.sessions
        with self.begin() as conn:
            conn.execute(update(s).where(s.c.id == digest).values(seen=now, expires=now + ttl))

    def end_session(self, digest: str) -> None:
        """Sign one session out."""
        with self.begin() as conn:
            conn.execute(delete(self.t.sessions).where(self.t.sessions.c.id == digest))

    def end_sessions(self, account: int, keep: str | None = None) -> int:
        """Sign every session of the account out (but ``keep``); returns how many ended."""
        s = self.t.sessions
        where = s.c.account == account
        if keep is not None:
            where = and_(where, s.c.id != keep)
        with self.begin() as conn:
            return int(conn.execute(delete(s).where(where)).rowcount)

    def sessions_of(self, account: int) -> int:
        """How many sessions the account has (live or not yet swept)."""
        s = self.t.sessions
        with self.begin() as conn:
            return int(conn.execute(select(func.count()).select_from(s).where(s.c.account == account)).scalar_one())

    # -- rates kept in the database ---------------------------------------------------------
    def wait(self, keys: list[str], *, now: float, rate: float, burst: float) -> float:
        """Seconds until every bucket ``keys`` allows one more attempt (0: allowed now); changes nothing."""
        lim = self.t.limits
        with self.begin() as conn:
            rows = conn.execute(select(lim).where(lim.c.key.in_(keys))).mappings().all()
        waits = [0.0]
        for row in rows:
            tokens = min(burst, row["tokens"] + (now - row["stamp"]) * rate)
            if tokens < 1:
                waits.append((1 - tokens) / rate if rate > 0 else 3600.0)
        return max(waits)

    def spend(self, keys: list[str], *, now: float, rate: float, burst: float) -> None:
        """Take one token from each bucket ``keys`` (a failed attempt). Two processes inserting a new key at
        once: one gets a unique-key conflict, and is run again (:meth:`fivedice.web.accounts.Accounts.db`)."""
        lim = self.t.limits
        with self.begin() as conn:
            for key in keys:  # the row is locked while it is read and written: no update is lost
                row = conn.execute(select(lim).where(lim.c.key == key).with_for_update()).mappings().first()
                tokens = burst if row is None else min(burst, row["tokens"] + (now - row["stamp"]) * rate)
                if row is None:
                    conn.execute(insert(lim).values(key=key, tokens=tokens - 1, stamp=now))
                else:
                    conn.execute(update(lim).where(lim.c.key == key).values(tokens=tokens - 1, stamp=now))

    def sweep(self, now: float) -> None:
        """Forget expired sessions and ceremonies and full rate buckets older than a day."""
        with self.begin() as conn:
            conn.execute(delete(self.t.sessions).where(self.t.sessions.c.expires < now))
            conn.execute(delete(self.t.ceremonies).where(self.t.ceremonies.c.expires < now))
            conn.execute(delete(self.t.limits).where(self.t.limits.c.stamp < now - 86400))
            conn.execute(delete(self.t.push_sent).where(self.t.push_sent.c.at < now - 30 * 86400))

    # -- WebAuthn ceremonies and passkeys -------------------------------------------------------
    def add_ceremony(self, kind: str, challenge: str, *, expires: float, **who: Any) -> str:
        """Remember a WebAuthn challenge in flight; returns the ceremony's id."""
        ident = secrets.token_urlsafe(24)
        with self.begin() as conn:
            conn.execute(
                insert(self.t.ceremonies).values(id=ident, kind=kind, challenge=challenge, expires=expires, **who)
            )
        return ident

    def take_ceremony(self, ident: str, kind: str, *, now: float) -> dict[str, Any] | None:
        """The ceremony ``ident`` of ``kind``, deleted as it is read (each challenge is answered once)."""
        c = self.t.ceremonies
        with self.begin() as conn:
            row = conn.execute(select(c).where(c.c.id == ident, c.c.kind == kind)).mappings().first()
            if row is None or conn.execute(delete(c).where(c.c.id == ident)).rowcount != 1:
                return None
        return dict(row) if row["expires"] > now else None

    def add_passkey(self, account: int, ident: str, public_key: str, count: int, transports: str, now: float) -> None:
        """Store a verified credential."""
        with self.begin() as conn:
            conn.execute(
                insert(self.t.passkeys).values(
                    id=ident,
                    account=account,
                    public_key=public_key,
                    sign_count=count,
                    transports=transports,
                    created=now,
                )
            )

    def passkey(self, ident: str) -> dict[str, Any] | None:
        """A stored credential by its id."""
        p = self.t.passkeys
        with self.begin() as conn:
            row = conn.execute(select(p).where(p.c.id == ident)).mappings().first()
        return None if row is None else dict(row)

    def passkeys_of(self, account: int) -> list[dict[str, Any]]:
        """The account's credentials, oldest first."""
        p = self.t.passkeys
        with self.begin() as conn:
            rows = conn.execute(select(p).where(p.c.account == account).order_by(p.c.created)).mappings().all()
        return [dict(r) for r in rows]

    def used_passkey(self, ident: str, count: int, now: float) -> None:
        """Record a sign-in with a credential (its new signature counter)."""
        p = self.t.passkeys
        with self.begin() as conn:
            conn.execute(update(p).where(p.c.id == ident).values(sign_count=count, used=now))

    def delete_passkey(self, account: int, ident: str) -> bool:
        """Remove one of the account's credentials."""
        p = self.t.passkeys
        with self.begin() as conn:
            return bool(conn.execute(delete(p).where(p.c.id == ident, p.c.account == account)).rowcount)

    # -- seats owned by accounts ---------------------------------------------------------------
    def bind(self, code: str, seat: int, account: int, *, now: float) -> bool:
        """Give the seat to the account (False if another account owns it) and note who it plays with."""
        s, met = self.t.seats, self.t.met
        with self.begin() as conn:
            owner = conn.execute(select(s.c.account).where(s.c.code == code, s.c.seat == seat)).scalar()
            if owner is not None:
                return bool(owner == account)
            conn.execute(insert(s).values(code=code, seat=seat, account=account, notify=True, bound=now))
            others = {int(o) for o in conn.execute(select(s.c.account).where(s.c.code == code)).scalars()} - {account}
            for other in others:
                for a, b in ((account, other), (other, account)):
                    done = conn.execute(update(met).where(met.c.account == a, met.c.other == b).values(last=now))
                    if done.rowcount == 0:
                        conn.execute(insert(met).values(account=a, other=b, last=now))
        return True

    def owners(self, code: str, conn: Connection | None = None) -> dict[int, int]:
        """The seats of room ``code`` owned by accounts: seat -> account."""
        if conn is None:
            with self.begin() as c:
                return self.owners(code, c)
        s = self.t.seats
        return {
            int(r.seat): int(r.account) for r in conn.execute(select(s.c.seat, s.c.account).where(s.c.code == code))
        }

    def seats_of(self, account: int, conn: Connection | None = None) -> list[SeatRef]:
        """The seats the account owns, in rooms still stored."""
        if conn is None:
            with self.begin() as c:
                return self.seats_of(account, c)
        s = self.t.seats
        rows = conn.execute(select(s.c.code, s.c.seat, s.c.notify).where(s.c.account == account).order_by(s.c.bound))
        return [SeatRef(r.code, int(r.seat), bool(r.notify)) for r in rows]

    def set_notify(self, account: int, code: str, notify: bool) -> bool:
        """Turn the notifications of one game on or off; False if the account has no seat there."""
        s = self.t.seats
        with self.begin() as conn:
            done = conn.execute(update(s).where(s.c.account == account, s.c.code == code).values(notify=notify))
            return bool(done.rowcount)

    def drop_invites(self, account: int, code: str) -> None:
        """Forget the account's invitations to room ``code`` (it took a seat there, or declined)."""
        i = self.t.invites
        with self.begin() as conn:
            conn.execute(delete(i).where(i.c.recipient == account, i.c.code == code))

    # -- the server's keys ------------------------------------------------------------------
    def secret(self, name: str, make: Any) -> str:
        """The stored secret ``name``, made by ``make()`` and stored the first time (the first process wins)."""
        k = self.t.secrets
        with self.begin() as conn:
            if self.store.is_postgres:
                conn.execute(text("SELECT pg_advisory_xact_lock(hashtext(:k))"), {"k": k.name})
            found = conn.execute(select(k.c.value).where(k.c.name == name)).scalar()
            if found is None:
                found = str(make())
                conn.execute(insert(k).values(name=name, value=found))
        return str(found)

    def blocked_between(self, account: int, others: list[int], conn: Connection | None = None) -> bool:
        """Whether the account blocked any of ``others`` or any of them blocked it."""
        if not others:
            return False
        if conn is None:
            with self.begin() as c:
                return self.blocked_between(account, others, c)
        b = self.t.blocks
        query = (
            select(func.count())
            .select_from(b)
            .where(
                or_(
                    and_(b.c.account == account, b.c.blocked.in_(others)),
                    and_(b.c.blocked == account, b.c.account.in_(others)),
                )
            )
        )
        return bool(conn.execute(query).scalar_one())
