"""Accounts, passkeys, my games, notifications, friends and invites mounted on the web app in one call.

``web/app.py`` calls :func:`install_accounts` before adding its guard (so the guard still wraps everything: the
cross-site check's refusals get its headers and language), then calls the :class:`Seating` hooks around
creating and joining rooms and around a WebSocket's hello.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response

from fivedice.web import friends, games, passkeys, profiles, push
from fivedice.web.accounts import Accounts, router
from fivedice.web.auth import AccountError, AccountSettings, CrossOrigin
from fivedice.web.seating import Seating

if TYPE_CHECKING:
    from fivedice.web.service import RoomService

__all__ = ["Mounted", "install_accounts"]

log = logging.getLogger("fivedice.web")
SWEEP_EVERY = 600.0


class Mounted(Seating):
    """The seat hooks, and the background work that ``create_app``'s lifespan starts and stops."""

    def __init__(self, accounts: Accounts, sender: push.Push) -> None:
        super().__init__(accounts)
        self.sender = sender
        self.tasks: list[asyncio.Task[None]] = []

    async def start(self) -> None:
        """Load the push keys and start the upkeep (expired sessions, turns held by quiet hours)."""
        await self.sender.start()
        self.tasks.append(asyncio.create_task(self.accounts.auth.passwords.warm()))
        self.tasks.append(asyncio.create_task(_sweeps(self.accounts, self.sender)))

    async def close(self) -> None:
        """Stop the upkeep and the workers."""
        for task in self.tasks:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        await self.sender.close()
        self.accounts.auth.passwords.close()


def install_accounts(app: FastAPI, service: RoomService, settings: AccountSettings) -> Mounted:
    """Mount the account routes, the cross-site check and the turn notifications; returns the seat hooks
    (call ``start()`` and ``close()`` from the app's lifespan)."""
    accounts = Accounts(service, settings)
    app.state.accounts = accounts
    app.add_middleware(CrossOrigin, settings=settings)

    @app.exception_handler(AccountError)
    async def refused(_request: Request, exc: AccountError) -> Response:
        return JSONResponse({"error": str(exc)}, status_code=exc.status)

    summaries = games.Summaries(accounts)
    sender = push.Push(accounts, summaries)
    app.state.push = sender
    app.include_router(router(accounts))
    app.include_router(passkeys.router(accounts))
    app.include_router(games.router(accounts, summaries))
    app.include_router(push.router(accounts, sender))
    app.include_router(friends.router(accounts, sender))
    service.listeners.append(sender.on_change)
    kept = profiles.Profiles(accounts)  # finished games per account: profiles, ratings, leaderboards
    app.state.profiles = kept
    app.include_router(profiles.router(kept))
    service.listeners.append(kept.on_change)
    return Mounted(accounts, sender)


async def _sweeps(accounts: Accounts, sender: push.Push) -> None:
    """Forget expired sessions and ceremonies, and send the turns held back by quiet hours, now and then."""
    while True:
        await asyncio.sleep(min(SWEEP_EVERY, sender.quiet_every))
        try:
            await accounts.db(accounts.store.sweep, accounts.service.clock())
            await sender.release_held()
        except Exception as exc:
            log.warning("account upkeep skipped: %s", exc)
