"""Errors of the web server; each is a :class:`~fivedice.errors.FiveDiceError` with a one-sentence message."""

from __future__ import annotations

from fivedice.errors import FiveDiceError

__all__ = ["ConflictError", "MessageError", "RoomError", "RoomNotFoundError", "SchemaError"]


class RoomError(FiveDiceError):
    """A request a room cannot grant: wrong seat, wrong turn, full room, game not started, ..."""


class RoomNotFoundError(RoomError):
    """No room has the given invite code."""


class MessageError(RoomError):
    """A malformed, oversized or too frequent message from a client."""


class ConflictError(RoomError):
    """Another server process changed the room at the same moment; the request was not applied."""


class SchemaError(FiveDiceError):
    """The room database has a schema this version of fivedice cannot use."""
