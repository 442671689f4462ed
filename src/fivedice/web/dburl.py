"""Where the room database is and what its failures mean: URLs (the psycopg driver for PostgreSQL, passwords
hidden in messages), the one-sentence errors of failed calls, and how long a call may still wait for a lock.
"""

from __future__ import annotations

import time
from contextvars import ContextVar
from pathlib import Path
from typing import Any

from sqlalchemy.engine import make_url

from fivedice.i18n import _
from fivedice.storage.url import resolve_url
from fivedice.web.errors import StoreBusyError, StoreError, StoreReadOnlyError

__all__ = [
    "DEADLINE",
    "POSTGRES_SCHEME",
    "PSYCOPG_SCHEME",
    "SQLITE_SCHEME",
    "default_url",
    "libpq_url",
    "lock_wait_ms",
    "make_folder",
    "normalize_url",
    "safe_url",
    "sqlite_busy",
    "store_error",
    "wait_ms",
]

PSYCOPG_SCHEME = "postgresql+psycopg://"
POSTGRES_SCHEME = "postgresql://"
SQLITE_SCHEME = "sqlite:///"


def normalize_url(url: str) -> str:
    """A SQLAlchemy URL: ``postgresql://`` and ``postgres://`` use the psycopg 3 driver.

    >>> normalize_url("postgresql://postgres@127.0.0.1:5432/test")
    'postgresql+psycopg://postgres@127.0.0.1:5432/test'
    """
    for scheme in ("postgresql://", "postgres://"):
        if url.startswith(scheme):
            return PSYCOPG_SCHEME + url[len(scheme) :]
    return url


def libpq_url(url: str) -> str:
    """The plain libpq form of a PostgreSQL URL (for psycopg's own connections)."""
    return POSTGRES_SCHEME + url.split("://", 1)[1]


def safe_url(url: str) -> str:
    """``url`` without its password, for messages and logs.

    >>> safe_url("postgresql://ann:secret@db:5432/fivedice")
    'postgresql://ann:***@db:5432/fivedice'
    """
    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:
        return url.rsplit("@", 1)[-1]


def store_error(exc: BaseException, timeout: float, url: str | None = None) -> StoreError:
    """One sentence for a failed database call (the transaction was rolled back: nothing changed).

    With ``url`` (at start) the sentence names the database and says the server cannot run on it.
    """
    orig = getattr(exc, "orig", None) or exc
    lines = str(orig).strip().splitlines()
    reason = (lines[0] if lines else type(orig).__name__)[:100].rstrip(".")
    low, state = reason.lower(), getattr(orig, "sqlstate", None)
    if "readonly" in low or "read-only" in low or state == "25006":
        if url:
            return StoreReadOnlyError(
                _(
                    "Database {url} is read-only ({reason}); fivedice serve needs to write its rooms.",
                    url=url,
                    reason=reason,
                )
            )
        return StoreReadOnlyError(_("The database is read-only ({reason}); nothing was changed.", reason=reason))
    if "locked" in low or "busy" in low or "timeout" in low or state in ("55P03", "57014", "40P01"):
        return StoreBusyError(
            _(
                "The database stayed locked for more than {seconds} s; nothing was changed, try again in a moment.",
                seconds=format(timeout, "g"),
            )
        )
    if url:
        return StoreError(_("Database {url} cannot be used ({reason}).", url=url, reason=reason))
    return StoreError(
        _("The database cannot be reached ({reason}); nothing was changed, try again in a moment.", reason=reason)
    )


DEADLINE: ContextVar[float | None] = ContextVar("fivedice_db_deadline", default=None)
"""When (``time.monotonic()``) the current database call gives up waiting for a lock: the server sets it to
the moment the call was queued plus ``--db-timeout``, so that queueing and lock waits together stay within it."""


def wait_ms(timeout: float) -> int:
    """Milliseconds a lock may still be waited for: ``timeout``, or less when :data:`DEADLINE` is nearer."""
    deadline = DEADLINE.get()
    left = timeout if deadline is None else min(timeout, deadline - time.monotonic())
    return max(1, int(left * 1000))


LOCK_STEP = 100
"""Milliseconds: a call's lock-wait bound is the time left before its deadline, rounded down to a multiple of
this (and the whole ``timeout`` while less than one step has gone), so that calls queued a little while share
a bound and the connection is not told a new one each time."""


def lock_wait_ms(timeout: float) -> int | None:
    """The bound on a call's lock waits (:func:`wait_ms` rounded down to :data:`LOCK_STEP`), or None while the
    whole ``timeout`` is left (the connection's own bound): one rule for SQLite's ``busy_timeout`` and
    PostgreSQL's ``lock_timeout``."""
    whole, ms = int(timeout * 1000), wait_ms(timeout)
    if ms > whole - LOCK_STEP:
        return None
    return max(1, ms - ms % LOCK_STEP)


def sqlite_busy(info: dict[Any, Any], driver: Any, timeout: float) -> None:
    """Bound a SQLite connection's lock waits by the call's deadline (:func:`lock_wait_ms`). The PRAGMA runs
    only when the bound changes (``info`` is the pooled connection's, where the bound set is kept)."""
    ms = lock_wait_ms(timeout) or int(timeout * 1000)
    if info.get("fivedice_busy_ms") != ms:
        driver.execute(f"PRAGMA busy_timeout = {ms}")
        info["fivedice_busy_ms"] = ms


def make_folder(database: str, url: str) -> None:
    """Create the folder of a SQLite file (a fresh install has no user data folder yet)."""
    folder = Path(database).parent
    if not database or database.startswith("file:") or folder.is_dir():
        return
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(
            _("Database {url} cannot be used (its folder cannot be made: {reason}).", url=url, reason=exc.strerror)
        ) from None


def default_url() -> str:
    """The database URL when ``--db`` is not given: the one resolver's (``$FIVEDICE_DB``, else the default file)."""
    return resolve_url(None)
