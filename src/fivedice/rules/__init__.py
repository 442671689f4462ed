"""Rule sets as data: look them up by name with options, list them, or load one from TOML.

>>> from fivedice import rules
>>> rs = rules.get("yahtzee", joker="free")
>>> rs.spec
'yahtzee joker=free'
>>> rs.rounds
13
>>> rules.get("yahtzee", cards="jetsi").rounds
39
>>> [name for name, _ in rules.available()]
['yahtzee', 'yacht', 'yatzy', 'kismet', 'generala']
"""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path
from typing import Any

from fivedice.errors import RuleSetError
from fivedice.i18n import _
from fivedice.rules.builtin import BUILTINS, Builtin, Option, describe, resolve_options
from fivedice.rules.kinds import KINDS, Kind, Points
from fivedice.rules.ruleset import BonusTier, Box, FillOrder, Joker, RuleSet, normalize_name
from fivedice.rules.schema import check_rule_data

__all__ = [
    "BUILTINS",
    "KINDS",
    "BonusTier",
    "Box",
    "Builtin",
    "FillOrder",
    "Joker",
    "Kind",
    "Option",
    "Points",
    "RuleSet",
    "available",
    "describe",
    "from_data",
    "get",
    "load",
    "parse_options",
    "parse_spec",
]


def available() -> list[tuple[str, str]]:
    """Every built-in rule set as ``(name, description)``, the description in the current language."""
    return [(b.name, _(b.description)) for b in BUILTINS.values()]


def get(name: str, **options: object) -> RuleSet:
    """A built-in rule set by name with options, or a rule set from a ``.toml`` file.

    Unknown names and options raise :class:`~fivedice.errors.RuleSetError`.
    """
    if name.endswith(".toml") or ("/" in name and Path(name).exists()):
        if options:
            raise RuleSetError(
                _(
                    "Options {options} cannot be given for a TOML rule set; edit {name!r}.",
                    options=sorted(options),
                    name=name,
                )
            )
        return load(name)
    key = normalize_name(name)
    builtin = BUILTINS.get(key)
    if builtin is None:
        raise RuleSetError(
            _(
                "Rule set {name!r} is unknown; expected one of: {names}, or a .toml file.",
                name=name,
                names=", ".join(BUILTINS),
            )
        )
    chosen = resolve_options(builtin, options)
    return _build(key, tuple(sorted(chosen.items())))


@lru_cache(maxsize=128)
def _build(key: str, chosen: tuple[tuple[str, str], ...]) -> RuleSet:
    builtin = BUILTINS[key]
    values = dict(chosen)
    rs = builtin.build(values)
    non_default = tuple((o.name, values[o.name]) for o in builtin.options if values[o.name] != o.default)
    return dataclasses.replace(rs, options=non_default)


def parse_options(pairs: Iterable[str]) -> dict[str, str]:
    """Options written ``key=value`` as a dict; raises on a malformed pair or a key given twice.

    >>> parse_options(["joker=free", "order = top_down"])
    {'joker': 'free', 'order': 'top_down'}
    >>> parse_options(["joker=free", "Joker=none"])
    Traceback (most recent call last):
    ...
    fivedice.errors.RuleSetError: Option 'Joker' is given twice ('free', then 'none'); expected it once.
    """
    out: dict[str, str] = {}
    first: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not key:
            raise RuleSetError(_("Option {pair!r} is not of the form key=value.", pair=pair))
        same = normalize_name(key)
        if same in first:
            raise RuleSetError(
                _(
                    "Option {key!r} is given twice ({first!r}, then {second!r}); expected it once.",
                    key=key,
                    first=out[first[same]],
                    second=value,
                )
            )
        first[same] = key
        out[key] = value
    return out


def parse_spec(spec: str) -> RuleSet:
    """A rule set from its spec, ``"NAME [key=value ...]"``, as :attr:`RuleSet.spec` gives.

    >>> parse_spec("yacht four_kind=four_dice").score("four of a kind", (4, 4, 4, 4, 1))
    16
    """
    name, *pairs = spec.split()
    return get(name, **parse_options(pairs))


_FIELDS = (
    "title", "description", "rolls", "dice", "yahtzee_box", "yahtzee_bonus", "instant_win", "rolloff_dice",
    "extra_alike_penalty",
)  # fmt: skip


def from_data(data: dict[str, Any]) -> RuleSet:
    """A rule set from plain data (a parsed TOML file or :meth:`RuleSet.to_data`).

    Either a full definition (``boxes`` is a list of boxes, each a ``kind`` with its
    parameters) or ``base = "yahtzee"`` with ``base_options`` and overrides; ``drop_boxes``
    and ``extra_boxes`` edit the base's card.
    """
    check_rule_data(data)
    data = dict(data)
    base_name = data.pop("base", None)
    if base_name is not None:
        base = get(str(base_name), **dict(data.pop("base_options", {})))
        merged = base.to_data()
        merged.pop("options", None)
        merged["name"] = data.get("name", f"{base.name}-custom")
    else:
        merged = {"cards": ["free"], "joker": "none", "yahtzee_bonus": 0, "upper_bonus": []}
    drop = {normalize_name(n) for n in data.pop("drop_boxes", [])}
    extra = list(data.pop("extra_boxes", []))
    merged.update(data)
    try:
        boxes = [Box.from_data(b) for b in merged["boxes"]]
    except KeyError:
        raise RuleSetError(_("Rule set data has no 'boxes' and no 'base'; expected one of them.")) from None
    except (TypeError, AttributeError):
        raise RuleSetError(_("Rule set boxes {boxes!r} are not a list of tables.", boxes=merged["boxes"])) from None
    missing = drop - {b.name for b in boxes}
    if missing:
        raise RuleSetError(
            _("drop_boxes names {names}, which are not boxes of the base rule set.", names=sorted(missing))
        )
    boxes = [b for b in boxes if b.name not in drop] + [Box.from_data(b) for b in extra]
    try:
        name = normalize_name(str(merged["name"]))
        fields = {k: merged[k] for k in _FIELDS if k in merged}
        fields.setdefault("title", name.replace("_", " ").title())
        fields.setdefault("description", fields["title"])
        return RuleSet(
            name=name,
            boxes=tuple(boxes),
            upper_bonus=tuple(BonusTier(int(t), int(p)) for t, p in merged.get("upper_bonus", [])),
            joker=Joker(merged.get("joker", "none")),
            cards=tuple(FillOrder(c) for c in merged.get("cards", ["free"])),
            options=tuple((str(k), str(v)) for k, v in dict(merged.get("options", {})).items()),
            **fields,
        )
    except KeyError as exc:
        raise RuleSetError(_("Rule set data lacks {key!r}.", key=exc.args[0])) from None
    except ValueError as exc:
        if isinstance(exc, RuleSetError):
            raise
        raise RuleSetError(_("Rule set data is not valid: {reason}.", reason=exc)) from None


def load(path: str | Path) -> RuleSet:
    """A rule set from a TOML file (see :func:`from_data` for its form)."""
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except OSError as exc:
        raise RuleSetError(
            _("Rule set file {path!r} cannot be read: {reason}.", path=str(path), reason=exc.strerror)
        ) from None
    except tomllib.TOMLDecodeError as exc:
        raise RuleSetError(
            _("Rule set file {path!r} is not valid TOML: {reason}.", path=str(path), reason=exc)
        ) from None
    return from_data(data)
