"""Room storage: rooms, seats and append-only move logs in SQLAlchemy 2 tables with a versioned schema.

The server never keeps a game only in memory: every accepted action is a row of the
``moves`` table, committed before anyone hears of it, and a room's game is rebuilt by
replaying those rows through the engine. Concurrent writers (several server processes)
are serialised by a row lock on the room (``SELECT ... FOR UPDATE`` on PostgreSQL,
``BEGIN IMMEDIATE`` on SQLite) and a version check; the moves' primary key
``(room, game, seq)`` makes a second record for one step impossible.

>>> store = RoomStore("sqlite://")
>>> store.create("ABCD2345", "yacht", {"hints": True}, [SeatRow(0, "Ann", "human", None, "x")], now=1.0)
>>> store.room("ABCD2345").seats[0].name
'Ann'
"""

from __future__ import annotations

import enum
import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy import (
    Column,
    Connection,
    Engine,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    bindparam,
    create_engine,
    delete,
    event,
    inspect,
    select,
    text,
    update,
)
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.pool import StaticPool

from fivedice.i18n import _
from fivedice.storage.url import resolve_url
from fivedice.table.seat import SeatKind
from fivedice.web.dburl import (
    DEADLINE,
    default_url,
    libpq_url,
    lock_wait_ms,
    make_folder,
    normalize_url,
    safe_url,
    sqlite_busy,
    store_error,
)
from fivedice.web.errors import (
    PubSubError,
    SchemaError,
    room_not_found,
)

__all__ = [
    "DEADLINE",
    "SCHEMA_VERSION",
    "MoveRow",
    "RoomRow",
    "RoomStatus",
    "RoomStore",
    "SeatRow",
    "Tables",
    "default_url",
    "libpq_url",
    "normalize_url",
    "safe_url",
    "store_error",
]

SCHEMA_VERSION = 5
"""The version of the room tables this code writes; older databases are upgraded on start
(1 -> 2 adds ``rooms.started``, when the current game began, for the per-turn deadline;
2 -> 3 adds the account tables, :mod:`fivedice.web.account_tables`; 4 -> 5 the profile tables,
:mod:`fivedice.web.profile_tables`)."""


@dataclass(frozen=True, slots=True)
class Tables:
    """The room tables under one name prefix (tests use a unique prefix on a shared database)."""

    prefix: str
    metadata: MetaData
    meta: Table
    rooms: Table
    seats: Table
    moves: Table


def make_tables(prefix: str = "web_") -> Tables:
    """Build the table definitions with names starting ``prefix``."""
    if not prefix.replace("_", "").isalnum() or not prefix[0].isalpha():
        raise SchemaError(
            _("Table prefix {prefix!r} is not valid; expected letters, digits and underscores.", prefix=prefix)
        )
    md = MetaData()
    meta = Table(
        f"{prefix}meta", md, Column("key", String(40), primary_key=True), Column("value", String(200), nullable=False)
    )
    rooms = Table(
        f"{prefix}rooms",
        md,
        Column("code", String(16), primary_key=True),
        Column("spec", String(200), nullable=False),
        Column("settings", Text, nullable=False),
        Column("status", String(10), nullable=False),
        Column("game_no", Integer, nullable=False),
        Column("version", Integer, nullable=False),
        Column("recorded", Integer, nullable=False),
        Column("created", Float, nullable=False),
        Column("updated", Float, nullable=False),
        Column("started", Float, nullable=True),
    )
    seats = Table(
        f"{prefix}seats",
        md,
        Column("code", String(16), ForeignKey(rooms.c.code, ondelete="CASCADE"), primary_key=True),
        Column("seat", Integer, primary_key=True),
        Column("name", String(40), nullable=True),
        Column("kind", String(10), nullable=False),
        Column("level", String(20), nullable=True),
        Column("token", String(64), nullable=True),
    )
    moves = Table(
        f"{prefix}moves",
        md,
        Column("code", String(16), ForeignKey(rooms.c.code, ondelete="CASCADE"), primary_key=True),
        Column("game_no", Integer, primary_key=True),
        Column("seq", Integer, primary_key=True),
        Column("seat", Integer, nullable=False),
        Column("by", String(10), nullable=False),
        Column("record", Text, nullable=False),
        Column("at", Float, nullable=False),
    )
    return Tables(prefix, md, meta, rooms, seats, moves)


def _v1(conn: Connection, t: Tables) -> None:
    for table in (t.rooms, t.seats, t.moves):
        table.create(conn, checkfirst=True)


def _v2(conn: Connection, t: Tables) -> None:
    """Add ``rooms.started`` (rooms in play take their last change as an approximation)."""
    if "started" in {c["name"] for c in inspect(conn).get_columns(t.rooms.name)}:
        return  # made by _v1 from the current definition
    conn.execute(text(f'ALTER TABLE "{t.rooms.name}" ADD COLUMN started FLOAT'))
    conn.execute(update(t.rooms).where(t.rooms.c.status != RoomStatus.LOBBY).values(started=t.rooms.c.updated))


def _v3(conn: Connection, t: Tables) -> None:
    """Add the account tables: accounts, sessions, passkeys, seats owned by accounts, friends, push
    (:mod:`fivedice.web.account_tables`); nothing existing changes."""
    from fivedice.web.account_tables import create_account_tables

    create_account_tables(conn, t)


def _v5(conn: Connection, t: Tables) -> None:
    """Add the profile tables: each account's finished games and ratings (:mod:`fivedice.web.profile_tables`);
    nothing existing changes, and nothing of step 4 is needed (an upgrade from 3 runs it too)."""
    from fivedice.web.profile_tables import create_profile_tables

    create_profile_tables(conn, t)


MIGRATIONS: dict[int, Callable[[Connection, Tables], None]] = {1: _v1, 2: _v2, 3: _v3, 5: _v5}
"""Upgrade steps: ``MIGRATIONS[v]`` brings a database from version ``v - 1`` to ``v`` (a number without a
step changes nothing)."""


@dataclass(frozen=True, slots=True)
class SeatRow:
    """A seat: its owner's name (None while open), ``human`` or ``computer``, level, token hash."""

    seat: int
    name: str | None
    kind: SeatKind
    level: str | None
    token: str | None

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", SeatKind(self.kind))  # a database row holds the kind as its text


@dataclass(frozen=True, slots=True)
class MoveRow:
    """One accepted action: ``record`` is its JSON form (``{"type": "undo"}`` takes back the last)."""

    seq: int
    seat: int
    by: str
    record: dict[str, Any]
    at: float


class RoomStatus(enum.StrEnum):
    """Where a room is (the values are those the database holds and the page reads)."""

    LOBBY = "lobby"
    PLAYING = "playing"
    OVER = "over"


@dataclass(frozen=True, slots=True)
class RoomRow:
    """A room as stored: rule-set spec, settings, status (lobby/playing/over), game number, version."""

    code: str
    spec: str
    settings: dict[str, Any]
    status: RoomStatus
    game_no: int
    version: int
    recorded: int
    created: float
    updated: float
    seats: tuple[SeatRow, ...]
    started: float | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "status", RoomStatus(self.status))  # a changed row's status may come as text


class RoomStore:
    """Synchronous access to the room tables (the server calls it from worker threads)."""

    def __init__(self, url: str | None = None, prefix: str = "web_", *, timeout: float = 5.0) -> None:
        self.url = resolve_url(url)
        self.tables = make_tables(prefix)
        self.timeout = timeout
        self.is_sqlite = self.url.startswith("sqlite")
        self.is_postgres = self.url.startswith("postgresql")
        try:
            self.engine: Engine = self._engine()
            self.migrate()
        except DBAPIError as exc:
            raise store_error(exc, timeout, safe_url(self.url)) from None
        # the statements of every move, built once (building them costs more than running them)
        r = self.tables.rooms
        self._lock = select(r.c.version).where(r.c.code == bindparam("code")).with_for_update()

    def _engine(self) -> Engine:
        if not self.is_sqlite:
            args: dict[str, Any] = {}
            if self.is_postgres:  # bound every wait for a lock or a statement (operators' locks included)
                ms = int(self.timeout * 1000)
                given = make_url(self.url).query.get("options", "")
                given = given if isinstance(given, str) else " ".join(given)
                args = {
                    "options": f"{given} -c lock_timeout={ms} -c statement_timeout={2 * ms}".strip(),
                    "connect_timeout": max(1, int(self.timeout)),
                }
            engine = create_engine(
                self.url,
                pool_size=8,
                max_overflow=8,
                pool_recycle=1800,
                pool_pre_ping=True,
                connect_args=args,
                hide_parameters=True,  # an error in the logs never shows a token hash or a name
            )
            if self.is_postgres:

                @event.listens_for(engine, "begin")
                def _bound(conn: Connection) -> None:
                    ms = lock_wait_ms(self.timeout)
                    if ms is not None:  # queued a while: the lock waits only what is left
                        conn.exec_driver_sql(f"SET LOCAL lock_timeout = {ms}")

            return engine
        memory = self.url in ("sqlite://", "sqlite:///:memory:")
        if not memory:
            make_folder(make_url(self.url).database or "", safe_url(self.url))
        kwargs: dict[str, Any] = {
            "connect_args": {"check_same_thread": False, "timeout": self.timeout},
            "hide_parameters": True,  # an error in the logs never shows a token hash or a name
        }
        if memory:
            kwargs["poolclass"] = StaticPool
        engine = create_engine(self.url, **kwargs)

        @event.listens_for(engine, "connect")
        def _connect(dbapi_conn: Any, _record: Any) -> None:
            dbapi_conn.isolation_level = None  # let SQLAlchemy's BEGIN below decide
            cur = dbapi_conn.cursor()
            if not memory:
                cur.execute("PRAGMA journal_mode=WAL")
                cur.execute("PRAGMA synchronous=NORMAL")
            cur.execute("PRAGMA foreign_keys=ON")
            cur.close()

        @event.listens_for(engine, "begin")
        def _begin(conn: Connection) -> None:
            # a lock is waited for only until the call's deadline (the time it queued for a worker counts)
            sqlite_busy(conn.connection.info, conn.connection.driver_connection, self.timeout)
            conn.exec_driver_sql("BEGIN IMMEDIATE")  # one writer at a time, across processes

        return engine

    # -- schema -------------------------------------------------------------------------
    def migrate(self) -> int:
        """Create or upgrade the tables to :data:`SCHEMA_VERSION`; returns the version found before."""
        t = self.tables
        with self.engine.begin() as conn:
            if self.is_postgres:
                conn.execute(text("SELECT pg_advisory_xact_lock(hashtext(:k))"), {"k": t.prefix + "schema"})
            t.meta.create(conn, checkfirst=True)
            found = conn.execute(select(t.meta.c.value).where(t.meta.c.key == "schema")).scalar()
            version = int(found) if found is not None else 0
            if version > SCHEMA_VERSION:
                raise SchemaError(
                    _(
                        "Room database schema {version} is newer than this fivedice supports ({supported}).",
                        version=version,
                        supported=SCHEMA_VERSION,
                    )
                )
            for v in range(version + 1, SCHEMA_VERSION + 1):
                step = MIGRATIONS.get(v)
                if step is not None:
                    step(conn, t)
            if found is None:
                conn.execute(t.meta.insert().values(key="schema", value=str(SCHEMA_VERSION)))
            elif version != SCHEMA_VERSION:
                conn.execute(update(t.meta).where(t.meta.c.key == "schema").values(value=str(SCHEMA_VERSION)))
        return version

    def drop(self) -> None:
        """Drop every room table and the tables beside them under the same prefix (the chat, replays), in
        the order their foreign keys need (tests clean up after themselves with this)."""
        found = MetaData()
        found.reflect(self.engine, only=lambda name, _md: name.startswith(self.tables.prefix))
        found.drop_all(self.engine)

    def dispose(self) -> None:
        """Close the connection pool."""
        self.engine.dispose()

    # -- reading ------------------------------------------------------------------------
    def room(self, code: str, conn: Connection | None = None, *, lock: bool | str = False) -> RoomRow:
        """The room with invite ``code`` and its seats; ``lock`` takes the row lock (in a transaction),
        ``lock="share"`` a shared one: no move can be committed until the transaction ends, so the
        moves read next agree with the version read here."""
        if conn is None:
            with self.engine.begin() as c:
                return self.room(code, c)
        t = self.tables
        query = select(t.rooms).where(t.rooms.c.code == code)
        if lock:
            query = query.with_for_update(read=lock == "share")
        row = conn.execute(query).mappings().first()
        if row is None:
            raise room_not_found(code)
        seats = conn.execute(select(t.seats).where(t.seats.c.code == code).order_by(t.seats.c.seat)).mappings()
        return stored_room(row, seats)

    def moves(self, code: str, game_no: int, after: int = 0, conn: Connection | None = None) -> list[MoveRow]:
        """The moves of game ``game_no`` in room ``code`` with ``seq > after``, in order."""
        if conn is None:
            with self.engine.begin() as c:
                return self.moves(code, game_no, after, c)
        m = self.tables.moves
        rows = conn.execute(
            select(m.c.seq, m.c.seat, m.c.by, m.c.record, m.c.at)
            .where(m.c.code == code, m.c.game_no == game_no, m.c.seq > after)
            .order_by(m.c.seq)
        )
        return [stored_move(*r) for r in rows]

    def codes(self, statuses: tuple[RoomStatus, ...] = (RoomStatus.LOBBY, RoomStatus.PLAYING)) -> list[str]:
        """Invite codes of the rooms in these states."""
        r = self.tables.rooms
        with self.engine.begin() as conn:
            return list(conn.execute(select(r.c.code).where(r.c.status.in_(statuses))).scalars())

    # -- writing ------------------------------------------------------------------------
    def create(self, code: str, spec: str, settings: dict[str, Any], seats: list[SeatRow], *, now: float) -> None:
        """Insert a new room in the lobby with its seats."""
        t = self.tables
        with self.engine.begin() as conn:
            conn.execute(
                t.rooms.insert().values(
                    code=code,
                    spec=spec,
                    settings=json.dumps(settings),
                    status=RoomStatus.LOBBY,
                    game_no=1,
                    version=1,
                    recorded=0,
                    created=now,
                    updated=now,
                )
            )
            conn.execute(
                t.seats.insert(),
                [
                    {
                        "code": code,
                        "seat": s.seat,
                        "name": s.name,
                        "kind": s.kind.value,
                        "level": s.level,
                        "token": s.token,
                    }
                    for s in seats
                ],
            )

    @contextmanager
    def transaction(self, code: str) -> Iterator[Connection]:
        """A transaction holding the room's row lock (read the room with :meth:`room` or :meth:`version`)."""
        with self.engine.begin() as conn:
            yield conn

    def version(self, conn: Connection, code: str) -> int:
        """Lock the room's row and return its version (the cheap check before a write)."""
        found = conn.execute(self._lock, {"code": code}).scalar()
        if found is None:
            raise room_not_found(code)
        return int(found)

    def is_recorded(self, code: str, game_no: int) -> bool:
        """Whether game ``game_no`` of the room is marked as written to the high scores (:meth:`mark_recorded`)."""
        r = self.tables.rooms
        with self.engine.begin() as conn:
            found = conn.execute(select(r.c.recorded).where(r.c.code == code)).scalar()
        return found is not None and found >= game_no

    def mark_recorded(self, code: str, game_no: int) -> None:
        """Mark game ``game_no`` of the room as written to the high scores: only once it is (a process killed
        before leaves it unmarked, and it is recorded again: the score store keeps a game once, by its origin)."""
        r = self.tables.rooms
        with self.engine.begin() as conn:
            conn.execute(update(r).where(r.c.code == code, r.c.recorded < game_no).values(recorded=game_no))

    def unrecorded(self, limit: int = 200) -> list[str]:
        """Invite codes of the rooms whose finished game is not marked as written to the high scores."""
        r = self.tables.rooms
        query = select(r.c.code).where(r.c.status == RoomStatus.OVER, r.c.recorded < r.c.game_no).limit(limit)
        with self.engine.begin() as conn:
            return list(conn.execute(query).scalars())

    # -- the processes sharing the database ---------------------------------------------
    def claim_pubsub(self, name: str, now: float, window: float) -> str:
        """Record that a starting process fans out through ``name`` (``auto``: the stored choice, else the
        default) and return the channel to use; refuse a channel other than the one live processes use.

        The choice is stored with the database (``meta`` keys ``pubsub`` and ``pubsub_seen``, which every
        process refreshes, see :meth:`heartbeat`); a different one is taken only after ``window`` seconds
        without any process confirming the old one."""
        t = self.tables
        with self.engine.begin() as conn:
            if self.is_postgres:
                conn.execute(text("SELECT pg_advisory_xact_lock(hashtext(:k))"), {"k": t.prefix + "pubsub"})
            rows = dict(conn.execute(select(t.meta.c.key, t.meta.c.value).where(t.meta.c.key.like("pubsub%"))).all())
            stored, seen = rows.get("pubsub"), float(rows.get("pubsub_seen") or 0)
            if name == "auto":
                name = stored or ("postgres" if self.is_postgres else "none")
            elif stored is not None and stored != name and now - seen < window:
                raise PubSubError(
                    _(
                        "The server processes of this database announce changes through {stored} (confirmed {ago} s"
                        " ago), not {asked}; start every process with --pubsub {stored} or auto.",
                        stored=stored,
                        ago=f"{max(0.0, now - seen):.0f}",
                        asked=name,
                    )
                )
            self._set_meta(conn, pubsub=name, pubsub_seen=f"{now:.3f}")
        return name

    def heartbeat(self, name: str, now: float) -> str | None:
        """Confirm that a live process uses fan-out ``name``; returns the stored choice (another one means
        this process was silent too long and the processes were restarted on another channel)."""
        t = self.tables
        with self.engine.begin() as conn:
            stored = conn.execute(select(t.meta.c.value).where(t.meta.c.key == "pubsub")).scalar()
            if stored in (None, name):
                self._set_meta(conn, pubsub=name, pubsub_seen=f"{now:.3f}")
                return name
            return str(stored)

    def _set_meta(self, conn: Connection, **values: str) -> None:
        t = self.tables
        for key, value in values.items():
            done = conn.execute(update(t.meta).where(t.meta.c.key == key).values(value=value))
            if done.rowcount == 0:
                conn.execute(t.meta.insert().values(key=key, value=value))

    # -- expiry -------------------------------------------------------------------------
    def expired(self, finished_before: float, idle_before: float, limit: int = 200) -> list[RoomRow]:
        """Rooms over since before ``finished_before`` or still in the lobby, unchanged since before
        ``idle_before`` (without seats); a room with a game in play never expires (its turns may wait days)."""
        r = self.tables.rooms
        query = (
            select(r)
            .where(
                ((r.c.status == RoomStatus.OVER) & (r.c.updated < finished_before))
                | ((r.c.status == RoomStatus.LOBBY) & (r.c.updated < idle_before))
            )
            .limit(limit)
        )
        with self.engine.begin() as conn:
            rows = conn.execute(query).mappings().all()
        return [_room_row(m) for m in rows]

    def delete_room(self, code: str, version: int) -> bool:
        """Delete a room with its seats and moves if it is still at ``version``; True if it was deleted."""
        t = self.tables
        with self.engine.begin() as conn:
            if self.version(conn, code) != version:
                return False
            conn.execute(delete(t.moves).where(t.moves.c.code == code))
            conn.execute(delete(t.seats).where(t.seats.c.code == code))
            conn.execute(delete(t.rooms).where(t.rooms.c.code == code))
        return True


def move_values(code: str, game_no: int, move: MoveRow) -> dict[str, object]:
    """A move's row in the moves table (its record as JSON text)."""
    return {
        "code": code,
        "game_no": game_no,
        "seq": move.seq,
        "seat": move.seat,
        "by": move.by,
        "record": json.dumps(move.record),
        "at": move.at,
    }


def stored_room(room: Mapping[Any, Any], seats: Iterable[Mapping[Any, Any]]) -> RoomRow:
    """A stored room from its row and its seats' rows (mappings of the columns), however they were read."""
    return _room_row(room, tuple(SeatRow(s["seat"], s["name"], s["kind"], s["level"], s["token"]) for s in seats))


def stored_move(seq: int, seat: int, by: str, record: str, at: float) -> MoveRow:
    """A stored move from the columns of its row (the record as JSON text), however they were read."""
    return MoveRow(seq, seat, by, json.loads(record), at)


def _room_row(m: Any, seats: tuple[SeatRow, ...] = ()) -> RoomRow:
    """A stored room's row (a mapping of the rooms table's columns) as a :class:`RoomRow`."""
    return RoomRow(
        code=m["code"],
        spec=m["spec"],
        settings=json.loads(m["settings"]),
        status=RoomStatus(m["status"]),
        game_no=m["game_no"],
        version=m["version"],
        recorded=m["recorded"],
        created=m["created"],
        updated=m["updated"],
        started=m["started"],
        seats=seats,
    )
