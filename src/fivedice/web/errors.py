"""Errors of the web server; each is a :class:`~fivedice.errors.FiveDiceError` with a one-sentence message."""

from __future__ import annotations

from fivedice.errors import FiveDiceError
from fivedice.i18n import _

__all__ = [
    "ConflictError",
    "LimitError",
    "MessageError",
    "PubSubError",
    "RoomError",
    "RoomNotFoundError",
    "SchemaError",
    "StaleIntentError",
    "StoreBusyError",
    "StoreError",
    "StoreReadOnlyError",
    "room_not_found",
]


class RoomError(FiveDiceError):
    """A request a room cannot grant: wrong seat, wrong turn, full room, game not started, ..."""


class RoomNotFoundError(RoomError):
    """No room has the given invite code."""


def room_not_found(code: str) -> RoomNotFoundError:
    """The error for an invite code that no stored room has (wherever the room is looked up)."""
    return RoomNotFoundError(_("Room {code!r} does not exist; check the invite code.", code=code))


class MessageError(RoomError):
    """A malformed, oversized or too frequent message from a client."""


class ConflictError(RoomError):
    """Another server process changed the room at the same moment; the request was not applied."""


class StaleIntentError(RoomError):
    """An intent sent for a room version that is no longer the current one (a double click, a replay)."""


class LimitError(RoomError):
    """A client went over a rate or size limit; ``retry_after`` says when to try again (seconds)."""

    def __init__(self, message: str, retry_after: float = 1.0) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class StoreError(RoomError):
    """The database could not serve the request (unreachable, failing); nothing was changed."""


class StoreBusyError(StoreError):
    """The database stayed locked (or too slow) past the server's time bound; nothing was changed."""


class StoreReadOnlyError(StoreError):
    """The database refuses writes (a read-only file or transaction); nothing was changed."""


class PubSubError(FiveDiceError):
    """The fan-out channel between server processes is unreachable or disagrees with the database's."""


class SchemaError(FiveDiceError):
    """The room database has a schema this version of fivedice cannot use."""
