"""Online multiplayer in the browser: an ASGI app with rooms, persistence and multi-process fan-out.

Start it with ``fivedice serve`` (see :mod:`fivedice.cli.serve`) or build the app with
:func:`create_app`.
"""

from __future__ import annotations

from typing import Any

__all__ = ["create_app"]


def create_app(*args: Any, **kwargs: Any) -> Any:
    """Build the ASGI app (see :func:`fivedice.web.app.create_app`)."""
    from fivedice.web.app import create_app as build

    return build(*args, **kwargs)
