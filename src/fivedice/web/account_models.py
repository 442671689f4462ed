"""The account API's requests and answers as pydantic models (strict: unknown fields and wrong types are
refused in one sentence, as the rest of the API's bodies are).

>>> NewAccount.model_validate({"name": " Ann ", "password": "correct horse"}).name
'Ann'
>>> QuietHours.model_validate({"start": "22:00", "end": "7:30", "zone": "Europe/Rome"}).end
'07:30'
"""

from __future__ import annotations

import re
from typing import Annotated, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from fivedice.i18n import _, ngettext
from fivedice.web.models import Name

__all__ = [
    "PASSWORD_MAX",
    "PASSWORD_MIN",
    "ChangePassword",
    "Claim",
    "ClaimSeats",
    "Credential",
    "DeleteAccount",
    "GameSummary",
    "Games",
    "Invite",
    "InviteOut",
    "Logout",
    "Me",
    "NewAccount",
    "NewPasskey",
    "Notify",
    "PasskeyAnswer",
    "PersonName",
    "PushKeys",
    "PushSubscription",
    "QuietHours",
    "Settings",
    "SignIn",
]

PASSWORD_MIN = 8
PASSWORD_MAX = 256
"""Passwords: at least 8 characters (NIST SP 800-63B), at most 256; any characters, no composition rules."""
_TIME = re.compile(r"^([01]?\d|2[0-3]):([0-5]\d)$")


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


def _password(value: str) -> str:
    if len(value) < PASSWORD_MIN:
        raise ValueError(
            ngettext(
                "a password needs at least {count} character; this one has {length}",
                "a password needs at least {count} characters; this one has {length}",
                PASSWORD_MIN,
                count=PASSWORD_MIN,
                length=len(value),
            )
        )
    if not value.strip():
        raise ValueError(_("a password cannot be only spaces"))
    return value


Password = Annotated[str, Field(max_length=PASSWORD_MAX), AfterValidator(_password)]
AnyPassword = Annotated[str, Field(max_length=PASSWORD_MAX)]
"""A password given to sign in (checked against the stored hash, not against today's rules)."""
Code = Annotated[str, Field(min_length=1, max_length=20)]


class NewAccount(_Body):
    """``POST /api/accounts``: a name (the player-name rules) and a password."""

    name: Name
    password: Password


class SignIn(_Body):
    """``POST /api/login``."""

    name: Annotated[str, Field(min_length=1, max_length=200)]
    password: AnyPassword


class Logout(_Body):
    """``POST /api/logout``: ``everywhere`` ends every session of the account."""

    everywhere: bool = False


class ChangePassword(_Body):
    """``PUT /api/me/password``: the current password (none for an account without one) and the new."""

    current: AnyPassword | None = None
    new: Password


class DeleteAccount(_Body):
    """``DELETE /api/me``: the password, unless the session signed in during the last ten minutes."""

    password: AnyPassword | None = None


class Claim(_Body):
    """A guest seat to claim: its room and the token the guest's browser holds."""

    code: Code
    token: Annotated[str, Field(min_length=1, max_length=64)]


class ClaimSeats(_Body):
    """``POST /api/me/seats``: the guest seats of this browser to put into the account."""

    seats: Annotated[list[Claim], Field(max_length=100)]


def _zone(value: str) -> str:
    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(_("time zone {zone!r} is unknown; expected one like 'Europe/Rome'", zone=value[:40])) from None
    return value


def _clock(value: str) -> str:
    found = _TIME.match(value)
    if found is None:
        raise ValueError(_("time {time!r} is not valid; expected hours and minutes like '22:30'", time=value[:10]))
    return f"{int(found[1]):02d}:{found[2]}"


Clock = Annotated[str, Field(max_length=10), AfterValidator(_clock)]


class QuietHours(_Body):
    """No push notification from ``start`` to ``end`` (local time in ``zone``; may run past midnight)."""

    start: Clock
    end: Clock
    zone: Annotated[str, Field(min_length=1, max_length=60), AfterValidator(_zone)]


class Settings(_Body):
    """``PUT /api/me/settings``: push notifications on or off, quiet hours (null: none), language."""

    push: bool | None = None
    quiet: QuietHours | None = None
    clear_quiet: bool = False
    lang: Annotated[str, Field(min_length=1, max_length=20)] | None = None


class Notify(_Body):
    """``PUT /api/me/games/{code}``: notify this game's turns or not."""

    notify: bool


class PushKeys(_Body):
    """A push subscription's keys (RFC 8291): the browser's P-256 public key and auth secret, base64url."""

    p256dh: Annotated[str, Field(min_length=80, max_length=100, pattern=r"^[A-Za-z0-9_-]+=*$")]
    auth: Annotated[str, Field(min_length=16, max_length=30, pattern=r"^[A-Za-z0-9_-]+=*$")]


class PushSubscription(_Body):
    """``POST /api/me/push``: a browser's ``PushSubscription.toJSON()``."""

    endpoint: Annotated[str, Field(min_length=10, max_length=1000)]
    keys: PushKeys
    expirationTime: float | None = None  # the browser's own field name


class PersonName(_Body):
    """A player, by account name (friends, blocks)."""

    name: Annotated[str, Field(min_length=1, max_length=200)]


class Invite(_Body):
    """``POST /api/me/invites``: invite a friend to a room one plays in."""

    name: Annotated[str, Field(min_length=1, max_length=200)]
    code: Code


class Credential(BaseModel):
    """A WebAuthn credential as the browser's ``PublicKeyCredential.toJSON()`` gives it (checked by py_webauthn)."""

    model_config = ConfigDict(extra="allow")

    id: Annotated[str, Field(min_length=1, max_length=400)]
    type: Literal["public-key"]


class NewPasskey(_Body):
    """``POST /api/passkeys/register/options``: the new account's name (none when signed in: a passkey
    added to the account)."""

    name: Name | None = None


class PasskeyAnswer(_Body):
    """``POST /api/passkeys/register`` and ``/api/passkeys/login``: the ceremony and the browser's credential."""

    ceremony: Annotated[str, Field(min_length=1, max_length=64)]
    credential: Credential


class Me(BaseModel):
    """``GET /api/me``: the signed-in account."""

    name: str
    password: bool
    passkeys: int
    push: bool
    quiet: QuietHours | None
    lang: str | None


class GameSummary(BaseModel):
    """One game of ``GET /api/me/games``."""

    code: str
    link: str
    rules: str
    status: Literal["lobby", "playing", "over"]
    your_turn: bool
    seat: int
    turn: str | None
    """The name of the seat to play (None outside play)."""
    opponents: list[str]
    round: int | None
    rounds: int | None
    last_move_at: float
    deadline: float | None
    notify: bool
    open_seats: int


class InviteOut(BaseModel):
    """An invitation waiting in ``GET /api/me/games``."""

    code: str
    link: str
    sender: str = Field(serialization_alias="from")
    rules: str
    created: float


class Games(BaseModel):
    """``GET /api/me/games``: your turn first, then the others by their last move."""

    games: list[GameSummary]
    invites: list[InviteOut]
    your_turns: int
