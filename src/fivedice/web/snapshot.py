"""The room snapshot as JSON text, built piece by piece, and the delta from an earlier one.

A snapshot is the JSON object of :class:`~fivedice.web.messages.RoomSnapshot` (the contract; the tests check
that every snapshot is exactly what that model prints). It is built here as the JSON text of each of its keys,
and of each key of its ``game``, from pieces that are reused while what they show does not change (the rule
set, the settings, each score card, each event line), without a round trip through the models (which took a
third of the time of building a snapshot).

A page that says ``"deltas": true`` in its hello gets, after its first whole snapshot, a :func:`delta` per
change instead: only the keys whose text changed (``state``), only the keys of ``game`` that changed
(``game``), and the event lines as the number dropped from the front and the lines added (``events``), so a
roll is about 0.5 kB instead of the whole room's 4 kB (less to compress and to send to every connection).

>>> from fivedice.web.db import RoomRow, SeatRow
>>> from fivedice.web.rooms import Room, SecretsRoller
>>> ann = SeatRow(0, "Ann", "human", None, "x")
>>> room = Room(RoomRow("ABCD2345", "yacht", {"hints": True}, "lobby", 1, 3, 0, 1.0, 1.0, (ann,)), [], SecretsRoller())
>>> before = room.pieces()
>>> room.found.goal = {"total": 200, "level": "optimal"}
>>> room.presence.changed()
>>> delta(before, room.pieces())
'"state":{"goal":{"total":200,"level":"optimal"}}'
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import islice
from typing import TYPE_CHECKING, Any

from pydantic_core import to_json

from fivedice.engine.scorecard import Scorecard
from fivedice.engine.state import Phase
from fivedice.rules import RuleSet
from fivedice.table.seat import SeatKind
from fivedice.web.db import RoomStatus
from fivedice.web.roomgame import english_text

if TYPE_CHECKING:
    from fivedice.web.rooms import Room

__all__ = ["Pieces", "SnapshotBuilder", "apply_delta", "delta", "dumps", "rules_info"]


def dumps(value: Any) -> str:
    """Compact JSON text, as the models print it (pydantic's own encoder: UTF-8, no spaces; 15 times faster
    than the standard library's encoder with ``ensure_ascii=False`` on a list of options)."""
    return to_json(value).decode()


TOP = (
    "code",
    "version",
    "status",
    "game_no",
    "turn",
    "rules",
    "settings",
    "seats",
    "spectators",
    "deadline",
    "watchers",
    "game",
    "challenge",
    "goal",
    "best",
    "events",
    "event_keys",
)
"""The keys of a snapshot, in the order of :class:`~fivedice.web.messages.RoomSnapshot`."""


def _object(pieces: Mapping[str, str]) -> str:
    """A JSON object of keys and the JSON text of their values."""
    return "{" + ",".join(f'"{key}":{text}' for key, text in pieces.items()) + "}"


NULL = "null"
"""JSON's null, as text."""


def _array(texts: Iterable[str]) -> str:
    return "[" + ",".join(texts) + "]"


def _number(value: int | None) -> str:
    """An integer or null as JSON text."""
    return NULL if value is None else str(value)


def _text(value: str | None) -> str:
    """A string or null as JSON text."""
    return NULL if value is None else dumps(value)


_PHASE = {phase: dumps(phase.value) for phase in Phase}
_STATUS = {status: dumps(status.value) for status in RoomStatus}


LAZY = ("game", "events", "event_keys")
"""The keys of a snapshot whose JSON text is joined only for a whole snapshot (a delta takes their parts)."""


@dataclass(slots=True)
class Pieces:
    """A snapshot as the JSON text of each of its keys (:data:`TOP`; those of :data:`LAZY` joined only when the
    whole snapshot is), of each key of its game (None: no game) and of each of its event lines and their keys;
    ``line`` and ``added``: the room's line of events they end and how many lines were ever added to it."""

    top: dict[str, str]
    game: dict[str, str] | None
    events: tuple[str, ...]
    keys: tuple[str, ...]
    line: object = None
    added: int = 0
    _text: str | None = field(default=None, repr=False, compare=False)

    def value(self, key: str) -> str:
        """The JSON text of the snapshot's ``key`` (one of :data:`TOP`)."""
        if key == "game":
            return NULL if self.game is None else _object(self.game)
        if key == "events":
            return _array(self.events)
        if key == "event_keys":
            return _array(self.keys)
        return self.top[key]

    def text(self) -> str:
        """The whole snapshot as JSON text (joined once)."""
        if self._text is None:
            self._text = _object({key: self.value(key) for key in TOP})
        return self._text


def delta(base: Pieces, new: Pieces) -> str:
    """The members of a ``delta`` message that turn snapshot ``base`` into ``new``: ``"state"`` (top-level keys
    that changed, whole), ``"game"`` (keys of the game that changed, when both have a game) and ``"events"``
    (``drop`` lines from the front, ``add`` lines and their ``keys`` at the end), as JSON text without braces."""
    state: dict[str, str] = {}
    game: dict[str, str] = {}
    for key in TOP:
        if key in LAZY:
            if key == "game":
                if base.game is not None and new.game is not None:
                    game = {k: v for k, v in new.game.items() if base.game[k] is not v and base.game[k] != v}
                elif base.game is not new.game:
                    state[key] = new.value(key)
            continue
        text = new.top[key]
        if base.top[key] != text:
            state[key] = text
    parts = [f'"state":{_object(state)}']
    if game:
        parts.append(f'"game":{_object(game)}')
    if base.events != new.events or base.keys != new.keys:
        parts.append(f'"events":{_events(base, new)}')
    return ",".join(parts)


def apply_delta(state: Mapping[str, Any], msg: Mapping[str, Any]) -> dict[str, Any]:
    """The room state after a delta's members (``state``, and ``game`` and ``events`` where they changed) are
    applied to ``state``, as ``static/delta.js`` applies them: the reference for Python clients.

    >>> apply_delta({"version": 1, "game": {"a": 1, "b": 2}, "events": ["x", "y"], "event_keys": [1, 2]},
    ...     {"state": {"version": 2}, "game": {"b": 3}, "events": {"drop": 1, "add": ["z"], "keys": [3]}})
    {'version': 2, 'game': {'a': 1, 'b': 3}, 'events': ['y', 'z'], 'event_keys': [2, 3]}
    """
    new = {**state, **msg["state"]}
    if "game" in msg:
        new["game"] = {**state["game"], **msg["game"]}
    if "events" in msg:
        drop, add, keys = msg["events"]["drop"], msg["events"]["add"], msg["events"]["keys"]
        new["events"] = state["events"][drop:] + add
        new["event_keys"] = state["event_keys"][drop:] + keys
    return new


def _events(base: Pieces, new: Pieces) -> str:
    """``new``'s event lines as ``base``'s with some dropped from the front and some added."""
    old, now = len(base.events), len(new.events)
    count = new.added - base.added  # lines added since: known when both end the same line of events
    drop = old + count - now
    if not (base.line is not None and base.line is new.line and 0 <= count <= now and 0 <= drop <= old):
        drop = next(d for d in range(old + 1) if _same(base, new, d))  # dropping every line always matches
        count = now - (old - drop)
    lines, keys = _array(new.events[now - count :]), _array(new.keys[now - count :])
    return f'{{"drop":{drop},"add":{lines},"keys":{keys}}}'


def _same(base: Pieces, new: Pieces, drop: int) -> bool:
    """Whether ``new``'s lines start with ``base``'s after the first ``drop``."""
    kept = len(base.events) - drop
    return base.events[drop:] == new.events[:kept] and base.keys[drop:] == new.keys[:kept]


def rules_info(rules: RuleSet) -> dict[str, Any]:
    """What the page needs of a rule set (:class:`~fivedice.web.messages.RulesInfo`)."""
    return {
        "spec": rules.spec,
        "title": rules.title,
        "dice": rules.dice,
        "rolls": rules.rolls,
        "cards": [c.value for c in rules.cards],
        "upper_bonus": bool(rules.upper_bonus),
        "yahtzee_bonus": rules.yahtzee_bonus,
        "boxes": [{"name": b.name, "label": b.label, "section": b.section} for b in rules.boxes],
    }


class SnapshotBuilder:
    """Builds a room's :class:`Pieces`, keeping the JSON text of what seldom changes, each piece made again only
    when what it shows changed (compared by identity: rows, seats, game states, score cards and event lines are
    replaced, never changed in place): the rule set, the settings, the seats and spectators (per presence
    revision), the score cards and totals (per tuple of cards), each score card and each event line, and the
    event lines together (per line of events and how many were added to it). So an action makes again only
    what it changed: a roll, the dice, the options and the counters."""

    def __init__(self, rules: RuleSet) -> None:
        self.rules = dumps(rules_info(rules))
        self._settings: tuple[object, str, str] | None = None
        self._cards: dict[int, tuple[Scorecard, str, int]] = {}
        self._events: dict[int, tuple[Mapping[str, Any], str, str]] = {}
        self._people: tuple[object, int, tuple[int, ...], str, str, str] | None = None
        self._card_line: tuple[object, str, str] | None = None
        self._lines: tuple[object, int, tuple[str, ...], tuple[str, ...]] | None = None
        self._code: tuple[str, str] = ("", '""')

    def build(self, room: Room) -> Pieces:
        """The pieces of ``room``'s snapshot now."""
        row = room.row
        settings, challenge = self._settings_text(row.settings)
        out = room.forfeited()
        seats, spectators, watchers = self._people_texts(room, tuple(out))
        game = self._game(room, set(out))
        events, keys = self._event_texts(room.line.events, room.line.added)
        if self._code[0] != room.code:
            self._code = (room.code, dumps(room.code))
        goal = room.found.goal
        top = {
            "code": self._code[1],
            "version": str(row.version),
            "status": _STATUS[row.status],
            "game_no": str(row.game_no),
            "turn": _text(room.turn()),
            "rules": self.rules,
            "settings": settings,
            "seats": seats,
            "spectators": spectators,
            "deadline": dumps(room.deadline),
            "watchers": watchers,
            "challenge": challenge,
            "goal": NULL if goal is None else dumps(goal),
            "best": _number(room.found.best),
        }
        return Pieces(top, game, events, keys, room.line.events, room.line.added)

    def _people_texts(self, room: Room, out: tuple[int, ...]) -> tuple[str, str, str]:
        """The seats, the spectators and how many watch, as JSON text: made again when the seats, the presence
        (its revision) or the seats that forfeited change."""
        row, revision = room.row, room.presence.revision
        people = self._people
        if people is not None and people[0] is row.seats and people[1] == revision and people[2] == out:
            return people[3], people[4], people[5]
        spectators = room.presence.spectators()
        online = room.presence.online()
        seats = [
            {
                "seat": s.seat,
                "name": s.name,
                "kind": s.kind.value,
                "level": s.level,
                "taken": s.name is not None,
                "online": s.kind == SeatKind.COMPUTER or s.seat in online,
                "forfeited": s.seat in out,
            }
            for s in row.seats
        ]
        self._people = (row.seats, revision, out, dumps(seats), dumps(spectators), str(len(spectators)))
        return self._people[3], self._people[4], self._people[5]

    def _settings_text(self, settings: Mapping[str, Any]) -> tuple[str, str]:
        """The settings and the challenge code as JSON text (a row's settings are never changed in place)."""
        if self._settings is None or self._settings[0] is not settings:
            self._settings = (settings, dumps(settings), dumps(settings.get("challenge")))
        return self._settings[1], self._settings[2]

    def _game(self, room: Room, out: set[int]) -> dict[str, str] | None:
        game = room.game
        if game is None:
            return None
        state = game.state
        cards, totals = self._cards_text(state.cards)
        options = [{"card": c, "box": b, "points": p} for (c, b), p in state.options().items()]
        return {
            "phase": _PHASE[state.phase],
            "current": str(state.current),
            "dice": NULL if state.dice is None else _array(map(str, state.dice)),
            "rolls": str(state.rolls),
            "rolls_left": str(state.rolls_left),
            "round": str(state.round),
            "rounds": str(state.rules.rounds),
            "rolloff": dumps([list(p) for p in state.rolloff]) if state.rolloff else "[]",
            "contenders": dumps(list(state.contenders)) if state.contenders else "[]",
            "cards": cards,
            "totals": totals,
            "options": dumps(options) if options else "[]",
            "standings": dumps(room.standings(out)) if state.phase is Phase.OVER else NULL,
            "undo_by": _number(room.undo_by()),
            "redo_by": _number(room.redo_by()),
            "moves": str(len(game.log)),
        }

    def _cards_text(self, seats_cards: tuple[tuple[Scorecard, ...], ...]) -> tuple[str, str]:
        """Every seat's score cards and every seat's total as JSON text: made again when the cards change."""
        hit = self._card_line
        if hit is not None and hit[0] is seats_cards:
            return hit[1], hit[2]
        cards: list[str] = []
        totals: list[int] = []
        used: set[int] = set()
        for seat_cards in seats_cards:
            texts = []
            total = 0
            for card in seat_cards:
                text, points = self._card(card)
                used.add(id(card))
                texts.append(text)
                total += points
            cards.append(_array(texts))
            totals.append(total)
        if len(self._cards) > 4 * len(used):  # forget the cards of earlier states
            self._cards = {k: v for k, v in self._cards.items() if k in used}
        self._card_line = (seats_cards, _array(cards), dumps(totals))
        return self._card_line[1], self._card_line[2]

    def _card(self, card: Scorecard) -> tuple[str, int]:
        """A card's entries and totals as JSON text, and its total; each card is turned into text once."""
        hit = self._cards.get(id(card))
        if hit is not None and hit[0] is card:
            return hit[1], hit[2]
        upper = card.upper_total
        bonus, alike = card.rules.upper_bonus_for(upper), card.yahtzee_bonus
        total = upper + bonus + card.lower_total + alike  # as card.total, without adding the upper boxes again
        data = {
            "order": card.order.value,
            "entries": list(card.entries),
            "upper_total": upper,
            "upper_bonus": bonus,
            "yahtzee_bonus": alike,
            "total": total,
        }
        text = dumps(data)
        self._cards[id(card)] = (card, text, total)
        return text, total

    def _event_texts(self, events: Sequence[Mapping[str, Any]], added: int) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """Each event line in English and its key (the message and its fields) as JSON text, each made once: when
        ``events`` is the line made last time, with ``added`` (how many lines were ever added to it) grown by
        fewer than it holds, only the new lines are made and the oldest dropped."""
        hit = self._lines
        if hit is not None and hit[0] is events:
            new = added - hit[1]
            if new == 0:
                return hit[2], hit[3]
            if 0 < new <= len(events):
                lines, keys = self._texts(islice(events, len(events) - new, None))
                kept = len(events) - new
                lines, keys = hit[2][len(hit[2]) - kept :] + lines, hit[3][len(hit[3]) - kept :] + keys
                self._lines = (events, added, lines, keys)
                return lines, keys
        lines, keys = self._texts(events)
        if len(self._events) > 4 * max(1, len(events)):
            current = {id(e) for e in events}
            self._events = {k: v for k, v in self._events.items() if k in current}
        self._lines = (events, added, lines, keys)
        return lines, keys

    def _texts(self, events: Iterable[Mapping[str, Any]]) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """Each event line in English and its key as JSON text (each line turned into text once)."""
        lines: list[str] = []
        keys: list[str] = []
        for event in events:
            found = self._events.get(id(event))
            if found is None or found[0] is not event:
                args = event.get("args") or {}
                found = (event, dumps(english_text(event)), dumps({"msg": event["msg"], "args": args}))
                self._events[id(event)] = found
            lines.append(found[1])
            keys.append(found[2])
        return tuple(lines), tuple(keys)
