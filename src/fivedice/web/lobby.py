"""The lobby and what a room keeps beside its game: public rooms to join or watch, the chat and the hints
asked (``{prefix}hints``, so the high scores count them whichever process answered).

The chat is stored in its own table (``{prefix}chat``) before anyone hears a line, so a reload
or another server process shows the same conversation. Public rooms are the rooms created with
``"public": true``: the lobby lists those waiting for players (to join) and those in play (to watch).
These tables are new beside the room tables, never changes to them: an older fivedice ignores them.

>>> from fivedice.web.db import RoomStore, SeatRow
>>> store = RoomStore("sqlite://")
>>> extras = RoomExtras(store)
>>> store.create("ABCD2345", "yacht", {"public": True}, [SeatRow(0, "Ann", "human", None, "x"),
...              SeatRow(1, None, "human", None, None)], now=1.0)
>>> extras.add_chat("ABCD2345", 0, "Ann", "hello", now=2.0)["text"]
'hello'
>>> [line["name"] for line in extras.chat("ABCD2345")]
['Ann']
>>> [(r["code"], r["open"]) for r in extras.public_rooms()]
[('ABCD2345', 1)]
"""

from __future__ import annotations

import json
from typing import Any

from fastapi import FastAPI
from sqlalchemy import Column, Float, ForeignKey, Index, Integer, MetaData, String, Table, delete, select, text

from fivedice.rules import parse_spec
from fivedice.table.seat import SeatKind
from fivedice.web.db import RoomStatus, RoomStore

__all__ = ["CHAT_KEPT", "PUBLIC_LISTED", "RoomExtras", "add_routes"]

CHAT_KEPT = 50
"""Chat lines a room keeps (the latest); older lines are deleted as new ones arrive."""
PUBLIC_LISTED = 30
"""Public rooms the lobby lists at most (the most recently active first)."""


class RoomExtras:
    """The chat and public-room tables beside a :class:`RoomStore` (same database, same name prefix)."""

    def __init__(self, store: RoomStore) -> None:
        self.store = store
        prefix = store.tables.prefix
        self.metadata = MetaData()
        rooms = store.tables.rooms
        self.chat_table = Table(
            f"{prefix}chat",
            self.metadata,
            Column("id", Integer, primary_key=True, autoincrement=True),
            Column("code", String(16), ForeignKey(rooms.c.code, ondelete="CASCADE"), nullable=False),
            Column("seat", Integer, nullable=False),
            Column("name", String(40), nullable=False),
            Column("text", String(400), nullable=False),
            Column("at", Float, nullable=False),
            Index(f"{prefix}chat_code", "code", "id"),
        )
        self.hint_table = Table(
            f"{prefix}hints",
            self.metadata,
            Column("id", Integer, primary_key=True, autoincrement=True),
            Column("code", String(16), ForeignKey(rooms.c.code, ondelete="CASCADE"), nullable=False),
            Column("game_no", Integer, nullable=False),
            Column("seat", Integer, nullable=False),
            Column("move", Integer, nullable=False),
            Index(f"{prefix}hints_game", "code", "game_no"),
        )
        with store.engine.begin() as conn:
            if store.is_postgres:
                conn.execute(text("SELECT pg_advisory_xact_lock(hashtext(:k))"), {"k": prefix + "extras"})
            self.metadata.create_all(conn, checkfirst=True)

    # -- chat -----------------------------------------------------------------------------
    def add_chat(self, code: str, seat: int, name: str, line: str, *, now: float) -> dict[str, Any]:
        """Store one chat line (and forget lines beyond the latest :data:`CHAT_KEPT`); returns the message."""
        c = self.chat_table
        with self.store.engine.begin() as conn:
            conn.execute(c.insert().values(code=code, seat=seat, name=name, text=line, at=now))
            keep = select(c.c.id).where(c.c.code == code).order_by(c.c.id.desc()).limit(CHAT_KEPT).subquery()
            conn.execute(delete(c).where(c.c.code == code, c.c.id.not_in(select(keep.c.id))))
        return {"type": "chat", "seat": seat, "name": name, "text": line, "at": now}

    def chat(self, code: str) -> list[dict[str, Any]]:
        """The room's kept chat lines, oldest first."""
        c = self.chat_table
        with self.store.engine.begin() as conn:
            rows = conn.execute(
                select(c.c.seat, c.c.name, c.c.text, c.c.at)
                .where(c.c.code == code)
                .order_by(c.c.id.desc())
                .limit(CHAT_KEPT)
            ).all()
        return [{"seat": r.seat, "name": r.name, "text": r.text, "at": r.at} for r in reversed(rows)]

    # -- hints --------------------------------------------------------------------------
    def add_hint(self, code: str, game_no: int, seat: int, move: int) -> None:
        """Note that ``seat`` asked for a hint after ``move`` moves of game ``game_no`` (every process sees it)."""
        with self.store.engine.begin() as conn:
            conn.execute(self.hint_table.insert().values(code=code, game_no=game_no, seat=seat, move=move))

    def hints(self, code: str, game_no: int) -> list[tuple[int, int]]:
        """The hints asked in game ``game_no`` of room ``code``: (seat, moves played then), oldest first."""
        h = self.hint_table
        with self.store.engine.begin() as conn:
            rows = conn.execute(
                select(h.c.seat, h.c.move).where(h.c.code == code, h.c.game_no == game_no).order_by(h.c.id)
            ).all()
        return [(int(r.seat), int(r.move)) for r in rows]

    # -- public rooms ---------------------------------------------------------------------
    def public_rooms(self, limit: int = PUBLIC_LISTED) -> list[dict[str, Any]]:
        """Public rooms waiting for players (with an open seat) or in play, the most recently active first."""
        t = self.store.tables
        with self.store.engine.begin() as conn:
            rows = conn.execute(
                select(t.rooms.c.code, t.rooms.c.spec, t.rooms.c.settings, t.rooms.c.status, t.rooms.c.updated)
                .where(
                    t.rooms.c.status.in_((RoomStatus.LOBBY, RoomStatus.PLAYING)),
                    t.rooms.c.settings.like('%"public": true%'),
                )
                .order_by(t.rooms.c.updated.desc())
                .limit(limit * 4)
            ).all()
            codes = [r.code for r in rows]
            seats: dict[str, list[Any]] = {code: [] for code in codes}
            if codes:
                for s in conn.execute(
                    select(t.seats.c.code, t.seats.c.seat, t.seats.c.name, t.seats.c.kind, t.seats.c.level)
                    .where(t.seats.c.code.in_(codes))
                    .order_by(t.seats.c.code, t.seats.c.seat)
                ):
                    seats[s.code].append(s)
        found = []
        for r in rows:
            settings = json.loads(r.settings)
            if settings.get("public") is not True:
                continue
            room_seats = seats[r.code]
            free = sum(1 for s in room_seats if s.kind == SeatKind.HUMAN and s.name is None)
            if r.status == RoomStatus.LOBBY and not free:
                continue
            rules = parse_spec(r.spec)
            found.append(
                {
                    "code": r.code,
                    "rules": {"name": rules.name, "title": rules.title, "spec": rules.spec},
                    "status": r.status,
                    "players": [
                        {"name": s.name, "kind": s.kind, "level": s.level} for s in room_seats if s.name is not None
                    ],
                    "seats": len(room_seats),
                    "open": free,
                    "updated": r.updated,
                    "settings": {key: settings.get(key) for key in ("timer", "away", "forfeit_after")},
                }
            )
            if len(found) >= limit:
                break
        return found


def add_routes(app: FastAPI, extras: RoomExtras, run: Any) -> None:
    """``GET /api/lobby``: the public rooms. ``run`` runs a database call the way the service does."""

    @app.get("/api/lobby")
    async def lobby() -> dict[str, Any]:
        return {"rooms": await run(extras.public_rooms)}
