"""What happens at a table, as language-neutral records, and the one narrator that words them.

The table emits an event for every roll, score, bonus, undo and the like: one frozen dataclass per kind
(:data:`Event` is their union), holding names, dice, box identifiers and points, never text. Each view words
it in its reader's language with :func:`narrate`; the web sends :func:`message` (the English text with
named fields, which the browser translates from the same catalogs). :meth:`~Scored.to_data` gives an
event's plain data (``{"kind", "seat", "fields"}``) and :func:`from_data` reads it back.

>>> from fivedice import rules
>>> e = Scored(seat=0, player="Ann", box="full_house", card=0, cards=1, points=25)
>>> narrate(e, rules.get("yahtzee"))
'Ann scores 25 in Full House.'
>>> message(e, rules.get("yahtzee"))
('{player} scores {points} in {box}.', {'player': 'Ann', 'box': 'Full House', 'points': 25})
>>> e.to_data()
{'kind': 'scored', 'seat': 0, 'fields': {'player': 'Ann', 'box': 'full_house', 'card': 0, 'cards': 1, 'points': 25}}
>>> from_data(e.to_data()) == e
True
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar, Literal, TypeAlias, assert_never

from fivedice.engine.actions import Action, Roll, RollOff, Score
from fivedice.engine.state import GameState, Phase
from fivedice.errors import FiveDiceError
from fivedice.i18n import N_, _
from fivedice.rules import RuleSet

__all__ = [
    "Event",
    "EventFormatError",
    "EventKind",
    "Finished",
    "InstantWin",
    "Retaken",
    "RollOffAllTied",
    "RollOffTied",
    "RollRedone",
    "RollUndone",
    "Rolled",
    "RolledOff",
    "ScoreRedone",
    "ScoreUndone",
    "Scored",
    "Starts",
    "StoodIn",
    "Tied",
    "TurnBegins",
    "UpperBonus",
    "Won",
    "YahtzeeBonus",
    "dice_text",
    "events_for",
    "from_data",
    "message",
    "narrate",
    "undo_event",
    "word",
]

Dice: TypeAlias = tuple[int, ...]
Args: TypeAlias = dict[str, str | int]
"""A message's fields, as its text names them."""


class EventKind(enum.StrEnum):
    """The kind of an event (its ``"kind"`` in plain data: the values stay those of older records)."""

    ROLLOFF = "rolloff"
    ROLLOFF_TIE = "rolloff_tie"
    ROLLOFF_ALL_TIE = "rolloff_all_tie"
    STARTS = "starts"
    TURN = "turn"
    ROLLED = "rolled"
    SCORED = "scored"
    UPPER_BONUS = "upper_bonus"
    YAHTZEE_BONUS = "yahtzee_bonus"
    INSTANT_WIN = "instant_win"
    UNDONE = "undone"
    REDONE = "redone"
    WON = "won"
    FINISHED = "finished"
    TIED = "tied"
    STAND_IN = "stand_in"


class Retaken(enum.StrEnum):
    """What an undo or redo took back or replayed (``fields["what"]`` of ``undone`` and ``redone``)."""

    SCORE = "score"
    ROLL = "roll"


class EventFormatError(FiveDiceError):
    """Plain data that is not an event of a kind this version knows."""


@dataclass(frozen=True, slots=True, kw_only=True)
class _Event:
    """What every event has: its :class:`EventKind` and plain data; each kind adds ``seat`` and its fields."""

    kind: ClassVar[EventKind]

    @property
    def fields(self) -> dict[str, object]:
        """The event's fields (all but ``seat``) by name, in their order in plain data (``what`` first)."""
        head: dict[str, object] = {"what": str(self.what)} if isinstance(self, _Retake) else {}
        return head | {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "seat"}

    def to_data(self) -> dict[str, object]:
        """JSON form: ``{"kind", "seat", "fields"}`` (dice and names as lists)."""
        fields = {k: list(v) if isinstance(v, tuple) else v for k, v in self.fields.items()}
        return {"kind": str(self.kind), "seat": getattr(self, "seat"), "fields": fields}  # noqa: B009


@dataclass(frozen=True, slots=True, kw_only=True)
class RolledOff(_Event):
    """``player`` rolled ``dice`` (``total``) in the roll-off for who starts."""

    kind: ClassVar[EventKind] = EventKind.ROLLOFF
    seat: int
    player: str
    dice: Dice
    total: int


@dataclass(frozen=True, slots=True, kw_only=True)
class RollOffTied(_Event):
    """Some of the roll-off's ``players`` tied at the top with ``total``: they roll off again."""

    kind: ClassVar[EventKind] = EventKind.ROLLOFF_TIE
    seat: None = None
    players: tuple[str, ...]
    total: int


@dataclass(frozen=True, slots=True, kw_only=True)
class RollOffAllTied(_Event):
    """Every contender of the roll-off tied with ``total``: all roll off again."""

    kind: ClassVar[EventKind] = EventKind.ROLLOFF_ALL_TIE
    seat: None = None
    players: tuple[str, ...]
    total: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Starts(_Event):
    """``player`` won the roll-off and starts."""

    kind: ClassVar[EventKind] = EventKind.STARTS
    seat: int
    player: str


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnBegins(_Event):
    """``player``'s turn of round ``round`` (of ``rounds``) begins with its first roll."""

    kind: ClassVar[EventKind] = EventKind.TURN
    seat: int
    player: str
    round: int
    rounds: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Rolled(_Event):
    """``player`` kept ``kept`` (values; empty: none) and rolled, showing ``dice``: roll ``roll`` of ``rolls``."""

    kind: ClassVar[EventKind] = EventKind.ROLLED
    seat: int
    player: str
    dice: Dice
    kept: Dice
    roll: int
    rolls: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Scored(_Event):
    """``player`` scored ``points`` in ``box`` on card ``card`` (from 0) of ``cards``."""

    kind: ClassVar[EventKind] = EventKind.SCORED
    seat: int
    player: str
    box: str
    card: int
    cards: int
    points: int


@dataclass(frozen=True, slots=True, kw_only=True)
class UpperBonus(_Event):
    """``player`` earned ``points`` of upper bonus."""

    kind: ClassVar[EventKind] = EventKind.UPPER_BONUS
    seat: int
    player: str
    points: int


@dataclass(frozen=True, slots=True, kw_only=True)
class YahtzeeBonus(_Event):
    """``player`` earned ``points`` of bonus for another five alike (``box``: the rule set's Yahtzee box)."""

    kind: ClassVar[EventKind] = EventKind.YAHTZEE_BONUS
    seat: int
    player: str
    box: str
    points: int


@dataclass(frozen=True, slots=True, kw_only=True)
class InstantWin(_Event):
    """``player`` won at once by scoring ``box`` on a turn's first roll."""

    kind: ClassVar[EventKind] = EventKind.INSTANT_WIN
    seat: int
    player: str
    box: str


@dataclass(frozen=True, slots=True, kw_only=True)
class _Retake(_Event):
    """An undo or redo: ``what`` it took back or replayed is a field in plain data."""

    what: ClassVar[Retaken]


@dataclass(frozen=True, slots=True, kw_only=True)
class ScoreUndone(_Retake):
    """``player``'s ``points`` in ``box`` were taken back (kind ``undone``, ``what`` ``score``)."""

    kind: ClassVar[EventKind] = EventKind.UNDONE
    what: ClassVar[Retaken] = Retaken.SCORE
    seat: int
    player: str
    box: str
    points: int


@dataclass(frozen=True, slots=True, kw_only=True)
class RollUndone(_Retake):
    """``player``'s roll showing ``dice`` was taken back (kind ``undone``, ``what`` ``roll``)."""

    kind: ClassVar[EventKind] = EventKind.UNDONE
    what: ClassVar[Retaken] = Retaken.ROLL
    seat: int
    player: str
    dice: Dice


@dataclass(frozen=True, slots=True, kw_only=True)
class ScoreRedone(_Retake):
    """``player``'s ``points`` in ``box`` were replayed (kind ``redone``, ``what`` ``score``)."""

    kind: ClassVar[EventKind] = EventKind.REDONE
    what: ClassVar[Retaken] = Retaken.SCORE
    seat: int
    player: str
    box: str
    points: int


@dataclass(frozen=True, slots=True, kw_only=True)
class RollRedone(_Retake):
    """``player``'s roll showing ``dice`` was replayed (kind ``redone``, ``what`` ``roll``)."""

    kind: ClassVar[EventKind] = EventKind.REDONE
    what: ClassVar[Retaken] = Retaken.ROLL
    seat: int
    player: str
    dice: Dice


@dataclass(frozen=True, slots=True, kw_only=True)
class Won(_Event):
    """The game is over: ``player`` won with ``total``."""

    kind: ClassVar[EventKind] = EventKind.WON
    seat: int
    player: str
    total: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Finished(_Event):
    """The solitaire game is over: ``player`` finished with ``total``."""

    kind: ClassVar[EventKind] = EventKind.FINISHED
    seat: int
    player: str
    total: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Tied(_Event):
    """The game is over: ``players`` tied at the top with ``total``."""

    kind: ClassVar[EventKind] = EventKind.TIED
    seat: None = None
    players: tuple[str, ...]
    total: int


@dataclass(frozen=True, slots=True, kw_only=True)
class StoodIn(_Event):
    """Time ran out for ``player``: the computer plays their turn (said at its first action)."""

    kind: ClassVar[EventKind] = EventKind.STAND_IN
    seat: int
    player: str


Event: TypeAlias = (
    RolledOff
    | RollOffTied
    | RollOffAllTied
    | Starts
    | TurnBegins
    | Rolled
    | Scored
    | UpperBonus
    | YahtzeeBonus
    | InstantWin
    | ScoreUndone
    | RollUndone
    | ScoreRedone
    | RollRedone
    | Won
    | Finished
    | Tied
    | StoodIn
)
"""Any event."""


def dice_text(dice: Sequence[int]) -> str:
    """Dice as players read them: ``3 3 5 1 6``."""
    return " ".join(map(str, dice))


def message(event: Event, rules: RuleSet) -> tuple[str, Args]:
    """The event's English text and its fields, box names as English labels (for a client to translate).

    The fields are those of the text, in the event's order: dice as ``3 3 5``, a card counted from 1."""
    text: str
    args: Args
    match event:
        case RolledOff(player=player, dice=dice, total=total):
            text = N_("{player} rolls off: {dice} ({total}).")
            args = {"player": player, "dice": dice_text(dice), "total": total}
        case RollOffTied(players=players, total=total):
            text = N_("Tie at {total}: {players} roll off again.")
            args = {"players": ", ".join(players), "total": total}
        case RollOffAllTied(total=total):
            text = N_("Everyone ties at {total}: all roll off again.")
            args = {"total": total}
        case Starts(player=player):
            text = N_("{player} starts.")
            args = {"player": player}
        case TurnBegins(player=player, round=round_, rounds=rounds):
            text = N_("Round {round} of {rounds}: {player} to play.")
            args = {"player": player, "round": round_, "rounds": rounds}
        case Rolled(player=player, dice=dice, kept=(), roll=roll, rolls=rolls):
            text = N_("{player} rolls {dice} (roll {roll} of {rolls}).")
            args = {"player": player, "dice": dice_text(dice), "roll": roll, "rolls": rolls}
        case Rolled(player=player, dice=dice, kept=kept, roll=roll, rolls=rolls):
            text = N_("{player} keeps {kept} and rolls {dice} (roll {roll} of {rolls}).")
            args = {"player": player, "dice": dice_text(dice), "kept": dice_text(kept), "roll": roll, "rolls": rolls}
        case Scored(player=player, box=box, card=card, cards=cards, points=points) if cards > 1:
            text = N_("{player} scores {points} in {box} on card {card}.")
            args = {"player": player, "box": _label(rules, box), "card": card + 1, "points": points}
        case Scored(player=player, box=box, points=points):
            text = N_("{player} scores {points} in {box}.")
            args = {"player": player, "box": _label(rules, box), "points": points}
        case UpperBonus(player=player, points=points):
            text = N_("{player} earns the upper bonus: +{points}.")
            args = {"player": player, "points": points}
        case YahtzeeBonus(player=player, box=box, points=points):
            text = N_("{player} earns a bonus for another {box}: +{points}.")
            args = {"player": player, "box": _label(rules, box), "points": points}
        case InstantWin(player=player, box=box):
            text = N_("{player} wins at once with {box} on the first roll!")
            args = {"player": player, "box": _label(rules, box)}
        case ScoreUndone(player=player, box=box, points=points):
            text = N_("Undone: {player}'s {points} in {box}.")
            args = {"player": player, "box": _label(rules, box), "points": points}
        case RollUndone(player=player, dice=dice):
            text = N_("Undone: {player}'s roll ({dice}).")
            args = {"player": player, "dice": dice_text(dice)}
        case ScoreRedone(player=player, box=box, points=points):
            text = N_("Redone: {player}'s {points} in {box}.")
            args = {"player": player, "box": _label(rules, box), "points": points}
        case RollRedone(player=player, dice=dice):
            text = N_("Redone: {player}'s roll ({dice}).")
            args = {"player": player, "dice": dice_text(dice)}
        case Won(player=player, total=total):
            text = N_("Game over: {player} wins with {total}.")
            args = {"player": player, "total": total}
        case Finished(player=player, total=total):
            text = N_("Game over: {player} finishes with {total}.")
            args = {"player": player, "total": total}
        case Tied(players=players, total=total):
            text = N_("Game over: {players} tie with {total}.")
            args = {"players": ", ".join(players), "total": total}
        case StoodIn(player=player):
            text = N_("Time ran out for {player}: the computer plays for them.")
            args = {"player": player}
        case _:  # pragma: no cover - every kind has its case (mypy checks it)
            assert_never(event)
    return text, args


def _label(rules: RuleSet, box: str) -> str:
    return rules.box(box).label


def word(text: str, args: Mapping[str, object]) -> str:
    """A :func:`message` (English text and fields) in the current language, its box label translated too."""
    fields = dict(args)
    if "box" in fields:
        fields["box"] = _(str(fields["box"]))
    return _(text, **fields)


def narrate(event: Event, rules: RuleSet) -> str:
    """The event in one sentence in the current language (the words of :func:`message`'s ``match``)."""
    return word(*message(event, rules))


# -- making events ---------------------------------------------------------------------------------
def events_for(before: GameState, record: Action, after: GameState) -> list[Event]:
    """The events of one completed record, from the states before and after it."""
    if isinstance(record, RollOff):
        return _rolloff_events(before, record, after)
    seat = before.current
    who = before.players[seat]
    rules = before.rules
    out: list[Event] = []
    if isinstance(record, Roll):
        assert record.dice is not None
        if before.rolls == 0:
            out.append(TurnBegins(seat=seat, player=who, round=before.round, rounds=rules.rounds))
        kept = tuple(record.dice[p] for p in record.held)
        out.append(Rolled(seat=seat, player=who, dice=record.dice, kept=kept, roll=after.rolls, rolls=rules.rolls))
        return out
    assert isinstance(record, Score)
    assert record.points is not None
    was, now = before.cards[seat][record.card], after.cards[seat][record.card]
    cards = len(rules.cards)
    out.append(Scored(seat=seat, player=who, box=record.box, card=record.card, cards=cards, points=record.points))
    if now.upper_bonus > was.upper_bonus:
        out.append(UpperBonus(seat=seat, player=who, points=now.upper_bonus - was.upper_bonus))
    if now.yahtzee_bonus > was.yahtzee_bonus and rules.yahtzee_box:
        gained = now.yahtzee_bonus - was.yahtzee_bonus
        out.append(YahtzeeBonus(seat=seat, player=who, box=rules.yahtzee_box, points=gained))
    if after.instant_winner is not None:
        out.append(InstantWin(seat=seat, player=who, box=record.box))
    if after.is_over:
        out.append(_over_event(after))
    return out


def _rolloff_events(before: GameState, record: RollOff, after: GameState) -> list[Event]:
    assert record.dice is not None
    who = before.players[record.seat]
    out: list[Event] = [RolledOff(seat=record.seat, player=who, dice=record.dice, total=sum(record.dice))]
    if after.phase is Phase.PLAY and after.starter is not None:
        out.append(Starts(seat=after.starter, player=after.players[after.starter]))
    elif not after.rolloff:
        total = max(t for _s, t in (*before.rolloff, (record.seat, sum(record.dice))))
        names = tuple(after.players[s] for s in after.contenders)
        tie = RollOffAllTied if len(after.contenders) == len(before.contenders) else RollOffTied
        out.append(tie(players=names, total=total))
    return out


def _over_event(state: GameState) -> Event:
    first = [s for s in state.standings() if s.place == 1]
    if len(state.players) == 1:
        return Finished(seat=0, player=first[0].name, total=first[0].total)
    if len(first) == 1:
        return Won(seat=first[0].seat, player=first[0].name, total=first[0].total)
    return Tied(players=tuple(s.name for s in first), total=first[0].total)


def undo_event(kind: Literal[EventKind.UNDONE, EventKind.REDONE], before: GameState, record: Action) -> Event:
    """The event of taking back (:attr:`EventKind.UNDONE`) or replaying (:attr:`EventKind.REDONE`) a decision
    made in ``before``."""
    seat = before.current
    who = before.players[seat]
    undone = kind == EventKind.UNDONE
    if isinstance(record, Score):
        assert record.points is not None
        retake_score = ScoreUndone if undone else ScoreRedone
        return retake_score(seat=seat, player=who, box=record.box, points=record.points)
    dice = record.dice if isinstance(record, Roll) and record.dice is not None else ()
    retake_roll = RollUndone if undone else RollRedone
    return retake_roll(seat=seat, player=who, dice=dice)


# -- reading plain data ----------------------------------------------------------------------------
_RETAKES = (ScoreUndone, RollUndone, ScoreRedone, RollRedone)
_PLAIN = (RolledOff, RollOffTied, RollOffAllTied, Starts, TurnBegins, Rolled, Scored, UpperBonus, YahtzeeBonus,
          InstantWin, Won, Finished, Tied, StoodIn)  # fmt: skip
_CLASSES: dict[tuple[str, str | None], type[Event]] = {(str(c.kind), None): c for c in _PLAIN} | {
    (str(c.kind), str(c.what)): c for c in _RETAKES
}
"""The class of each kind (and, for undone and redone, of each ``what``)."""


def _an_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _a_list(value: object, item: Callable[[object], bool]) -> bool:
    return isinstance(value, list | tuple) and all(map(item, value))


_FITS: dict[str, Callable[[object], bool]] = {
    "int": _an_int,
    "str": lambda v: isinstance(v, str),
    "None": lambda v: v is None,
    "Dice": lambda v: _a_list(v, _an_int),
    "tuple[str, ...]": lambda v: _a_list(v, lambda s: isinstance(s, str)),
}
"""Whether a plain value is one of a field of each annotation."""


@dataclass(frozen=True, slots=True)
class _Shape:
    """What :func:`from_data` checks of one event class, found once from its annotations."""

    fits: dict[str, Callable[[object], bool]]
    """Each field's test of a plain value, in field order."""
    required: frozenset[str]
    """The fields a record must give (all but those that are always None)."""
    listed: tuple[str, ...]
    """The fields given as lists (dice, names), read as tuples."""


def _shape(cls: type[Event]) -> _Shape:
    types = {f.name: str(f.type) for f in dataclasses.fields(cls)}
    return _Shape(
        {name: _FITS[type_] for name, type_ in types.items()},
        frozenset(name for name, type_ in types.items() if type_ != "None"),
        tuple(name for name, type_ in types.items() if type_ in ("Dice", "tuple[str, ...]")),
    )


_SHAPES: dict[type[Event], _Shape] = {cls: _shape(cls) for cls in _CLASSES.values()}


def from_data(data: Mapping[str, object]) -> Event:
    """The event of :meth:`~Scored.to_data`'s plain data (also the records written before the event classes:
    the same shape); raises :class:`EventFormatError` for anything else."""
    kind, fields = data.get("kind"), data.get("fields")
    fields = fields if isinstance(fields, Mapping) else {}
    what = fields.get("what") if kind in (EventKind.UNDONE, EventKind.REDONE) else None
    cls = _CLASSES.get((kind, what)) if isinstance(kind, str) and isinstance(what, str | None) else None
    if cls is None:
        named = kind if what is None else f"{kind}/{what}"
        known = ", ".join(k if w is None else f"{k}/{w}" for k, w in _CLASSES)
        raise EventFormatError(_("Event kind {kind!r} is unknown; expected one of: {known}.", kind=named, known=known))
    given = {k: v for k, v in fields.items() if k != "what"}
    if "seat" in data:
        given["seat"] = data["seat"]
    shape = _SHAPES[cls]
    fits = shape.fits
    if not shape.required <= given.keys() or any(k not in fits or not fits[k](v) for k, v in given.items()):
        raise EventFormatError(
            _(
                "Event {data!r} does not fit its kind; expected the fields {fields}.",
                data=dict(data),
                fields=", ".join(fits),
            )
        )
    for name in shape.listed:
        value = given.get(name)
        if isinstance(value, list):
            given[name] = tuple(value)
    return cls(**given)
