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
from typing import TYPE_CHECKING, Any

from pydantic_core import to_json

from fivedice.engine.scorecard import Scorecard
from fivedice.engine.state import Phase
from fivedice.rules import RuleSet
from fivedice.table.seat import SeatKind
from fivedice.web.roomgame import english_text

if TYPE_CHECKING:
    from fivedice.web.rooms import Room

__all__ = ["Pieces", "SnapshotBuilder", "delta", "dumps", "rules_info"]


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


def _array(texts: Iterable[str]) -> str:
    return "[" + ",".join(texts) + "]"


@dataclass(slots=True)
class Pieces:
    """A snapshot as the JSON text of each of its keys (:data:`TOP`), of each key of its game (None: no game)
    and of each of its event lines and their keys."""

    top: dict[str, str]
    game: dict[str, str] | None
    events: tuple[str, ...]
    keys: tuple[str, ...]
    _text: str | None = field(default=None, repr=False, compare=False)

    def text(self) -> str:
        """The whole snapshot as JSON text (joined once)."""
        if self._text is None:
            self._text = _object(self.top)
        return self._text


def delta(base: Pieces, new: Pieces) -> str:
    """The members of a ``delta`` message that turn snapshot ``base`` into ``new``: ``"state"`` (top-level keys
    that changed, whole), ``"game"`` (keys of the game that changed, when both have a game) and ``"events"``
    (``drop`` lines from the front, ``add`` lines and their ``keys`` at the end), as JSON text without braces."""
    state: dict[str, str] = {}
    game: dict[str, str] = {}
    events = ""
    for key, text in new.top.items():
        if base.top.get(key) == text:
            continue
        if key == "game" and base.game is not None and new.game is not None:
            game = {k: v for k, v in new.game.items() if base.game.get(k) != v}
        elif key in ("events", "event_keys"):
            events = events or _events(base, new) or ""
            if not events:
                state[key] = text
        else:
            state[key] = text
    parts = [f'"state":{_object(state)}']
    if game:
        parts.append(f'"game":{_object(game)}')
    if events:
        parts.append(f'"events":{events}')
    return ",".join(parts)


def _events(base: Pieces, new: Pieces) -> str | None:
    """``new``'s event lines as ``base``'s with some dropped from the front and some added (None: they are not)."""
    old = tuple(zip(base.events, base.keys, strict=True))
    now = tuple(zip(new.events, new.keys, strict=True))
    for drop in range(len(old) + 1):
        kept = len(old) - drop
        if old[drop:] == now[:kept]:
            added = now[kept:]
            lines, keys = _array(line for line, _k in added), _array(k for _line, k in added)
            return f'{{"drop":{drop},"add":{lines},"keys":{keys}}}'
    return None  # pragma: no cover - dropping every line always matches


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
    """Builds a room's :class:`Pieces`, keeping the JSON text of what seldom changes: the rule set, the
    settings, each score card (cards are immutable) and each event line."""

    def __init__(self, rules: RuleSet) -> None:
        self.rules = dumps(rules_info(rules))
        self._settings: tuple[object, str, str] | None = None
        self._cards: dict[int, tuple[Scorecard, str, int]] = {}
        self._events: dict[int, tuple[Mapping[str, Any], str, str]] = {}

    def build(self, room: Room) -> Pieces:
        """The pieces of ``room``'s snapshot now."""
        row = room.row
        settings, challenge = self._settings_text(row.settings)
        spectators = room.presence.spectators()
        online = room.presence.online()
        out = set(room.forfeited())
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
        game = self._game(room, out)
        events, keys = self._event_texts(room.line.events)
        top = {
            "code": dumps(room.code),
            "version": str(row.version),
            "status": dumps(row.status.value),
            "game_no": str(row.game_no),
            "turn": dumps(room.turn()),
            "rules": self.rules,
            "settings": settings,
            "seats": dumps(seats),
            "spectators": dumps(spectators),
            "deadline": dumps(room.deadline),
            "watchers": str(len(spectators)),
            "game": "null" if game is None else _object(game),
            "challenge": challenge,
            "goal": dumps(room.found.goal),
            "best": dumps(room.found.best),
            "events": _array(events),
            "event_keys": _array(keys),
        }
        return Pieces(top, game, events, keys)

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
        cards: list[str] = []
        totals: list[int] = []
        used: set[int] = set()
        for seat_cards in state.cards:
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
        options = [{"card": c, "box": b, "points": p} for (c, b), p in state.options().items()]
        return {
            "phase": dumps(state.phase.value),
            "current": str(state.current),
            "dice": dumps(list(state.dice) if state.dice is not None else None),
            "rolls": str(state.rolls),
            "rolls_left": str(state.rolls_left),
            "round": str(state.round),
            "rounds": str(state.rules.rounds),
            "rolloff": dumps([list(p) for p in state.rolloff]),
            "contenders": dumps(list(state.contenders)),
            "cards": _array(cards),
            "totals": dumps(totals),
            "options": dumps(options),
            "standings": dumps(room.standings(out) if state.phase is Phase.OVER else None),
            "undo_by": dumps(room.undo_by()),
            "redo_by": dumps(room.redo_by()),
            "moves": str(len(game.log)),
        }

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

    def _event_texts(self, events: Sequence[Mapping[str, Any]]) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """Each event line in English and its key (the message and its fields) as JSON text, each made once."""
        lines: list[str] = []
        keys: list[str] = []
        for event in events:
            hit = self._events.get(id(event))
            if hit is None or hit[0] is not event:
                args = event.get("args") or {}
                hit = (event, dumps(english_text(event)), dumps({"msg": event["msg"], "args": args}))
                self._events[id(event)] = hit
            lines.append(hit[1])
            keys.append(hit[2])
        if len(self._events) > 4 * max(1, len(events)):
            current = {id(e) for e in events}
            self._events = {k: v for k, v in self._events.items() if k in current}
        return tuple(lines), tuple(keys)
