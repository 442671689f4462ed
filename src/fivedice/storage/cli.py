"""``fivedice scores`` (the high-score tables) and ``fivedice history PLAYER`` (games, statistics, a chart)."""

from __future__ import annotations

from collections.abc import Sequence

import click

from fivedice.cli import friendly
from fivedice.render import table
from fivedice.storage.store import ENV_VAR, History, ScoreRow, Store

__all__ = ["bar_chart", "history_cmd", "history_text", "scores_cmd", "scores_text"]

_EIGHTHS = " ▁▂▃▄▅▆▇█"

db_option = click.option(
    "--db",
    "db",
    default=None,
    metavar="URL",
    help=f"Database URL or SQLite file (default: ${ENV_VAR}, else the user data dir).",
)


def bar_chart(values: Sequence[int], height: int = 6) -> str:
    """A small chart of ``values`` (oldest left), one column each, ``height`` lines tall.

    >>> print(bar_chart([100, 200, 150], height=2))
    200 │ █▂
     75 │▃██
    """
    if not values:
        return ""
    hi, lo = max(values), min(values)
    floor = max(0, lo - max(1, (hi - lo) // 4))
    span = hi - floor
    label_width = len(str(hi))
    lines = []
    for row in range(height - 1, -1, -1):
        cells = []
        for v in values:
            eighths = round((v - floor) / span * height * 8) - row * 8
            cells.append(_EIGHTHS[max(0, min(8, eighths))])
        label = str(hi) if row == height - 1 else str(floor) if row == 0 else ""
        lines.append(f"{label:>{label_width}} │{''.join(cells)}".rstrip())
    return "\n".join(lines)


def _when(row_time: object) -> str:
    return row_time.strftime("%Y-%m-%d") if hasattr(row_time, "strftime") else str(row_time)


def scores_text(rows: Sequence[ScoreRow], title: str) -> str:
    """A high-score table with a title line."""
    if not rows:
        return f"{title}: no games yet."
    body = [["#", "Player", "Score", "Rules", "Players", "Date"]]
    for r in rows:
        who = r.name if r.kind != "computer" else f"{r.name} (computer {r.level})"
        body.append([str(r.rank), who, str(r.total), r.rules, str(r.players), _when(r.played_at)])
    return f"{title}\n{table(body, [True, False, True, False, True, False])}"


def history_text(history: History, recent: int = 10, chart: int = 30) -> str:
    """A player's statistics, a chart of recent scores and their latest games."""
    if not history.games:
        return f"{history.player}: no games yet."
    lines = [f"{history.player}: {history.count} game{'s' if history.count != 1 else ''}"]
    mean = f"{history.mean:.1f}" if history.mean is not None else "-"
    lines.append(f"  mean {mean}, best {history.best}, wins {history.wins}")
    rate = history.bonus_rate
    lines.append(f"  upper bonus rate: {'-' if rate is None else f'{rate:.0%}'}")
    loss = history.mean_loss
    analysed = "not analysed" if loss is None else f"{loss:.2f} points"
    lines.append(f"  mean loss per decision: {analysed}")
    scores = [g.total for g in reversed(history.games[:chart])]
    lines += ["", f"Last {len(scores)} scores (oldest left):", bar_chart(scores), ""]
    body = [["Date", "Rules", "Players", "Place", "Score", "Bonus", "Loss"]]
    for g in history.games[:recent]:
        place = f"{g.place} of {g.players}" if g.players > 1 else "solo"
        loss_text = "-" if g.loss is None else f"{g.loss:.1f}"
        body.append([_when(g.played_at), g.rules, str(g.players), place, str(g.total), str(g.upper_bonus), loss_text])
    lines.append(table(body, [False, False, True, False, True, True, True]))
    return "\n".join(lines)


@click.command("scores")
@click.option(
    "--rules", "rules_name", default=None, help="Only this rule set (a name, or a spec like 'yahtzee joker=free')."
)
@click.option("--limit", type=click.IntRange(1, 1000), default=10, show_default=True, help="Rows per table.")
@db_option
@friendly
def scores_cmd(rules_name: str | None, limit: int, db: str | None) -> None:
    """Show the high-score tables (solo and multiplayer)."""
    with Store(db) as store:
        solo = store.high_scores(rules_name, limit, solo=True)
        multi = store.high_scores(rules_name, limit, solo=False)
    suffix = f" ({rules_name})" if rules_name else ""
    click.echo(scores_text(solo, f"Solo high scores{suffix}"))
    click.echo()
    click.echo(scores_text(multi, f"Multiplayer high scores{suffix}"))


@click.command("history")
@click.argument("player")
@click.option("--rules", "rules_name", default=None, help="Only this rule set (a name or a spec).")
@click.option("--limit", type=click.IntRange(1, 1000), default=10, show_default=True, help="Recent games listed.")
@db_option
@friendly
def history_cmd(player: str, rules_name: str | None, limit: int, db: str | None) -> None:
    """Show PLAYER's games and statistics with a chart of recent scores."""
    with Store(db) as store:
        found = store.history(player, rules_name)
    click.echo(history_text(found, recent=limit))
