"""The account tables beside the room tables (same database, same name prefix), created by the room
store's schema step 3 (:data:`fivedice.web.db.MIGRATIONS`).

=========================  ============================================================================
``{prefix}accounts``       name (NFC), its UTS #39 skeleton (unique), argon2id hash (none: passkeys only),
                           the WebAuthn user handle, preferences (JSON: push, quiet hours, language)
``{prefix}sessions``       sign-in sessions: the SHA-256 of the cookie's secret (never the secret),
                           created / last seen / expiry, when the account last proved itself
``{prefix}passkeys``       WebAuthn credentials: id, COSE public key, signature counter
``{prefix}ceremonies``     WebAuthn challenges in flight (one use, five minutes), shared by every process
``{prefix}signin_limits``  token buckets of failed sign-ins per name and per address, and of sign-ups
``{prefix}account_seats``  which account owns which seat of which room (a room's deletion cascades)
``{prefix}met``            who played with whom (kept after the rooms expire: friends are chosen from it)
``{prefix}friends``        friends (one-way, like favourites) and ``{prefix}blocks`` blocked players
``{prefix}invites``        a friend's invitation to a room (gone with the room)
``{prefix}push``           Web Push subscriptions (endpoint and keys) of an account's devices
``{prefix}push_sent``      the turns already notified (one notification per turn, whichever process)
``{prefix}secrets``        the server's own keys kept with the database (the VAPID key pair)
=========================  ============================================================================

>>> from fivedice.web.db import make_tables
>>> sorted(t.name for t in account_tables(make_tables("web_")).metadata.sorted_tables)[:3]
['web_account_seats', 'web_accounts', 'web_blocks']
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqlalchemy import (
    Boolean,
    Column,
    Connection,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
)

if TYPE_CHECKING:
    from fivedice.web.db import Tables

__all__ = ["AccountTables", "account_tables", "create_account_tables"]


@dataclass(frozen=True, slots=True)
class AccountTables:
    """The account tables under one prefix (see the module's docstring)."""

    metadata: MetaData
    accounts: Table
    sessions: Table
    passkeys: Table
    ceremonies: Table
    limits: Table
    seats: Table
    met: Table
    friends: Table
    blocks: Table
    invites: Table
    push: Table
    push_sent: Table
    secrets: Table


def account_tables(t: Tables) -> AccountTables:
    """The account tables beside the room tables ``t`` (their foreign keys point at ``t.rooms``)."""
    p, md = t.prefix, MetaData()

    def account_ref(name: str = "account", primary_key: bool = False) -> Column[int]:
        fk = ForeignKey(f"{p}accounts.id", ondelete="CASCADE")
        return Column(name, Integer, fk, nullable=False, primary_key=primary_key)

    def room_ref() -> Column[str]:
        return Column("code", String(16), ForeignKey(t.rooms.c.code, ondelete="CASCADE"), nullable=False)

    accounts = Table(
        f"{p}accounts",
        md,
        Column("id", Integer, primary_key=True, autoincrement=True),
        Column("name", String(40), nullable=False),
        Column("name_key", String(200), nullable=False, unique=True),
        Column("password", Text, nullable=True),
        Column("handle", String(64), nullable=False, unique=True),
        Column("prefs", Text, nullable=False),
        Column("created", Float, nullable=False),
    )
    sessions = Table(
        f"{p}sessions",
        md,
        Column("id", String(64), primary_key=True),
        account_ref(),
        Column("created", Float, nullable=False),
        Column("seen", Float, nullable=False),
        Column("expires", Float, nullable=False),
        Column("verified", Float, nullable=False),
        Column("agent", String(200), nullable=False),
        Index(f"{p}sessions_account", "account"),
    )
    passkeys = Table(
        f"{p}passkeys",
        md,
        Column("id", String(400), primary_key=True),
        account_ref(),
        Column("public_key", Text, nullable=False),
        Column("sign_count", Integer, nullable=False),
        Column("transports", String(200), nullable=False),
        Column("created", Float, nullable=False),
        Column("used", Float, nullable=True),
        Index(f"{p}passkeys_account", "account"),
    )
    ceremonies = Table(
        f"{p}ceremonies",
        md,
        Column("id", String(64), primary_key=True),
        Column("kind", String(10), nullable=False),
        Column("challenge", String(200), nullable=False),
        Column("account", Integer, ForeignKey(f"{p}accounts.id", ondelete="CASCADE"), nullable=True),
        Column("name", String(40), nullable=True),
        Column("handle", String(64), nullable=True),
        Column("expires", Float, nullable=False),
    )
    limits = Table(
        f"{p}signin_limits",
        md,
        Column("key", String(100), primary_key=True),
        Column("tokens", Float, nullable=False),
        Column("stamp", Float, nullable=False),
    )
    seats = Table(
        f"{p}account_seats",
        md,
        room_ref(),
        Column("seat", Integer, nullable=False),
        account_ref(),
        Column("notify", Boolean, nullable=False),
        Column("bound", Float, nullable=False),
        UniqueConstraint("code", "seat", name=f"{p}account_seats_seat"),
        Index(f"{p}account_seats_account", "account"),
    )
    met = Table(
        f"{p}met",
        md,
        account_ref(primary_key=True),
        account_ref("other", primary_key=True),
        Column("last", Float, nullable=False),
    )
    friends = Table(
        f"{p}friends",
        md,
        account_ref(primary_key=True),
        account_ref("friend", primary_key=True),
        Column("created", Float, nullable=False),
    )
    blocks = Table(
        f"{p}blocks",
        md,
        account_ref(primary_key=True),
        account_ref("blocked", primary_key=True),
        Column("created", Float, nullable=False),
    )
    invites = Table(
        f"{p}invites",
        md,
        Column("id", Integer, primary_key=True, autoincrement=True),
        account_ref("sender"),
        account_ref("recipient"),
        room_ref(),
        Column("created", Float, nullable=False),
        UniqueConstraint("recipient", "code", name=f"{p}invites_once"),
    )
    push = Table(
        f"{p}push",
        md,
        Column("endpoint", String(1000), primary_key=True),
        account_ref(),
        Column("p256dh", String(200), nullable=False),
        Column("auth", String(100), nullable=False),
        Column("created", Float, nullable=False),
        Index(f"{p}push_account", "account"),
    )
    push_sent = Table(
        f"{p}push_sent",
        md,
        account_ref(primary_key=True),
        Column("turn", String(80), primary_key=True),
        Column("state", String(10), nullable=False),
        Column("at", Float, nullable=False),
    )
    secrets = Table(
        f"{p}secrets",
        md,
        Column("name", String(40), primary_key=True),
        Column("value", Text, nullable=False),
    )
    return AccountTables(
        md,
        accounts,
        sessions,
        passkeys,
        ceremonies,
        limits,
        seats,
        met,
        friends,
        blocks,
        invites,
        push,
        push_sent,
        secrets,
    )


def create_account_tables(conn: Connection, t: Tables) -> None:
    """Create the account tables that are missing (schema step 3)."""
    account_tables(t).metadata.create_all(conn, checkfirst=True)
