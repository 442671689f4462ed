"""Running the app under uvicorn with connection limits: caps on open connections and a header timeout.

uvicorn's own HTTP protocol (h11) is extended so that a connection past ``connections`` (or past
``address_connections`` from one client address) is answered at once with a JSON 503 and closed,
and a connection that has not sent a complete request head within ``header_timeout`` seconds (a
slow-header client, or an idle keep-alive one) gets a JSON 408 and is closed. Idle keep-alive
connections close after ``keep_alive`` seconds; WebSocket frames are at most 64 KiB.
"""

from __future__ import annotations

import asyncio
import errno
import json
import socket
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from fivedice.errors import FiveDiceError
from fivedice.i18n import _
from fivedice.web.limits import Limits

__all__ = ["ListenError", "guarded_protocol", "listen", "run"]

WS_MAX_SIZE = 65536


def _raw_response(status: int, reason: str, message: str) -> bytes:
    body = json.dumps({"error": message}).encode()
    head = (
        f"HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\ncontent-length: {len(body)}\r\n"
        "connection: close\r\nretry-after: 5\r\n\r\n"
    )
    return head.encode() + body


def guarded_protocol(limits: Limits, proxied: bool = False) -> type[H11Protocol]:
    """uvicorn's h11 protocol with the connection caps (all, and per client address unless ``proxied``: behind
    a reverse proxy every connection comes from it) and the header timeout of ``limits``."""

    class GuardedH11Protocol(H11Protocol):
        """One HTTP connection, refused past the cap and closed when its request head is too slow."""

        head_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            if len(self.connections) > limits.connections:
                message = _(
                    "The server has {count} open connections, its limit; try again in a moment.",
                    count=limits.connections,
                )
                self._refuse(503, "Service Unavailable", message)
                return
            address = self.client[0] if self.client else None
            if not proxied and address is not None and self._from(address) > limits.address_connections:
                message = _(
                    "There are {count} open connections from {address}, its limit; close some and try again.",
                    count=limits.address_connections,
                    address=address,
                )
                self._refuse(503, "Service Unavailable", message)
                return
            self._arm()

        def _from(self, address: str) -> int:
            """How many open connections (HTTP or upgraded to WebSockets) come from ``address``."""
            return sum(1 for c in self.connections if (getattr(c, "client", None) or ("",))[0] == address)

        def _arm(self) -> None:
            if self.head_timer is not None:
                self.head_timer.cancel()
            self.head_timer = self.loop.call_later(limits.header_timeout, self._head_timeout)

        def _refuse(self, status: int, reason: str, message: str) -> None:
            if not self.transport.is_closing():
                self.transport.write(_raw_response(status, reason, message))
                self.transport.close()

        def _head_timeout(self) -> None:
            self.head_timer = None
            if self.transport.is_closing() or self.transport.get_protocol() is not self:
                return  # closed, or upgraded to a WebSocket
            waiting = self.cycle is None or self.cycle.response_complete
            if waiting and self.conn.their_state is h11.IDLE:
                message = _(
                    "The request head did not arrive within {seconds} s; send it at once.",
                    seconds=format(limits.header_timeout, "g"),
                )
                self._refuse(408, "Request Timeout", message)

        def send_400_response(self, msg: str) -> None:
            """A request h11 cannot parse (a bad request line or header): a JSON 400, then the connection closes."""
            body = json.dumps(
                {"error": _("The request is not valid HTTP/1.1; send a well-formed request line and headers.")}
            ).encode()
            headers = [(b"content-type", b"application/json"), (b"connection", b"close")]
            for event in (h11.Response(status_code=400, headers=headers, reason=b"Bad Request"), h11.Data(data=body)):
                self.transport.write(self.conn.send(event) or b"")
            self.transport.write(self.conn.send(h11.EndOfMessage()) or b"")
            self.transport.close()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm()  # the next request head has the same time bound

        def connection_lost(self, exc: Exception | None) -> None:
            if self.head_timer is not None:
                self.head_timer.cancel()
                self.head_timer = None
            super().connection_lost(exc)

    return GuardedH11Protocol


class ListenError(FiveDiceError):
    """The server cannot listen on the address and port it was given."""


def listen(host: str, port: int) -> socket.socket:
    """A TCP socket bound to ``host`` and ``port`` (0: any free port), or :class:`ListenError` in one sentence
    (a port out of range, an address that is not this machine's, a port in use or reserved)."""
    if not 0 <= port <= 65535:
        raise ListenError(_("Port {port} is not valid; expected a number from 0 to 65535.", port=port))
    try:
        family, kind, proto, _name, address = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
        )[0]
    except (socket.gaierror, UnicodeError) as exc:
        raise ListenError(
            _(
                "Address {host!r} cannot be listened on ({reason}); expected an address of this machine, "
                "like 127.0.0.1 or 0.0.0.0.",
                host=host,
                reason=getattr(exc, "strerror", None) or exc,
            )
        ) from None
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            text = _(
                "Port {port} on {host} is already in use by another program; stop it or choose another --port.",
                port=port,
                host=host,
            )
        elif exc.errno == errno.EACCES:
            text = _(
                "Port {port} on {host} needs more privileges than this user has; choose a port above 1023.",
                port=port,
                host=host,
            )
        else:
            text = _(
                "Cannot listen on {host} port {port} ({reason}); expected an address of this machine and a free port.",
                host=host,
                port=port,
                reason=exc.strerror or exc,
            )
        raise ListenError(text) from None
    sock.set_inheritable(True)
    return sock


def run(app: Any, sock: socket.socket, limits: Limits, *, log_level: str, trusted: str | None = None) -> None:
    """Serve ``app`` on the bound socket ``sock`` (see :func:`listen`) until interrupted. ``trusted``: addresses
    of reverse proxies whose ``X-Forwarded-For`` names the client (none by default: the peer's address is the
    client's)."""
    import uvicorn

    host, port = sock.getsockname()[:2]
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_level=log_level,
        http=guarded_protocol(limits, proxied=trusted is not None),
        ws_max_size=WS_MAX_SIZE,
        ws_ping_interval=20,
        # no permessage-deflate: a room's messages are deltas of about half a kilobyte, and compressing each one
        # for each connection (and keeping a compressor per connection, some 20 kB) cost more than it saved
        ws_per_message_deflate=False,
        timeout_keep_alive=limits.keep_alive,
        proxy_headers=trusted is not None,
        forwarded_allow_ips=trusted,
    )
    uvicorn.Server(config).run(sockets=[sock])
