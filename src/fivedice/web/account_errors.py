"""Refusals of the account API: each a one-sentence :class:`~fivedice.errors.FiveDiceError` with the HTTP
status it is answered with (``{"error": "..."}``)."""

from __future__ import annotations

from fivedice.web.errors import RoomError

__all__ = ["AccountError", "BusyError", "ConflictingError", "ForbiddenError", "NameTakenError", "SignInError"]


class AccountError(RoomError):
    """A refused account request; ``status`` is its HTTP status (400 unless said otherwise)."""

    status = 400


class SignInError(AccountError):
    """Wrong name or password, unknown passkey, or not signed in."""

    status = 401


class ForbiddenError(AccountError):
    """A request the asker may not make (a cross-site request, a blocked player)."""

    status = 403


class ConflictingError(AccountError):
    """A name already taken, a seat owned by another account."""

    status = 409


class NameTakenError(ConflictingError):
    """Another account has this name (or one that looks like it)."""


class BusyError(AccountError):
    """Too many sign-ins waiting for their password check."""

    status = 503
