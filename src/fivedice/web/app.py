"""The ASGI app: a JSON HTTP API for rooms, a WebSocket per client for live play, and the browser client.

HTTP (all JSON; errors are ``{"error": "one sentence"}``):

=================================  ==============================================================
``GET  /api/rules``                rule sets with their options, computer levels and limits
``POST /api/rooms``                create a room; returns its ``code``, the creator's ``token``
``GET  /api/rooms/{code}``         the room as its members see it (the invite code is the key)
``POST /api/rooms/{code}/join``    take an open seat (returns a ``token``) or watch
``GET  /api/rooms/{code}/log``     the stored move log of the room's current (or ``?game=N``) game
``WS   /ws/{code}``                first send ``{"type": "hello", "token": ...}``; then intents
=================================  ==============================================================
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import ValidationError

from fivedice.errors import FiveDiceError
from fivedice.rules import BUILTINS
from fivedice.web import computer
from fivedice.web.db import RoomStore
from fivedice.web.errors import MessageError, RoomNotFoundError
from fivedice.web.models import CHAT_MAX, MAX_MESSAGE, MAX_SEATS, NAME_MAX, CreateRoom, Hello, JoinRoom, parse_message
from fivedice.web.pubsub import Hub, make_hub
from fivedice.web.rooms import Client, Room, TokenBucket
from fivedice.web.service import RoomService

__all__ = ["MAX_BODY", "create_app"]

STATIC = Path(__file__).with_name("static")
MAX_BODY = 8192
"""The largest HTTP request body accepted, in bytes."""
HELLO_TIMEOUT = 15.0
CSP = (
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
    "connect-src 'self' ws: wss:; frame-ancestors 'none'"
)


def create_app(
    db: str | None = None,
    *,
    pubsub: str | Hub = "auto",
    prefix: str = "web_",
    seed: int | None = None,
    computer_delay: float = 0.6,
    scores: bool = True,
    rate: tuple[float, float] = (10.0, 20.0),
) -> FastAPI:
    """Build the app. ``db`` is a database URL (default: SQLite under the user data directory);
    ``pubsub`` is ``auto``, ``none``, ``postgres``, a ``redis://`` URL or a :class:`Hub`;
    ``seed`` makes the dice repeatable (tests only: play uses a cryptographic generator)."""
    store = RoomStore(db, prefix)
    hub = make_hub(pubsub, store.url, f"{prefix}events") if isinstance(pubsub, str) else pubsub
    service = RoomService(store, hub, seed=seed, computer_delay=computer_delay, scores=scores, scores_url=db, rate=rate)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await service.start()
        try:
            yield
        finally:
            await service.close()

    app = FastAPI(title="fivedice", lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)
    app.state.service = service

    @app.middleware("http")
    async def limits(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        length = request.headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
            return _error(413, f"Request body of {length} bytes is too large; expected at most {MAX_BODY}.")
        response = await call_next(request)
        response.headers["Content-Security-Policy"] = CSP
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "no-referrer"
        return response

    @app.exception_handler(RoomNotFoundError)
    async def not_found(_request: Request, exc: RoomNotFoundError) -> Response:
        return _error(404, str(exc))

    @app.exception_handler(FiveDiceError)
    async def bad_request(_request: Request, exc: FiveDiceError) -> Response:
        return _error(400, str(exc))

    @app.exception_handler(RequestValidationError)
    async def invalid(_request: Request, exc: RequestValidationError) -> Response:
        err = exc.errors()[0] if exc.errors() else {"loc": (), "msg": "invalid"}
        loc = ".".join(str(p) for p in err.get("loc", ()) if p != "body")
        msg = str(err.get("msg", "invalid")).removeprefix("Value error, ")
        where = f"field {loc!r}" if loc else "body"
        return _error(422, f"Request {where} is not valid: {msg[:1].lower()}{msg[1:]}.")

    @app.get("/", include_in_schema=False)
    @app.get("/r/{code}", include_in_schema=False)
    async def index(code: str | None = None) -> FileResponse:
        return FileResponse(STATIC / "index.html", media_type="text/html")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/api/rules")
    async def rules_list() -> dict[str, Any]:
        return {
            "rules": [
                {
                    "name": b.name,
                    "description": b.description,
                    "options": [{"name": o.name, "choices": list(o.choices), "help": o.help} for o in b.options],
                }
                for b in BUILTINS.values()
            ],
            "levels": computer.levels(),
            "limits": {"name": NAME_MAX, "chat": CHAT_MAX, "seats": MAX_SEATS, "message": MAX_MESSAGE},
        }

    @app.post("/api/rooms", status_code=201)
    async def create_room(req: CreateRoom) -> dict[str, Any]:
        return await service.create(req)

    @app.get("/api/rooms/{code}")
    async def room_info(code: str) -> Response:
        room = await service.room(code)
        async with room.lock:
            text = room.snapshot()
        return Response(text, media_type="application/json")

    @app.post("/api/rooms/{code}/join")
    async def join_room(code: str, req: JoinRoom) -> dict[str, Any]:
        return await service.join(code, req)

    @app.get("/api/rooms/{code}/log")
    async def room_log(code: str, game: int | None = None) -> dict[str, Any]:
        return await service.moves(code, game)

    @app.websocket("/ws/{code}")
    async def socket(ws: WebSocket, code: str) -> None:
        await ws.accept()
        try:
            first = await asyncio.wait_for(_receive(ws), HELLO_TIMEOUT)
            if first is None:
                return
            hello = parse_message(first)
            if not isinstance(hello, Hello):
                raise MessageError('The first message must be {"type": "hello", "token": ...}; token null to watch.')
            room, client = await service.connect(code, hello)
        except (FiveDiceError, TimeoutError) as exc:
            text = str(exc) if isinstance(exc, FiveDiceError) else "No hello message arrived in time."
            with contextlib.suppress(Exception):
                await ws.send_text(json.dumps({"type": "error", "message": text}))
                await ws.close(code=4400)
            return
        await _serve(service, ws, room, client)

    return app


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


async def _receive(ws: WebSocket) -> str | None:
    """The next text message, None when the client left; binary messages are refused."""
    message = await ws.receive()
    if message["type"] == "websocket.disconnect":
        return None
    if message.get("text") is not None:
        return str(message["text"])
    raise MessageError("Binary messages are not accepted; send JSON text.")


async def _serve(service: RoomService, ws: WebSocket, room: Room, client: Client) -> None:
    async def writer() -> None:
        while True:
            text = await client.queue.get()
            if text is None:
                await ws.close(code=4408)
                return
            await ws.send_text(text)

    task = asyncio.create_task(writer())
    bucket = TokenBucket(*service.rate)
    try:
        while not task.done():
            try:
                text = await _receive(ws)
                if text is None:
                    break
                if not bucket.take():
                    raise MessageError(f"Too many messages; slow down (at most {service.rate[0]:g} a second).")
                msg = parse_message(text)
            except MessageError as exc:
                client.send(json.dumps({"type": "error", "message": str(exc)}))
                continue
            try:
                await service.handle(room, client, msg)
            except FiveDiceError as exc:
                client.send(json.dumps({"type": "error", "message": str(exc), "id": getattr(msg, "id", None)}))
            except ValidationError as exc:  # pragma: no cover - models validate before this
                client.send(json.dumps({"type": "error", "message": str(exc)}))
    except Exception:  # the socket broke
        pass
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task
        await service.disconnect(room, client)
