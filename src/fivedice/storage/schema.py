"""The store's tables (schema version 4) and the frozen definition of version 1.

Every table name starts with ``fivedice_`` so the store can share a database with
other subsystems (the web server keeps its rooms in its own tables).

Version history:

1. ``fivedice_games`` (one row per finished game, with the full save JSON) and
   ``fivedice_results`` (one row per player: name, total, place).
2. Results gain ``kind``, ``level``, ``upper_total``, ``upper_bonus``, ``yahtzee_bonus``,
   ``hints``, ``loss`` and ``decisions`` (backfilled by replaying each stored game);
   new tables ``fivedice_profiles`` (remembered players) and ``fivedice_settings``.
3. Games gain ``undos`` (how many times undo was used; 0 for older games) and ``challenge``
   (the challenge code, for challenge leaderboards).
4. Games gain ``origin``: where the game was played, unique (a web room's code, creation and game number),
   so that recording the same game again stores nothing (a web server killed while recording retries).
"""

from __future__ import annotations

from sqlalchemy import (
    Column,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
)

__all__ = ["SCHEMA_VERSION", "games", "metadata", "profiles", "results", "settings", "v1_metadata", "version"]

SCHEMA_VERSION = 4
"""The schema version this code writes; older databases are upgraded on open."""

metadata = MetaData()

version = Table(
    "fivedice_schema",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("version", Integer, nullable=False),
)

games = Table(
    "fivedice_games",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("played_at", DateTime(timezone=True), nullable=False),
    Column("rules_name", String(64), nullable=False),
    Column("rules_spec", String(255), nullable=False),
    Column("players", Integer, nullable=False),
    Column("source", String(32), nullable=False),
    Column("save_json", Text, nullable=False),
    # version 3
    Column("undos", Integer, nullable=False, server_default="0"),
    Column("challenge", String(64), nullable=True),
    # version 4
    Column("origin", String(96), nullable=True),
    Index("ix_fivedice_games_rules", "rules_name"),
    Index("ix_fivedice_games_challenge", "challenge"),
    Index("ux_fivedice_games_origin", "origin", unique=True),
)

results = Table(
    "fivedice_results",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("game_id", Integer, ForeignKey("fivedice_games.id", ondelete="CASCADE"), nullable=False),
    Column("seat", Integer, nullable=False),
    Column("name", String(64), nullable=False),
    Column("name_key", String(64), nullable=False),
    Column("total", Integer, nullable=False),
    Column("place", Integer, nullable=False),
    # version 2
    Column("kind", String(16), nullable=False, server_default="human"),
    Column("level", String(32), nullable=True),
    Column("upper_total", Integer, nullable=False, server_default="0"),
    Column("upper_bonus", Integer, nullable=False, server_default="0"),
    Column("yahtzee_bonus", Integer, nullable=False, server_default="0"),
    Column("hints", Integer, nullable=False, server_default="0"),
    Column("loss", Float, nullable=True),
    Column("decisions", Integer, nullable=True),
    Index("ix_fivedice_results_name", "name_key"),
    Index("ix_fivedice_results_total", "total"),
)

profiles = Table(
    "fivedice_profiles",
    metadata,
    Column("name_key", String(64), primary_key=True),
    Column("name", String(64), nullable=False),
    Column("kind", String(16), nullable=False),
    Column("level", String(32), nullable=True),
    Column("seat", Integer, nullable=True),
    Column("last_used", DateTime(timezone=True), nullable=False),
)

settings = Table(
    "fivedice_settings",
    metadata,
    Column("key", String(64), primary_key=True),
    Column("value", Text, nullable=False),
)

# -- version 1, frozen: used to build old databases in the upgrade tests -------------------
v1_metadata = MetaData()

Table("fivedice_schema", v1_metadata, Column("id", Integer, primary_key=True), Column("version", Integer))
Table(
    "fivedice_games",
    v1_metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("played_at", DateTime(timezone=True), nullable=False),
    Column("rules_name", String(64), nullable=False),
    Column("rules_spec", String(255), nullable=False),
    Column("players", Integer, nullable=False),
    Column("source", String(32), nullable=False),
    Column("save_json", Text, nullable=False),
    Index("ix_fivedice_games_rules", "rules_name"),
)
Table(
    "fivedice_results",
    v1_metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("game_id", Integer, ForeignKey("fivedice_games.id", ondelete="CASCADE"), nullable=False),
    Column("seat", Integer, nullable=False),
    Column("name", String(64), nullable=False),
    Column("name_key", String(64), nullable=False),
    Column("total", Integer, nullable=False),
    Column("place", Integer, nullable=False),
    Index("ix_fivedice_results_name", "name_key"),
)
