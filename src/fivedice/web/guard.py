"""The HTTP guard: an ASGI middleware in front of every HTTP request.

It picks the request's language, adds the security headers to every response (errors
included), limits the requests of each client address, reads the request body itself up
to ``max_body`` bytes whatever its encoding (``Content-Length`` or chunked; past the limit the
answer is 413 and the connection is closed, so nothing more is read or kept) within
``body_timeout`` seconds, and turns an unexpected failure into a JSON 500. Every refusal is
``{"error": "one sentence"}``.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from fivedice import i18n
from fivedice.i18n import _, ngettext
from fivedice.web.limits import KeyedBuckets, Limits

__all__ = ["CSP", "HSTS", "PERMISSIONS", "Guard", "request_language"]

log = logging.getLogger("fivedice.web")

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

CSP = (
    "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
    "connect-src 'self' ws: wss:; frame-ancestors 'none'"
)
PERMISSIONS = (
    "camera=(), microphone=(), geolocation=(), payment=(), usb=(), serial=(), bluetooth=(), midi=(), "
    "display-capture=(), interest-cohort=()"
)
"""Browser features no page of the site uses, turned off (a script injected anyway gets none of them)."""
HSTS = (b"strict-transport-security", b"max-age=31536000")
"""Sent on answers that came over https (directly, or through a trusted proxy's ``X-Forwarded-Proto``)."""
SECURITY = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"permissions-policy", PERMISSIONS.encode()),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-opener-policy", b"same-origin"),
]


def request_language(asked: str | None, accept_language: str | None) -> str:
    """The language a request or connection asked for: an available ``lang``, else Accept-Language, else English."""
    found = i18n.resolve(asked[:20]) if asked else None
    return found or i18n.negotiate((accept_language or "")[:200])


def client_address(scope: Scope) -> str:
    """The client's address (behind a trusted proxy, uvicorn has already put the forwarded one here)."""
    client = scope.get("client")
    return str(client[0]) if client else "-"


class Guard:
    """The ASGI middleware described in the module's docstring."""

    def __init__(self, app: ASGIApp, limits: Limits) -> None:
        self.app = app
        self.limits = limits
        self.requests = KeyedBuckets(limits.request_rate, limits.request_burst)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope.get("headers", [])}
        query = dict(_query(scope.get("query_string", b"")))
        lang = request_language(query.get("lang"), headers.get("accept-language"))
        started = False
        security = [*SECURITY, HSTS] if scope.get("scheme") == "https" else SECURITY

        async def send_with_headers(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
                message["headers"] = [*message.get("headers", []), (b"content-language", lang.encode()), *security]
            await send(message)

        with i18n.language(lang):
            refusal = await self._refusal(scope, headers)
            if refusal is None:
                body, refusal = await self._read_body(receive, headers)
            if refusal is not None:
                status, message, extra = refusal
                await _send_error(send_with_headers, status, message, extra)
                return
            replayed = False

            async def replay() -> Message:
                nonlocal replayed
                if not replayed:
                    replayed = True
                    return {"type": "http.request", "body": body, "more_body": False}
                return await receive()

            try:
                await self.app(scope, replay, send_with_headers)
            except Exception:
                log.exception("request %s %s failed", scope.get("method"), scope.get("path"))
                if started:
                    raise
                await _send_error(send_with_headers, 500, _("The server failed on this request; the error was logged."))

    async def _refusal(self, scope: Scope, headers: dict[str, str]) -> tuple[int, str, dict[str, str]] | None:
        address = client_address(scope)
        bucket = self.requests.bucket(address)
        if not bucket.take():
            wait = max(1, round(bucket.wait()))
            text = _("Too many requests from {address}; wait {seconds} s and try again.", address=address, seconds=wait)
            return 429, text, {"retry-after": str(wait)}
        length = headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > self.limits.max_body):
            return 413, self._too_large(length), {"connection": "close"}
        return None

    def _too_large(self, length: str) -> str:
        return ngettext(
            "Request body of {length} byte is too large; expected at most {limit}.",
            "Request body of {length} bytes is too large; expected at most {limit}.",
            int(length) if length.isdigit() else 0,
            length=length[:20],
            limit=self.limits.max_body,
        )

    async def _read_body(
        self, receive: Receive, headers: dict[str, str]
    ) -> tuple[bytes, tuple[int, str, dict[str, str]] | None]:
        """The whole body (at most ``max_body`` bytes), or a refusal: too large, too slow, or the client left."""
        limit, chunks, size = self.limits.max_body, [], 0
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.limits.body_timeout
        while True:
            try:
                message = await asyncio.wait_for(receive(), max(0.0, deadline - loop.time()))
            except TimeoutError:
                text = _(
                    "The request body did not arrive within {seconds} s; send it at once.",
                    seconds=format(self.limits.body_timeout, "g"),
                )
                return b"", (408, text, {"connection": "close"})
            if message["type"] == "http.disconnect":
                return b"", (400, _("The client left before sending the whole request."), {"connection": "close"})
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > limit:
                return b"", (413, self._too_large(f"{size}+"), {"connection": "close"})
            chunks.append(chunk)
            if not message.get("more_body", False):
                return b"".join(chunks), None


def _query(raw: bytes) -> list[tuple[str, str]]:
    from urllib.parse import parse_qsl

    return parse_qsl(raw.decode("latin-1"), keep_blank_values=True)[:50]


async def _send_error(send: Send, status: int, message: str, extra: dict[str, str] | None = None) -> None:
    body = json.dumps({"error": message}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    headers += [(k.encode(), v.encode()) for k, v in (extra or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
