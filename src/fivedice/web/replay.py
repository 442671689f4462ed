"""Replays: a finished game as a read-only page anyone with its link can step through.

A replay link (``/replay/{id}``) names a random id stored in its own table (``{prefix}replays``),
never the room's invite code, so sharing a replay does not let anyone into the room. The frames
are the game rebuilt from its stored move log on a :class:`~fivedice.table.Table`, one frame per
accepted move: who acted, the table's event (as a message with fields, translated by the page), the
dice, the cards and totals after it. No rule is decided here or in the page.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Mapping, Sequence
from typing import Any

from fastapi import FastAPI
from fastapi.responses import FileResponse
from sqlalchemy import Column, Float, ForeignKey, Integer, MetaData, String, Table, UniqueConstraint, select, text
from sqlalchemy.exc import IntegrityError

from fivedice.engine.state import GameState, Phase
from fivedice.i18n import _
from fivedice.rules import parse_spec
from fivedice.table.events import Event, EventKind
from fivedice.table.seat import SeatKind
from fivedice.web.db import MoveRow, RoomStatus, RoomStore, SeatRow
from fivedice.web.errors import RoomError, RoomNotFoundError
from fivedice.web.rooms import event_message, new_table, replay_move
from fivedice.web.snapshot import rules_info

__all__ = ["ReplayStore", "add_routes", "frames"]

_ID = re.compile(r"^[A-Za-z0-9_-]{12}$")


def _card(card: Any) -> dict[str, Any]:
    return {
        "entries": list(card.entries),
        "upper_total": card.upper_total,
        "upper_bonus": card.upper_bonus,
        "yahtzee_bonus": card.yahtzee_bonus,
        "total": card.total,
    }


def _frame(state: GameState, event: dict[str, Any] | None, seat: int | None, held: list[int]) -> dict[str, Any]:
    return {
        "seat": seat,
        "event": event,
        "phase": state.phase.value,
        "current": state.current,
        "round": state.round,
        "dice": list(state.dice) if state.dice is not None else None,
        "held": held,
        "rolls_left": state.rolls_left,
        "cards": [[_card(c) for c in cards] for cards in state.cards],
        "totals": list(state.totals),
    }


def frames(
    spec: str,
    names: tuple[str, ...],
    moves: list[MoveRow],
    seats: Sequence[SeatRow] = (),
    settings: Mapping[str, Any] | None = None,
    key: bytes | None = None,
) -> dict[str, Any]:
    """The game of ``moves`` as frames: the start, then one frame after each move (undos included), each
    with the table's event of that move (a message with fields); ``key`` is the server's secret that seals
    a challenge's dice.

    >>> from fivedice.web.db import MoveRow
    >>> moves = [MoveRow(1, 0, "seat", {"type": "rolloff", "seat": 0, "dice": [6, 6, 6, 6, 5]}, 0.0)]
    >>> data = frames("yacht", ("Ann", "Bob"), moves)
    >>> len(data["frames"]), data["frames"][1]["event"]["msg"]
    (2, '{player} rolls off: {dice} ({total}).')
    """
    rules = parse_spec(spec)
    if not seats:
        seats = [SeatRow(i, name, SeatKind.HUMAN, None, None) for i, name in enumerate(names)]
    table = new_table(rules, seats, settings or {}, None, key)
    heard: list[Event] = []
    table.listen(heard.append)
    out = [_frame(table.state, None, None, [])]
    for move in moves:
        heard.clear()
        fresh = replay_move(table, move)
        if fresh is not table:
            table.unlisten(heard.append)
            fresh.listen(heard.append)
            table = fresh
        main = [e for e in heard if e.kind not in (EventKind.TURN, EventKind.STAND_IN)] or heard
        event = event_message(main[0], rules) if main else None
        held = [int(p) for p in move.record.get("held", [])] if move.record.get("type") == "roll" else []
        out.append(_frame(table.state, event, move.seat, held))
    game = table.game
    state = game.state
    return {
        "rules": rules_info(rules),
        "players": list(names),
        "frames": out,
        "standings": [{"place": s.place, "seat": s.seat, "name": s.name, "total": s.total} for s in state.standings()]
        if state.phase is Phase.OVER
        else None,
    }


class ReplayStore:
    """Replay ids for finished games, in their own table beside the room tables."""

    def __init__(self, store: RoomStore) -> None:
        self.store = store
        prefix = store.tables.prefix
        self.metadata = MetaData()
        self.table = Table(
            f"{prefix}replays",
            self.metadata,
            Column("id", String(16), primary_key=True),
            Column("code", String(16), ForeignKey(store.tables.rooms.c.code, ondelete="CASCADE"), nullable=False),
            Column("game_no", Integer, nullable=False),
            Column("created", Float, nullable=False),
            UniqueConstraint("code", "game_no", name=f"{prefix}replays_game"),
        )
        with store.engine.begin() as conn:
            if store.is_postgres:
                conn.execute(text("SELECT pg_advisory_xact_lock(hashtext(:k))"), {"k": prefix + "replays"})
            self.metadata.create_all(conn, checkfirst=True)

    def share(self, code: str, game_no: int, *, now: float) -> str:
        """The replay id of game ``game_no`` of room ``code`` (made on first asking; the same id after)."""
        r = self.table
        for _attempt in range(5):
            with self.store.engine.begin() as conn:
                found = conn.execute(select(r.c.id).where(r.c.code == code, r.c.game_no == game_no)).scalar()
                if found is not None:
                    return str(found)
            try:
                with self.store.engine.begin() as conn:
                    new = secrets.token_urlsafe(9)
                    conn.execute(r.insert().values(id=new, code=code, game_no=game_no, created=now))
                    return new
            except IntegrityError:  # another request shared it at the same moment (or an id collided)
                continue
        raise RoomError(_("Could not make a replay link; try again."))  # pragma: no cover

    def find(self, replay: str) -> tuple[str, int]:
        """The room code and game number of a replay id; raises :class:`RoomNotFoundError`."""
        if _ID.match(replay):
            with self.store.engine.begin() as conn:
                row = conn.execute(
                    select(self.table.c.code, self.table.c.game_no).where(self.table.c.id == replay)
                ).first()
            if row is not None:
                return str(row.code), int(row.game_no)
        raise RoomNotFoundError(_("Replay {id!r} does not exist; check the link.", id=replay[:20]))


def add_routes(app: FastAPI, service: Any, replays: ReplayStore, page: Any) -> None:
    """``POST /api/rooms/{code}/replay`` (share a finished game), ``GET /api/replays/{id}``, ``GET /replay/{id}``."""

    @app.post("/api/rooms/{code}/replay")
    async def share(code: str, game: int | None = None) -> dict[str, Any]:
        room = await service.room(code)
        number = game or room.row.game_no
        if number < 1 or number > room.row.game_no or (number == room.row.game_no and room.status != RoomStatus.OVER):
            raise RoomError(
                _(
                    "Game {game} of room {code!r} is not over; a replay is for a finished game.",
                    game=number,
                    code=room.code,
                )
            )
        replay = await service.db(lambda: replays.share(room.code, number, now=service.clock()))
        return {"id": replay, "link": f"/replay/{replay}"}

    @app.get("/api/replays/{replay}")
    async def replay_data(replay: str) -> dict[str, Any]:
        code, number = await service.db(replays.find, replay)
        room = await service.room(code)
        moves = await service.db(service.store.moves, code, number)
        data = await service.db(frames, room.spec, room.names, moves, room.seats, room.settings, room.key)
        return {"id": replay, "game_no": number, **data}

    @app.get("/replay/{replay}", include_in_schema=False)
    async def replay_page(replay: str) -> FileResponse:
        return FileResponse(page, media_type="text/html")
