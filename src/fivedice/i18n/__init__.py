"""Languages: gettext catalogs, the current language, and locale-aware numbers and dates.

Every user-facing text goes through :func:`gettext` (alias ``_``), :func:`ngettext` or
:func:`pgettext`, called when the text is shown or the error raised, so it comes out in the
current language. Placeholders are named and filled by the call itself::

    _("Box {name!r} is already filled.", name="chance")

Texts kept in module-level constants or in data (box labels, descriptions) are marked with
:func:`N_` for extraction and translated where they are shown (``_(HELP)``, :func:`box_label`).

The catalogs are ``fivedice/locales/<code>.po`` with their compiled ``<code>.mo``; adding a
language is adding one ``.po`` file (``python -m fivedice.i18n init <code>``). The process-wide
language is set with :func:`set_language` (the CLI does it from ``--lang`` or the environment);
a server sets a per-request or per-connection language with ``with language(code):``.

>>> with language("it"):
...     _("Total")
'Totale'
>>> with language("hr"):
...     ngettext("{n} die", "{n} dice", 3, n=3)
'3 kockice'
"""

from __future__ import annotations

import gettext as _gettext
import io
import os
import string
import unicodedata
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import date, datetime
from functools import cache
from pathlib import Path

from fivedice.errors import FiveDiceError

__all__ = [
    "DOMAIN",
    "LOCALE_DIR",
    "N_",
    "SOURCE_LANGUAGE",
    "LanguageError",
    "_",
    "available_languages",
    "box_label",
    "box_name",
    "catalog_json",
    "current_language",
    "fold",
    "format_date",
    "format_datetime",
    "format_decimal",
    "format_number",
    "format_percent",
    "from_environment",
    "gettext",
    "language",
    "negotiate",
    "ngettext",
    "pgettext",
    "placeholders",
    "resolve",
    "set_language",
]

DOMAIN = "fivedice"
"""The gettext domain: the catalogs are ``<code>.po`` / ``<code>.mo`` in :data:`LOCALE_DIR`."""
LOCALE_DIR = Path(__file__).resolve().parent.parent / "locales"
"""Where the catalogs live (inside the package, so they ship with it)."""
SOURCE_LANGUAGE = "en"
"""The language the texts are written in; every catalog falls back to it."""
ENV_VARS = ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG")
"""Environment variables that choose the language, in the order gettext reads them."""

# Babel locales for number formats where CLDR has none of its own for the language
# (Corsican: CLDR has its month names but only the root's number symbols; Corsica writes numbers as France does).
_NUMBER_LOCALE = {"co": "fr_FR"}


class LanguageError(FiveDiceError):
    """A language code with no catalog."""


def N_(message: str) -> str:
    """Mark ``message`` for extraction without translating it (translate where it is shown)."""
    return message


# -- the catalogs -----------------------------------------------------------------------
def _codes() -> tuple[str, ...]:
    """The codes of every language with a catalog (cheap: no names, no Babel; the folder is listed once)."""
    return _codes_in(LOCALE_DIR)


@cache
def _codes_in(folder: Path) -> tuple[str, ...]:
    # cached: every WebSocket frame of the server enters its connection's language, and listing the folder
    # each time took about 4% of the CPU an action cost
    found = {p.stem for p in folder.glob("*.po")} | {p.stem for p in folder.glob("*.mo")}
    return tuple(sorted(found | {SOURCE_LANGUAGE}))


@cache
def available_languages() -> dict[str, str]:
    """Every language with a catalog, as code -> its own name (``{"it": "italiano", ...}``)."""
    out: dict[str, str] = {}
    for code in _codes():
        out[code] = _native_name(code)
    return out


def _native_name(code: str) -> str:
    try:
        from babel import Locale

        name = Locale.parse(code).get_display_name(code)
    except Exception:  # no Babel, or no CLDR data for this code
        return code
    return name[:1].upper() + name[1:] if name else code


@cache
def _translations(code: str) -> _gettext.NullTranslations:
    """The compiled catalog of ``code`` (its ``.mo``, else its ``.po`` compiled in memory)."""
    mo = LOCALE_DIR / f"{code}.mo"
    if mo.exists():
        with mo.open("rb") as f:
            return _gettext.GNUTranslations(f)
    po = LOCALE_DIR / f"{code}.po"
    if po.exists():
        from babel.messages.mofile import write_mo
        from babel.messages.pofile import read_po

        with po.open("rb") as f:
            catalog = read_po(f, locale=code)
        buf = io.BytesIO()
        write_mo(buf, catalog)
        buf.seek(0)
        return _gettext.GNUTranslations(buf)
    return _gettext.NullTranslations()


# -- choosing the language --------------------------------------------------------------
_default = SOURCE_LANGUAGE
_override: ContextVar[str | None] = ContextVar("fivedice_language", default=None)


def resolve(code: str | None) -> str | None:
    """The available language a locale name stands for, or None.

    >>> resolve("it_IT.UTF-8"), resolve("hr-HR"), resolve("C"), resolve("de_DE")
    ('it', 'hr', 'en', None)
    """
    if not code:
        return None
    text = code.strip().split(".")[0].split("@")[0].replace("-", "_")
    if text in ("C", "POSIX"):
        return SOURCE_LANGUAGE
    codes = _codes()
    lang, _sep, region = text.partition("_")
    for candidate in (f"{lang.lower()}_{region.upper()}" if region else "", lang.lower()):
        if candidate in codes:
            return candidate
    return None


def from_environment(environ: Mapping[str, str] | None = None) -> str:
    """The language the environment asks for (``LANGUAGE``, ``LC_ALL``, ``LC_MESSAGES``,
    ``LANG``), or English.

    >>> from_environment({"LANG": "it_IT.UTF-8"}), from_environment({"LANGUAGE": "de:hr", "LANG": "it"})
    ('it', 'hr')
    """
    env = os.environ if environ is None else environ
    for var in ENV_VARS:
        for entry in env.get(var, "").split(":"):
            found = resolve(entry)
            if found is not None:
                return found
    return SOURCE_LANGUAGE


def negotiate(accept_language: str | None) -> str:
    """The best available language for an HTTP ``Accept-Language`` header, or English.

    >>> negotiate("de-DE,de;q=0.9,it;q=0.8,en;q=0.5")
    'it'
    """
    ranked: list[tuple[float, int, str]] = []
    for i, part in enumerate((accept_language or "").split(",")):
        tag, _sep, params = part.strip().partition(";")
        q = 1.0
        if params.strip().startswith("q="):
            try:
                q = float(params.strip()[2:])
            except ValueError:
                q = 0.0
        if tag and q > 0:
            ranked.append((-q, i, tag))
    for _q, _i, tag in sorted(ranked):
        found = resolve(tag)
        if found is not None:
            return found
    return SOURCE_LANGUAGE


def _checked(code: str) -> str:
    found = resolve(code)
    if found is None:
        names = ", ".join(available_languages())
        raise LanguageError(
            gettext("Language {code!r} is not available; expected one of: {names}.", code=code, names=names)
        )
    return found


def set_language(code: str | None = None) -> str:
    """Set the process-wide language (None: from the environment); returns its code.

    Raises :class:`LanguageError` for a language with no catalog."""
    global _default
    _default = from_environment() if code is None else _checked(code)
    return _default


def current_language() -> str:
    """The language texts come out in now."""
    return _override.get() or _default


@contextmanager
def language(code: str) -> Iterator[str]:
    """Use ``code`` within the block, in this thread or task only (a server's request)."""
    token = _override.set(_checked(code))
    try:
        yield current_language()
    finally:
        _override.reset(token)


# -- translating ------------------------------------------------------------------------
def _fill(text: str, source: str, fields: Mapping[str, object]) -> str:
    try:
        return text.format(**fields)
    except (KeyError, IndexError, ValueError):  # a broken translation: show the English
        return source.format(**fields)


def gettext(message: str, /, **fields: object) -> str:
    """``message`` in the current language, its ``{placeholders}`` filled from ``fields``."""
    text = _translations(current_language()).gettext(message)
    return _fill(text, message, fields) if fields else text


_ = gettext


def ngettext(singular: str, plural: str, n: int, /, **fields: object) -> str:
    """The singular or plural form for ``n`` in the current language, filled from ``fields``."""
    text = _translations(current_language()).ngettext(singular, plural, n)
    return _fill(text, singular if n == 1 else plural, fields) if fields else text


def pgettext(context: str, message: str, /, **fields: object) -> str:
    """``message`` in a ``context`` (to tell apart equal English words), filled from ``fields``."""
    text = _translations(current_language()).pgettext(context, message)
    return _fill(text, message, fields) if fields else text


def box_label(box: object) -> str:
    """A box's label in the current language (rule sets keep the English one as data)."""
    label = getattr(box, "label", None)
    return gettext(label) if isinstance(label, str) else str(box)


def box_name(box: object) -> str:
    """A box as a message names it: its identifier in English (``full_house``, what is typed
    there), its label in the current language elsewhere (``Full``, ``Puna kuća``).

    >>> class B:
    ...     name, label = "full_house", "Full House"
    >>> box_name(B())
    'full_house'
    >>> with language("hr"):
    ...     box_name(B())
    'Puna kuća'
    """
    if current_language() == SOURCE_LANGUAGE:
        return str(getattr(box, "name", box))
    return box_label(box)


def fold(text: str) -> str:
    """Text for loose matching: lower case, no accents, words joined by ``_``.

    >>> fold("Šestice"), fold("Scala  piccola"), fold("Lempeng Gedé")
    ('sestice', 'scala_piccola', 'lempeng_gede')
    """
    plain = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    return "_".join(plain.lower().replace("-", " ").replace("_", " ").split())


def placeholders(text: str) -> list[str]:
    """The ``{fields}`` of a message, with conversion and format spec, sorted.

    >>> placeholders("Box {name!r} on card {card} of {total:>3}")
    ['{card}', '{name!r}', '{total:>3}']
    """
    found = []
    for _lit, field, spec, conv in string.Formatter().parse(text):
        if field is not None:
            found.append("{" + field + (f"!{conv}" if conv else "") + (f":{spec}" if spec else "") + "}")
    return sorted(found)


def catalog_json(code: str) -> dict[str, object]:
    """A catalog as JSON-ready data for a web client: ``{"language", "plural", "messages"}``.

    ``messages`` maps each English text to its translation (a list of forms for plurals;
    contexts as ``"context\\u0004text"``); untranslated texts, and texts (or plural forms) the same as in
    English, are left out.
    """
    code = _checked(code)
    trans = _translations(code)
    catalog: dict[object, str] = getattr(trans, "_catalog", {})
    english: dict[object, str] = getattr(_translations(SOURCE_LANGUAGE), "_catalog", {})
    messages: dict[str, object] = {}
    plurals: dict[str, list[str]] = {}
    for key, value in catalog.items():
        if key == "" or not value or value == str(key).rpartition("\x04")[2]:  # the English text needs no entry
            continue
        if isinstance(key, tuple):
            plurals.setdefault(str(key[0]), []).append(value)
        else:
            messages[str(key)] = value
    for msgid, forms in plurals.items():
        if forms != [english.get((msgid, i)) for i in range(len(forms))]:
            messages[msgid] = forms
    header = trans.info().get("plural-forms", "nplurals=2; plural=(n != 1);")
    return {"language": code, "plural": header, "messages": messages}


# -- numbers and dates ------------------------------------------------------------------
def _babel_locale(numbers: bool = True) -> str:
    code = current_language()
    return _NUMBER_LOCALE.get(code, code) if numbers else code


def format_number(value: int) -> str:
    """A whole number with the locale's digit grouping (``1.234`` in Italian)."""
    from babel.numbers import format_decimal as fd

    return fd(value, locale=_babel_locale())


def format_decimal(value: float, digits: int = 1) -> str:
    """A number with exactly ``digits`` decimals in the locale's style (``12,5`` in Italian).

    >>> with language("it"):
    ...     format_decimal(1234.56, 1)
    '1.234,6'
    """
    from babel.numbers import format_decimal as fd

    pattern = "#,##0" + ("." + "0" * digits if digits > 0 else "")
    return fd(value, format=pattern, locale=_babel_locale())


def format_percent(value: float, digits: int = 1) -> str:
    """A fraction as a percentage in the locale's style (``0.125`` -> ``12,5%``)."""
    from babel.numbers import format_percent as fp

    pattern = "#,##0" + ("." + "0" * digits if digits > 0 else "") + "%"
    return fp(value, format=pattern, locale=_babel_locale())


def format_date(value: date, width: str = "medium") -> str:
    """A date in the locale's style (``width``: short, medium, long or full)."""
    from babel.dates import format_date as fd

    return fd(value, format=width, locale=_babel_locale(numbers=False))


def format_datetime(value: datetime, width: str = "medium") -> str:
    """A date and time in the locale's style (``width``: short, medium, long or full)."""
    from babel.dates import format_datetime as fdt

    return fdt(value, format=width, locale=_babel_locale(numbers=False))
