"""``fivedice solve`` and ``fivedice advise``: the solver on the command line."""

from __future__ import annotations

import json
import time

import click

from fivedice.cli import friendly, get_rules, option_flag
from fivedice.dice import parse_dice
from fivedice.errors import IllegalActionError
from fivedice.rules import RuleSet
from fivedice.scorecard import Scorecard
from fivedice.solver.advisor import solve

__all__ = ["advise_cmd", "parse_card", "solve_cmd"]


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
            raise IllegalActionError(f"Card entry {item.strip()!r} is not of the form box=points.")
        index = rules.box_index(name)
        if entries[index] is not None:
            raise IllegalActionError(f"Box {rules.boxes[index].name!r} is given twice on the card.")
        try:
            entries[index] = int(value)
        except ValueError:
            shown = value.strip()
            raise IllegalActionError(f"Points {shown!r} for box {name.strip()!r} are not a whole number.") from None
    return Scorecard(rules, rules.cards[0], tuple(entries))


@click.command("solve")
@click.argument("name")
@option_flag
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
@friendly
def solve_cmd(name: str, options: tuple[str, ...], as_json: bool) -> None:
    """Build (or load from the cache) the optimal table of rule set NAME; print its expected score."""
    rules = get_rules(name, options)
    start = time.perf_counter()
    solver = solve(rules)
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
    click.echo(f"{rules.spec}: expected score {solver.expected_score:.5f}")
    how = "built" if table.source == "built" else "loaded from the cache"
    click.echo(f"time: {seconds:.2f} s ({how})")
    size = f"table: {table.states:,} states, {solver.size_bytes / 1e6:.1f} MB of values"
    if file_bytes is not None:
        size += f", {file_bytes / 1e6:.1f} MB on disk ({path})"
    click.echo(size)


@click.command("advise")
@click.argument("name")
@click.argument("more_dice", nargs=-1, metavar="")
@click.option("--card", "card_text", default="", help='Filled boxes and their points, e.g. "ones=3,yahtzee=50".')
@click.option("--dice", "dice_text", required=True, help="The dice showing, e.g. --dice 1 3 3 5 6.")
@click.option("--rolls-left", type=int, required=True, help="Rolls still allowed this turn.")
@option_flag
@click.option("--json", "as_json", is_flag=True, help="Print the options as JSON.")
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
    """Every option for a situation of rule set NAME with its value and loss, best first."""
    rules = get_rules(name, options)
    card = parse_card(rules, card_text)
    dice = parse_dice(" ".join([dice_text, *more_dice]), rules.dice)
    solver = solve(rules)
    ranked = solver.advise(card, dice, rolls_left)
    expected = card.total + ranked[0].value
    if as_json:
        data = {"rules": rules.spec, "expected_final": expected, "options": [o.to_dict() for o in ranked]}
        click.echo(json.dumps(data))
        return
    click.echo(f"{rules.spec}: dice {dice}, {rolls_left} rolls left, card total {card.total}")
    click.echo(f"expected final score with optimal play: {expected:.3f}")
    click.echo(f"{'value':>9} {'loss':>8}  option")
    for o in ranked:
        if o.action == "keep":
            what = "keep " + (" ".join(map(str, o.dice)) or "nothing") + " and roll"
        else:
            what = f"score {o.points} in {o.box}" + (f" (+{o.bonus} bonus)" if o.bonus else "")
        click.echo(f"{o.value:9.3f} {o.loss:8.3f}  {what}")
