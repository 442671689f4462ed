"""A room as one server process holds it: the stored room plus its game rebuilt from the move log.

:class:`Room` is mutable and guarded by its ``lock``; it is only ever brought up to date
from the database (:meth:`Room.load`, :meth:`Room.apply`), never changed ahead of a
commit. :meth:`Room.snapshot` is the JSON every client of the room receives: the engine's
own state and ``options()``, so the browser shows points without knowing any rule.
"""

from __future__ import annotations

import asyncio
import json
import secrets
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from fivedice import notation
from fivedice.actions import Score
from fivedice.dice import DiceRoller
from fivedice.game import Game
from fivedice.i18n import N_, _
from fivedice.rules import RuleSet, parse_spec
from fivedice.scorecard import Scorecard
from fivedice.state import Phase
from fivedice.web.db import MoveRow, RoomRow, SeatRow
from fivedice.web.limits import TokenBucket

__all__ = [
    "CODE_ALPHABET",
    "Client",
    "Room",
    "SecretsRoller",
    "describe_move",
    "english_text",
    "event_text",
    "move_event",
    "new_code",
]

CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
"""Invite codes avoid letters and digits that look alike (0/O, 1/I/L)."""

EVENTS_KEPT = 12


def new_code(length: int = 8) -> str:
    """A fresh random invite code (31**8, about 8.5e11 codes)."""
    return "".join(secrets.choice(CODE_ALPHABET) for _i in range(length))


class SecretsRoller:
    """Dice from the operating system's cryptographic generator (:mod:`secrets`)."""

    def roll(self, n: int) -> tuple[int, ...]:
        """Roll ``n`` dice."""
        return tuple(secrets.randbelow(6) + 1 for _i in range(n))


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


def move_event(names: tuple[str, ...], move: MoveRow, labels: Mapping[str, str] | None = None) -> dict[str, Any]:
    """A move as a language-neutral event: ``{"msg": English text with {fields}, "args": fields}``
    (and ``"more"``, a second text, for a move the timer made). ``args["box"]`` is the box's English label,
    translated where the event is shown, like ``msg`` itself."""
    who = names[move.seat] if 0 <= move.seat < len(names) else str(move.seat + 1)
    rec = move.record
    kind = rec.get("type")
    dice = " ".join(map(str, rec.get("dice", [])))
    if kind == "undo":
        event: dict[str, Any] = {"msg": N_("{who} takes back their last score."), "args": {"who": who}}
    elif kind == "rolloff":
        total = sum(rec.get("dice", []))
        event = {"msg": N_("{who} rolls off: {dice} ({total})."), "args": {"who": who, "dice": dice, "total": total}}
    elif kind == "roll" and rec.get("held"):
        kept = len(rec.get("held", []))
        event = {"msg": N_("{who} rolls {dice}, keeping {kept}."), "args": {"who": who, "dice": dice, "kept": kept}}
    elif kind == "roll":
        event = {"msg": N_("{who} rolls {dice}."), "args": {"who": who, "dice": dice}}
    else:
        name = str(rec.get("box", ""))
        box = (labels or {}).get(name, name.replace("_", " "))
        event = {
            "msg": N_("{who} scores {points} in {box}."),
            "args": {"who": who, "points": rec.get("points"), "box": box},
        }
    if move.by == "timer":
        event["more"] = N_("(time ran out: the computer played)")
    return event


def event_text(event: Mapping[str, Any]) -> str:
    """An event of :func:`move_event` (or a notice) as text in the current language."""
    args = dict(event.get("args") or {})
    if "box" in args:
        args["box"] = _(str(args["box"]))
    text = _(str(event["msg"]), **args)
    more = event.get("more")
    return f"{text} {_(str(more))}" if more else text


def english_text(event: Mapping[str, Any]) -> str:
    """An event or notice in English (the source text filled in), whatever the current language."""
    text = str(event["msg"]).format(**(event.get("args") or {}))
    more = event.get("more")
    return f"{text} {more}" if more else text


def describe_move(names: tuple[str, ...], move: MoveRow, labels: Mapping[str, str] | None = None) -> str:
    """A move as one line of text in the current language."""
    return event_text(move_event(names, move, labels))


class Room:
    """A room and its game, rebuilt from the stored move log."""

    def __init__(self, row: RoomRow, moves: list[MoveRow], roller: DiceRoller) -> None:
        self.code = row.code
        self.spec = row.spec
        self.rules: RuleSet = parse_spec(row.spec)
        self._labels = {b.name: b.label for b in self.rules.boxes}
        self.roller = roller
        self.lock = asyncio.Lock()
        self.clients: set[Client] = set()
        self.presence: dict[str, frozenset[int]] = {}
        """Seats online through other server processes, by process."""
        self.watchers: dict[str, tuple[str | None, ...]] = {}
        """Spectators connected to other server processes (their names), by process."""
        self.buckets: dict[int, TokenBucket] = {}
        """Each seat's message budget, shared by all of that seat's connections to this process."""
        self.driving = False
        self.recording = False
        self.notified_timeout: tuple[int, int] | None = None
        self.analysis: tuple[tuple[int, str], dict[str, Any] | None] | None = None
        self._snapshot: tuple[tuple[int, int], str] | None = None
        self._presence_rev = 0
        self.load(row, moves)

    # -- bringing the room up to date -------------------------------------------------
    def load(self, row: RoomRow, moves: list[MoveRow]) -> None:
        """Take the stored room and rebuild its current game from all of that game's ``moves``."""
        self.row = row
        self.stale = False
        self._cards: dict[int, tuple[Scorecard, dict[str, Any]]] = {}
        self.game: Game | None = None
        self.movers: list[int] = []
        self.turn_began: list[float | None] = []
        """After each move still in effect: when the turn then under way began (None: when the game did)."""
        self.seq = 0
        self.events: deque[dict[str, Any]] = deque(maxlen=EVENTS_KEPT)
        if row.status != "lobby":
            self.game = Game(self.rules, self.names, self.roller)
            for move in moves:
                self._push(move)
        self._snapshot = None

    def apply(self, row: RoomRow, moves: list[MoveRow]) -> None:
        """Take the stored room and the moves after :attr:`seq` of the same game."""
        self.row = row
        if self.game is None and row.status != "lobby":
            self.game = Game(self.rules, self.names, self.roller)
        for move in moves:
            self._push(move)
        self._snapshot = None

    def needs_reload(self, row: RoomRow) -> bool:
        """Whether ``row`` starts a different game than the one held (a rematch, or a failed write)."""
        return self.stale or row.game_no != self.row.game_no

    def _push(self, move: MoveRow) -> None:
        assert self.game is not None
        if move.record.get("type") == "undo":
            self.game.undo(1)
        else:
            self.game.push(notation.from_json(move.record))
        self.note(move)

    def note(self, move: MoveRow) -> None:
        """Book-keeping for a move already applied to :attr:`game`: sequence, movers and events."""
        kind = move.record.get("type")
        if kind == "undo":
            self.movers.pop()
            self.turn_began.pop()
        else:
            self.movers.append(move.seat)
            ends_turn = kind in ("score", "rolloff")
            self.turn_began.append(move.at if ends_turn else (self.turn_began[-1] if self.turn_began else None))
        self.seq = move.seq
        self.events.append(move_event(self.names, move, self._labels))

    def invalidate(self) -> None:
        """Force a full reload at the next refresh (after a write that may have half-applied)."""
        self.stale = True

    # -- reading ------------------------------------------------------------------------
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
    def status(self) -> str:
        """``lobby``, ``playing`` or ``over``."""
        return self.row.status

    @property
    def settings(self) -> dict[str, Any]:
        """Hints, undo, timer and away policy."""
        return self.row.settings

    @property
    def deadline(self) -> float | None:
        """When the current turn's time runs out (epoch seconds), or None without a timer: a fixed
        time after the turn began (the previous score, or the game's start), whatever is done meanwhile."""
        timer = self.settings.get("timer")
        if not timer or self.status != "playing":
            return None
        began = self.turn_began[-1] if self.turn_began else None
        if began is None:
            began = self.row.started if self.row.started is not None else self.row.updated
        return float(began + timer)

    def current_seat(self) -> SeatRow | None:
        """The seat to act, or None outside play."""
        if self.game is None or self.status != "playing" or self.game.is_over:
            return None
        return self.row.seats[self.game.state.current]

    def last_score_by(self) -> int | None:
        """The seat whose score is the game's last action (what undo would take back), else None."""
        if self.game is None or not self.game.log or not isinstance(self.game.log[-1], Score):
            return None
        return self.movers[-1]

    def online(self) -> set[int]:
        """Seats with a live connection to any server process."""
        seats = {c.seat for c in self.clients if c.seat is not None}
        for other in self.presence.values():
            seats |= other
        return seats

    def spectators(self) -> list[str | None]:
        """The names of everyone watching, on any server process (None for an anonymous spectator)."""
        names = [c.name for c in self.clients if c.seat is None]
        for other in self.watchers.values():
            names.extend(other)
        return sorted(names, key=lambda n: (n is None, (n or "").lower()))

    def presence_message(self) -> str:
        """The small update sent when someone connects or leaves (instead of the whole state)."""
        spectators = self.spectators()
        online = sorted(self.online())
        return json.dumps({"type": "presence", "online": online, "watchers": len(spectators), "spectators": spectators})

    def presence_changed(self) -> None:
        """Someone connected or left: the next snapshot shows it."""
        self._presence_rev += 1

    # -- what clients see ---------------------------------------------------------------
    def snapshot(self) -> str:
        """The room as JSON text, cached per version and presence change."""
        key = (self.row.version, self._presence_rev)
        if self._snapshot is None or self._snapshot[0] != key:
            self._snapshot = (key, json.dumps(self._snapshot_data(), separators=(",", ":")))
        return self._snapshot[1]

    def _snapshot_data(self) -> dict[str, Any]:
        rules = self.rules
        online = self.online()
        return {
            "code": self.code,
            "version": self.row.version,
            "status": self.status,
            "game_no": self.row.game_no,
            "rules": {
                "spec": rules.spec,
                "title": rules.title,
                "dice": rules.dice,
                "rolls": rules.rolls,
                "cards": [c.value for c in rules.cards],
                "upper_bonus": bool(rules.upper_bonus),
                "yahtzee_bonus": rules.yahtzee_bonus,
                "boxes": [{"name": b.name, "label": b.label, "section": b.section} for b in rules.boxes],
            },
            "settings": self.settings,
            "seats": [
                {
                    "seat": s.seat,
                    "name": s.name,
                    "kind": s.kind,
                    "level": s.level,
                    "taken": s.name is not None,
                    "online": s.kind == "computer" or s.seat in online,
                }
                for s in self.row.seats
            ],
            "spectators": self.spectators(),
            "deadline": self.deadline,
            "watchers": len(self.spectators()),
            "game": self._game_data(),
            "events": [english_text(e) for e in self.events],
            "event_keys": list(self.events),
        }

    def _game_data(self) -> dict[str, Any] | None:
        if self.game is None:
            return None
        state = self.game.state
        cards = [[self._card_data(card) for card in seat_cards] for seat_cards in state.cards]
        totals = [sum(card["total"] for card in seat_cards) for seat_cards in cards]
        return {
            "phase": state.phase.value,
            "current": state.current,
            "dice": list(state.dice) if state.dice is not None else None,
            "rolls": state.rolls,
            "rolls_left": state.rolls_left,
            "round": state.round,
            "rounds": state.rules.rounds,
            "rolloff": [list(p) for p in state.rolloff],
            "contenders": list(state.contenders),
            "cards": cards,
            "totals": totals,
            "options": [{"card": c, "box": b, "points": p} for (c, b), p in state.options().items()],
            "standings": [
                {"place": s.place, "seat": s.seat, "name": s.name, "total": s.total} for s in state.standings()
            ]
            if state.phase is Phase.OVER
            else None,
            "undo_by": self.last_score_by() if self.settings.get("undo") and not state.is_over else None,
            "moves": len(self.game.log),
        }

    def _card_data(self, card: Scorecard) -> dict[str, Any]:
        """A card's entries and totals; cards are immutable, so each is computed once."""
        hit = self._cards.get(id(card))
        if hit is not None and hit[0] is card:
            return hit[1]
        data = {
            "order": card.order.value,
            "entries": list(card.entries),
            "upper_total": card.upper_total,
            "upper_bonus": card.upper_bonus,
            "yahtzee_bonus": card.yahtzee_bonus,
            "total": card.total,
        }
        self._cards[id(card)] = (card, data)
        return data
