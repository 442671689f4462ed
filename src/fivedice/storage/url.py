"""The one database URL resolver, shared by the score store and the web server's rooms.

``--db URL`` if given, else ``$FIVEDICE_DB``, else ``<user data dir>/fivedice.db``. A bare
file path names a SQLite file; ``postgresql://`` and ``postgres://`` use the psycopg 3 driver
(the ``postgres`` extra).

>>> resolve_url("/tmp/x.db")
'sqlite:////tmp/x.db'
>>> resolve_url("postgresql://postgres@localhost/test")
'postgresql+psycopg://postgres@localhost/test'
>>> resolve_url("sqlite://")   # in memory
'sqlite://'
"""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

__all__ = ["ENV_VAR", "default_path", "resolve_url"]

ENV_VAR = "FIVEDICE_DB"
"""The environment variable naming the database URL (or SQLite file)."""

SQLITE_SCHEME = "sqlite:///"
PSYCOPG_SCHEME = "postgresql+psycopg://"


def default_path() -> Path:
    """The SQLite file used when no URL is given."""
    return Path(platformdirs.user_data_dir("fivedice", appauthor=False)) / "fivedice.db"


def resolve_url(url: str | None = None) -> str:
    """The SQLAlchemy URL: ``url``, else ``$FIVEDICE_DB``, else the default SQLite file."""
    url = url or os.environ.get(ENV_VAR) or str(default_path())
    if "://" not in url:
        return SQLITE_SCHEME + str(Path(url).expanduser().absolute())
    for scheme in ("postgresql://", "postgres://"):
        if url.startswith(scheme):
            return PSYCOPG_SCHEME + url.removeprefix(scheme)
    return url
