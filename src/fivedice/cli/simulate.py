"""The ``fivedice simulate`` and ``fivedice analyze`` commands."""

from __future__ import annotations

import functools
import json
import sys
from typing import TYPE_CHECKING

import click
from rich.console import Console
from rich.table import Table

from fivedice import extras
from fivedice.cli.clickutil import I18nCommand, friendly, get_rules, option_flag
from fivedice.cli.progress import count_bar, follow
from fivedice.i18n import N_, _, format_decimal, format_number, format_percent, ngettext

if TYPE_CHECKING:
    from fivedice.engine.game import Game
from fivedice.rules import RuleSet
from fivedice.services.sim import SimResult, SimulationError, compiled, plot_histogram, simulate
from fivedice.services.simsummary import MergeError, SimSummary, merge
from fivedice.solver.chances import check_target

__all__ = ["analyze_cmd", "merge_cmd", "parse_shard", "render_analysis", "render_result", "simulate_cmd"]

PROGRESS_FROM = 2000
"""Runs of solitaire ``optimal`` play of at least this many games show a progress bar (on a terminal); runs
of other levels always do."""


def resolve_strategies(strategy: str, strategies: str | None, players: int | None) -> list[str]:
    """The level of every seat from ``--strategy``, ``--strategies`` and ``--players``."""
    if strategies is not None:
        chosen = [s.strip() for s in strategies.split(",") if s.strip()]
        if not chosen:
            raise SimulationError(
                _("Strategies {strategies!r} name no strategy; expected e.g. 'optimal,greedy'.", strategies=strategies)
            )
        if players is not None and players != len(chosen):
            raise SimulationError(
                ngettext(
                    "--players {players} does not match {strategies!r}, which names {count} strategy.",
                    "--players {players} does not match {strategies!r}, which names {count} strategies.",
                    len(chosen),
                    players=players,
                    count=len(chosen),
                    strategies=strategies,
                )
            )
        return chosen
    if players is not None and players < 1:
        raise SimulationError(_("Number of players {players} is not valid; expected at least 1.", players=players))
    return [strategy] * (players or 1)


@click.command(
    "simulate",
    cls=I18nCommand,
    help=N_("Play GAMES games of rule set NAME between computer strategies and print statistics."),
)
@click.argument("name")
@option_flag
@click.option("--strategy", default="optimal", show_default=True, help=N_("Strategy of every seat."))
@click.option("--strategies", default=None, help=N_('One strategy per seat, e.g. "win,optimal".'))
@click.option("--players", type=int, default=None, help=N_("Number of seats (default 1, or one per --strategies)."))
@click.option("--games", type=int, default=10_000, show_default=True, help=N_("Number of games."))
@click.option("--seed", type=int, default=0, show_default=True, help=N_("Seed: the same seed gives the same result."))
@click.option("--workers", type=int, default=None, help=N_("Worker processes/threads (default: every core)."))
@click.option("--json", "as_json", is_flag=True, help=N_("Print the statistics as JSON."))
@click.option("--plot", type=click.Path(dir_okay=False), default=None, help=N_("Write a histogram of the scores."))
@click.option(
    "--reach",
    "reach",
    type=int,
    multiple=True,
    help=N_("Report the share of games with at least T points (repeatable)."),
)
@click.option(
    "--shard",
    default=None,
    metavar="I/N",
    help=N_("Play only part I of N of the run (merge the --json of every part with 'fivedice merge')."),
)
@click.option(
    "--dask",
    "dask",
    default=None,
    metavar="ADDRESS",
    help=N_("Play on the Dask cluster whose scheduler is at ADDRESS, e.g. tcp://host:8786."),
)
@click.option(
    "--python",
    "in_python",
    is_flag=True,
    help=N_("Play every seat with the Python players (the reference) instead of the compiled simulator."),
)
@friendly
def simulate_cmd(
    name: str,
    options: tuple[str, ...],
    strategy: str,
    strategies: str | None,
    players: int | None,
    games: int,
    seed: int,
    workers: int | None,
    as_json: bool,
    plot: str | None,
    reach: tuple[int, ...],
    shard: str | None,
    dask: str | None,
    in_python: bool,
) -> None:
    """Play many games between computer strategies and print statistics."""
    rules = get_rules(name, options)
    part = parse_shard(shard) if shard is not None else None
    if dask is not None:
        extras.require("dask", "'fivedice simulate --dask'")
    for target in reach:
        check_target(target)
    seats = resolve_strategies(strategy, strategies, players)
    if plot is not None:
        extras.require("plot", "'fivedice simulate --plot'")  # before the games, not after
    _prepare_chances(rules, seats)
    fast = not in_python
    run = functools.partial(simulate, rules, seats, games, seed, workers=workers, fast=fast, shard=part, dask=dask)
    if games >= PROGRESS_FROM or not (fast and compiled(rules, seats)):  # the Python players: some slowly
        with count_bar(_("simulating"), games) as progress:
            result = run(progress=progress)
    else:
        result = run()
    if plot is not None:
        plot_histogram(result, plot)
    if as_json:
        click.echo(json.dumps(result.to_json(reach), indent=1))
    else:
        Console(file=sys.stdout, width=120).print(render_result(result.summary(), reach))
        if plot is not None:
            click.echo(_("Histogram written to {path}.", path=plot))


def _prepare_chances(rules: RuleSet, seats: list[str]) -> None:
    """Prepare the chance tables that ``target:T`` and ``win`` seats need, saying so on stderr first (with
    a bar on a terminal) when one must be built."""
    from fivedice.engine.state import GameState
    from fivedice.players import UnknownStrategyError
    from fivedice.services import chancejobs

    game = GameState.new(rules, tuple(f"{i}" for i in range(len(seats))))
    try:
        needs = {chancejobs.for_level(level, game) for level in seats} - {None}
    except UnknownStrategyError:
        return  # simulate() says what is wrong
    for need in needs:
        if need is not None and chancejobs.needs_build(need):
            message = _("Preparing the chances for {rules} (once, a minute or a few)...", rules=rules.spec)
            click.echo(message, err=True)
            follow(chancejobs.start(need), _("building"))


def _pct(x: float) -> str:
    return format_percent(x, 2)


def _num(x: float, digits: int = 2) -> str:
    return format_decimal(x, digits)


def _g(x: float) -> str:
    return format_number(int(x)) if float(x).is_integer() else format_decimal(x, 1)


def parse_shard(text: str) -> tuple[int, int]:
    """``"2/4"`` as the 0-based shard ``(1, 4)``.

    >>> parse_shard("2/4")
    (1, 4)
    """
    i, sep, n = text.partition("/")
    if not (sep and i.strip().isdigit() and n.strip().isdigit()) or not 1 <= int(i) <= int(n):
        raise SimulationError(_("Shard {shard!r} is not valid; expected I/N with 1 <= I <= N, e.g. 2/4.", shard=text))
    return int(i) - 1, int(n)


def render_result(result: SimSummary | SimResult, reach: tuple[int, ...] = ()) -> Table:
    """The statistics of a run (or merged runs) as a table, one column per seat (with the share of
    games reaching each of the ``reach`` targets)."""
    if isinstance(result, SimResult):
        result = result.summary()
    stats = result.stats()
    rate = result.games / result.seconds if result.seconds > 0 else 0.0
    table = Table(
        title=ngettext(
            "{rules}: {games} game, seed {seed}",
            "{rules}: {games} games, seed {seed}",
            result.games,
            rules=result.rules,
            games=format_number(result.games),
            seed=result.seed,
        ),
        caption=_(
            "{seconds} s, {rate} games/s ({engine})",
            seconds=_num(result.seconds, 1),
            rate=format_number(round(rate)),
            engine=result.engine,
        ),
        title_justify="left",
        caption_justify="left",
    )
    table.add_column(_("statistic"))
    for s in stats:
        table.add_column(_("seat {seat}: {strategy}", seat=s.seat + 1, strategy=s.strategy), justify="right")
    lo_hi = [s.mean_ci for s in stats]
    interval = "  " + _("95% interval")
    table.add_row(_("mean"), *(_num(s.mean) for s in stats))
    table.add_row(interval, *(f"{_num(lo)} - {_num(hi)}" for lo, hi in lo_hi))
    table.add_row(_("standard deviation"), *(_num(s.std) for s in stats))
    table.add_row(_("median"), *(_g(s.median) for s in stats))
    for q in stats[0].percentiles:
        table.add_row(_("percentile {q}", q=q), *(_g(s.percentiles[q]) for s in stats))
    for target in reach:
        table.add_row(_("at least {target}", target=target), *(_pct(x) for x in result.reach(target)))
    if result.upper_bonus_rule:
        table.add_row(_("upper bonus"), *(_pct(s.upper_bonus_rate) for s in stats))
    if result.yahtzee_bonus_rule:
        table.add_row(_("games with extra-Yahtzee bonus"), *(_pct(s.yahtzee_bonus_rate) for s in stats))
        table.add_row(_("extra-Yahtzee bonuses per game"), *(_num(s.yahtzee_bonus_mean, 4) for s in stats))
    if len(stats) > 1:
        table.add_row(_("win rate"), *(_pct(s.win_rate or 0.0) for s in stats))
        table.add_row(interval, *(f"{_pct(s.win_ci[0])} - {_pct(s.win_ci[1])}" for s in stats if s.win_ci))
        table.add_row("  " + _("won / shared"), *(f"{s.wins} / {s.ties}" for s in stats))
    table.add_section()
    for name, label in zip(result.boxes, result.labels or result.boxes, strict=True):
        table.add_row(_("zero in {box}", box=_(label)), *(_pct(s.zero_rate[name]) for s in stats))
    return table


@click.command(
    "merge",
    cls=I18nCommand,
    help=N_("Merge the 'simulate --json' outputs of shards or runs (FILE, or - for stdin) into one result."),
)
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--json", "as_json", is_flag=True, help=N_("Print the statistics as JSON."))
@click.option(
    "--reach",
    "reach",
    type=int,
    multiple=True,
    help=N_("Report the share of games with at least T points (repeatable)."),
)
@friendly
def merge_cmd(files: tuple[str, ...], as_json: bool, reach: tuple[int, ...]) -> None:
    """Merge the JSON of several simulations (shards of one run, or runs) and print the statistics."""
    for target in reach:
        check_target(target)
    parts = []
    for path in files:
        with click.open_file(path, encoding="utf-8") as f:
            text = f.read(MAX_JSON + 1)
        if len(text) > MAX_JSON:
            raise MergeError(_("{path} is larger than {size} MB; expected simulate --json output.", path=path, size=16))
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            raise MergeError(_("{path} is not JSON; expected simulate --json output.", path=path)) from None
        parts.append(SimSummary.from_json(data, path))
    merged = merge(parts)
    if as_json:
        click.echo(json.dumps(merged.to_json(reach), indent=1))
    else:
        Console(file=sys.stdout, width=120).print(render_result(merged, reach))


MAX_JSON = 16 * 1024 * 1024
"""The largest ``simulate --json`` file ``merge`` reads (histograms keep them to kilobytes)."""


@click.command(
    "analyze",
    cls=I18nCommand,
    help=N_("Rate every decision of a saved game against the solver (points lost, grade)."),
)
@click.argument("path", type=click.Path(dir_okay=False), required=False)
@click.option("--json", "as_json", is_flag=True, help=N_("Print the analysis as JSON."))
@click.option("--all", "show_all", is_flag=True, help=N_("List every decision, not only the mistakes."))
@click.option(
    "--by",
    default="points",
    show_default=True,
    help=N_("Rate decisions by expected 'points' or by the chance to 'win' (two or more players)."),
)
@click.option("--last", is_flag=True, help=N_("Analyse the last finished game of the score store (no PATH)."))
@friendly
def analyze_cmd(path: str | None, as_json: bool, show_all: bool, by: str, last: bool) -> None:
    """Rate every decision of a saved game against the solver (points lost, luck, grade)."""
    from fivedice.services.analysis import analyze

    game = _analysed_game(path, last)
    by = by.strip().lower()
    if by == "win" and len(game.initial.players) > 1 and game.rules.solver_refusal() is None:
        _prepare_chances(game.rules, ["win"] * len(game.initial.players))
    analysis = analyze(game, by=by)
    if as_json:
        click.echo(json.dumps(analysis.to_json(), indent=1))
        return
    console = Console(file=sys.stdout, width=120)
    for table in render_analysis(analysis, show_all):
        console.print(table)


def _analysed_game(path: str | None, last: bool) -> Game:
    """The game ``analyze`` rates: the saved game at ``path``, or with ``--last`` the store's newest game."""
    from fivedice.engine import saves

    if last == (path is not None):
        raise click.UsageError(_("Give either PATH or --last, not both and not neither."))
    if path is not None:
        return saves.load(path)
    from fivedice.storage import Store

    with Store() as store:
        game_id = store.last_game_id()
        if game_id is None:
            raise click.UsageError(_("The score store has no finished game yet; play one first."))
        return store.load_game(game_id)


def render_analysis(analysis: object, show_all: bool = False) -> list[Table]:
    """The analysis as tables: the decisions (mistakes only unless ``show_all``) and a summary."""
    from fivedice.services.analysis import Analysis, split_line, win_split_line

    assert isinstance(analysis, Analysis)
    decisions = Table(title=_("{rules}: decisions", rules=analysis.rules), title_justify="left")
    for col in (N_("player"), N_("round"), N_("roll"), N_("dice"), N_("chosen"), N_("best"), N_("loss")):
        decisions.add_column(_(col), justify="right" if col in ("round", "roll", "loss") else "left")
    shown = 0
    for d in analysis.decisions:
        if show_all or d.loss > 1e-9:
            shown += 1
            dice = " ".join(map(str, d.dice))
            loss = _pct(d.loss) if analysis.by == "win" else _num(d.loss)
            decisions.add_row(d.player, str(d.round), str(d.roll), dice, d.chosen, d.best, loss)
    summary = Table(title=_("summary"), title_justify="left")
    for col in (
        N_("player"),
        N_("decisions"),
        N_("mistakes"),
        N_("total loss"),
        N_("mean loss"),
        N_("grade"),
        N_("luck"),
        N_("score"),
    ):
        summary.add_column(_(col), justify="left" if col == "player" else "right")
    for p in analysis.players:
        total, mean = (
            (_pct(p.total_loss), _pct(p.mean_loss))
            if analysis.by == "win"
            else (_num(p.total_loss), _num(p.mean_loss, 3))
        )
        luck = _num(p.luck) if p.win_luck is None else _pct(p.win_luck)
        summary.add_row(p.player, str(p.decisions), str(p.mistakes), total, mean, p.grade, luck, str(p.score))
    split = Table(title=_("luck and decisions"), title_justify="left", show_header=False, box=None)
    split.add_column("")
    for p in analysis.players:
        split.add_row(split_line(p))
        by_win = win_split_line(p)
        if by_win is not None:
            split.add_row(by_win)
    return [decisions, summary, split] if shown else [summary, split]
