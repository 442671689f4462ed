"""The shape of rule-set data (a TOML house rule, :meth:`RuleSet.to_data`): every field's type and range.

A rule file is checked whole before anything is built from it, so a field of the wrong type, a value
out of range or an unknown key is refused in one sentence that names the field, the value and what
was expected (with "did you mean" for a misspelt key), never a traceback or a silent default:

>>> check_rule_data({"base": "yahtzee", "roll": 4})
Traceback (most recent call last):
...
fivedice.errors.RuleSetError: Rule-set field 'roll' is unknown; did you mean 'rolls'?
>>> check_rule_data({"base": "yahtzee", "rolls": "4"})
Traceback (most recent call last):
...
fivedice.errors.RuleSetError: Rule-set field 'rolls' is '4' (text); expected a whole number from 1 to 10.
"""

from __future__ import annotations

import dataclasses
import difflib
import typing
from collections.abc import Callable, Mapping
from typing import Any

from fivedice.errors import RuleSetError
from fivedice.i18n import _, pgettext
from fivedice.rules.kinds import KINDS, Straight

__all__ = ["MAX_POINTS", "check_box_data", "check_rule_data"]

MAX_POINTS = 10_000
"""The most points any one number of a rule set may be (a box, a bonus, a tier's threshold)."""

Check = Callable[[str, object], None]
"""Checks one value; ``where`` names it in the error (``'rolls'``, ``box 'chance' field 'points'``)."""


def _type_word(value: object) -> str:
    if isinstance(value, bool):
        return pgettext("type", "true or false")
    if isinstance(value, int):
        return pgettext("type", "a whole number")
    if isinstance(value, float):
        return pgettext("type", "a decimal number")
    if isinstance(value, str):
        return pgettext("type", "text")
    if isinstance(value, list | tuple):
        return pgettext("type", "a list")
    if isinstance(value, Mapping):
        return pgettext("type", "a table")
    return type(value).__name__


def _shown(value: object) -> str:
    """A value as the rule file writes it (TOML's ``true``, not Python's ``True``), cut if long."""
    text = ("true" if value else "false") if isinstance(value, bool) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _refuse(where: str, value: object, expected: str) -> RuleSetError:
    shown = _shown(value)
    return RuleSetError(
        _(
            "{where} is {value} ({type}); expected {expected}.",
            where=where,
            value=shown,
            type=_type_word(value),
            expected=expected,
        )
    )


def _whole(low: int, high: int) -> Check:
    def check(where: str, value: object) -> None:
        if not _whole_in(value, low, high):
            raise _refuse(where, value, _("a whole number from {low} to {high}", low=low, high=high))

    return check


def _text(where: str, value: object) -> None:
    if not isinstance(value, str) or not value.strip():
        raise _refuse(where, value, _("text"))


def _flag(where: str, value: object) -> None:
    if not isinstance(value, bool):
        raise _refuse(where, value, _("true or false"))


def _choice(*choices: str) -> Check:
    def check(where: str, value: object) -> None:
        if value in choices:
            return
        close = difflib.get_close_matches(value, choices, n=1, cutoff=0.6) if isinstance(value, str) else []
        if close:
            raise RuleSetError(
                _("{where} is {value}; did you mean {close!r}?", where=where, value=_shown(value), close=close[0])
            )
        raise _refuse(where, value, _("one of: {choices}", choices=", ".join(repr(c) for c in choices)))

    return check


def _list_of(item: Check, what: str, least: int = 0) -> Check:
    def check(where: str, value: object) -> None:
        if not isinstance(value, list | tuple) or len(value) < least:
            raise _refuse(where, value, what)
        for i, entry in enumerate(value, 1):
            item(_("{where} item {n}", where=where, n=i), entry)

    return check


def _table(where: str, value: object) -> None:
    if not isinstance(value, Mapping):
        raise _refuse(where, value, _("a table of key = value"))


def _scalars(where: str, value: object) -> None:
    _table(where, value)
    assert isinstance(value, Mapping)
    for key, entry in value.items():
        if not isinstance(entry, str | int | bool) or isinstance(entry, float):
            raise _refuse(_("{where} key {key!r}", where=where, key=key), entry, _("text, a number or true/false"))


def _whole_in(value: object, low: int, high: int) -> bool:
    return not isinstance(value, bool) and isinstance(value, int) and low <= value <= high


def _tier(where: str, value: object) -> None:
    numbers = list(value) if isinstance(value, list | tuple) else []
    if len(numbers) != 2 or not all(_whole_in(v, 0, MAX_POINTS) for v in numbers):
        raise _refuse(where, value, _("a pair [threshold, points] of whole numbers, e.g. [63, 35]"))


def _points(where: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise _refuse(where, value, _("a number, 'sum', 'sum+N', 'matched' or 'matched+N'"))
    if isinstance(value, int):
        _whole(0, MAX_POINTS)(where, value)


def _box_table(where: str, value: object) -> None:
    _table(where, value)
    assert isinstance(value, Mapping)
    name = value.get("name")
    check_box_data(value, _("Box {name!r}", name=name) if isinstance(name, str) else where)


FIELDS: dict[str, Check] = {
    "name": _text,
    "title": _text,
    "description": _text,
    "base": _text,
    "base_options": _scalars,
    "drop_boxes": _list_of(_text, _("a list of box names")),
    "extra_boxes": _list_of(_box_table, _("a list of box tables")),
    "boxes": _list_of(_box_table, _("a list of at least one box table"), 1),
    "rolls": _whole(1, 10),
    "dice": _whole(1, 10),
    "cards": _list_of(_choice("free", "upper_first", "top_down", "bottom_up"), _("a list of fill orders"), 1),
    "joker": _choice("forced", "free", "none"),
    "yahtzee_box": _text,
    "yahtzee_bonus": _whole(0, MAX_POINTS),
    "upper_bonus": _list_of(_tier, _("a list of [threshold, points] pairs, e.g. [[63, 35]]")),
    "instant_win": _text,
    "rolloff_dice": _whole(0, 10),
    "extra_alike_penalty": _flag,
    "options": _scalars,
}
"""Every field a rule set's data may have, with its check."""

BOX_FIELDS: dict[str, Check] = {
    "name": _text,
    "label": _text,
    "section": _choice("upper", "lower"),
    "points": _points,
    "first_roll_points": _whole(0, MAX_POINTS),
    "aliases": _list_of(_text, _("a list of names")),
    "kind": _choice(*KINDS),
}
"""Every field a box may have beside its kind's parameters."""

_FACES = _whole(1, 6)
_PARAMETER_CHECKS: dict[object, Check] = {
    bool: _flag,
    int: _whole(1, 6),
    tuple[int, ...]: _list_of(_FACES, _("a list of faces 1 to 6"), 1),
    tuple[tuple[int, ...], ...]: _list_of(_list_of(_FACES, _("a list of faces 1 to 6"), 1), _("a list of runs"), 1),
}


def _kind_parameters(kind: str) -> dict[str, Check]:
    cls = KINDS[kind]
    hints = typing.get_type_hints(cls)
    found = {f.name: _PARAMETER_CHECKS[hints[f.name]] for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    if cls is Straight:
        found["length"] = _whole(1, 6)
    return found


def _unknown(where: str, key: str, known: list[str]) -> RuleSetError:
    close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
    if close:
        return RuleSetError(
            _("{where} {key!r} is unknown; did you mean {close!r}?", where=where, key=key, close=close[0])
        )
    return RuleSetError(
        _("{where} {key!r} is unknown; expected one of: {known}.", where=where, key=key, known=", ".join(known))
    )


def _check_fields(data: Mapping[str, Any], fields: Mapping[str, Check], where: Callable[[str], str], what: str) -> None:
    for key, value in data.items():
        check = fields.get(str(key))
        if check is None:
            raise _unknown(what, str(key), list(fields))
        check(where(str(key)), value)


def check_box_data(data: Mapping[str, Any], where: str = "") -> None:
    """Raise a one-sentence :class:`RuleSetError` unless ``data`` is a well-formed box."""
    kind = data.get("kind")
    if "kind" not in data:
        raise RuleSetError(_("{where} has no 'kind'; expected one of: {kinds}.", where=where, kinds=", ".join(KINDS)))
    BOX_FIELDS["kind"](_("{where} field 'kind'", where=where), kind)
    fields = {**BOX_FIELDS, **_kind_parameters(str(kind))}
    _check_fields(
        data, fields, lambda key: _("{where} field {key!r}", where=where, key=key), _("{where} field", where=where)
    )


def check_rule_data(data: Mapping[str, Any]) -> None:
    """Raise a one-sentence :class:`RuleSetError` unless every field of ``data`` is known and well-formed."""
    _check_fields(data, FIELDS, lambda key: _("Rule-set field {key!r}", key=key), _("Rule-set field"))
