"""Catalog maintenance with Babel: ``python -m fivedice.i18n extract|update|compile|init CODE|stats|lint``.

- ``extract``: scan ``src/fivedice`` for ``_()``, ``gettext()``, ``ngettext()``, ``pgettext()``
  and ``N_()`` and write the template ``locales/fivedice.pot``.
- ``update``: merge the template into every ``locales/<code>.po`` (new texts appear empty,
  changed ones fuzzy; English copies each text).
- ``compile``: write ``locales/<code>.mo`` from each ``.po`` (fuzzy and empty entries are left
  out, so they fall back to English).
- ``init CODE``: start a new language's ``.po`` from the template.
- ``stats``: how many texts each catalog translates.
- ``lint [PATH ...]``: list user-facing literals that bypass the catalogs (:mod:`fivedice.i18n.lint`);
  without paths, the whole package.
"""

from __future__ import annotations

import io
import re
import sys
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, BinaryIO

from babel import Locale
from babel.messages.catalog import Catalog
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

from fivedice.i18n import DOMAIN, LOCALE_DIR, SOURCE_LANGUAGE

__all__ = ["compile_bytes", "extract", "main", "new_catalog", "read", "template"]

PACKAGE_DIR = LOCALE_DIR.parent
TEMPLATE = LOCALE_DIR / f"{DOMAIN}.pot"
KEYWORDS = dict(DEFAULT_KEYWORDS)
JS_KEYWORDS: dict[str, object] = {"t": None, "N_": None, "tn": (1, 2)}
"""The web client's translation calls: ``t("English text", {fields})``, ``tn(singular, plural, n, {fields})``
and the marker ``N_("...")``."""
SKIP = ("locales",)
"""Package directories not scanned for texts."""
FIXED_DATE = datetime(2026, 1, 1, tzinfo=UTC)
"""The creation and revision date written into every catalog (a real date would conflict on every merge)."""
HEADER = "# {language} translations of fivedice.\n# Distributed under the same license as the fivedice project.\n#"
"""The comment at the top of every catalog."""


def new_catalog(code: str | None, language: str) -> Catalog:
    """An empty catalog for language ``code`` (None: the template) with fivedice's header."""
    return Catalog(
        locale=code,
        domain=DOMAIN,
        header_comment=HEADER.format(language=language),
        project="fivedice",
        copyright_holder="the fivedice authors",
        charset="utf-8",
        fuzzy=False,
    )


def template() -> Catalog:
    """A fresh template catalog with every marked text of the package's sources."""
    catalog = new_catalog(None, "Template for")
    skip = tuple(f"{d}/" for d in SKIP)
    methods: list[tuple[Any, dict[str, Any]]] = [
        ([("**.py", "python")], KEYWORDS),
        ([("**/static/**.js", "javascript"), ("**/static/**.html", extract_html)], JS_KEYWORDS),
    ]
    for method_map, keywords in methods:
        for filename, lineno, message, comments, context in extract_from_dir(
            PACKAGE_DIR, method_map, keywords=keywords, comment_tags=("TRANSLATORS:",), strip_comment_tags=True
        ):
            if filename.startswith(skip):
                continue
            catalog.add(message, None, [(f"src/fivedice/{filename}", lineno)], auto_comments=comments, context=context)
    return catalog


_HTML_TEXT = re.compile(r"<([a-z0-9]+)\b([^>]*\bdata-i18n(?:=\"([^\"]*)\")?(?=[\s>])[^>]*)>([^<]*)<", re.IGNORECASE)
_HTML_ATTRS = re.compile(r"<[a-z0-9]+\b([^>]*\bdata-i18n-attr=\"([^\"]+)\"[^>]*)>", re.IGNORECASE)


def extract_html(
    fileobj: BinaryIO, keywords: object, comment_tags: object, options: object
) -> Iterator[tuple[int, str, str, list[str]]]:
    """Babel extraction method for the web page: the text of every element marked ``data-i18n`` (or the
    attribute's own value) and every attribute named in ``data-i18n-attr``."""
    text = fileobj.read().decode("utf-8")
    for match in _HTML_TEXT.finditer(text):
        message = " ".join((match.group(3) or match.group(4)).split())
        if message:
            yield text.count("\n", 0, match.start()) + 1, "t", message, []
    for match in _HTML_ATTRS.finditer(text):
        for attr in match.group(2).split():
            found = re.search(rf"\b{re.escape(attr)}=\"([^\"]*)\"", match.group(1))
            if found and found.group(1).strip():
                yield text.count("\n", 0, match.start()) + 1, "t", found.group(1), []


def _write(catalog: Catalog, path: Path) -> None:
    """Write a catalog sorted by text, locations without line numbers and a fixed creation date, so that
    branches adding texts in different places merge without conflicts."""
    catalog.creation_date = FIXED_DATE
    catalog.revision_date = FIXED_DATE
    buf = io.BytesIO()
    write_po(buf, catalog, width=100, sort_output=True, include_lineno=False, omit_header=False, include_previous=False)
    path.write_bytes(buf.getvalue())


def read(code: str) -> Catalog:
    """The ``.po`` catalog of language ``code``."""
    with (LOCALE_DIR / f"{code}.po").open("rb") as f:
        return read_po(f, locale=code, domain=DOMAIN)


def compile_bytes(catalog: Catalog) -> bytes:
    """The ``.mo`` file of a catalog (fuzzy entries left out)."""
    buf = io.BytesIO()
    write_mo(buf, catalog, use_fuzzy=False)
    return buf.getvalue()


def extract() -> Catalog:
    """Write the template; returns it."""
    catalog = template()
    _write(catalog, TEMPLATE)
    return catalog


def _fill_source(catalog: Catalog) -> None:
    for message in catalog:
        if isinstance(message.id, tuple | list):
            if not isinstance(message.string, tuple | list) or not all(message.string):
                message.string = tuple(message.id)
        elif message.id and not message.string:
            message.string = message.id
        message.flags.discard("fuzzy")


def update() -> list[str]:
    """Merge the template into every catalog; returns the codes updated."""
    codes = sorted(p.stem for p in LOCALE_DIR.glob("*.po"))
    for code in codes:
        with TEMPLATE.open("rb") as f:
            tmpl = read_po(f)  # afresh for each catalog: Babel shares the template's new messages with it
        catalog = read(code)
        catalog.update(tmpl, no_fuzzy_matching=True)
        if code == SOURCE_LANGUAGE:
            _fill_source(catalog)
        _write(catalog, LOCALE_DIR / f"{code}.po")
    return codes


def compile_all() -> list[str]:
    """Write every ``.mo``; returns the codes compiled."""
    codes = sorted(p.stem for p in LOCALE_DIR.glob("*.po"))
    for code in codes:
        (LOCALE_DIR / f"{code}.mo").write_bytes(compile_bytes(read(code)))
    return codes


def init(code: str) -> Path:
    """Start ``locales/<code>.po`` from the template."""
    path = LOCALE_DIR / f"{code}.po"
    if path.exists():
        raise SystemExit(f"{path} exists already; use 'update'.")
    Locale.parse(code)  # an unknown code fails here
    with TEMPLATE.open("rb") as f:
        tmpl = read_po(f)
    catalog = new_catalog(code, Locale.parse(code).english_name or code)
    catalog.update(tmpl, no_fuzzy_matching=True)
    if code == SOURCE_LANGUAGE:
        _fill_source(catalog)
    _write(catalog, path)
    return path


def stats() -> dict[str, tuple[int, int, int]]:
    """Per catalog: (translated, fuzzy, total) texts."""
    out: dict[str, tuple[int, int, int]] = {}
    for path in sorted(LOCALE_DIR.glob("*.po")):
        catalog = read(path.stem)
        messages = [m for m in catalog if m.id]
        done = sum(1 for m in messages if not m.fuzzy and _translated(m.string))
        fuzzy = sum(1 for m in messages if m.fuzzy)
        out[path.stem] = (done, fuzzy, len(messages))
    return out


def _translated(string: object) -> bool:
    if isinstance(string, str):
        return bool(string)
    return isinstance(string, tuple | list) and all(string)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; returns the exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] not in ("extract", "update", "compile", "init", "stats", "lint"):
        print(__doc__)
        return 2
    command = args[0]
    if command == "extract":
        print(f"{len(extract())} texts -> {TEMPLATE}")
    elif command == "update":
        print("updated:", " ".join(update()))
    elif command == "compile":
        print("compiled:", " ".join(compile_all()))
    elif command == "lint":
        from fivedice.i18n.lint import scan

        findings = scan([Path(p) for p in args[1:]] or [PACKAGE_DIR])
        for finding in findings:
            print(finding)
        return 1 if findings else 0
    elif command == "init":
        if len(args) != 2:
            print("usage: python -m fivedice.i18n init CODE")
            return 2
        print(f"created {init(args[1])}")
    else:
        for code, (done, fuzzy, total) in stats().items():
            print(f"{code}: {done}/{total} translated, {fuzzy} fuzzy")
    return 0


if __name__ == "__main__":
    sys.exit(main())
