"""``fivedice solve`` and ``fivedice advise``: the solver on the command line."""

from __future__ import annotations

import json
import sys
import time

import click

from fivedice.clickutil import I18nCommand, friendly, get_rules, option_flag
from fivedice.dice import parse_dice
from fivedice.errors import IllegalActionError
from fivedice.i18n import N_, _, box_label, box_name, format_decimal, format_number, ngettext
from fivedice.rules import RuleSet
from fivedice.scorecard import Scorecard
from fivedice.solver.advisor import Solver, readiness, solve

__all__ = ["advise_cmd", "get_solver", "parse_card", "solve_cmd"]


def get_solver(rules: RuleSet, jit: bool = False) -> Solver:
    """The solver of ``rules``; when its table must be built, say so on stderr first, with progress.

    Nothing is printed when the table is cached or shipped with fivedice.
    """
    ready = readiness(rules)
    if ready.ready:
        return solve(rules, jit=jit)
    title = _(rules.title) if not rules.options else rules.spec
    message = _(
        "Preparing the solver for {rules} (once, about {seconds} s)...",
        rules=title,
        seconds=format_number(max(1, round(ready.seconds))),
    )
    live = sys.stderr.isatty()
    click.echo(message, err=True, nl=not live)

    def progress(share: float) -> None:
        if live:
            click.echo(f"\r{message} {format_number(round(100 * share))} %", err=True, nl=False)

    solver = solve(rules, jit=jit, progress=progress)
    if live:
        click.echo("", err=True)
    return solver


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
@friendly
def solve_cmd(name: str, options: tuple[str, ...], as_json: bool) -> None:
    """Build (or load from the cache) the optimal table of a rule set; print its expected score."""
    rules = get_rules(name, options)
    start = time.perf_counter()
    solver = get_solver(rules)
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
@friendly
def advise_cmd(
    name: str,
    more_dice: tuple[str, ...],
    card_text: str,
    dice_text: str,
    rolls_left: int,
    options: tuple[str, ...],
    as_json: bool,
) -> None:
    """Every option for a situation of a rule set with its value and loss, best first."""
    rules = get_rules(name, options)
    card = parse_card(rules, card_text)
    dice = parse_dice(" ".join([dice_text, *more_dice]), rules.dice)
    solver = get_solver(rules)
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
        if o.action == "keep":
            kept = " ".join(map(str, o.dice))
            what = _("keep {dice} and roll", dice=kept) if kept else _("reroll all")
        else:
            what = _("score {points} in {box}", points=o.points, box=labels.get(o.box or "", o.box))
            if o.bonus:
                what += _(" (+{bonus} bonus)", bonus=o.bonus)
        click.echo(f"{format_decimal(o.value, 3):>9} {format_decimal(o.loss, 3):>8}  {what}")
