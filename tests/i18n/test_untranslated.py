"""No user-facing literal stays outside the catalogs (an AST scan of the translated modules)."""

from __future__ import annotations

from pathlib import Path

import pytest

from fivedice.i18n.lint import scan, scan_source

SRC = Path(__file__).resolve().parents[2] / "src" / "fivedice"
TRANSLATED = [
    SRC / "cli.py",
    SRC / "clickutil.py",
    SRC / "usage.py",
    SRC / "table.py",
    SRC / "tape.py",
    SRC / "events.py",
    SRC / "advice.py",
    SRC / "chancejobs.py",
    SRC / "challenge.py",
    SRC / "seat.py",
    SRC / "hangup.py",
    SRC / "plain.py",
    SRC / "render.py",
    SRC / "rules",
    SRC / "state.py",
    SRC / "scorecard.py",
    SRC / "game.py",
    SRC / "saves.py",
    SRC / "notation.py",
    SRC / "dice.py",
    SRC / "errors.py",
    SRC / "i18n" / "__init__.py",
    SRC / "i18n" / "lint.py",
    SRC / "tui",
    SRC / "storage",
    SRC / "solver" / "cli.py",
    SRC / "solver" / "advisor.py",
    SRC / "solver" / "tables.py",
    SRC / "sim_cli.py",
    SRC / "sim.py",
    SRC / "analysis.py",
    SRC / "players",
    SRC / "rl",
    SRC / "web",
]
"""Modules whose text is translated (``solver/cache.py`` keeps an internal message that never reaches a player)."""
ALLOWED = ("   --option ",)
"""Literal fragments that stay as they are: a command-line flag."""


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
    ],
)
def test_the_scan_passes_translated_text_and_format_tokens(source: str) -> None:
    assert scan_source(source) == []
