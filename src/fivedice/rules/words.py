"""The rule sources' own words for the boxes, by language (``locales/boxwords.toml``).

Players type the names the sources use (Italian *3 dadi uguali*, *scala con 4*, *grande
rettilineo*; Croatian *veliki ravno*; Sundanese *leutik lempeng*); :meth:`RuleSet.box_index`
accepts them in their language through :func:`typed_names`, so the plain mode, ``fivedice
score``, ``advise --card`` and every view share one lookup. The file also holds, per language, a
note the rules reference prints under a box that needs one (which box is the "Poker").

>>> from fivedice import i18n, rules
>>> with i18n.language("it"):
...     rules.get("yahtzee").box("scala con 4").name, rules.get("yahtzee").box("Grande rettilineo").name
('small_straight', 'large_straight')
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any

from fivedice.i18n import LOCALE_DIR, box_label, current_language, fold
from fivedice.rules.kinds import Kind, kind_from_data

if TYPE_CHECKING:
    from fivedice.rules.ruleset import Box

__all__ = ["WORDS_FILE", "Alias", "aliases", "note", "typed_names"]

WORDS_FILE = LOCALE_DIR / "boxwords.toml"
"""The data: ``[CODE.aliases]`` and ``[CODE.notes]`` keyed by the boxes' English labels."""


@dataclass(frozen=True, slots=True)
class Alias:
    """Another name of a box in one language; with a ``kind``, it names only a box of that kind."""

    word: str
    kind: Kind | None = None

    def fits(self, box: Box) -> bool:
        """Whether this name may stand for ``box``."""
        return self.kind is None or self.kind == box.kind


@dataclass(frozen=True, slots=True)
class _Language:
    aliases: dict[str, tuple[Alias, ...]]
    notes: dict[str, str]


def _alias(entry: Any) -> Alias:
    if isinstance(entry, str):
        return Alias(entry)
    kind = entry.get("kind")
    return Alias(entry["word"], None if kind is None else kind_from_data(kind))


def _language(section: dict[str, Any]) -> _Language:
    found = {label: tuple(_alias(e) for e in entries) for label, entries in section.get("aliases", {}).items()}
    return _Language(found, dict(section.get("notes", {})))


@cache
def _table() -> dict[str, _Language]:
    """The file, read once (its form is checked by the tests: it ships with the package)."""
    with WORDS_FILE.open("rb") as f:
        data = tomllib.load(f)
    return {code: _language(section) for code, section in data.items()}


def aliases(box: Box, code: str | None = None) -> tuple[str, ...]:
    """The other names ``box`` goes by in language ``code`` (default: the current language).

    >>> from fivedice import rules
    >>> aliases(rules.get("yahtzee").box("large_straight"), "hr")
    ('veliki ravno', 'veliki ravni', 'veliki nizovi')
    """
    language = _table().get(code or current_language())
    if language is None:
        return ()
    return tuple(a.word for a in language.aliases.get(box.label, ()) if a.fits(box))


def note(box: Box, code: str | None = None) -> str | None:
    """The note on ``box`` in language ``code`` (default: the current one), if it has one."""
    language = _table().get(code or current_language())
    return None if language is None else language.notes.get(box.label)


@lru_cache(maxsize=1024)
def _names(box: Box, code: str) -> frozenset[str]:
    return frozenset(fold(n) for n in (box_label(box), box.label, *aliases(box, code)))


def typed_names(box: Box) -> frozenset[str]:
    """Every name (folded, see :func:`fivedice.i18n.fold`) that a player of the current language
    may type for ``box`` besides its identifier: its label there, its English label and the
    sources' names."""
    return _names(box, current_language())
