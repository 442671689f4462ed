"""``fivedice serve``: run the web server (uvicorn) on one host and port."""

from __future__ import annotations

import click

from fivedice.clickutil import I18nCommand, friendly
from fivedice.i18n import N_, _

__all__ = ["serve_cmd"]


@click.command("serve", cls=I18nCommand, help=N_("Serve the browser game and its API at http://HOST:PORT."))
@click.option("--host", default="127.0.0.1", show_default=True, help=N_("Address to listen on."))
@click.option("--port", default=8000, show_default=True, type=int, help=N_("Port to listen on."))
@click.option(
    "--db", "db", default=None, metavar="URL", help=N_("Database URL (default: SQLite in the user data dir).")
)
@click.option(
    "--pubsub",
    default="auto",
    show_default=True,
    metavar="KIND",
    help=N_("Fan-out between processes: auto (PostgreSQL NOTIFY on PostgreSQL), none, postgres, or a redis:// URL."),
)
@click.option(
    "--computer-delay", default=0.6, show_default=True, type=float, help=N_("Seconds between computer moves.")
)
@click.option("--seed", type=int, default=None, hidden=True, help=N_("Repeatable dice (tests only)."))
@click.option("--table-prefix", default="web_", hidden=True, help=N_("Prefix of the room tables."))
@click.option("--no-scores", is_flag=True, hidden=True, help=N_("Do not record finished games in the high scores."))
@click.option(
    "--rate", default=10.0, show_default=True, type=float, help=N_("Messages a second allowed per connection.")
)
@click.option("--log-level", default="warning", show_default=True, help=N_("uvicorn log level."))
@friendly
def serve_cmd(
    host: str,
    port: int,
    db: str | None,
    pubsub: str,
    computer_delay: float,
    seed: int | None,
    table_prefix: str,
    no_scores: bool,
    rate: float,
    log_level: str,
) -> None:
    """Serve the browser game and its API at http://HOST:PORT."""
    import gc
    import sys

    import uvicorn

    # database calls run in worker threads (PostgreSQL): hand the GIL over more often than every 5 ms
    sys.setswitchinterval(0.0005)

    from fivedice.web.app import create_app

    app = create_app(
        db,
        pubsub=pubsub,
        prefix=table_prefix,
        seed=seed,
        computer_delay=computer_delay,
        scores=not no_scores,
        rate=(rate, 2 * rate),
    )
    # fewer, cheaper garbage collections: the long-lived objects (rules, tables) are frozen
    gc.freeze()
    gc.set_threshold(20_000, 50, 100)
    url = app.state.service.store.url
    click.echo(_("fivedice: serving on http://{host}:{port}  (database: {url})", host=host, port=port, url=url))
    uvicorn.run(app, host=host, port=port, log_level=log_level, ws_max_size=65536, ws_ping_interval=20)
