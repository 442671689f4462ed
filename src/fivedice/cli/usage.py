"""Click's usage errors as one sentence in the reader's language, and options given twice refused.

Click reports a bad command line in three lines (the usage, a hint, then ``Error: ...``) and in
English. fivedice's commands (:class:`fivedice.cli.I18nCommand` and the group) turn every usage
error into :class:`UsageProblem`: one sentence on stderr naming the value and what was expected,
exit code 2, like every other bad input.

>>> import click
>>> from click.testing import CliRunner
>>> from fivedice.cli import main
>>> result = CliRunner().invoke(main, ["score", "yahtzee", "chance", "-1", "2", "3", "4", "5"], prog_name="fivedice")
>>> result.exit_code, result.stderr.count("\\n")
(2, 1)
>>> print(result.stderr, end="")  # doctest: +NORMALIZE_WHITESPACE
Error: Value '-1' is not valid for 'fivedice score': negative numbers are not accepted, and an
argument starting with '-' is read as an option.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import IO, Any

import click

from fivedice.i18n import N_, _, ngettext

__all__ = ["UsageProblem", "explain", "extra_arguments", "repeated_option"]

# Click's own texts that can reach the reader unchanged (the fallback), translated through the catalogs.
N_("Missing command.")

PROGRAM = "fivedice"
"""The command's name where Click gives no context."""
_NUMBER = re.compile(r"^-\d+(?:[.,]\d+)?$")


class UsageProblem(click.UsageError):
    """A usage error already put in one sentence (in the language of the moment it was made)."""

    exit_code = 2

    def __init__(self, sentence: str, ctx: click.Context | None = None) -> None:
        super().__init__(sentence, ctx)
        self.line = _("Error: {message}", message=sentence)

    def show(self, file: IO[Any] | None = None) -> None:
        """Print the one line on stderr (no usage, no hint)."""
        click.echo(self.line, file=file, err=True)


def _command(ctx: click.Context | None) -> str:
    return ctx.command_path if ctx is not None else PROGRAM


def _usage(ctx: click.Context) -> str:
    return " ".join([ctx.command_path, *(p.strip() for p in ctx.command.collect_usage_pieces(ctx) if p.strip())])


def _option_names(ctx: click.Context) -> list[str]:
    names: list[str] = []
    for param in ctx.command.get_params(ctx):
        if isinstance(param, click.Option) and not param.hidden:
            names.extend(sorted(param.opts, key=len, reverse=True))
    return names


def _param_by_option(ctx: click.Context, name: str) -> click.Parameter | None:
    return next((p for p in ctx.command.get_params(ctx) if name in p.opts or name in p.secondary_opts), None)


def _param_name(param: click.Parameter) -> str:
    if isinstance(param, click.Option):
        return sorted(param.opts, key=len, reverse=True)[0]
    return param.human_readable_name


def _expected(param: click.Parameter) -> str | None:
    """What a parameter's type accepts, in words, or None for a type not known here."""
    kind = param.type
    if isinstance(kind, click.IntRange | click.FloatRange):
        whole = isinstance(kind, click.IntRange)
        low, high = kind.min, kind.max
        if low is not None and high is not None:
            if whole:
                return _("a whole number from {low} to {high}", low=low, high=high)
            return _("a number from {low} to {high}", low=low, high=high)
        if low is not None:
            return _("a whole number of at least {low}", low=low) if whole else _("a number of at least {low}", low=low)
        if high is not None:
            return (
                _("a whole number of at most {high}", high=high)
                if whole
                else _("a number of at most {high}", high=high)
            )
    if isinstance(kind, click.types.IntParamType):
        return _("a whole number")
    if isinstance(kind, click.types.FloatParamType):
        return _("a number")
    if isinstance(kind, click.Choice):
        return _("one of: {choices}", choices=", ".join(map(str, kind.choices)))
    if isinstance(kind, click.Path):
        return _("a file name, not a folder") if not kind.dir_okay else _("a file or folder name")
    return None


def _raw_value(command: click.Command, ctx: click.Context, args: Sequence[str], param: click.Parameter) -> object:
    """The text given for ``param`` on the command line (parsed again, on the error path only)."""
    try:
        opts, _rest, _order = command.make_parser(ctx).parse_args(args=list(args))
    except click.UsageError:
        return None
    return opts.get(param.name) if param.name else None


def _shown(value: object) -> str:
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, list | tuple) and value:
        return repr(" ".join(str(v) for v in value))
    return "?"


def explain(exc: click.UsageError, args: Sequence[str] | None = None, ctx: click.Context | None = None) -> UsageProblem:
    """One sentence for a usage error of Click (``args`` and ``ctx``: the command's arguments and
    context, when known)."""
    if isinstance(exc, UsageProblem):
        return exc
    ctx = exc.ctx or ctx
    command = _command(ctx)
    if isinstance(exc, click.NoSuchOption):
        name = exc.option_name
        typed = next((a for a in args or () if a.startswith(name)), name)
        if _NUMBER.match(typed):
            text = _(
                "Value {value!r} is not valid for {command!r}: negative numbers are not accepted, "
                "and an argument starting with '-' is read as an option.",
                value=typed,
                command=command,
            )
        else:
            options = ", ".join(_option_names(ctx)) if ctx is not None else ""
            text = _(
                "Option {option!r} is unknown to {command!r}; expected one of: {options}.",
                option=name,
                command=command,
                options=options,
            )
        return UsageProblem(text, ctx)
    if isinstance(exc, click.BadOptionUsage) and ctx is not None:
        param = _param_by_option(ctx, exc.option_name)
        if isinstance(param, click.Option) and (param.is_flag or param.count):
            text = _("Option {option!r} of {command!r} takes no value.", option=exc.option_name, command=command)
        else:
            n = param.nargs if param is not None else 1
            text = ngettext(
                "Option {option!r} of {command!r} needs {n} value.",
                "Option {option!r} of {command!r} needs {n} values.",
                n,
                option=exc.option_name,
                command=command,
                n=n,
            )
        return UsageProblem(text, ctx)
    if isinstance(exc, click.MissingParameter) and ctx is not None and exc.param is not None:
        text = _(
            "{command!r} needs {name} (usage: {usage}).",
            command=command,
            name=_param_name(exc.param),
            usage=_usage(ctx),
        )
        return UsageProblem(text, ctx)
    if isinstance(exc, click.BadParameter) and ctx is not None and exc.param is not None:
        param = exc.param
        value = _raw_value(ctx.command, ctx, args, param) if args is not None else None
        expected = _expected(param)
        shown = _shown(value)
        if expected is not None:
            text = _(
                "Value {value} for {param} of {command!r} is not valid; expected {expected}.",
                value=shown,
                param=_param_name(param),
                command=command,
                expected=expected,
            )
        else:
            text = _(
                "Value {value} for {param} of {command!r} is not valid: {reason}",
                value=shown,
                param=_param_name(param),
                command=command,
                reason=_(exc.message),
            )
        return UsageProblem(text, ctx)
    return UsageProblem(" ".join(_(exc.format_message()).split()), ctx)


def extra_arguments(ctx: click.Context, extra: Sequence[str]) -> UsageProblem:
    """The sentence for arguments a command does not take."""
    shown = ", ".join(repr(a) for a in extra)
    return UsageProblem(
        ngettext(
            "{command!r} does not take the argument {args} (usage: {usage}).",
            "{command!r} does not take the arguments {args} (usage: {usage}).",
            len(extra),
            command=ctx.command_path,
            args=shown,
            usage=_usage(ctx),
        ),
        ctx,
    )


def repeated_option(ctx: click.Context, order: Sequence[click.Parameter]) -> None:
    """Refuse an option given twice that takes one value (a repeatable one, like ``-o``, may repeat)."""
    seen: set[str] = set()
    for param in order:
        if not isinstance(param, click.Option) or param.multiple or param.count or param.name is None:
            continue
        if param.name in seen:
            raise UsageProblem(
                _(
                    "Option {option!r} is given twice to {command!r}; expected it at most once.",
                    option=_param_name(param),
                    command=ctx.command_path,
                ),
                ctx,
            )
        seen.add(param.name)
