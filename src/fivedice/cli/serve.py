"""``fivedice serve``: run the web server (uvicorn) on one host and port."""

from __future__ import annotations

import click

from fivedice.cli.clickutil import I18nCommand, friendly
from fivedice.i18n import N_, _
from fivedice.web.limits import DEFAULT_LIMITS as D

__all__ = ["serve_cmd"]


@click.command("serve", cls=I18nCommand, help=N_("Serve the browser game and its API at http://HOST:PORT."))
@click.option("--host", default="127.0.0.1", show_default=True, help=N_("Address to listen on."))
@click.option("--port", default=8000, show_default=True, type=int, help=N_("Port to listen on."))
@click.option(
    "--db",
    "db",
    default=None,
    metavar="URL",
    help=N_("Database URL or SQLite file (default: $FIVEDICE_DB, else the user data dir)."),
)
@click.option(
    "--pubsub",
    default="auto",
    show_default=True,
    metavar="KIND",
    help=N_(
        "Fan-out between processes: auto (what the database's processes use; else NOTIFY on PostgreSQL), "
        "none, postgres, or a redis:// URL."
    ),
)
@click.option(
    "--computer-delay", default=0.6, show_default=True, type=float, help=N_("Seconds between computer moves.")
)
@click.option("--seed", type=int, default=None, hidden=True, help=N_("Repeatable dice (tests only)."))
@click.option("--table-prefix", default="web_", hidden=True, help=N_("Prefix of the room tables."))
@click.option("--no-scores", is_flag=True, hidden=True, help=N_("Do not record finished games in the high scores."))
@click.option(
    "--rate", default=D.message_rate, show_default=True, type=float, help=N_("Messages a second allowed per seat.")
)
@click.option(
    "--rooms-per-minute",
    default=round(D.create_rate * 60, 3),
    show_default=True,
    type=float,
    help=N_("Rooms one client address may create a minute."),
)
@click.option(
    "--joins-per-minute",
    default=round(D.join_rate * 60, 3),
    show_default=True,
    type=float,
    help=N_("Seats one client address may take a minute."),
)
@click.option(
    "--requests-per-second",
    default=D.request_rate,
    show_default=True,
    type=float,
    help=N_("HTTP requests one client address may make a second."),
)
@click.option(
    "--max-connections", default=D.connections, show_default=True, type=int, help=N_("Open connections at most.")
)
@click.option(
    "--max-watchers", default=D.watchers, show_default=True, type=int, help=N_("Spectators per room at most.")
)
@click.option(
    "--max-address-connections",
    default=D.address_connections,
    show_default=True,
    type=click.IntRange(1),
    help=N_("Open connections from one client address at most (not counted behind --trusted-proxy)."),
)
@click.option(
    "--max-address-sockets",
    default=D.address_sockets,
    show_default=True,
    type=click.IntRange(1),
    help=N_("Open WebSockets from one client address at most."),
)
@click.option(
    "--watch-idle",
    default=D.watch_idle,
    show_default=True,
    type=click.FloatRange(min=1),
    help=N_("Seconds a spectator's connection stays open without a sign from its page."),
)
@click.option(
    "--header-timeout",
    default=D.header_timeout,
    show_default=True,
    type=float,
    help=N_("Seconds a client has to send a request head (and its body)."),
)
@click.option(
    "--db-timeout",
    default=D.db_timeout,
    show_default=True,
    type=float,
    help=N_("Seconds to wait for a locked or slow database before refusing a request."),
)
@click.option(
    "--presence-ttl",
    default=D.presence_ttl,
    show_default=True,
    type=float,
    help=N_("Seconds after which the players of a silent server process show offline."),
)
@click.option(
    "--finished-expiry",
    default=D.finished_expiry,
    show_default=True,
    type=float,
    help=N_("Seconds after its game ended that a room is deleted (its games stay in the history)."),
)
@click.option(
    "--idle-expiry",
    default=D.idle_expiry,
    show_default=True,
    type=float,
    help=N_(
        "Seconds without any change after which a room still in the lobby is deleted (a game in play never expires)."
    ),
)
@click.option(
    "--chance-builds",
    default=D.chance_builds,
    show_default=True,
    type=click.IntRange(0),
    help=N_("Tables (chances, solvers) prepared at once at most, queued ones included; more are refused."),
)
@click.option(
    "--chance-memory",
    default=4096,
    show_default=True,
    type=click.IntRange(0),
    metavar="MB",
    help=N_("Resident memory of the server above which no table preparation starts (one takes up to 1280 MB)."),
)
@click.option(
    "--trusted-proxy",
    default=None,
    metavar="ADDRESSES",
    help=N_("Reverse proxies (comma-separated addresses) whose X-Forwarded-For names the client."),
)
@click.option(
    "--chances/--no-chances",
    default=True,
    show_default=True,
    help=N_(
        "Show beside each hint its chance to win, or alone to beat one's best (ready at once for the built-in "
        "rule sets; a house rule set's tables are prepared once in the background)."
    ),
)
@click.option(
    "--origin",
    "origins",
    multiple=True,
    metavar="URL",
    envvar="FIVEDICE_ORIGIN",
    help=N_(
        "The site's public origin, like https://dice.example (repeatable): cross-site checks and passkeys "
        "use it (default: the request's own scheme and Host)."
    ),
)
@click.option(
    "--secure-cookies", is_flag=True, help=N_("Mark session cookies Secure even on plain http (behind a TLS proxy).")
)
@click.option(
    "--vapid-key",
    default=None,
    metavar="FILE",
    envvar="FIVEDICE_VAPID_KEY",
    help=N_("PEM file with the Web Push (VAPID) private key (default: made at first start, kept in the database)."),
)
@click.option(
    "--push-subject",
    default="mailto:operator@localhost",
    show_default=True,
    envvar="FIVEDICE_PUSH_SUBJECT",
    help=N_("How push services reach the operator (a mailto: or https: URL, sent with every notification)."),
)
@click.option(
    "--push-host",
    "push_hosts",
    multiple=True,
    metavar="HOST",
    help=N_("Another push service host to accept subscriptions for (repeatable; https only)."),
)
@click.option(
    "--push-loopback",
    is_flag=True,
    envvar="FIVEDICE_PUSH_LOOPBACK",
    help=N_("Also accept plain-http push endpoints on loopback addresses (tests and local push services only)."),
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
    rooms_per_minute: float,
    joins_per_minute: float,
    requests_per_second: float,
    max_connections: int,
    max_watchers: int,
    max_address_connections: int,
    max_address_sockets: int,
    watch_idle: float,
    header_timeout: float,
    db_timeout: float,
    presence_ttl: float,
    finished_expiry: float,
    idle_expiry: float,
    chance_builds: int,
    chance_memory: int,
    trusted_proxy: str | None,
    chances: bool,
    origins: tuple[str, ...],
    secure_cookies: bool,
    vapid_key: str | None,
    push_subject: str,
    push_hosts: tuple[str, ...],
    push_loopback: bool,
    log_level: str,
) -> None:
    """Serve the browser game and its API at http://HOST:PORT."""
    import dataclasses
    import gc
    import logging
    import sys

    # database calls run in worker threads: hand the GIL over more often than every 5 ms
    sys.setswitchinterval(0.0005)
    logging.basicConfig(format="%(asctime)s %(levelname)s %(name)s: %(message)s")

    from fivedice.web.app import create_app
    from fivedice.web.auth import AccountSettings, check_origin
    from fivedice.web.db import safe_url
    from fivedice.web.server import listen, run

    sock = listen(host, port)  # first: a bad or busy port is one sentence before any work
    limits = dataclasses.replace(
        D,
        message_rate=rate,
        message_burst=2 * rate,
        create_rate=rooms_per_minute / 60,
        join_rate=joins_per_minute / 60,
        request_rate=requests_per_second,
        request_burst=2 * requests_per_second,
        connections=max_connections,
        watchers=max_watchers,
        address_connections=min(max_address_connections, max_connections),
        address_sockets=max_address_sockets,
        watch_idle=watch_idle,
        header_timeout=header_timeout,
        body_timeout=header_timeout,
        db_timeout=db_timeout,
        presence_ttl=presence_ttl,
        finished_expiry=finished_expiry,
        idle_expiry=idle_expiry,
        sweep_every=min(D.sweep_every, max(1.0, min(finished_expiry, idle_expiry) / 4)),
        chance_builds=chance_builds,
        chance_memory=chance_memory,
    )
    app = create_app(  # a failure exits, closing the socket
        db,
        pubsub=pubsub,
        prefix=table_prefix,
        seed=seed,
        computer_delay=computer_delay,
        scores=not no_scores,
        limits=limits,
        chances=chances,
        accounts=AccountSettings(
            origins=tuple(check_origin(o) for o in origins),
            secure=secure_cookies,
            vapid_key=vapid_key,
            push_subject=push_subject,
            push_hosts=tuple(h.lower() for h in push_hosts),
            push_loopback=push_loopback,
        ),
    )
    # fewer, cheaper garbage collections: the long-lived objects (rules, tables) are frozen
    gc.freeze()
    gc.set_threshold(20_000, 50, 100)
    service = app.state.service
    url = safe_url(service.store.url)
    click.echo(
        _(
            "fivedice: serving on http://{host}:{port}  (database: {url}, pub/sub: {pubsub})",
            host=host,
            port=sock.getsockname()[1],
            url=url,
            pubsub=service.pubsub,
        )
    )
    run(app, sock, limits, log_level=log_level, trusted=trusted_proxy)
