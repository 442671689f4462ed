"""My games: the rooms where an account owns a seat, whose turn it is in each, and the invitations waiting.

``GET /api/me/games`` answers ``{"games": [...], "invites": [...], "your_turns": n}``: the games where it is
the account's turn first, then those in play, waiting in the lobby and over, each group by its last
change. Whose turn it is comes from the room's own table, rebuilt from its stored moves as the room
service rebuilds it (:class:`~fivedice.web.rooms.Room`): from this process's room in memory when it is up
to date, else from a summary cached per room version, else rebuilt in a worker thread. So any
signed-in device lists the same games and opens them without the seat's token (:mod:`fivedice.web.seating`).

``PUT /api/me/games/{code}`` ``{"notify": false}`` turns that game's turn notifications off.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from fastapi import APIRouter, Request
from sqlalchemy import select

from fivedice.engine.state import Phase
from fivedice.i18n import _
from fivedice.rules import parse_spec
from fivedice.table.seat import SeatKind
from fivedice.web.account_models import Games, GameSummary, InviteOut, Notify, NotifySet
from fivedice.web.auth import AccountError
from fivedice.web.db import RoomStatus
from fivedice.web.errors import RoomNotFoundError
from fivedice.web.rooms import Room, SecretsRoller
from fivedice.web.service import check_code

if TYPE_CHECKING:
    from fivedice.web.accounts import Accounts
    from fivedice.web.db import MoveRow, RoomRow

__all__ = ["LISTED", "RoomSummary", "Summaries", "router"]

LISTED = 100
"""Games listed at most (the most recently changed); the oldest finished ones drop off first."""
CACHED = 2000
_ORDER: dict[str, int] = {RoomStatus.PLAYING: 0, RoomStatus.LOBBY: 1, RoomStatus.OVER: 2}


@dataclass(frozen=True, slots=True)
class RoomSummary:
    """What the game list says about a room at one version."""

    code: str
    version: int
    game_no: int
    rules: str
    status: str
    names: tuple[str | None, ...]
    kinds: tuple[SeatKind, ...]
    current: int | None
    round: int | None
    rounds: int | None
    updated: float
    deadline: float | None

    @classmethod
    def of(cls, room: Room) -> RoomSummary:
        """The summary of a room brought up to date."""
        seat = room.current_seat()
        game = room.game
        state = game.state if game is not None else None
        playing = seat is not None and state is not None and state.phase is Phase.PLAY
        return cls(
            code=room.code,
            version=room.version,
            game_no=room.row.game_no,
            rules=room.rules.title,
            status=room.status,
            names=tuple(s.name for s in room.seats),
            kinds=tuple(s.kind for s in room.seats),
            current=seat.seat if playing and seat is not None else None,
            round=state.round if state is not None else None,
            rounds=state.rules.rounds if state is not None else None,
            updated=room.row.updated,
            deadline=room.deadline,
        )

    def turn_key(self) -> str | None:
        """What identifies the turn under way (one notification per turn): room, game, round, seat."""
        if self.current is None:
            return None
        return f"{self.code}:{self.game_no}:{self.round}:{self.current}"

    @staticmethod
    def turn_key_of(room: Room) -> str | None:
        """:meth:`turn_key` of ``room``'s summary, without making the summary (a listener asks after every
        action, and the turn seldom changed)."""
        seat, game = room.current_seat(), room.game
        if seat is None or game is None or game.state.phase is not Phase.PLAY:
            return None
        return f"{room.code}:{room.row.game_no}:{game.state.round}:{seat.seat}"


class Summaries:
    """Room summaries for the game lists and the notifications, cached per room version."""

    def __init__(self, accounts: Accounts) -> None:
        self.accounts = accounts
        self.cache: OrderedDict[str, RoomSummary] = OrderedDict()

    def remember(self, summary: RoomSummary) -> RoomSummary:
        """Keep a summary (the least recently used go first past :data:`CACHED`)."""
        self.cache[summary.code] = summary
        self.cache.move_to_end(summary.code)
        while len(self.cache) > CACHED:
            self.cache.popitem(last=False)
        return summary

    async def of(self, code: str, version: int | None = None) -> RoomSummary | None:
        """The summary of room ``code`` at ``version`` (None: the stored one); None if the room is gone."""
        service = self.accounts.service
        room = service.rooms.get(code)
        if room is not None and (version is None or room.version >= version) and not room.stale:
            return self.remember(RoomSummary.of(room))
        hit = self.cache.get(code)
        if hit is not None and version is not None and hit.version == version:
            return hit
        try:
            row, moves = await service.db(self._read, code)
        except RoomNotFoundError:  # expired meanwhile
            return None
        built = await asyncio.to_thread(self._build, row, moves, self.accounts.service.challenge_key)
        return self.remember(built)

    def _read(self, code: str) -> tuple[RoomRow, list[MoveRow]]:
        store = self.accounts.service.store
        with store.engine.begin() as conn:
            row = store.room(code, conn)
            return row, store.moves(code, row.game_no, 0, conn)

    @staticmethod
    def _build(row: RoomRow, moves: list[MoveRow], key: bytes | None) -> RoomSummary:
        return RoomSummary.of(Room(row, moves, SecretsRoller(), key))

    async def games(self, account: int) -> Games:
        """The account's game list (see the module's docstring)."""
        store, db = self.accounts.store, self.accounts.db
        rows, invites = await db(self._listing, account)
        found: list[GameSummary] = []
        for r in rows:
            summary = await self.of(r["code"], r["version"])
            if summary is None:
                continue
            seat = int(r["seat"])
            others = [n for i, n in enumerate(summary.names) if i != seat and n is not None]
            found.append(
                GameSummary(
                    code=summary.code,
                    link=f"/r/{summary.code}",
                    rules=summary.rules,
                    status=summary.status,  # type: ignore[arg-type]
                    your_turn=summary.current == seat,
                    seat=seat,
                    turn=summary.names[summary.current] if summary.current is not None else None,
                    opponents=others,
                    round=summary.round,
                    rounds=summary.rounds,
                    last_move_at=summary.updated,
                    deadline=summary.deadline,
                    notify=bool(r["notify"]),
                    open_seats=sum(
                        1
                        for n, k in zip(summary.names, summary.kinds, strict=True)
                        if k == SeatKind.HUMAN and n is None
                    ),
                )
            )
        found.sort(key=lambda g: (not g.your_turn, _ORDER.get(g.status, 3), -g.last_move_at))
        names = await db(store.names, sorted({int(i["sender"]) for i in invites}))
        waiting = [
            InviteOut(
                code=i["code"],
                link=f"/r/{i['code']}",
                sender=names.get(int(i["sender"]), "?"),
                rules=parse_spec(i["spec"]).title,
                created=i["created"],
            )
            for i in invites
            if int(i["sender"]) in names
        ]
        return Games(games=found, invites=waiting, your_turns=sum(g.your_turn for g in found))

    def _listing(self, account: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        t, rooms = self.accounts.store.t, self.accounts.service.store.tables.rooms
        with self.accounts.store.begin() as conn:
            rows = conn.execute(
                select(t.seats.c.code, t.seats.c.seat, t.seats.c.notify, rooms.c.version)
                .join(rooms, rooms.c.code == t.seats.c.code)
                .where(t.seats.c.account == account)
                .order_by(rooms.c.updated.desc())
                .limit(LISTED)
            ).mappings().all()  # fmt: skip
            invites = conn.execute(
                select(t.invites.c.code, t.invites.c.sender, t.invites.c.created, rooms.c.spec)
                .join(rooms, rooms.c.code == t.invites.c.code)
                .where(t.invites.c.recipient == account, rooms.c.status == RoomStatus.LOBBY)
                .order_by(t.invites.c.created.desc())
                .limit(LISTED)
            ).mappings().all()  # fmt: skip
        return [dict(r) for r in rows], [dict(i) for i in invites]


def router(accounts: Accounts, summaries: Summaries) -> APIRouter:
    """``GET /api/me/games`` and ``PUT /api/me/games/{code}``."""
    api = APIRouter()
    auth = accounts.auth

    @api.get("/api/me/games")
    async def my_games(request: Request) -> Games:
        account, _session = await auth.require(request)
        return await summaries.games(account.id)

    @api.put("/api/me/games/{code}")
    async def notify(request: Request, code: str, body: Notify) -> NotifySet:
        account, _session = await auth.require(request)
        code = check_code(code)
        if not await accounts.db(accounts.store.set_notify, account.id, code, body.notify):
            raise NotYoursError(_("You have no seat in room {code!r}; nothing was changed.", code=code))
        return NotifySet(code=code, notify=body.notify)

    return api


class NotYoursError(AccountError):
    """A game the account plays no part in."""

    status = 404
