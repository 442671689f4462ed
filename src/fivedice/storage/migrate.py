"""Schema upgrades: each step takes a database from version ``n`` to ``n + 1`` in one transaction.

Steps are written against the database as it was (never against today's tables), so an old
file upgrades the same way whenever it is opened. Nothing is dropped: an upgrade only adds.
Alembic is imported by the first step that runs (most opens upgrade nothing, and it costs a web
server's start about a quarter of a second).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING

from sqlalchemy import Column, Connection, DateTime, Float, Integer, String, Text, column, select, table, update

from fivedice.engine import saves
from fivedice.errors import FiveDiceError
from fivedice.storage.schema import SCHEMA_VERSION, games, results, version

if TYPE_CHECKING:
    from alembic.operations import Operations

__all__ = ["STEPS", "upgrade"]


def _operations(conn: Connection) -> Operations:
    """Alembic's operations on ``conn``."""
    from alembic.migration import MigrationContext
    from alembic.operations import Operations

    return Operations(MigrationContext.configure(conn))


def _v1_to_v2(conn: Connection) -> None:
    """Per-player details on results (backfilled from each game's log), profiles and settings."""
    op = _operations(conn)
    op.add_column("fivedice_results", Column("kind", String(16), nullable=False, server_default="human"))
    op.add_column("fivedice_results", Column("level", String(32), nullable=True))
    for name in ("upper_total", "upper_bonus", "yahtzee_bonus", "hints"):
        op.add_column("fivedice_results", Column(name, Integer, nullable=False, server_default="0"))
    op.add_column("fivedice_results", Column("loss", Float, nullable=True))
    op.add_column("fivedice_results", Column("decisions", Integer, nullable=True))
    op.create_table(
        "fivedice_profiles",
        Column("name_key", String(64), primary_key=True),
        Column("name", String(64), nullable=False),
        Column("kind", String(16), nullable=False),
        Column("level", String(32), nullable=True),
        Column("seat", Integer, nullable=True),
        Column("last_used", DateTime(timezone=True), nullable=False),
    )
    op.create_table(
        "fivedice_settings",
        Column("key", String(64), primary_key=True),
        Column("value", Text, nullable=False),
    )
    # Backfill the section totals by replaying each stored game; a game that no longer
    # replays keeps zeros rather than blocking the upgrade.
    for game_id, text in conn.execute(select(games.c.id, games.c.save_json)).all():
        try:
            game = saves.from_data(json.loads(text))
        except (FiveDiceError, ValueError):
            continue
        for seat, cards in enumerate(game.state.cards):
            conn.execute(
                update(results)
                .where(results.c.game_id == game_id, results.c.seat == seat)
                .values(
                    upper_total=sum(c.upper_total for c in cards),
                    upper_bonus=sum(c.upper_bonus for c in cards),
                    yahtzee_bonus=sum(c.yahtzee_bonus for c in cards),
                )
            )
    latest: dict[str, tuple[str, object]] = {}
    rows = conn.execute(
        select(results.c.name_key, results.c.name, games.c.played_at)
        .join(games, games.c.id == results.c.game_id)
        .order_by(games.c.played_at, results.c.id)
    ).all()
    for key, name, played in rows:
        latest[key] = (name, played)
    profiles = table("fivedice_profiles", column("name_key"), column("name"), column("kind"), column("last_used"))
    if latest:
        conn.execute(
            profiles.insert(),
            [{"name_key": k, "name": n, "kind": "human", "last_used": t} for k, (n, t) in latest.items()],
        )


def _v2_to_v3(conn: Connection) -> None:
    """Games gain the undo count (older games: 0, undo was not counted then) and the challenge code."""
    op = _operations(conn)
    op.add_column("fivedice_games", Column("undos", Integer, nullable=False, server_default="0"))
    op.add_column("fivedice_games", Column("challenge", String(64), nullable=True))
    op.create_index("ix_fivedice_games_challenge", "fivedice_games", ["challenge"])


def _v3_to_v4(conn: Connection) -> None:
    """Games gain their unique origin (older games: none), so that a game recorded again is stored once."""
    op = _operations(conn)
    op.add_column("fivedice_games", Column("origin", String(96), nullable=True))
    op.create_index("ux_fivedice_games_origin", "fivedice_games", ["origin"], unique=True)


STEPS: dict[int, Callable[[Connection], None]] = {1: _v1_to_v2, 2: _v2_to_v3, 3: _v3_to_v4}
"""``STEPS[n]`` upgrades a version-``n`` database to version ``n + 1``."""


def upgrade(conn: Connection, current: int) -> None:
    """Run every step from ``current`` to :data:`SCHEMA_VERSION` on ``conn`` (inside its transaction)."""
    for step in range(current, SCHEMA_VERSION):
        STEPS[step](conn)
        conn.execute(update(version).values(version=step + 1))
