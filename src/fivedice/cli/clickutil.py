"""Click helpers shared by every ``fivedice`` command: translated help, one-sentence usage errors,
``Error: ...`` with exit code 2 on bad input, and the rule-set option. A leaf module: the commands
beside their subsystems import it, never :mod:`fivedice.cli`."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import click

from fivedice import rules as rules_mod
from fivedice.cli.usage import explain, extra_arguments, repeated_option
from fivedice.errors import FiveDiceError
from fivedice.extras import needed_by
from fivedice.i18n import N_, _
from fivedice.rules import parse_options

__all__ = ["I18nCommand", "I18nHelp", "friendly", "get_rules", "option_flag"]

F = TypeVar("F", bound=Callable[..., Any])


def get_rules(name: str, options: tuple[str, ...]) -> rules_mod.RuleSet:
    """The rule set named on the command line, with its ``--option`` pairs (each key once)."""
    return rules_mod.get(name, **parse_options(options))


def friendly(func: F) -> F:
    """Turn a :class:`FiveDiceError` into ``Error: ...`` on stderr and exit code 2 (an import of
    a missing extra's module too: the sentence names the extra to install)."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        ctx = click.get_current_context(silent=True)
        try:
            with needed_by(f"'{ctx.command_path if ctx is not None else 'fivedice'}'"):
                return func(*args, **kwargs)
        except FiveDiceError as exc:
            click.echo(_("Error: {message}", message=exc), err=True)
            sys.exit(2)

    return wrapper  # type: ignore[return-value]


option_flag = click.option(
    "--option", "-o", "options", multiple=True, metavar="KEY=VALUE", help=N_("A rule-set option (repeatable).")
)

# Click's own texts, translated through fivedice's catalogs.
N_("Show this message and exit.")
N_("Show the version and exit.")


@contextmanager
def _translated(obj: Any, *attrs: str) -> Iterator[None]:
    """Show ``obj``'s help texts in the current language while the help is written."""
    saved = {a: getattr(obj, a, None) for a in attrs}
    for attr, text in saved.items():
        if isinstance(text, str) and text:
            setattr(obj, attr, _(text))
    try:
        yield
    finally:
        for attr, text in saved.items():
            setattr(obj, attr, text)


def _format_options(command: click.Command, ctx: click.Context, formatter: click.HelpFormatter) -> None:
    rows = []
    for param in command.get_params(ctx):
        with _translated(param, "help"):
            record = param.get_help_record(ctx)
        if record is not None and not isinstance(param, click.Argument):
            rows.append(record)
    if rows:
        with formatter.section(_("Options")):
            formatter.write_dl(rows)


_NO_ARGS_HELP: tuple[type[Exception], ...] = tuple(
    t for t in (getattr(click.exceptions, "NoArgsIsHelpError", None),) if t is not None
)


class I18nHelp(click.Command):
    """Usage line, help text and options written in the current language; usage errors as one
    sentence (:mod:`fivedice.cli.usage`) and an option taking one value refused when given twice."""

    def make_parser(self, ctx: click.Context) -> Any:
        parser = super().make_parser(ctx)
        parse = parser.parse_args

        def parse_args(args: list[str]) -> Any:
            opts, rest, order = parse(args=args)
            repeated_option(ctx, order)
            return opts, rest, order

        parser.parse_args = parse_args  # type: ignore[method-assign]
        return parser

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        given = list(args)
        extras_allowed = ctx.allow_extra_args or isinstance(self, click.Group)
        ctx.allow_extra_args = True
        try:
            rest = super().parse_args(ctx, args)
        except _NO_ARGS_HELP:
            raise
        except click.UsageError as exc:
            raise explain(exc, given, ctx) from None
        finally:
            ctx.allow_extra_args = extras_allowed
        if rest and not extras_allowed and not ctx.resilient_parsing:
            raise extra_arguments(ctx, rest)
        return rest

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except _NO_ARGS_HELP:
            raise
        except click.UsageError as exc:
            raise explain(exc, None, ctx) from None

    def format_usage(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        formatter.write_usage(ctx.command_path, " ".join(self.collect_usage_pieces(ctx)), prefix=_("Usage: "))

    def format_help_text(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        with _translated(self, "help"):
            super().format_help_text(ctx, formatter)

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        _format_options(self, ctx, formatter)


class I18nCommand(I18nHelp):
    """A command whose help (``help=N_("...")``, option helps, headings) shows in the current language.

    Use ``@click.command(cls=I18nCommand, help=N_("..."))`` for commands defined outside this module."""

    def get_short_help_str(self, limit: int = 45) -> str:
        with _translated(self, "help", "short_help"):
            return super().get_short_help_str(limit)
