"""What happens at a table, as language-neutral records, and the one narrator that words them.

The table emits an :class:`Event` for every roll, score, bonus, undo and the like: a ``kind``
and its fields (names, dice, box identifiers, points), never text. Each view words it in its
reader's language with :func:`narrate`; the web sends :func:`message` (the English text with
named fields, which the browser translates from the same catalogs).

>>> from fivedice import rules
>>> e = Event("scored", 0, {"player": "Ann", "box": "full_house", "card": 0, "points": 25})
>>> narrate(e, rules.get("yahtzee"))
'Ann scores 25 in Full House.'
>>> message(e, rules.get("yahtzee"))
('{player} scores {points} in {box}.', {'player': 'Ann', 'box': 'Full House', 'points': 25})
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from fivedice.engine.actions import Action, Roll, RollOff, Score
from fivedice.engine.state import GameState, Phase
from fivedice.i18n import N_, _
from fivedice.rules import RuleSet

__all__ = ["Event", "dice_text", "events_for", "message", "narrate", "undo_event"]


@dataclass(frozen=True, slots=True)
class Event:
    """One thing that happened: its ``kind``, the seat it concerns (or None) and its fields."""

    kind: str
    seat: int | None = None
    fields: Mapping[str, Any] = field(default_factory=dict)

    def to_data(self) -> dict[str, Any]:
        """JSON form: ``{"kind", "seat", "fields"}``."""
        return {"kind": self.kind, "seat": self.seat, "fields": dict(self.fields)}


def dice_text(dice: Sequence[int]) -> str:
    """Dice as players read them: ``3 3 5 1 6``."""
    return " ".join(map(str, dice))


_TEXTS: dict[str, str] = {
    "rolloff": N_("{player} rolls off: {dice} ({total})."),
    "rolloff_tie": N_("Tie at {total}: {players} roll off again."),
    "rolloff_all_tie": N_("Everyone ties at {total}: all roll off again."),
    "starts": N_("{player} starts."),
    "turn": N_("Round {round} of {rounds}: {player} to play."),
    "rolled": N_("{player} rolls {dice} (roll {roll} of {rolls})."),
    "rolled_keeping": N_("{player} keeps {kept} and rolls {dice} (roll {roll} of {rolls})."),
    "scored": N_("{player} scores {points} in {box}."),
    "scored_card": N_("{player} scores {points} in {box} on card {card}."),
    "upper_bonus": N_("{player} earns the upper bonus: +{points}."),
    "yahtzee_bonus": N_("{player} earns a bonus for another {box}: +{points}."),
    "instant_win": N_("{player} wins at once with {box} on the first roll!"),
    "undone_score": N_("Undone: {player}'s {points} in {box}."),
    "undone_roll": N_("Undone: {player}'s roll ({dice})."),
    "redone_score": N_("Redone: {player}'s {points} in {box}."),
    "redone_roll": N_("Redone: {player}'s roll ({dice})."),
    "won": N_("Game over: {player} wins with {total}."),
    "finished": N_("Game over: {player} finishes with {total}."),
    "tied": N_("Game over: {players} tie with {total}."),
    "over": N_("Game over."),
    "stand_in": N_("Time ran out for {player}: the computer plays for them."),
}
"""The English text of each kind of event (the message key and its fields)."""


def _kind(event: Event) -> str:
    """The text key of an event: its kind, refined by what its fields say (several cards, dice kept...)."""
    kind = event.kind
    f = event.fields
    if kind == "scored" and f.get("cards", 1) > 1:
        kind += "_card"
    elif kind == "rolled" and f.get("kept"):
        kind += "_keeping"
    elif kind in ("undone", "redone"):
        kind += "_" + str(f.get("what", "score"))
    return kind


def message(event: Event, rules: RuleSet) -> tuple[str, dict[str, Any]]:
    """The event's English text and its fields, box names as English labels (for a client to translate).

    The fields are those of the text: dice as ``3 3 5``, a card counted from 1."""
    key = _kind(event)
    text = _TEXTS.get(key, "{kind}")
    args: dict[str, Any] = {}
    for name, value in event.fields.items():
        if "{" + name not in text:
            continue
        if name == "box":
            value = rules.box(value).label
        elif name == "card":
            value = int(value) + 1
        elif name in ("dice", "kept") and not isinstance(value, str):
            value = dice_text(value)
        elif name == "players" and not isinstance(value, str):
            value = ", ".join(value)
        args[name] = value
    if key not in _TEXTS:
        args["kind"] = event.kind
    return text, args


def narrate(event: Event, rules: RuleSet) -> str:
    """The event in one sentence in the current language."""
    text, args = message(event, rules)
    if "box" in args:
        args["box"] = _(args["box"])
    return _(text, **args)


def events_for(before: GameState, record: Action, after: GameState) -> list[Event]:
    """The events of one completed record, from the states before and after it."""
    if isinstance(record, RollOff):
        return _rolloff_events(before, record, after)
    seat = before.current
    who = before.players[seat]
    rules = before.rules
    if isinstance(record, Roll):
        assert record.dice is not None
        out = []
        if before.rolls == 0:
            out.append(Event("turn", seat, {"player": who, "round": before.round, "rounds": rules.rounds}))
        kept = tuple(record.dice[p] for p in record.held)
        fields = {"player": who, "dice": record.dice, "kept": kept, "roll": after.rolls, "rolls": rules.rolls}
        return [*out, Event("rolled", seat, fields)]
    assert isinstance(record, Score)
    was, now = before.cards[seat][record.card], after.cards[seat][record.card]
    fields = {"player": who, "box": record.box, "card": record.card, "cards": len(rules.cards), "points": record.points}
    out = [Event("scored", seat, fields)]
    if now.upper_bonus > was.upper_bonus:
        out.append(Event("upper_bonus", seat, {"player": who, "points": now.upper_bonus - was.upper_bonus}))
    if now.yahtzee_bonus > was.yahtzee_bonus and rules.yahtzee_box:
        gained = now.yahtzee_bonus - was.yahtzee_bonus
        out.append(Event("yahtzee_bonus", seat, {"player": who, "box": rules.yahtzee_box, "points": gained}))
    if after.instant_winner is not None:
        out.append(Event("instant_win", seat, {"player": who, "box": record.box}))
    if after.is_over:
        out.append(_over_event(after))
    return out


def _rolloff_events(before: GameState, record: RollOff, after: GameState) -> list[Event]:
    assert record.dice is not None
    who = before.players[record.seat]
    out = [Event("rolloff", record.seat, {"player": who, "dice": record.dice, "total": sum(record.dice)})]
    if after.phase is Phase.PLAY and after.starter is not None:
        out.append(Event("starts", after.starter, {"player": after.players[after.starter]}))
    elif not after.rolloff:
        total = max(t for _s, t in (*before.rolloff, (record.seat, sum(record.dice))))
        names = [after.players[s] for s in after.contenders]
        kind = "rolloff_all_tie" if len(after.contenders) == len(before.contenders) else "rolloff_tie"
        out.append(Event(kind, None, {"players": names, "total": total}))
    return out


def _over_event(state: GameState) -> Event:
    first = [s for s in state.standings() if s.place == 1]
    if len(state.players) == 1:
        return Event("finished", 0, {"player": first[0].name, "total": first[0].total})
    if len(first) == 1:
        return Event("won", first[0].seat, {"player": first[0].name, "total": first[0].total})
    return Event("tied", None, {"players": [s.name for s in first], "total": first[0].total})


def undo_event(kind: str, before: GameState, record: Action) -> Event:
    """The event of taking back (``"undone"``) or replaying (``"redone"``) a decision made in ``before``."""
    seat = before.current
    who = before.players[seat]
    if isinstance(record, Score):
        return Event(kind, seat, {"what": "score", "player": who, "box": record.box, "points": record.points})
    dice = record.dice if isinstance(record, Roll) and record.dice is not None else ()
    return Event(kind, seat, {"what": "roll", "player": who, "dice": dice})
