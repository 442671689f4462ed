"""The ``fivedice`` command line: stable, scriptable, exit code 2 on bad input."""

from __future__ import annotations

import functools
import importlib
import sys
from typing import TYPE_CHECKING, NamedTuple

import click

from fivedice import extras, i18n
from fivedice import rules as rules_mod
from fivedice.cli.clickutil import I18nCommand, I18nHelp, friendly, get_rules, option_flag
from fivedice.cli.usage import UsageProblem
from fivedice.dice import parse_dice
from fivedice.engine.render import rules_card
from fivedice.errors import RuleSetError
from fivedice.i18n import N_, _
from fivedice.rules import RuleSet

if TYPE_CHECKING:
    from fivedice.table import Table

__all__ = ["I18nCommand", "get_rules", "main"]


def _set_language(ctx: click.Context, param: click.Parameter, value: str | None) -> None:
    if value is not None:
        try:
            ctx.meta["fivedice.lang"] = i18n.set_language(value)  # the full-screen game: --lang beats the profile
        except i18n.LanguageError as exc:
            raise UsageProblem(str(exc), ctx) from None


class LazyCommand(NamedTuple):
    """A command that lives beside its subsystem: where it is (``"module:attribute"``) and its
    one-line help, so ``fivedice --help`` lists it without importing the subsystem."""

    target: str
    help: str


# Commands imported only when used (the solver pulls in numpy, the scores SQLAlchemy, the
# server FastAPI): ``fivedice --help`` imports none of them. A test checks each help against
# the command's own.
LAZY_COMMANDS: dict[str, LazyCommand] = {
    "solve": LazyCommand(
        "fivedice.cli.solve:solve_cmd",
        N_("Build (or load from the cache) the optimal table of rule set NAME; print its expected score."),
    ),
    "advise": LazyCommand(
        "fivedice.cli.solve:advise_cmd",
        N_("Every option for a situation of rule set NAME with its value and loss, best first."),
    ),
    "simulate": LazyCommand(
        "fivedice.cli.simulate:simulate_cmd",
        N_("Play GAMES games of rule set NAME between computer strategies and print statistics."),
    ),
    "analyze": LazyCommand(
        "fivedice.cli.simulate:analyze_cmd",
        N_("Rate every decision of a saved game against the solver (points lost, grade)."),
    ),
    "merge": LazyCommand(
        "fivedice.cli.simulate:merge_cmd",
        N_("Merge the 'simulate --json' outputs of shards or runs (FILE, or - for stdin) into one result."),
    ),
    "scores": LazyCommand("fivedice.cli.scores:scores_cmd", N_("Show the high-score tables (solo and multiplayer).")),
    "history": LazyCommand(
        "fivedice.cli.scores:history_cmd", N_("Show PLAYER's games and statistics with a chart of recent scores.")
    ),
    "serve": LazyCommand("fivedice.cli.serve:serve_cmd", N_("Serve the browser game and its API at http://HOST:PORT.")),
}


class LazyGroup(I18nHelp, click.Group):
    """A group whose subsystem commands are imported on first use; it sets the language
    from the environment (``--lang`` overrides it) and writes its help in that language."""

    command_class = I18nCommand

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        outer = i18n.current_language()
        i18n.set_language(None)
        ctx.call_on_close(functools.partial(i18n.set_language, outer))
        return super().parse_args(ctx, args)

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        super().format_options(ctx, formatter)
        self.format_commands(ctx, formatter)

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        name = args[0] if args else ""
        if name and not name.startswith("-") and self.get_command(ctx, name) is None and not ctx.resilient_parsing:
            commands = ", ".join(self.list_commands(ctx))
            raise UsageProblem(
                _("Command {name!r} is unknown; expected one of: {commands}.", name=name, commands=commands), ctx
            )
        return super().resolve_command(ctx, args)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows: list[tuple[str, click.Command | str]] = []
        for name in self.list_commands(ctx):
            lazy = LAZY_COMMANDS.get(name)
            command = super().get_command(ctx, name) if lazy is None else None
            if lazy is not None:
                rows.append((name, lazy.help))
            elif command is not None and not command.hidden:
                rows.append((name, command))
        if rows:
            limit = formatter.width - 6 - max(len(name) for name, _cmd in rows)
            with formatter.section(_("Commands")):
                formatter.write_dl([(name, _short_help(command, limit)) for name, command in rows])

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted([*super().list_commands(ctx), *LAZY_COMMANDS])

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        target = LAZY_COMMANDS.get(cmd_name)
        if target is None:
            return super().get_command(ctx, cmd_name)
        module_name, _sep, attr = target.target.partition(":")
        try:
            with extras.needed_by(f"'{ctx.command_path} {cmd_name}'"):
                command = getattr(importlib.import_module(module_name), attr)
        except extras.MissingExtraError as exc:
            raise UsageProblem(str(exc), ctx) from None
        assert isinstance(command, click.Command)
        return command


def _short_help(command: click.Command | str, limit: int) -> str:
    """A command's one-line help in the current language (a lazy command's from its table entry)."""
    if isinstance(command, str):
        command = click.Command(None, help=_(command))
    return _(command.get_short_help_str(limit))


@click.group(
    cls=LazyGroup,
    context_settings={"help_option_names": ["-h", "--help"]},
    help=N_("fivedice: Yahtzee, Yacht, Yatzy, Kismet and Generala, with exact rules."),
)
@click.version_option(package_name="fivedice")
@click.option(
    "--lang",
    metavar="CODE",
    default=None,
    is_eager=True,
    expose_value=False,
    callback=_set_language,
    help=N_("Language of every text, e.g. 'it' (default: from LANGUAGE, LC_ALL, LC_MESSAGES or LANG)."),
)
def main() -> None:
    """The ``fivedice`` command group."""


@main.command("rules", help=N_("List the rule sets, or print NAME's score card (what each box needs and scores)."))
@click.argument("name", required=False)
@option_flag
@friendly
def rules_cmd(name: str | None, options: tuple[str, ...]) -> None:
    """List the rule sets, or print a rule set's score card."""
    if name is None:
        if options:
            raise RuleSetError(_("Options need a rule set name, e.g. 'fivedice rules yahtzee -o joker=free'."))
        for key, description in rules_mod.available():
            click.echo(f"{key:10} {description}")
            for opt in rules_mod.BUILTINS[key].options:
                click.echo(f"{'':10}   --option {opt.name}={'|'.join(opt.choices)}: {_(opt.help)}")
        return
    click.echo(rules_card(get_rules(name, options)))


@main.command("score", help=N_("Print the points DICE score in BOX on an empty card of rule set NAME."))
@click.argument("name")
@click.argument("box")
@click.argument("dice", nargs=-1)
@click.option("--roll", "roll", type=int, default=3, show_default=True, help=N_("Roll number the dice were made on."))
@option_flag
@friendly
def score_cmd(name: str, box: str, dice: tuple[str, ...], roll: int, options: tuple[str, ...]) -> None:
    """Print the points some dice score in a box on an empty card."""
    rs = get_rules(name, options)
    values = parse_dice(list(dice), rs.dice)
    if not 1 <= roll <= rs.rolls:
        raise RuleSetError(_("Roll number {roll} is not valid; expected 1 to {rolls}.", roll=roll, rolls=rs.rolls))
    click.echo(rs.score(box, values, roll))


@main.command(
    "play",
    help=N_("Play a game: the full-screen game, or the plain line mode (--plain, or when not in a terminal)."),
)
@click.option("--plain", is_flag=True, help=N_("Plain line mode for pipes and screen readers."))
@click.option("--rules", "rules_name", default=None, help=N_("Rule set name or .toml file (default: yahtzee)."))
@option_flag
@click.option(
    "--players",
    default=None,
    help=N_('Comma-separated names, e.g. "Ann,Bob"; "Max:optimal" is a computer of that level.'),
)
@click.option(
    "--challenge",
    default=None,
    metavar="CODE",
    help=N_("Play a challenge: every player of CODE meets the same dice ('daily' for today's)."),
)
@click.option("--seed", type=int, default=None, help=N_("Seed the dice for a repeatable game."))
@click.option("--physical", is_flag=True, help=N_("Type in the dice rolled at a real table."))
@click.option(
    "--confirm/--no-confirm",
    default=True,
    help=N_("Line mode: ask before filling a box with zero, or with far less than the best box (default: ask)."),
)
@click.option("--load", "load", type=click.Path(dir_okay=False), default=None, help=N_("Resume a saved game."))
@click.option(
    "--db", "db", default=None, metavar="URL", help=N_("Score database URL or SQLite file (full-screen game).")
)
@click.option("--pace", type=click.FloatRange(0, 10), default=None, help=N_("Seconds between computer moves."))
@click.option(
    "--chances/--no-chances",
    default=None,
    help=N_(
        "Show beside each hint its chance to win, or alone to beat one's best (each rule set's tables are "
        "prepared once in the background: Yahtzee takes minutes and a few hundred MB the first time)."
    ),
)
@friendly
def play_cmd(
    plain: bool,
    rules_name: str | None,
    options: tuple[str, ...],
    players: str | None,
    seed: int | None,
    physical: bool,
    confirm: bool,
    load: str | None,
    db: str | None,
    pace: float | None,
    challenge: str | None,
    chances: bool | None,
) -> None:
    """Play a game in the full-screen game or the plain line mode."""
    from fivedice.table.challenge import DAILY, challenge_code

    rs = get_rules(rules_name or "yahtzee", options)
    names = [n.strip() for n in players.split(",") if n.strip()] if players is not None else None
    code_ = challenge_code(challenge) if challenge is not None else None
    daily = challenge is not None and " ".join(challenge.split()).casefold() == DAILY
    if not plain and not (sys.stdin.isatty() and sys.stdout.isatty()):
        click.echo(_("Not a terminal: playing in the plain line mode."), err=True)
        plain = True
    if not plain:
        from pathlib import Path

        from fivedice.table.seat import parse_seats

        if not extras.installed("tui"):
            hint = extras.install_hint("tui")
            message = _("The full-screen game needs the 'tui' extra: {command} (or play with --plain).", command=hint)
            raise extras.MissingExtraError(message, extra="tui")
        from fivedice.tui import Config, FiveDiceApp

        chosen = rs if rules_name is not None or options else None
        config = Config(
            rules=chosen,
            seats=parse_seats(names) if names else None,
            seed=seed,
            physical=physical,
            load=Path(load) if load else None,
            db=db,
            pace=pace,
            chances=chances,
            language=click.get_current_context().meta.get("fivedice.lang"),
            challenge=DAILY if daily else code_,  # remembered as "daily", so tomorrow's Start plays tomorrow's
        )
        app = FiveDiceApp(config)
        code = app.run()
        if app.farewell:
            click.echo(app.farewell, err=True)
        sys.exit(code or 0)

    from fivedice.cli.plain import play_plain

    def read(prompt: str) -> str | None:
        click.echo(prompt, nl=False)
        line = sys.stdin.readline()
        if not line:
            click.echo()
            return None
        if not sys.stdin.isatty():
            click.echo(line.rstrip("\n"))
        return line.rstrip("\n")

    def store(table: Table) -> None:
        if not extras.installed("scores"):
            reason = extras.missing(_("Keeping high scores"), "scores")
            click.echo(_("The game was not stored: {reason}", reason=str(reason)), err=True)
            return
        from fivedice.storage import Store, StoreError
        from fivedice.storage.finished import record_finished

        try:
            with Store(db) as scores:
                record_finished(scores, table, "plain")
                board = scores.challenge_board(table.rules, table.challenge, limit=5) if table.challenge else None
        except StoreError as exc:
            click.echo(_("The game was not stored: {reason}", reason=str(exc)), err=True)
            return
        click.echo(_("The game is stored with the high scores."))
        if board is not None:
            from fivedice.storage.text import scores_text

            click.echo(scores_text(board, _("Challenge {code}", code=table.challenge)))
            from fivedice.table.challenge import RANKED

            click.echo(_(RANKED))

    def best(name: str, rules: RuleSet) -> int | None:
        if not extras.installed("scores"):
            return None  # the goal is a nicety: the game goes on without it
        from fivedice.storage import Store, StoreError

        try:
            with Store(db) as scores:
                return scores.best(name, rules)
        except StoreError:
            return None  # the goal is a nicety: the game goes on without it

    from fivedice import hangup

    code = play_plain(
        rs,
        players,
        sys.stdout,
        read,
        seed=seed,
        physical=physical,
        load=load,
        challenge=code_,
        on_finish=store,
        stop_signals=hangup.STOP_SIGNALS,
        best=best,
        chances=chances is not False,
        confirm=confirm,
    )
    gone = [fd for fd in (1, 2) if hangup.terminal_gone(fd)]
    if gone:
        hangup.mute(gone)  # the terminal was closed: what is left to print is dropped, not an error
    sys.exit(code)
