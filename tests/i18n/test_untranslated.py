"""No user-facing literal stays outside the catalogs (an AST scan of the translated modules)."""

from __future__ import annotations

from pathlib import Path

import pytest

from fivedice.i18n.lint import scan, scan_source

SRC = Path(__file__).resolve().parents[2] / "src" / "fivedice"
EXEMPT = {
    SRC / "i18n" / "catalogs.py": "the translators' own tool (python -m fivedice.i18n), in English",
    SRC / "solver" / "ship.py": "the maintainers' table builder (python -m fivedice.solver.ship), in English",
    SRC / "solver" / "cache.py": "a cache file's name suffix, never shown to a player",
}
"""Modules left out of the scan, each with its reason; every other module of the package is scanned."""
TRANSLATED = sorted(p for p in SRC.rglob("*.py") if p not in EXEMPT)
ALLOWED = ("   --option ",)
"""Literal fragments that stay as they are: a command-line flag."""


def test_the_exemptions_exist() -> None:
    assert all(path.is_file() for path in EXEMPT)


def test_no_untranslated_text() -> None:
    assert [str(f) for f in scan(TRANSLATED, ALLOWED)] == []


@pytest.mark.parametrize(
    ("source", "reason"),
    [
        ('print("Game over.")', "untranslated text given to print()"),
        ('click.echo(f"Roll {n} of {m}")', "untranslated text given to echo()"),
        ('raise IllegalActionError(f"Box {name!r} is filled.")', "untranslated message of IllegalActionError"),
        ('def f():\n    return "any dice"', "untranslated text returned"),
        ('def f():\n    return "[dim]any dice[/]"', "untranslated text returned"),
        ('click.option("--x", help="Seed the dice.")', "untranslated help="),
        ('self.say("Goodbye." if a else "Bye now.")', "untranslated text given to say()"),
        ('_(f"Box {name} is filled.")', "f-string given to a translation"),
        ('def f():\n    return \'{"note": "any dice"}\'', "untranslated text returned"),  # JSON, yet text
        (
            "from fivedice.i18n import _\nword, _, rest = line.partition(' ')",
            "'_' assigned where it is the translation",
        ),
    ],
)
def test_the_scan_flags_untranslated_text(source: str, reason: str) -> None:
    findings = scan_source(source)
    assert findings
    assert {f.reason for f in findings} == {reason}


@pytest.mark.parametrize(
    "source",
    [
        'print(_("Game over."))',
        'raise IllegalActionError(_("Box {name!r} is filled.", name=name))',
        'click.echo(f"{key:10} {description}")',
        'def f():\n    return N_("any dice")',
        'raise TypeError(f"{rng!r} is neither a Random nor a Generator.")',
        'click.echo(ngettext("{n} die", "{n} dice", n, n=n))',
        'word, _, rest = line.partition(" ")',
        'def f(note):\n    return f"\\n[dim]{escape(note)}[/]"',
        'def f(head, body):\n    return \'{"type":"state",\' + head + \',"state":\' + body + "}"',  # JSON text
    ],
)
def test_the_scan_passes_translated_text_and_format_tokens(source: str) -> None:
    assert scan_source(source) == []
