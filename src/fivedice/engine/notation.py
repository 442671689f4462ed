"""A compact, documented text form of each action, and the JSON form used in saves.

Text tokens (a log is these tokens separated by spaces; seats and dice positions are
1-based, as people count them):

=================  ===================================================================
``O2=34561``       seat 2 rolls off and shows 3 4 5 6 1
``R=31562``        a roll of every die, showing 3 1 5 6 2
``R25=31462``      keep dice 2 and 5, roll the rest; the dice then show 3 1 4 6 2
``@full_house=25`` fill Full House with the current dice for 25 points
``@2.chance=21``   fill Chance on card 2 (Jetsi) for 21 points
=================  ===================================================================

>>> from fivedice.engine.actions import Roll
>>> to_text(Roll((1, 4), (3, 1, 4, 6, 2)))
'R25=31462'
>>> from_text("@2.chance=21")
Score(box='chance', card=1, points=21)
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from fivedice.engine.actions import Action, Roll, RollOff, Score
from fivedice.errors import NotationError
from fivedice.i18n import _

__all__ = ["from_json", "from_text", "log_from_text", "log_to_text", "to_json", "to_text"]

_TOKEN = re.compile(
    r"^(?:O(?P<seat>\d+)=(?P<odice>[1-6]+)"
    r"|R(?P<held>[1-9]*)=(?P<rdice>[1-6]+)"
    r"|@(?:(?P<card>\d+)\.)?(?P<box>[a-z][a-z0-9_]*)=(?P<points>-?\d+))$"
)


def _digits(values: Iterable[int]) -> str:
    return "".join(str(v) for v in values)


def to_text(action: Action) -> str:
    """The text token of a completed record."""
    if isinstance(action, RollOff):
        if action.dice is None:
            raise NotationError(_("Roll-off {action!r} has no dice; only records have a notation.", action=action))
        return f"O{action.seat + 1}={_digits(action.dice)}"
    if isinstance(action, Roll):
        if action.dice is None:
            raise NotationError(_("Roll {action!r} has no dice; only records have a notation.", action=action))
        return f"R{_digits(p + 1 for p in action.held)}={_digits(action.dice)}"
    if action.points is None:
        raise NotationError(_("Score {action!r} has no points; only records have a notation.", action=action))
    card = f"{action.card + 1}." if action.card else ""
    return f"@{card}{action.box}={action.points}"


def from_text(token: str) -> Action:
    """The record a text token stands for."""
    m = _TOKEN.match(token.strip())
    if m is None:
        raise NotationError(
            _("Move {token!r} is not in fivedice notation; expected e.g. 'R25=31462' or '@chance=21'.", token=token)
        )
    if m["odice"]:
        return RollOff(int(m["seat"]) - 1, tuple(map(int, m["odice"])))
    if m["rdice"]:
        return Roll(tuple(int(c) - 1 for c in m["held"]), tuple(map(int, m["rdice"])))
    return Score(m["box"], int(m["card"] or 1) - 1, int(m["points"]))


def log_to_text(log: Iterable[Action]) -> str:
    """A whole log as one line of tokens."""
    return " ".join(to_text(a) for a in log)


def log_from_text(text: str) -> list[Action]:
    """Records from a line (or lines) of tokens."""
    return [from_text(t) for t in text.split()]


def to_json(action: Action) -> dict[str, Any]:
    """A record as a JSON-ready dict (0-based seats, positions and cards)."""
    if isinstance(action, RollOff):
        return {"type": "rolloff", "seat": action.seat, "dice": list(action.dice or ())}
    if isinstance(action, Roll):
        return {"type": "roll", "held": list(action.held), "dice": list(action.dice or ())}
    return {"type": "score", "card": action.card, "box": action.box, "points": action.points}


def _ints(value: object, what: str) -> tuple[int, ...]:
    if not isinstance(value, list) or not all(isinstance(v, int) and not isinstance(v, bool) for v in value):
        raise NotationError(_("{what} {value!r} is not a list of whole numbers.", what=what, value=value))
    return tuple(value)


def from_json(data: object) -> Action:
    """A record from its JSON form (see :func:`to_json`)."""
    if not isinstance(data, dict):
        raise NotationError(_("Move {move!r} is not a JSON object.", move=data))
    kind = data.get("type")
    try:
        if kind == "rolloff":
            return RollOff(_int(data["seat"], _("Seat")), _ints(data["dice"], _("Dice")))
        if kind == "roll":
            return Roll(_ints(data["held"], _("Held positions")), _ints(data["dice"], _("Dice")))
        if kind == "score":
            box = data["box"]
            if not isinstance(box, str):
                raise NotationError(_("Box {box!r} is not a box name.", box=box))
            return Score(box, _int(data["card"], _("Card")), _int(data["points"], _("Points")))
    except KeyError as exc:
        raise NotationError(_("Move {move!r} lacks {key!r}.", move=data, key=exc.args[0])) from None
    raise NotationError(_("Move type {kind!r} is unknown; expected 'rolloff', 'roll' or 'score'.", kind=kind))


def _int(value: object, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise NotationError(_("{what} {value!r} is not a whole number.", what=what, value=value))
    return value
