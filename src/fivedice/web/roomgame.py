"""A room's game as one server process holds it: the :class:`~fivedice.table.Table` rebuilt from the stored
move log (:class:`RebuiltTable`), and the functions that build and replay it.

The table decides everything about the game (the roll-off, computer and stand-in moves, the dice tape, the
undo policy, hints, events); the stored moves are the truth it is rebuilt from.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from fivedice.engine import notation
from fivedice.engine.actions import RollOff, Score
from fivedice.i18n import N_
from fivedice.rules import RuleSet
from fivedice.table import BY, Table, UndoPolicy, default_policy
from fivedice.table.events import Event, TurnBegins, message, word
from fivedice.table.seat import Seat, SeatKind
from fivedice.web.db import MoveRow, RoomRow, RoomStatus, SeatRow

__all__ = [
    "EVENTS_KEPT",
    "STARTED",
    "RebuiltTable",
    "SecretsRoller",
    "english_text",
    "event_message",
    "event_text",
    "new_table",
    "replay_move",
    "room_policy",
    "room_seats",
    "table_from_moves",
]

EVENTS_KEPT = 12
"""The table events a room keeps for its snapshot (the page shows the last few)."""
STARTED = N_("The game has started.")
FAIR = 252
"""Random bytes below this are dice (6 x 42); :class:`SecretsRoller` draws again for the others."""


class SecretsRoller:
    """Dice from the operating system's cryptographic generator (:func:`os.urandom`, as :mod:`secrets`)."""

    def roll(self, n: int) -> tuple[int, ...]:
        """Roll ``n`` dice: one read of the generator for all of them (a byte below 252 is a fair die, 42 bytes
        per face; the rare byte above is drawn again), not one read per die."""
        faces: list[int] = []
        while len(faces) < n:
            faces.extend(b % 6 + 1 for b in os.urandom(n - len(faces) + 1) if b < FAIR)
        return tuple(faces[:n])


def event_message(event: Event, rules: RuleSet) -> dict[str, Any]:
    """A table event as the browser gets it: ``{"msg": English text with {fields}, "args": fields}``
    (the one narrator, :func:`fivedice.table.events.message`); ``args["box"]`` is the box's English label,
    translated where the event is shown, like ``msg`` itself."""
    text, args = message(event, rules)
    return {"msg": text, "args": args}


def event_text(event: Mapping[str, Any]) -> str:
    """An event of :func:`event_message` (or a notice) as text in the current language."""
    return word(str(event["msg"]), event.get("args") or {})


def english_text(event: Mapping[str, Any]) -> str:
    """An event or notice in English (the source text filled in), whatever the current language."""
    return str(event["msg"]).format(**(event.get("args") or {}))


def room_seats(seats: Sequence[SeatRow]) -> list[Seat]:
    """The table's seats of a room's stored seats: a computer of its level, or a human playing from elsewhere."""
    return [
        Seat(s.name or f"Seat {s.seat + 1}", SeatKind.COMPUTER, s.level or "greedy")
        if s.kind == SeatKind.COMPUTER
        else Seat(s.name or f"Seat {s.seat + 1}", SeatKind.REMOTE)
        for s in seats
    ]


def room_policy(settings: Mapping[str, Any], players: int) -> UndoPolicy:
    """The undo policy of a room: none where its settings turn undo off, else the table's own policy
    (solitaire: any decision; several players or a challenge: one's own last score before the next roll)."""
    if not settings.get("undo"):
        return UndoPolicy.NONE
    return default_policy(players, settings.get("challenge"))


def new_table(
    rules: RuleSet, seats: Sequence[SeatRow], settings: Mapping[str, Any], roller: object, key: bytes | None = None
) -> Table:
    """A fresh table for a room's game: dice from ``roller`` (or from the room's challenge code, sealed by the
    server's ``key``), a roll-off unless the host starts, and each turn's first roll left to its player
    (the page's Roll button)."""
    return Table(
        rules,
        room_seats(seats),
        rng=roller,
        challenge=settings.get("challenge"),
        challenge_key=key,
        undo=room_policy(settings, len(seats)),
        starter=0 if settings.get("first") == "host" else None,
        auto_first_roll=False,
    )


def replay_move(table: Table, move: MoveRow) -> Table:
    """Carry out one stored move on ``table`` and return the table to go on with: a record (its dice are
    written on the tape), an undo or a redo. An undo that an older server stored and the policy refuses
    (say, of a stand-in's score) takes back the last record only, as it did then, on a rebuilt table."""
    kind = move.record.get("type")
    if kind == "undo":
        if not table.can_undo():
            return _force_undo(table)
        table.undo()
    elif kind == "redo":
        table.redo()
    else:
        table.play(notation.from_json(move.record), move.by if move.by in BY else "seat")
    return table


def _force_undo(table: Table) -> Table:
    line = table.log[:-1]
    fresh = Table(
        table.rules,
        table.seats,
        rng=table.roller,
        challenge=table.challenge,
        challenge_key=table.challenge_key,
        undo=table.policy,
        auto_first_roll=table.auto_first_roll,
        starter=table.game.initial.starter,
    )
    fresh.adopt([r for r, _by in line], by=[b for _r, b in line])
    fresh.undos, fresh.hints = table.undos + 1, table.hints
    return fresh


def table_from_moves(
    rules: RuleSet,
    seats: Sequence[SeatRow],
    settings: Mapping[str, Any],
    moves: Sequence[MoveRow],
    roller: object = None,
    key: bytes | None = None,
) -> Table:
    """A room's game rebuilt from its stored move log (a challenge's dice sealed by the server's ``key``)."""
    table = new_table(rules, seats, settings, roller if roller is not None else SecretsRoller(), key)
    for move in moves:
        table = replay_move(table, move)
    return table


def _events() -> deque[dict[str, Any]]:
    return deque(maxlen=EVENTS_KEPT)


@dataclass(eq=False)
class RebuiltTable:
    """A room's current game, rebuilt from its stored moves: the table, the last stored move's ``seq``, when
    each turn began (for the turn timer), the table's recent events as the browser gets them, and whether
    the table may hold a change that was not committed (``stale``: rebuilt at the next refresh).

    Only :meth:`load`, :meth:`apply` and :meth:`note` change it, from what the database holds; a decision
    plays on :attr:`table` inside the write transaction, and a write that fails marks it stale."""

    rules: RuleSet
    roller: object
    key: bytes | None = None
    """The server's secret that seals its challenges' dice (see :class:`~fivedice.table.tape.ChallengeDice`)."""
    table: Table | None = None
    seq: int = 0
    turn_began: list[float | None] = field(default_factory=list)
    """After each record of the game line: when the turn then under way began (None: when the game did)."""
    ended: list[int] = field(default_factory=list)
    """After each record of the game line: how many turns the line has ended (scores and roll-off rolls)."""
    events: deque[dict[str, Any]] = field(default_factory=_events)
    added: int = 0
    """How many lines were ever added to :attr:`events` (the snapshot makes their text again when it changes)."""
    stale: bool = False
    aim: int | None = None
    """The score the solitaire player's hints play to beat (their best, or a solo challenge's goal): every
    table rebuilt here gets it as :attr:`Table.goal <fivedice.table.Table.goal>`."""

    def load(self, row: RoomRow, moves: Sequence[MoveRow]) -> None:
        """Rebuild the table of ``row``'s current game from all of that game's ``moves`` (none in the lobby)."""
        if self.table is not None:
            self.table.unlisten(self._heard)
        self.table, self.seq, self.stale = None, 0, False
        self.turn_began, self.ended = [], []
        self.events, self.added = _events(), 0
        if row.status != RoomStatus.LOBBY:
            self.apply(row, moves)

    def apply(self, row: RoomRow, moves: Sequence[MoveRow]) -> None:
        """Play the stored ``moves`` after :attr:`seq` of ``row``'s current game (a table is started first
        when the game has just begun)."""
        if self.table is None and row.status != RoomStatus.LOBBY:
            self._listen(new_table(self.rules, row.seats, row.settings, self.roller, self.key))
            self.events.append({"msg": STARTED, "args": {}})  # the first line of every game's events
            self.added += 1
        for move in moves:
            assert self.table is not None
            self._listen(replay_move(self.table, move))
            self.note(move)

    def note(self, move: MoveRow) -> None:
        """Book-keeping for a move already carried out on :attr:`table`: sequence and turn clocks."""
        assert self.table is not None
        line = self.table.game.log
        del self.turn_began[len(line) :], self.ended[len(line) :]
        while len(self.turn_began) < len(line):
            ends_turn = isinstance(line[len(self.turn_began)], Score | RollOff)
            self.turn_began.append(move.at if ends_turn else (self.turn_began[-1] if self.turn_began else None))
            self.ended.append((self.ended[-1] if self.ended else 0) + ends_turn)
        self.seq = move.seq

    def turns_ended(self) -> int:
        """How many turns the game line has ended (scores and roll-off rolls): counted once per stored move
        (:meth:`note`), not by walking the line."""
        return self.ended[-1] if self.ended else 0

    def aim_at(self, goal: int | None) -> None:
        """Let the hints of the current table and of every rebuilt one play to beat ``goal``."""
        self.aim = goal
        if self.table is not None:
            self.table.goal = goal

    def _listen(self, table: Table) -> None:
        if self.table is not table:
            if self.table is not None:
                self.table.unlisten(self._heard)
            table.listen(self._heard)
        table.goal = self.aim  # a rebuilt table (reload, forced undo) plays to the same goal
        self.table = table

    def _heard(self, event: Event) -> None:
        if not isinstance(event, TurnBegins):  # the page shows whose turn it is above the dice
            self.events.append(event_message(event, self.rules))
            self.added += 1
