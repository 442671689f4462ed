"""Every message a client may send, as pydantic models with hard limits, and their error text.

>>> parse_message('{"type": "roll", "keep": [0, 2]}')
RollIntent(type='roll', keep=[0, 2], id=None)
>>> parse_message('{"type": "chat", "text": "   "}')
Traceback (most recent call last):
fivedice.web.errors.MessageError: Message field 'text' is not valid: chat text is empty; expected 1 to 200 characters.
"""

from __future__ import annotations

import json
import unicodedata
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, model_validator

from fivedice.web.errors import MessageError

__all__ = [
    "CHAT_MAX",
    "MAX_MESSAGE",
    "MAX_SEATS",
    "NAME_MAX",
    "Chat",
    "ClientMessage",
    "CreateRoom",
    "Hello",
    "JoinRoom",
    "RollIntent",
    "ScoreIntent",
    "Simple",
    "clean_text",
    "describe_error",
    "parse_message",
]

MAX_MESSAGE = 2048
"""The longest WebSocket message a client may send, in characters."""
NAME_MAX = 24
"""The longest player name."""
CHAT_MAX = 200
"""The longest chat line."""
MAX_SEATS = 8
"""Seats in one room, human and computer together."""


def clean_text(value: str, what: str, limit: int) -> str:
    """``value`` with runs of white space made single spaces; raises on empty, too long or control text.

    >>> clean_text("  Ann   Lee ", "name", 24)
    'Ann Lee'
    """
    text = " ".join(value.split())
    if not text:
        raise ValueError(f"{what} is empty; expected 1 to {limit} characters")
    if len(text) > limit:
        raise ValueError(f"{what} {text[:30]!r} is {len(text)} characters long; expected at most {limit}")
    if any(unicodedata.category(c) in ("Cc", "Cf", "Cs", "Co", "Cn") for c in text):
        raise ValueError(f"{what} {text[:30]!r} contains control or unassigned characters")
    return text


def _name(value: str) -> str:
    return clean_text(value, "name", NAME_MAX)


def _chat(value: str) -> str:
    return clean_text(value, "chat text", CHAT_MAX)


Name = Annotated[str, Field(max_length=200), AfterValidator(_name)]
ChatText = Annotated[str, Field(max_length=1000), AfterValidator(_chat)]
Level = Annotated[str, Field(min_length=1, max_length=20)]
MessageId = Annotated[int, Field(ge=0, le=2**53)]


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class Hello(_Message):
    """The first message on a socket: the seat's secret token, or none to watch."""

    type: Literal["hello"]
    token: Annotated[str, Field(max_length=64)] | None = None


class RollIntent(_Message):
    """Keep the dice at positions ``keep`` (0-based) and roll the others (or roll off)."""

    type: Literal["roll"]
    keep: Annotated[list[Annotated[int, Field(ge=0, le=9)]], Field(max_length=10)] = Field(default_factory=list)
    id: MessageId | None = None


class ScoreIntent(_Message):
    """Fill ``box`` on ``card`` with the current dice."""

    type: Literal["score"]
    box: Annotated[str, Field(min_length=1, max_length=40)]
    card: Annotated[int, Field(ge=0, le=9)] = 0
    id: MessageId | None = None


class Simple(_Message):
    """A request without arguments: start, rematch, undo, hint, analysis or ping."""

    type: Literal["start", "rematch", "undo", "hint", "analysis", "ping"]
    id: MessageId | None = None


class Chat(_Message):
    """A chat line to everyone in the room."""

    type: Literal["chat"]
    text: ChatText
    id: MessageId | None = None


ClientMessage = Annotated[Hello | RollIntent | ScoreIntent | Simple | Chat, Field(discriminator="type")]
_ADAPTER: TypeAdapter[Hello | RollIntent | ScoreIntent | Simple | Chat] = TypeAdapter(ClientMessage)


def describe_error(exc: ValidationError, what: str = "Message") -> str:
    """One sentence for the first problem pydantic found."""
    err = exc.errors(include_url=False)[0]
    loc = ".".join(str(p) for p in err["loc"] if not isinstance(p, str) or p not in _TAGS)
    msg = str(err["msg"]).removeprefix("Value error, ")
    msg = msg[0].lower() + msg[1:] if msg else msg
    if not loc:
        return f"{what} is not valid: {msg}."
    return f"{what} field {loc!r} is not valid: {msg}."


_TAGS = {"hello", "roll", "score", "start", "rematch", "undo", "hint", "analysis", "ping", "chat"}


def parse_message(text: str | bytes) -> Hello | RollIntent | ScoreIntent | Simple | Chat:
    """Validate one WebSocket message; raises :class:`MessageError` with a clear sentence."""
    if len(text) > MAX_MESSAGE:
        raise MessageError(f"Message of {len(text)} characters is too long; expected at most {MAX_MESSAGE}.")
    try:
        data: Any = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise MessageError('Message is not valid JSON; expected an object like {"type": "roll"}.') from None
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        raise MessageError('Message is not a JSON object with a string \'type\'; expected e.g. {"type": "roll"}.')
    try:
        return _ADAPTER.validate_python(data)
    except ValidationError as exc:
        if exc.errors()[0]["type"] == "union_tag_invalid":
            raise MessageError(f"Message type {data['type'][:30]!r} is unknown.") from None
        raise MessageError(describe_error(exc)) from None


class CreateRoom(BaseModel):
    """A new room: rule set and options, the creator's name, seats, hints, undo and turn timer."""

    model_config = ConfigDict(extra="forbid")

    rules: Annotated[str, Field(min_length=1, max_length=40)] = "yahtzee"
    options: Annotated[
        dict[Annotated[str, Field(max_length=30)], Annotated[str, Field(max_length=30)]], Field(max_length=10)
    ] = Field(default_factory=dict)
    name: Name
    humans: Annotated[int, Field(ge=1, le=MAX_SEATS)] = 2
    computers: Annotated[list[Level], Field(max_length=MAX_SEATS)] = Field(default_factory=list)
    hints: bool = True
    undo: bool = False
    timer: Annotated[int, Field(ge=5, le=3600)] | None = None
    away: Literal["wait", "computer"] = "wait"

    @model_validator(mode="after")
    def _seats(self) -> CreateRoom:
        if self.humans + len(self.computers) > MAX_SEATS:
            raise ValueError(
                f"{self.humans} players and {len(self.computers)} computers make too many seats; "
                f"expected at most {MAX_SEATS}"
            )
        return self


class JoinRoom(BaseModel):
    """Take an open seat (or watch, with ``spectator``)."""

    model_config = ConfigDict(extra="forbid")

    name: Name | None = None
    spectator: bool = False
