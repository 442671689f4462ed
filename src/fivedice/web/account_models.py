"""The account API's requests and answers as pydantic models (strict: unknown fields and wrong types are
refused in one sentence, as the rest of the API's bodies are).

>>> NewAccount.model_validate({"name": " Ann ", "password": "correct horse"}).name
'Ann'
>>> QuietHours.model_validate({"start": "22:00", "end": "7:30", "zone": "Europe/Rome"}).end
'07:30'
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from fivedice.i18n import _, ngettext
from fivedice.web.models import Name

__all__ = [
    "PASSWORD_MAX",
    "PASSWORD_MIN",
    "BlockRemoved",
    "BlockSet",
    "Blocked",
    "Ceremony",
    "ChangePassword",
    "Claim",
    "ClaimSeats",
    "Claimed",
    "ClaimedSeat",
    "Credential",
    "Declined",
    "DeleteAccount",
    "Deleted",
    "Friend",
    "FriendAdded",
    "FriendRemoved",
    "FriendsList",
    "GameSummary",
    "Games",
    "Invite",
    "InviteOut",
    "InviteSent",
    "Logout",
    "Me",
    "Met",
    "NewAccount",
    "NewPasskey",
    "Notify",
    "NotifySet",
    "PasskeyAnswer",
    "PasskeyOut",
    "PasskeyRemoved",
    "Passkeys",
    "PersonName",
    "Prefs",
    "PushKey",
    "PushKeys",
    "PushMessage",
    "PushSent",
    "PushSubscription",
    "QuietHours",
    "Refusal",
    "Settings",
    "SignIn",
    "SignedOut",
    "Subscribed",
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


class Prefs(BaseModel):
    """An account's preferences as stored (``{prefix}accounts.prefs``, JSON): push on or off, quiet hours
    and the language of its notifications."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    push: bool = False
    quiet: QuietHours | None = None
    lang: str | None = None
    profile_hidden: bool = False
    """The player hid their public profile (and their place on the rating leaderboards)."""

    @property
    def language(self) -> str:
        """The language notifications are worded in (English until the page says another)."""
        return self.lang or "en"


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


# -- answers ----------------------------------------------------------------------------------
class SignedOut(BaseModel):
    """``POST /api/logout``: how many sessions ended."""

    signed_out: int


class Deleted(BaseModel):
    """``DELETE /api/me``: the account deleted and how many of its seats were anonymised."""

    deleted: str
    games: int


class ClaimedSeat(BaseModel):
    """A guest seat now owned by the account."""

    code: str
    seat: int


class Refusal(BaseModel):
    """One item of a list refused, with its one sentence."""

    code: str
    error: str


class Claimed(BaseModel):
    """``POST /api/me/seats``: the seats claimed and those refused."""

    claimed: list[ClaimedSeat]
    refused: list[Refusal]


class NotifySet(BaseModel):
    """``PUT /api/me/games/{code}``."""

    code: str
    notify: bool


class Ceremony(BaseModel):
    """A WebAuthn ceremony: its id and the options for ``PublicKeyCredential.parse...OptionsFromJSON``
    (their shape is the WebAuthn standard's, made by py_webauthn)."""

    ceremony: str
    options: dict[str, Any]


class PasskeyOut(BaseModel):
    """One of the account's passkeys."""

    id: str
    created: float
    used: float | None


class Passkeys(BaseModel):
    """``GET /api/me/passkeys``."""

    passkeys: list[PasskeyOut]


class PasskeyRemoved(BaseModel):
    """``DELETE /api/me/passkeys/{id}``."""

    removed: str


class PushKey(BaseModel):
    """``GET /api/push/key``: the VAPID public key (an uncompressed P-256 point, base64url)."""

    key: str


class Subscribed(BaseModel):
    """``POST`` and ``DELETE /api/me/push``."""

    endpoint: str
    subscribed: bool
    found: bool | None = None


class PushSent(BaseModel):
    """``POST /api/me/push/test``: the devices that took the message."""

    sent: int


class PushMessage(BaseModel):
    """A push message's payload (encrypted for the device; the service worker shows it)."""

    type: Literal["turn", "invite", "test"]
    title: str
    body: str
    url: str
    code: str | None = None


class Friend(BaseModel):
    """A friend, since when."""

    name: str
    since: float


class Met(BaseModel):
    """A player one played with, when last, and whether a friend."""

    name: str
    last: float
    friend: bool


class Blocked(BaseModel):
    """A blocked player."""

    name: str


class FriendsList(BaseModel):
    """``GET /api/me/friends``."""

    friends: list[Friend]
    played_with: list[Met]
    blocked: list[Blocked]


class FriendAdded(BaseModel):
    """``POST /api/me/friends``."""

    friend: str


class FriendRemoved(BaseModel):
    """``DELETE /api/me/friends/{name}``."""

    friend: str
    removed: bool


class BlockSet(BaseModel):
    """``POST /api/me/blocks``."""

    blocked: str


class BlockRemoved(BaseModel):
    """``DELETE /api/me/blocks/{name}``."""

    blocked: str
    removed: bool


class InviteSent(BaseModel):
    """``POST /api/me/invites``: the friend invited and how many of their devices were told."""

    invited: str
    code: str
    notified: int


class Declined(BaseModel):
    """``DELETE /api/me/invites/{code}``."""

    code: str
    declined: bool
