"""The profile tables beside the account tables (same database, same name prefix), created by the room
store's schema step 5 (:data:`fivedice.web.db.MIGRATIONS`).

=========================  ============================================================================
``{prefix}account_games``  each finished game of each account's seat: rule set, totals, place, upper
                           bonus, Yahtzees, the analysis's loss and decisions and the optimal mean (so
                           the luck), the opponents and their places, a challenge's benchmark, the
                           replay id and the moves it replays; kept after the room expires (gone with
                           the account)
``{prefix}ratings``        each account's OpenSkill (Weng-Lin) rating per rule set: mu, sigma, games
=========================  ============================================================================

>>> from fivedice.web.db import make_tables
>>> sorted(t.name for t in profile_tables(make_tables("web_")).metadata.sorted_tables)
['web_account_games', 'web_accounts', 'web_ratings']
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
    PrimaryKeyConstraint,
    String,
    Table,
    Text,
    UniqueConstraint,
)

if TYPE_CHECKING:
    from fivedice.web.db import Tables

__all__ = ["ProfileTables", "create_profile_tables", "profile_tables"]


@dataclass(frozen=True, slots=True)
class ProfileTables:
    """The profile tables under one prefix (see the module's docstring)."""

    metadata: MetaData
    games: Table
    ratings: Table


def profile_tables(t: Tables) -> ProfileTables:
    """The profile tables beside the room tables ``t`` (their foreign keys point at the accounts)."""
    p, md = t.prefix, MetaData()
    # a stub of the accounts table, enough for the foreign keys (step 3 made the real one)
    Table(f"{p}accounts", md, Column("id", Integer, primary_key=True))

    def account_ref() -> Column[int]:
        return Column("account", Integer, ForeignKey(f"{p}accounts.id", ondelete="CASCADE"), nullable=False)

    games = Table(
        f"{p}account_games",
        md,
        Column("id", Integer, primary_key=True, autoincrement=True),
        account_ref(),
        Column("code", String(16), nullable=False),
        Column("game_no", Integer, nullable=False),
        Column("seat", Integer, nullable=False),
        Column("at", Float, nullable=False),
        Column("spec", String(200), nullable=False),
        Column("players", Integer, nullable=False),
        Column("total", Integer, nullable=False),
        Column("place", Integer, nullable=False),
        Column("upper_bonus", Integer, nullable=False),
        Column("has_bonus", Boolean, nullable=False),
        Column("yahtzees", Integer, nullable=False),
        Column("decisions", Integer, nullable=True),
        Column("loss", Float, nullable=True),
        Column("optimal", Float, nullable=True),
        Column("opponents", Text, nullable=False),
        Column("challenge", String(64), nullable=True),
        Column("benchmark", Integer, nullable=True),
        Column("replay", String(16), nullable=True),
        Column("kept", Text, nullable=True),
        UniqueConstraint("code", "game_no", "seat", name=f"{p}account_games_seat"),
        Index(f"{p}account_games_account", "account", "at"),
        Index(f"{p}account_games_spec", "spec", "at"),
    )
    ratings = Table(
        f"{p}ratings",
        md,
        account_ref(),
        Column("spec", String(200), nullable=False),
        Column("mu", Float, nullable=False),
        Column("sigma", Float, nullable=False),
        Column("games", Integer, nullable=False),
        Column("updated", Float, nullable=False),
        PrimaryKeyConstraint("account", "spec", name=f"{p}ratings_pk"),
        Index(f"{p}ratings_spec", "spec"),
    )
    return ProfileTables(md, games, ratings)


def create_profile_tables(conn: Connection, t: Tables) -> None:
    """Create the profile tables that are missing (schema step 5; the accounts table is step 3's)."""
    pt = profile_tables(t)
    pt.games.create(conn, checkfirst=True)
    pt.ratings.create(conn, checkfirst=True)
