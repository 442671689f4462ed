"""The installable app: the service worker at the site's root (its scope is the whole site).

The manifest and icons are ordinary static files (``/static/manifest.webmanifest``, ``/static/icons/``);
the service worker must be served from ``/`` to control every page, so it has its own route.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import FileResponse

__all__ = ["add_routes"]


def add_routes(app: FastAPI, static: Path) -> None:
    """``GET /sw.js``: the service worker (never cached by the browser's HTTP cache, so updates arrive)."""

    @app.get("/sw.js", include_in_schema=False)
    async def service_worker() -> FileResponse:
        return FileResponse(static / "sw.js", media_type="text/javascript", headers={"Cache-Control": "no-cache"})
