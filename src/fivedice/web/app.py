"""The ASGI app: a JSON HTTP API for rooms, a WebSocket per client for live play, and the browser client.

HTTP (all JSON; errors are ``{"error": "one sentence"}``):

=================================  ==============================================================
``GET  /api/rules``                rule sets with their options, computer levels and limits
``POST /api/rooms``                create a room; returns its ``code``, the creator's ``token``
``GET  /api/rooms/{code}``         the room as its members see it (the invite code is the key)
``POST /api/rooms/{code}/join``    take an open seat (returns a ``token``) or watch
``GET  /api/rooms/{code}/log``     the stored move log of the room's current (or ``?game=N``) game
``WS   /ws/{code}``                first send ``{"type": "hello", "token": ..., "lang": ...}``; then intents
``GET  /api/languages``            the languages (code -> own name) and the one the request asks for
``GET  /i18n/{lang}.json``         a language's catalog for the browser (English text -> translation)
``GET  /api/lobby``                public rooms waiting for players or in play (:mod:`fivedice.web.lobby`)
``POST /api/rooms/{code}/replay``  a read-only replay link for a finished game (:mod:`fivedice.web.replay`)
``GET  /api/replays/{id}``         a replay's frames; ``GET /replay/{id}`` its page; ``GET /sw.js`` the PWA
=================================  ==============================================================

Languages: an HTTP request is answered in its ``?lang=`` language, else the best of its
``Accept-Language``, else English. A WebSocket takes the hello's ``lang`` (else ``?lang=``, else the
handshake's ``Accept-Language``) and may switch at any time with ``{"type": "language", "lang": "it"}``;
its error messages, hints and analysis come in that language. What the whole room sees (the
snapshot, events, notices) stays language-neutral: texts travel as the English message with its
fields (``event_keys``, a notice's ``msg``/``args``) and each browser translates them itself.
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

from fivedice import i18n
from fivedice.errors import FiveDiceError
from fivedice.i18n import _
from fivedice.rules import BUILTINS, describe, get
from fivedice.rules.explain import explain_all
from fivedice.web import computer, lobby, pwa, replay
from fivedice.web.db import RoomStore
from fivedice.web.errors import MessageError, RoomNotFoundError
from fivedice.web.models import (
    CHAT_MAX,
    MAX_MESSAGE,
    MAX_SEATS,
    NAME_MAX,
    CreateRoom,
    Hello,
    JoinRoom,
    SetLanguage,
    parse_message,
)
from fivedice.web.pubsub import Hub, make_hub
from fivedice.web.rooms import Client, Room, TokenBucket
from fivedice.web.service import RoomService

__all__ = ["MAX_BODY", "create_app"]

STATIC = Path(__file__).with_name("static")
MAX_BODY = 8192
"""The largest HTTP request body accepted, in bytes."""
HELLO_TIMEOUT = 15.0
HELLO = '{"type": "hello", "token": ...}'
APP_NAME = "fivedice"
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

    app = FastAPI(title=APP_NAME, lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)
    app.state.service = service

    @app.middleware("http")
    async def limits(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        lang = _request_language(request.query_params.get("lang"), request.headers.get("accept-language"))
        with i18n.language(lang):
            length = request.headers.get("content-length")
            if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
                message = _(
                    "Request body of {length} bytes is too large; expected at most {limit}.",
                    length=length,
                    limit=MAX_BODY,
                )
                return _error(413, message)
            response = await call_next(request)
        response.headers["Content-Language"] = lang
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
        problem = f"{msg[:1].lower()}{msg[1:]}"
        if loc:
            return _error(422, _("Request field {field!r} is not valid: {problem}.", field=loc, problem=problem))
        return _error(422, _("Request body is not valid: {problem}.", problem=problem))

    @app.get("/", include_in_schema=False)
    @app.get("/r/{code}", include_in_schema=False)
    async def index(code: str | None = None) -> FileResponse:
        return FileResponse(STATIC / "index.html", media_type="text/html")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    lobby.add_routes(app, service.extras, service.db)
    replay.add_routes(app, service, replay.ReplayStore(store), STATIC / "replay.html")
    pwa.add_routes(app, STATIC)

    @app.get("/api/rules")
    async def rules_list() -> dict[str, Any]:
        return {
            "rules": [
                {
                    "name": b.name,
                    "description": describe(get(b.name)),
                    "options": [{"name": o.name, "choices": list(o.choices), "help": _(o.help)} for o in b.options],
                    "explained": explain_all(b.name),
                }
                for b in BUILTINS.values()
            ],
            "levels": computer.levels(),
            "limits": {"name": NAME_MAX, "chat": CHAT_MAX, "seats": MAX_SEATS, "message": MAX_MESSAGE},
        }

    @app.get("/api/languages")
    async def languages(request: Request) -> dict[str, Any]:
        return {"languages": i18n.available_languages(), "current": i18n.current_language()}

    @app.get("/i18n/{lang}.json")
    async def catalog(lang: str) -> Response:
        if i18n.resolve(lang) != lang:
            return _error(404, _("Language {code!r} is not available.", code=lang[:20]))
        body = json.dumps(i18n.catalog_json(lang), ensure_ascii=False, separators=(",", ":"))
        return Response(body, media_type="application/json", headers={"Cache-Control": "max-age=300"})

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
        lang = _request_language(ws.query_params.get("lang"), ws.headers.get("accept-language"))
        try:
            with i18n.language(lang):
                first = await asyncio.wait_for(_receive(ws), HELLO_TIMEOUT)
                if first is None:
                    return
                hello = parse_message(first)
                if not isinstance(hello, Hello):
                    raise MessageError(_("The first message must be {example}; token null to watch.", example=HELLO))
            if hello.lang is not None:
                lang = _request_language(hello.lang, None)
            with i18n.language(lang):
                room, client = await service.connect(code, hello)
        except (FiveDiceError, TimeoutError) as exc:
            with i18n.language(lang):
                text = str(exc) if isinstance(exc, FiveDiceError) else _("No hello message arrived in time.")
            with contextlib.suppress(Exception):
                await ws.send_text(json.dumps({"type": "error", "message": text}))
                await ws.close(code=4400)
            return
        await _serve(service, ws, room, client, lang)

    return app


def _request_language(asked: str | None, accept_language: str | None) -> str:
    """The language a request or connection asked for: an available ``lang``, else Accept-Language, else English."""
    found = i18n.resolve(asked[:20]) if asked else None
    return found or i18n.negotiate((accept_language or "")[:200])


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


async def _receive_or_error(ws: WebSocket, client: Client, lang: str) -> str | None:
    """The next text message (None when the client left); a refused message is answered with an error."""
    with i18n.language(lang):
        while True:
            try:
                return await _receive(ws)
            except MessageError as exc:
                client.send(json.dumps({"type": "error", "message": str(exc)}))


async def _receive(ws: WebSocket) -> str | None:
    """The next text message, None when the client left; binary messages are refused."""
    message = await ws.receive()
    if message["type"] == "websocket.disconnect":
        return None
    if message.get("text") is not None:
        return str(message["text"])
    raise MessageError(_("Binary messages are not accepted; send JSON text."))


async def _serve(service: RoomService, ws: WebSocket, room: Room, client: Client, lang: str) -> None:
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
            text = await _receive_or_error(ws, client, lang)
            if text is None:
                break
            with i18n.language(lang):
                try:
                    if not bucket.take():
                        rate = f"{service.rate[0]:g}"
                        raise MessageError(_("Too many messages; slow down (at most {rate} a second).", rate=rate))
                    msg = parse_message(text)
                except MessageError as exc:
                    client.send(json.dumps({"type": "error", "message": str(exc)}))
                    continue
                if isinstance(msg, SetLanguage):
                    found = i18n.resolve(msg.lang)
                    if found is None:
                        error = _("Language {code!r} is not available.", code=msg.lang)
                        client.send(json.dumps({"type": "error", "message": error, "id": msg.id}))
                    else:
                        lang = found
                        client.send(json.dumps({"type": "language", "lang": lang, "id": msg.id}))
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
