"""``fivedice solve`` and ``fivedice advise``: the solver on the command line."""

from __future__ import annotations

import json
import time

import click
import numpy as np

from fivedice import extras
from fivedice.cli.clickutil import I18nCommand, friendly, get_rules, option_flag
from fivedice.cli.progress import share_bar
from fivedice.dice import parse_dice
from fivedice.engine.scorecard import Scorecard
from fivedice.errors import IllegalActionError
from fivedice.i18n import N_, _, box_label, box_name, format_decimal, format_number, format_percent, ngettext
from fivedice.players.levels import most_points
from fivedice.rules import RuleSet
from fivedice.solver.advisor import Option, Solver, readiness, solve
from fivedice.solver.chances import (
    ChanceTable,
    TargetError,
    chance_options,
    check_target,
    distribution,
    is_cached,
    rows_table,
    table_bytes,
    target_cap,
)

__all__ = ["advise_cmd", "get_solver", "parse_card", "solve_cmd"]


def get_solver(rules: RuleSet, jit: bool = False) -> Solver:
    """The solver of ``rules``; when its table must be built, say so on stderr first, with progress.

    Nothing is printed when the table is cached or shipped with fivedice.
    """
    ready = readiness(rules)
    if ready.ready:
        return solve(rules, jit=jit)
    extras.require("fast", _("Building the solver's table for {rules}", rules=rules.spec))
    title = _(rules.title) if not rules.options else rules.spec
    message = _(
        "Preparing the solver for {rules} (once, about {seconds} s)...",
        rules=title,
        seconds=format_number(max(1, round(ready.seconds))),
    )
    click.echo(message, err=True)
    with share_bar(_("building")) as progress:
        return solve(rules, jit=jit, progress=progress)


def parse_card(rules: RuleSet, text: str) -> Scorecard:
    """A card from ``"ones=3,fives=15,yahtzee=50"`` (the filled boxes and their points).

    >>> from fivedice import rules
    >>> parse_card(rules.get("yahtzee"), "aces=3, fives=15").upper_total
    18
    """
    entries: list[int | None] = [None] * len(rules.boxes)
    for item in text.replace(";", ",").split(","):
        if not item.strip():
            continue
        name, sep, value = item.partition("=")
        if not sep:
            raise IllegalActionError(_("Card entry {entry!r} is not of the form box=points.", entry=item.strip()))
        index = rules.box_index(name)
        if entries[index] is not None:
            raise IllegalActionError(_("Box {box!r} is given twice on the card.", box=box_name(rules.boxes[index])))
        try:
            entries[index] = int(value)
        except ValueError:
            shown = value.strip()
            raise IllegalActionError(
                _("Points {points!r} for box {box!r} are not a whole number.", points=shown, box=name.strip())
            ) from None
    return Scorecard(rules, rules.cards[0], tuple(entries))


@click.command(
    "solve",
    cls=I18nCommand,
    help=N_("Build (or load from the cache) the optimal table of rule set NAME; print its expected score."),
)
@click.argument("name")
@option_flag
@click.option("--json", "as_json", is_flag=True, help=N_("Print the result as JSON."))
@click.option(
    "--distribution", "show_distribution", is_flag=True, help=N_("Print the exact distribution of the final score.")
)
@click.option(
    "--target", type=int, default=None, help=N_("Print the best chance of finishing with at least TARGET points.")
)
@friendly
def solve_cmd(name: str, options: tuple[str, ...], as_json: bool, show_distribution: bool, target: int | None) -> None:
    """Build (or load from the cache) the optimal table of a rule set; print its expected score."""
    rules = get_rules(name, options)
    if target is not None:
        check_reachable(rules, target)
    start = time.perf_counter()
    solver = get_solver(rules)
    if show_distribution:
        _print_distribution(solver, as_json)
        return
    if target is not None:
        _print_target(solver, target, as_json)
        return
    seconds = time.perf_counter() - start
    table = solver.table
    path = table.path
    file_bytes = path.stat().st_size if path is not None and path.exists() else None
    if as_json:
        data = {
            "rules": rules.spec,
            "expected_score": solver.expected_score,
            "seconds": round(seconds, 3),
            "source": table.source,
            "states": table.states,
            "table_bytes": solver.size_bytes,
            "file_bytes": file_bytes,
            "cache_path": str(path) if path is not None else None,
        }
        click.echo(json.dumps(data))
        return
    click.echo(_("{rules}: expected score {score}", rules=rules.spec, score=format_decimal(solver.expected_score, 5)))
    how = {"built": _("built"), "package": _("shipped with fivedice")}.get(table.source, _("loaded from the cache"))
    click.echo(_("time: {seconds} s ({how})", seconds=format_decimal(seconds, 2), how=how))
    states, megabytes = format_number(table.states), format_decimal(solver.size_bytes / 1e6, 1)
    size = ngettext(
        "table: {states} state, {megabytes} MB of values",
        "table: {states} states, {megabytes} MB of values",
        table.states,
        states=states,
        megabytes=megabytes,
    )
    if file_bytes is not None:
        on_disk = format_decimal(file_bytes / 1e6, 1)
        size += _(", {megabytes} MB on disk ({path})", megabytes=on_disk, path=str(path))
    click.echo(size)


def _print_distribution(solver: Solver, as_json: bool) -> None:
    start = time.perf_counter()
    dist = distribution(solver)
    seconds = time.perf_counter() - start
    if as_json:
        data = {
            "rules": solver.rules.spec,
            "expected_score": dist.mean,
            "std": dist.std,
            "seconds": round(seconds, 3),
            "distribution": dist.to_dict(),
        }
        click.echo(json.dumps(data))
        return
    click.echo(
        _(
            "{rules}: final score of optimal play, mean {mean}, standard deviation {std}",
            rules=solver.rules.spec,
            mean=format_decimal(dist.mean, 5),
            std=format_decimal(dist.std, 2),
        )
    )
    for q in (1, 5, 10, 25, 50, 75, 90, 95, 99):
        click.echo(_("percentile {q}: {score}", q=q, score=dist.quantile(q / 100)))
    click.echo(_("time: {seconds} s", seconds=format_decimal(seconds, 2)))


def check_reachable(rules: RuleSet, target: int) -> None:
    """Refuse at once a target no game of ``rules`` can reach (it would build the largest chance table)."""
    check_target(target)
    most = most_points(rules)
    if target > most:
        raise TargetError(
            _(
                "Target {target} is above what {rules} can score; expected 0 to {most} points.",
                target=target,
                rules=rules.spec,
                most=most,
            )
        )


def get_chances(solver: Solver, target: int, card: Scorecard, half: float = 1.0) -> ChanceTable:
    """A chance table covering ``target`` with (at least) the rows that a turn on ``card`` reads: the
    card's own and those of the cards that can follow (read from the cached table, never all of it);
    when it must be built, say so on stderr first."""
    from fivedice.solver.fastplain import successors

    cap = target_cap(solver, target, half)
    state = solver.state_index(card)
    rows = np.array([state, *successors(solver.table.tables, state)], dtype=np.int64)
    if is_cached(solver, cap, half):
        return rows_table(solver, cap, half, rows)
    click.echo(_("Preparing the chances for {rules} (once, a minute or a few)...", rules=solver.rules.spec), err=True)
    with share_bar(_("building")) as progress:
        return rows_table(solver, cap, half, rows, progress=progress)


def _print_target(solver: Solver, target: int, as_json: bool) -> None:
    start = time.perf_counter()
    empty = Scorecard.empty(solver.rules)
    table = get_chances(solver, target, empty)
    probability = table.chance(empty, target)
    seconds = time.perf_counter() - start
    if as_json:
        data = {
            "rules": solver.rules.spec,
            "target": target,
            "probability": probability,
            "seconds": round(seconds, 3),
            "source": table.source,
            "table_bytes": table_bytes(table),
        }
        click.echo(json.dumps(data))
        return
    click.echo(
        ngettext(
            "{rules}: best chance of at least {target} point: {chance}",
            "{rules}: best chance of at least {target} points: {chance}",
            target,
            rules=solver.rules.spec,
            target=target,
            chance=format_percent(probability, 3),
        )
    )
    megabytes = format_decimal(table_bytes(table) / 1e6, 1)
    click.echo(_("time: {seconds} s, table {megabytes} MB", seconds=format_decimal(seconds, 2), megabytes=megabytes))


@click.command(
    "advise",
    cls=I18nCommand,
    help=N_("Every option for a situation of rule set NAME with its value and loss, best first."),
)
@click.argument("name")
@click.argument("more_dice", nargs=-1, metavar="")
@click.option("--card", "card_text", default="", help=N_('Filled boxes and their points, e.g. "ones=3,yahtzee=50".'))
@click.option("--dice", "dice_text", required=True, help=N_("The dice showing, e.g. --dice 1 3 3 5 6."))
@click.option("--rolls-left", type=int, required=True, help=N_("Rolls still allowed this turn."))
@option_flag
@click.option("--json", "as_json", is_flag=True, help=N_("Print the options as JSON."))
@click.option("--target", type=int, default=None, help=N_("Rank the options by the chance of reaching TARGET points."))
@click.option(
    "--exact",
    is_flag=True,
    help=N_("With --target: exact chances from a threshold table (built once: minutes and hundreds of MB)."),
)
@friendly
def advise_cmd(
    name: str,
    more_dice: tuple[str, ...],
    card_text: str,
    dice_text: str,
    rolls_left: int,
    options: tuple[str, ...],
    as_json: bool,
    target: int | None,
    exact: bool,
) -> None:
    """Every option for a situation of a rule set with its value and loss, best first."""
    rules = get_rules(name, options)
    if target is not None:
        check_reachable(rules, target)
    card = parse_card(rules, card_text)
    dice = parse_dice(" ".join([dice_text, *more_dice]), rules.dice)
    solver = get_solver(rules)
    if target is not None:
        solver.advise(card, dice, rolls_left)  # checks the situation before any build
        _print_target_options(solver, card, dice.values, rolls_left, target, as_json, exact)
        return
    ranked = solver.advise(card, dice, rolls_left)
    expected = card.total + ranked[0].value
    if as_json:
        data = {"rules": rules.spec, "expected_final": expected, "options": [o.to_dict() for o in ranked]}
        click.echo(json.dumps(data))
        return
    shown_dice = " ".join(map(str, dice))
    click.echo(
        ngettext(
            "{rules}: dice {dice}, {rolls} roll left, card total {total}",
            "{rules}: dice {dice}, {rolls} rolls left, card total {total}",
            rolls_left,
            rules=rules.spec,
            dice=shown_dice,
            rolls=rolls_left,
            total=card.total,
        )
    )
    click.echo(_("expected final score with optimal play: {score}", score=format_decimal(expected, 3)))
    click.echo(f"{_('value'):>9} {_('loss'):>8}  {_('option')}")
    labels = {b.name: box_label(b) for b in rules.boxes}
    for o in ranked:
        click.echo(f"{format_decimal(o.value, 3):>9} {format_decimal(o.loss, 3):>8}  {_option_words(o, labels)}")


def _print_target_options(
    solver: Solver, card: Scorecard, dice: tuple[int, ...], rolls_left: int, target: int, as_json: bool, exact: bool
) -> None:
    if exact:
        ranked = chance_options(get_chances(solver, target, card), card, dice, rolls_left, target)
    else:
        from fivedice.solver.fast import fast_options

        ranked = fast_options(solver, card, dice, rolls_left, target)
    if as_json:
        data = {
            "rules": solver.rules.spec,
            "target": target,
            "exact": exact,
            "probability": ranked[0].value,
            "options": [o.to_dict() | {"probability": o.value} for o in ranked],
        }
        click.echo(json.dumps(data))
        return
    click.echo(
        ngettext(
            "best chance of at least {target} point: {chance}",
            "best chance of at least {target} points: {chance}",
            target,
            target=target,
            chance=format_percent(ranked[0].value, 3),
        )
    )
    click.echo(f"{_('chance'):>9} {_('loss'):>8}  {_('option')}")
    labels = {b.name: box_label(b) for b in solver.rules.boxes}
    for o in ranked:
        click.echo(f"{format_percent(o.value, 2):>9} {format_percent(o.loss, 2):>8}  {_option_words(o, labels)}")


def _option_words(o: Option, labels: dict[str, str]) -> str:
    """An advisor option in words: ``keep 3 3 and roll`` or ``score 25 in Full House (+100 bonus)``."""
    if o.action == "keep":
        kept = " ".join(map(str, o.dice))
        return _("keep {dice} and roll", dice=kept) if kept else _("reroll all")
    what = _("score {points} in {box}", points=o.points, box=labels.get(o.box or "", o.box))
    return what + _(" (+{bonus} bonus)", bonus=o.bonus) if o.bonus else what
