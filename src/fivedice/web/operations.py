"""The room service's HTTP operations: open a room, join one, rename seats, read a game's stored moves.

:class:`RoomOperations` is a mixin of :class:`~fivedice.web.service.RoomService`: each operation is one
change of the room, committed to the database and then broadcast like every other (``_change``).
"""

from __future__ import annotations

import asyncio
import dataclasses
import secrets
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from sqlalchemy.exc import IntegrityError

from fivedice.i18n import N_, _
from fivedice.players.levels import check_level
from fivedice.rules import BUILTINS, get
from fivedice.rules.ruleset import normalize_name
from fivedice.table.challenge import challenge_code, check_open
from fivedice.table.seat import SeatKind
from fivedice.web.db import RoomStatus, RoomStore, SeatRow
from fivedice.web.decisions import Change, Decide
from fivedice.web.errors import RoomError, RoomNotFoundError
from fivedice.web.models import CreateRoom, JoinRoom
from fivedice.web.names import looks_alike
from fivedice.web.presence import hash_token, notice
from fivedice.web.rooms import Room, new_code
from fivedice.web.specs import unknown_rules

__all__ = ["RoomOperations"]


class RoomOperations:
    """Opening and joining rooms, renaming seats, reading stored moves (a mixin of the room service)."""

    store: RoomStore
    clock: Callable[[], float]

    if TYPE_CHECKING:

        async def room(self, code: str) -> Room: ...
        async def db(self, fn: Callable[..., Any], *args: Any) -> Any: ...
        async def _change(self, room: Room, seat: int, by: str, decide: Decide) -> Any: ...
        async def _message(self, room: Room, message: dict[str, Any]) -> None: ...
        def _refresh(self, room: Room) -> bool: ...
        def _broadcast(self, room: Room) -> None: ...

    async def create(self, req: CreateRoom) -> dict[str, Any]:
        """Open a room in the lobby; the creator takes seat 0 and gets its secret token."""
        key = normalize_name(req.rules)
        if key not in BUILTINS:
            raise unknown_rules(req.rules)  # the sentence every unknown name gets (never a file)
        rules = get(key, **req.options)
        # one sentence for a level that cannot play these rules, never a silent substitute
        levels = await asyncio.to_thread(lambda: [check_level(level, rules) for level in req.computers])
        challenge = check_open(challenge_code(req.challenge)) if req.challenge is not None else None
        tokens = [secrets.token_urlsafe(24) for _i in range(1 + len(req.local))]
        names = [req.name, *req.local]  # the creator and the people playing on the creator's device
        seats = [SeatRow(i, name, SeatKind.HUMAN, None, hash_token(tokens[i])) for i, name in enumerate(names)]
        seats += [SeatRow(i, None, SeatKind.HUMAN, None, None) for i in range(len(seats), req.humans)]
        for n, level in enumerate(levels, 1):
            seats.append(SeatRow(len(seats), f"Computer {n}", SeatKind.COMPUTER, level, None))
        for i, name in enumerate(names):
            clash = next((s for s in seats[i + 1 :] if s.name and looks_alike(name, s.name)), None)
            if clash is not None and clash.kind == SeatKind.COMPUTER:
                raise RoomError(_("Name {name!r} is taken by a computer seat; choose another.", name=name))
            if clash is not None:
                raise RoomError(_("Name {name!r} is taken by another seat; choose another.", name=name))
        settings: dict[str, Any] = {
            "hints": req.hints,
            "undo": req.undo,
            "timer": req.timer,
            "away": req.away,
            "public": req.public,
        }
        if req.away == "forfeit":
            settings["forfeit_after"] = req.forfeit_after
        if req.first != "rolloff":
            settings["first"] = req.first
        if challenge is not None:
            settings["challenge"] = challenge
        if req.local:
            settings["local"] = len(names)  # seats 0 .. local-1 may be played on one connection
        for _attempt in range(5):
            code = new_code()
            try:
                await self.db(partial(self.store.create, code, rules.spec, settings, seats, now=self.clock()))
                break
            except IntegrityError:
                continue
        else:  # pragma: no cover - 5 collisions among 8.5e11 codes
            raise RoomError(_("Could not find a free invite code; try again."))
        made: dict[str, Any] = {"code": code, "token": tokens[0], "seat": 0, "link": f"/r/{code}"}
        if req.local:
            made["tokens"] = tokens[1:]  # the other seats on this device, 1 .. local-1
        return made

    async def join(self, code: str, req: JoinRoom) -> dict[str, Any]:
        """Take the first open seat (in the lobby) and get its token, or join as a spectator."""
        room = await self.room(code)
        if req.spectator:
            return {"code": room.code, "token": None, "seat": None, "link": f"/r/{room.code}"}
        if req.name is None:
            raise RoomError(_("Joining as a player needs a name; give one, or join as a spectator."))
        name, token = req.name, secrets.token_urlsafe(24)

        def decide(r: Room) -> Change:
            if r.status != RoomStatus.LOBBY:
                raise RoomError(_("Room {code!r} has already started; join it as a spectator.", code=r.code))
            clash = next((n for n in r.names if looks_alike(n, name)), None)
            if clash == name or (clash is not None and clash.casefold() == name.casefold()):
                raise RoomError(
                    _("Name {name!r} is already taken in room {code!r}; choose another.", name=name, code=r.code)
                )
            if clash is not None:
                raise RoomError(
                    _(
                        "Name {name!r} looks like {other!r}, already in room {code!r}; choose another.",
                        name=name,
                        other=clash,
                        code=r.code,
                    )
                )
            free = next((s for s in r.seats if s.kind == SeatKind.HUMAN and s.name is None), None)
            if free is None:
                raise RoomError(_("Room {code!r} is full; join it as a spectator.", code=r.code))
            seats = tuple(
                dataclasses.replace(s, name=name, token=hash_token(token)) if s is free else s for s in r.seats
            )
            return Change(seats=seats, result=free.seat)

        seat = await self._change(room, -1, "join", decide)
        await self._message(room, notice(N_("{who} joined."), who=name))
        return {"code": room.code, "token": token, "seat": seat, "link": f"/r/{room.code}"}

    async def rename_seats(self, code: str, names: dict[int, str]) -> None:
        """Give taken seats new names as one change of the room (an account was deleted: its seats are
        anonymised, its games stay); the room's table is rebuilt so that its events use the new names."""
        room = await self.room(code)

        def decide(r: Room) -> Change:
            changed = {seat: name for seat, name in names.items() if seat < len(r.seats) and r.seats[seat].name}
            seats = tuple(dataclasses.replace(x, name=changed.get(x.seat, x.name)) for x in r.seats)
            return Change(seats=seats)

        await self._change(room, -1, "rename", decide)
        async with room.lock:
            room.invalidate()
            await self.db(self._refresh, room)
            self._broadcast(room)

    async def moves(self, code: str, game: str | None = None) -> dict[str, Any]:
        """A game's stored move log (every accepted action, including undos); ``game`` is its number
        as given in the query (default: the room's current game)."""
        room = await self.room(code)
        last = room.row.game_no
        number = last
        if game is not None:
            number = int(game) if game.isdigit() and len(game) <= 9 else 0
            if not 1 <= number <= last:
                raise RoomNotFoundError(
                    _(
                        "Game {game!r} is not in room {code!r}; expected a game number from 1 to {last}.",
                        game=game[:20],
                        code=room.code,
                        last=last,
                    )
                )
        rows = await self.db(self.store.moves, room.code, number)
        return {
            "code": room.code,
            "game_no": number,
            "spec": room.spec,
            "players": list(room.names),
            "moves": [{"seq": m.seq, "seat": m.seat, "by": m.by, "record": m.record} for m in rows],
        }
