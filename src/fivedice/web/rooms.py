"""A room as one server process holds it: the stored room, its game's :class:`~fivedice.table.Table`
rebuilt from the stored move log (:class:`~fivedice.web.roomgame.RebuiltTable`), who is connected, and what
the room service has under way for it.

The table decides everything about the game (the roll-off, computer and stand-in moves, the dice tape,
the undo policy, hints, events). A change is decided on the room's table inside the database transaction
that stores it, so the table is changed ahead of the commit; a write that fails marks the room stale
(:meth:`Room.invalidate`) and the next refresh rebuilds the table from the stored moves. Otherwise the room
is only brought up to date from the database (:meth:`Room.load`, :meth:`Room.apply`), under its ``lock``.
:meth:`Room.snapshot` is the JSON every client of the room receives: the engine's own state and
``options()``, and the table's events as messages with fields, so the browser shows points and words
without knowing any rule.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from fivedice.dice import DiceRoller
from fivedice.engine.game import Game
from fivedice.i18n import _
from fivedice.rules import RuleSet, parse_spec
from fivedice.table import Table
from fivedice.table.challenge import ChallengeReport
from fivedice.table.seat import SeatKind
from fivedice.web.db import MoveRow, RoomRow, RoomStatus, SeatRow
from fivedice.web.errors import RoomError
from fivedice.web.limits import TokenBucket
from fivedice.web.roomgame import (
    STARTED,
    RebuiltTable,
    SecretsRoller,
    english_text,
    event_message,
    event_text,
    new_table,
    replay_move,
    room_policy,
    room_seats,
    table_from_moves,
)
from fivedice.web.snapshot import Pieces, SnapshotBuilder, delta
from fivedice.web.timeouts import TurnPolicy, final_places, forfeited, missed_turns

__all__ = [
    "CODE_ALPHABET",
    "STARTED",
    "Client",
    "Found",
    "InFlight",
    "Presence",
    "RebuiltTable",
    "Room",
    "SecretsRoller",
    "ack_members",
    "english_text",
    "event_message",
    "event_text",
    "new_code",
    "new_table",
    "replay_move",
    "room_policy",
    "room_seats",
    "table_from_moves",
]

PIECES_KEPT = 4
"""Snapshots of a room kept (as pieces) to make the deltas of clients a change or two behind."""
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
"""Invite codes avoid letters and digits that look alike (0/O, 1/I/L)."""


def ack_members(ack: dict[str, Any]) -> str:
    """An acknowledgement (:meth:`Room.ack`) as the members it adds to a ``state`` or ``delta`` message (its
    integers written as they are: the encoder took a tenth of a broadcast).

    >>> ack_members({"id": None, "version": 7, "game_no": 1, "seq": 5})
    ',"ack":{"id":null,"version":7,"game_no":1,"seq":5}'
    """
    if all(type(v) is int or v is None for v in ack.values()):
        return ',"ack":{' + ",".join(f'"{k}":{"null" if v is None else v}' for k, v in ack.items()) + "}"
    return ',"ack":' + json.dumps(ack, separators=(",", ":"))


def new_code(length: int = 8) -> str:
    """A fresh random invite code (31**8, about 8.5e11 codes)."""
    return "".join(secrets.choice(CODE_ALPHABET) for _i in range(length))


@dataclass(eq=False)
class Client:
    """One WebSocket connection: its seat (None for a spectator) and its outgoing queue."""

    seat: int | None
    queue: asyncio.Queue[str | None] = field(default_factory=lambda: asyncio.Queue(maxsize=256))
    name: str | None = None
    """A spectator's name (None: an anonymous spectator, or a player)."""
    bucket: TokenBucket | None = None
    """A spectator's own rate budget (a seat's connections share the room's budget for that seat)."""
    close_code: int = 4408
    closing: bool = False
    local: tuple[int, ...] = ()
    """Every seat this connection plays, ``seat`` first, when it plays several on one device (pass and play)."""
    deltas: bool = False
    """The page takes ``delta`` messages after its first whole state (it said so in its hello)."""
    base: tuple[int, int] | None = None
    """The snapshot this connection was last sent (see :attr:`Room.snapshot_key`)."""

    @property
    def seats(self) -> tuple[int, ...]:
        """The seats this connection plays (none for a spectator)."""
        return self.local or (() if self.seat is None else (self.seat,))

    def acting(self, seat: int | None) -> int | None:
        """The seat a message acts for: ``seat`` when the connection plays it (it must, on a connection that
        plays several), else the connection's own seat."""
        if seat is None or seat == self.seat:
            return self.seat
        if seat not in self.local:
            raise RoomError(_("Seat {seat} is not played on this connection.", seat=seat + 1))
        return seat

    @cached_property
    def _head(self) -> str:
        """``"you"`` (its seat) and, playing several, ``"seats"`` (all of them), as JSON members."""
        head = {"you": self.seat} | ({"seats": list(self.local)} if self.local else {})
        return json.dumps(head, separators=(",", ":"))[1:-1]

    def state_message(self, snapshot: str, ack: str = "") -> str:
        """The ``state`` message for this connection: the room, ``you`` (its seat) and, playing several,
        ``seats`` (all of them); ``ack``: the members of :func:`ack_members` when it acknowledges the
        connection's own intent."""
        return '{"type":"state",' + self._head + ack + ',"state":' + snapshot + "}"  # the snapshot as is

    def delta_message(self, since: int, body: str, ack: str = "") -> str:
        """A ``delta`` message for this connection: what changed since the state of version ``since`` it has
        (the members of :func:`fivedice.web.snapshot.delta`), with ``you``, ``seats`` and ``ack`` as in a state."""
        return '{"type":"delta",' + self._head + ack + f',"from":{since},' + body + "}"

    def close(self, code: int) -> None:
        """Close the connection with ``code`` once what is queued has been sent."""
        self.close_code, self.closing = code, True
        try:
            self.queue.put_nowait(None)
        except asyncio.QueueFull:
            while not self.queue.empty():
                self.queue.get_nowait()
            self.queue.put_nowait(None)

    def send(self, text: str) -> bool:
        """Queue ``text``; False if the client is too far behind (it is then dropped)."""
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            return False
        return True


@dataclass(eq=False)
class Presence:
    """Who is in a room: this process's connections, the seats and spectators that the other server processes
    report, and each seat's message budget on this process."""

    clients: set[Client] = field(default_factory=set)
    """This process's connections to the room."""
    elsewhere: dict[str, frozenset[int]] = field(default_factory=dict)
    """Seats online through other server processes, by process."""
    watchers: dict[str, tuple[str | None, ...]] = field(default_factory=dict)
    """Spectators connected to other server processes (their names), by process."""
    buckets: dict[int, TokenBucket] = field(default_factory=dict)
    """Each seat's message budget, shared by all of that seat's connections to this process."""
    revision: int = 0
    """Counts the changes of presence (a room's snapshot is cached per version and presence revision)."""

    def online(self) -> set[int]:
        """Seats with a live connection to any server process."""
        seats = {seat for c in self.clients for seat in c.seats}
        for other in self.elsewhere.values():
            seats |= other
        return seats

    def spectators(self) -> list[str | None]:
        """The names of everyone watching, on any server process (None for an anonymous spectator)."""
        names = [c.name for c in self.clients if c.seat is None]
        for other in self.watchers.values():
            names.extend(other)
        return sorted(names, key=lambda n: (n is None, (n or "").lower()))

    def message(self) -> str:
        """The small update sent when someone connects or leaves (instead of the whole state)."""
        spectators = self.spectators()
        online = sorted(self.online())
        return json.dumps({"type": "presence", "online": online, "watchers": len(spectators), "spectators": spectators})

    def changed(self) -> None:
        """Someone connected or left (or a look-up found something to show): the next snapshot shows it."""
        self.revision += 1


def _done() -> asyncio.Event:
    done = asyncio.Event()
    done.set()
    return done


@dataclass(eq=False)
class InFlight:
    """What this process has under way for a room: flags the room service and its driver set and clear (the
    room itself never reads them to decide anything)."""

    driving: bool = False
    """The room's driver runs (or is about to): computers, stand-ins and the table's own rolls play on."""
    recorded: asyncio.Event = field(default_factory=_done)
    """Cleared while the finished game is put into the high scores (see :attr:`recording`)."""
    notified_timeout: tuple[int, int] | None = None
    """The ``(game number, turns scored)`` whose running-out turn timer the room was told of (once a turn)."""
    goal_pending: bool = False
    """A solo challenge's goal is being (or was) looked up."""
    best_for: int | None = None
    """The game number whose best was looked up (once per game and room load)."""

    @property
    def recording(self) -> bool:
        """Whether this process is putting the finished game into the high scores right now."""
        return not self.recorded.is_set()

    @recording.setter
    def recording(self, value: bool) -> None:
        if value:
            self.recorded.clear()
        else:
            self.recorded.set()

    async def until_recorded(self, timeout: float = 5.0) -> None:
        """Wait (at most ``timeout`` seconds) while the finished game is being recorded: what comes next
        (a leaderboard, the player's best) should include it."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.recorded.wait(), timeout)


@dataclass(eq=False)
class Found:
    """What the room service looked up for a room: shown in its snapshot (``goal``, ``best``) or kept for
    whoever asks again (the analysis and the challenge report of a finished game)."""

    goal: dict[str, Any] | None = None
    """A solo challenge's goal: what the benchmark player scored on the same dice (``total``, ``level``)."""
    best: int | None = None
    """The solo player's best total under these rules (from the high scores), for "Beat your best"."""
    analysis: tuple[tuple[int, str], dict[str, Any] | None] | None = None
    """The analysis of a finished game, by game number and language."""
    challenge: tuple[int, ChallengeReport] | None = None
    """The challenge report of a finished game, by game number (worded in each reader's language)."""


class Room:
    """A room as this process holds it, in typed parts: the stored room (:attr:`row`, replaced whole from the
    database), its game's table rebuilt from the stored moves (:attr:`line`), who is connected
    (:attr:`presence`), what the room service and its driver have under way for it (:attr:`flags`), and what
    the service looked up for it (:attr:`found`).

    A change is decided on the room's table inside the write transaction that stores it (so the table may
    run ahead of the database until that transaction ends); a failed write marks the table stale, and the
    next refresh rebuilds it from the stored moves (:meth:`load`). Everything else follows the database.
    Changes are made under :attr:`lock`."""

    def __init__(self, row: RoomRow, moves: list[MoveRow], roller: DiceRoller, key: bytes | None = None) -> None:
        self.code = row.code
        self.key = key
        """The server's secret that seals its challenges' dice (see :class:`~fivedice.table.tape.ChallengeDice`)."""
        self.rules: RuleSet = parse_spec(row.spec)
        self.lock = asyncio.Lock()
        self.row = row
        self.line = RebuiltTable(self.rules, roller, key)
        self.presence = Presence()
        self.flags = InFlight()
        self.found = Found()
        self._policy: tuple[object, TurnPolicy] | None = None
        self._builder = SnapshotBuilder(self.rules)
        self._pieces: dict[tuple[int, int], Pieces] = {}
        self._deltas: dict[tuple[tuple[int, int], tuple[int, int]], str] = {}
        self.load(row, moves)

    # -- bringing the room up to date -------------------------------------------------
    def load(self, row: RoomRow, moves: list[MoveRow]) -> None:
        """Take the stored room and rebuild its current game's table from all of that game's ``moves``."""
        self.row = row
        self.line.load(row, moves)
        self._pieces.clear()  # a rebuilt game: every client gets the whole state next
        self._deltas.clear()

    def apply(self, row: RoomRow, moves: list[MoveRow]) -> None:
        """Take the stored room and the moves after :attr:`seq` of the same game."""
        self.row = row
        self.line.apply(row, moves)
        self._pieces.pop(self.snapshot_key, None)
        self._deltas.clear()

    def needs_reload(self, row: RoomRow) -> bool:
        """Whether ``row`` starts a different game than the one held (a rematch, or a failed write)."""
        return self.line.stale or row.game_no != self.row.game_no

    def note(self, move: MoveRow) -> None:
        """Book-keeping for a move already carried out on :attr:`table`: sequence and turn clocks."""
        self.line.note(move)

    def lose(self, row: RoomRow) -> None:
        """A write that seemed done was rolled back after all (its group's commit failed): the room is at ``row``
        (as before that write: its snapshot, if made, is the one still shown) and its table is rebuilt at the next
        refresh."""
        self.row = row
        self.invalidate()

    def invalidate(self) -> None:
        """Force a full reload at the next refresh (after a write that may have half-applied)."""
        self.line.stale = True

    def aim_at(self, goal: int | None) -> None:
        """Let the hints of this room's tables (the current one and every rebuilt one) play to beat ``goal``."""
        self.line.aim_at(goal)

    # -- reading ------------------------------------------------------------------------
    @property
    def table(self) -> Table | None:
        """The current game's table (None in the lobby)."""
        return self.line.table

    @property
    def seq(self) -> int:
        """The last stored move of the current game that the table holds."""
        return self.line.seq

    @property
    def stale(self) -> bool:
        """Whether the table may hold a change that was not committed (it is rebuilt at the next refresh)."""
        return self.line.stale

    @property
    def spec(self) -> str:
        """The rule set's spec, as stored."""
        return self.row.spec

    @property
    def version(self) -> int:
        """The stored version this process last saw."""
        return self.row.version

    @property
    def seats(self) -> tuple[SeatRow, ...]:
        """The stored seats."""
        return self.row.seats

    @property
    def names(self) -> tuple[str, ...]:
        """Every seat's name (open seats as ``Seat N``)."""
        return tuple(s.name or f"Seat {s.seat + 1}" for s in self.row.seats)

    @property
    def status(self) -> RoomStatus:
        """``lobby``, ``playing`` or ``over``."""
        return self.row.status

    @property
    def settings(self) -> dict[str, Any]:
        """Hints, undo, timer and away policy."""
        return self.row.settings

    @property
    def policy(self) -> TurnPolicy:
        """The room's turn timer and what happens when a turn's time runs out (read once per settings: a row's
        settings are replaced, never changed in place)."""
        settings = self.settings
        if self._policy is None or self._policy[0] is not settings:
            self._policy = (settings, TurnPolicy.of(settings))
        return self._policy[1]

    def missed(self, seat: int) -> int:
        """How many turns of the current game ``seat`` missed (the stand-in played them)."""
        return missed_turns(self.table, seat) if self.table is not None else 0

    def forfeited(self) -> list[int]:
        """The seats that forfeited the current game (the ``forfeit`` policy)."""
        policy = self.policy
        return [s.seat for s in self.row.seats if forfeited(policy, self.table, s.seat)]

    @property
    def deadline(self) -> float | None:
        """When the current turn's time runs out (epoch seconds), or None without a timer: a fixed
        time after the turn began (the previous score, or the game's start), whatever is done meanwhile;
        a seat that forfeited has no time at all (its turns are played at once)."""
        timer = self.settings.get("timer")
        if not timer or self.status != RoomStatus.PLAYING:
            return None
        turn_began = self.line.turn_began
        began = turn_began[-1] if turn_began else None
        if began is None:
            began = self.row.started if self.row.started is not None else self.row.updated
        current = self.current_seat()
        if current is not None and forfeited(self.policy, self.table, current.seat):
            return float(began)
        return float(began + timer)

    @property
    def solo(self) -> bool:
        """Whether one person plays alone, outside a challenge (the page shows their best, to beat)."""
        return (
            len(self.row.seats) == 1 and self.row.seats[0].kind == SeatKind.HUMAN and not self.settings.get("challenge")
        )

    @property
    def game(self) -> Game | None:
        """The game line of the room's table (None in the lobby)."""
        return self.table.game if self.table is not None else None

    def current_seat(self) -> SeatRow | None:
        """The seat to act, or None outside play."""
        if self.table is None or self.status != RoomStatus.PLAYING or self.table.is_over:
            return None
        return self.row.seats[self.table.state.current]

    def undo_by(self) -> int | None:
        """The seat that may take back a decision now (its own last score), else None."""
        table = self.table
        if table is None or self.status != RoomStatus.PLAYING or not table.can_undo():
            return None
        return next((s.seat for s in self.row.seats if s.kind == SeatKind.HUMAN and table.can_undo(s.seat)), None)

    def redo_by(self) -> int | None:
        """The seat that may redo what it took back, else None."""
        table = self.table
        if table is None or self.status != RoomStatus.PLAYING or table.why_not_redo() is not None:
            return None
        return table.state.current

    # -- what clients see ---------------------------------------------------------------
    @property
    def snapshot_key(self) -> tuple[int, int]:
        """What a snapshot of the room shows, as a key: its version and presence revision."""
        return (self.row.version, self.presence.revision)

    def pieces(self) -> Pieces:
        """The room's snapshot as :class:`~fivedice.web.snapshot.Pieces`, cached per version and presence change
        (the last few are kept, for the deltas of the clients that have them)."""
        key = self.snapshot_key
        found = self._pieces.get(key)
        if found is None:
            found = self._pieces[key] = self._builder.build(self)
            while len(self._pieces) > PIECES_KEPT:
                del self._pieces[next(iter(self._pieces))]
        return found

    def snapshot(self) -> str:
        """The room as JSON text (:class:`~fivedice.web.messages.RoomSnapshot`): its :meth:`pieces` joined."""
        return self.pieces().text()

    def message_for(self, client: Client, ack: str = "") -> str:
        """The room now, for ``client``: a ``delta`` from the snapshot it has if it takes deltas and that snapshot
        is still known, else the whole ``state``; ``ack`` (:func:`ack_members`) rides in it when it is the
        answer to the client's own intent."""
        key = self.snapshot_key
        base = client.base
        client.base = key
        if client.deltas and base is not None and base in self._pieces and base != key:
            body = self._deltas.get((base, key))
            if body is None:
                if len(self._deltas) >= PIECES_KEPT:
                    self._deltas.clear()
                body = self._deltas[(base, key)] = delta(self._pieces[base], self.pieces())
            return client.delta_message(base[0], body, ack)
        return client.state_message(self.snapshot(), ack)

    def ack(self, msg_id: int | None) -> dict[str, Any]:
        """The acknowledgement of an intent that made the room's current version (:class:`~fivedice.web.messages.
        AckData`)."""
        return {"id": msg_id, "version": self.row.version, "game_no": self.row.game_no, "seq": self.seq}

    def turn(self) -> str | None:
        """The current turn's id while the game is played: the game number and how many turns the game line
        has ended (scores and roll-off rolls), so it stays the same between a turn's rolls and comes back when
        a score is taken back; the page keeps the dice kept within one turn by it."""
        if self.table is None or self.status != RoomStatus.PLAYING:
            return None
        return f"{self.row.game_no}:{self.line.turns_ended()}"

    def standings(self, out: set[int] | None = None) -> list[dict[str, Any]]:
        """The final ranking: the engine's, with the seats that forfeited (``out``, else :meth:`forfeited`) after
        every other player, in the places the high scores and profiles record
        (:func:`~fivedice.web.timeouts.final_places`)."""
        assert self.table is not None
        out = set(self.forfeited()) if out is None else out
        places = final_places(self.policy, self.table)
        rows: list[dict[str, Any]] = [
            {"place": places[s.seat], "seat": s.seat, "name": s.name, "total": s.total}
            | ({"forfeited": True} if s.seat in out else {})
            for s in self.table.state.standings()
        ]
        return sorted(rows, key=lambda r: r["seat"] in out)  # stable: the engine's order within each group
