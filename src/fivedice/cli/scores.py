"""``fivedice scores`` (the high-score tables) and ``fivedice history PLAYER`` (games, statistics, a chart)."""

from __future__ import annotations

import json

import click

from fivedice.cli.clickutil import I18nCommand, friendly
from fivedice.i18n import (
    N_,
    _,
)
from fivedice.storage.store import Store
from fivedice.storage.text import history_text, scores_text, scores_title
from fivedice.table.challenge import challenge_code

__all__ = ["history_cmd", "scores_cmd"]

db_option = click.option(
    "--db",
    "db",
    default=None,
    metavar="URL",
    help=N_("Database URL or SQLite file (default: $FIVEDICE_DB, else the user data dir)."),
)


@click.command("scores", cls=I18nCommand, help=N_("Show the high-score tables (solo and multiplayer)."))
@click.option(
    "--rules",
    "rules_name",
    default=None,
    help=N_("Only this rule set (a name, or a spec like 'yahtzee joker=free')."),
)
@click.option("--limit", type=click.IntRange(1, 1000), default=10, show_default=True, help=N_("Rows per table."))
@click.option(
    "--challenge", default=None, metavar="CODE", help=N_("The leaderboard of challenge CODE ('daily' for today's).")
)
@db_option
@friendly
def scores_cmd(rules_name: str | None, limit: int, challenge: str | None, db: str | None) -> None:
    """Show the high-score tables (solo and multiplayer), or one challenge's leaderboard."""
    if challenge is not None:
        code = challenge_code(challenge)
        with Store(db) as store:
            chosen = None if rules_name is None else store.rules_filter(rules_name)
            board = store.high_scores(chosen, limit, challenge=code)
        click.echo(scores_text(board, _("Challenge {code}", code=code)))
        return
    with Store(db) as store:
        chosen = None if rules_name is None else store.rules_filter(rules_name)
        solo = store.high_scores(chosen, limit, solo=True)
        multi = store.high_scores(chosen, limit, solo=False)
    click.echo(scores_text(solo, scores_title(True, rules_name)))
    click.echo()
    click.echo(scores_text(multi, scores_title(False, rules_name)))


@click.command("history", cls=I18nCommand, help=N_("Show PLAYER's games and statistics with a chart of recent scores."))
@click.argument("player")
@click.option("--rules", "rules_name", default=None, help=N_("Only this rule set (a name or a spec)."))
@click.option("--limit", type=click.IntRange(1, 1000), default=10, show_default=True, help=N_("Recent games listed."))
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help=N_("Print the profile as JSON: games, wins, rivals, bests, luck and loss, achievements, ratings."),
)
@db_option
@friendly
def history_cmd(player: str, rules_name: str | None, limit: int, db: str | None, as_json: bool) -> None:
    """Show PLAYER's games and statistics with a chart of recent scores."""
    with Store(db) as store:
        chosen = None if rules_name is None else store.rules_filter(rules_name)
        if as_json:
            from fivedice.services.profile import profile
            from fivedice.storage.profiles import played_games

            played = played_games(store, player, chosen)
            click.echo(json.dumps({"player": player} | profile(played).to_json(history=limit), indent=1))
            return
        found = store.history(player, chosen)
    click.echo(history_text(found, recent=limit))
