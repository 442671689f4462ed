"""Every message a client may send, as pydantic models with hard limits, and their error text.

>>> parse_message('{"type": "roll", "keep": [0, 2], "version": 17}')
RollIntent(type='roll', keep=[0, 2], version=17, seat=None, id=None)
>>> parse_message('{"type": "chat", "text": "   "}')
Traceback (most recent call last):
fivedice.web.errors.MessageError: Message field 'text' is not valid: chat text is empty; expected 1 to 200 characters.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, model_validator

from fivedice.i18n import N_, _, ngettext
from fivedice.web.errors import MessageError
from fivedice.web.names import clean_text
from fivedice.web.timeouts import FORFEIT_AFTER, TIMER_MAX, TIMER_MIN

__all__ = [
    "CHAT_MAX",
    "INTENTS",
    "MAX_MESSAGE",
    "MAX_SEATS",
    "NAME_MAX",
    "Act",
    "Chat",
    "ClientMessage",
    "CreateRoom",
    "Hello",
    "JoinRoom",
    "RollIntent",
    "ScoreIntent",
    "SetLanguage",
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


def _name(value: str) -> str:
    return clean_text(value, N_("name"), NAME_MAX)


def _timer(value: int) -> int:
    if not TIMER_MIN <= value <= TIMER_MAX:
        raise ValueError(
            _(
                "a turn may last from {low} to {high} seconds (seven days), not {timer}",
                low=TIMER_MIN,
                high=TIMER_MAX,
                timer=value,
            )
        )
    return value


def _chat(value: str) -> str:
    return clean_text(value, N_("chat text"), CHAT_MAX)


Name = Annotated[str, Field(max_length=200), AfterValidator(_name)]
ChatText = Annotated[str, Field(max_length=1000), AfterValidator(_chat)]
Level = Annotated[str, Field(min_length=1, max_length=20)]
MessageId = Annotated[int, Field(ge=0, le=2**53)]
SeatNo = Annotated[int, Field(ge=0, le=7)]
"""The seat an intent acts for: needed only on a connection that plays several seats (pass and play)."""
Version = Annotated[int, Field(ge=0, le=2**53)]
"""The room version an intent's sender last saw (every state carries it); a stale one is refused."""


class _Message(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


LanguageCode = Annotated[str, Field(min_length=1, max_length=20)]


class Hello(_Message):
    """The first message on a socket: the seat's secret token (none to watch) and the client's language."""

    type: Literal["hello"]
    token: Annotated[str, Field(max_length=64)] | None = None
    tokens: Annotated[list[Annotated[str, Field(max_length=64)]], Field(max_length=7)] = Field(default_factory=list)
    """The tokens of more seats played on the same device (pass and play: a room made with local seats)."""
    lang: LanguageCode | None = None
    name: Name | None = None
    """A spectator's name, listed in the room (players are named by their seat)."""
    deltas: bool = False
    """After the first whole ``state``, send each change as a ``delta`` (:mod:`fivedice.web.snapshot`)."""


class SetLanguage(_Message):
    """Switch this connection's language (its error messages, hints and analysis)."""

    type: Literal["language"]
    lang: LanguageCode
    id: MessageId | None = None


class RollIntent(_Message):
    """Keep the dice at positions ``keep`` (0-based) and roll the others (or roll off)."""

    type: Literal["roll"]
    keep: Annotated[list[Annotated[int, Field(ge=0, le=9)]], Field(max_length=10)] = Field(default_factory=list)
    version: Version
    seat: SeatNo | None = None
    id: MessageId | None = None


class ScoreIntent(_Message):
    """Fill ``box`` on ``card`` with the current dice."""

    type: Literal["score"]
    box: Annotated[str, Field(min_length=1, max_length=40)]
    card: Annotated[int, Field(ge=0, le=9)] = 0
    version: Version
    seat: SeatNo | None = None
    id: MessageId | None = None


class Act(_Message):
    """An intent without arguments: start, rematch, undo or redo (for the room version its sender saw)."""

    type: Literal["start", "rematch", "undo", "redo"]
    version: Version
    seat: SeatNo | None = None
    id: MessageId | None = None


class Simple(_Message):
    """A request that changes nothing: hint, analysis, a challenge's result or ping."""

    type: Literal["hint", "analysis", "challenge", "ping"]
    seat: SeatNo | None = None
    id: MessageId | None = None
    again: bool = False
    """A hint asked again for the same dice (its chances, once prepared): counted once."""


class Chat(_Message):
    """A chat line to everyone in the room."""

    type: Literal["chat"]
    text: ChatText
    seat: SeatNo | None = None
    id: MessageId | None = None


AnyMessage = Hello | SetLanguage | RollIntent | ScoreIntent | Act | Simple | Chat
INTENTS = (RollIntent, ScoreIntent, Act)
"""The messages that change a room; each carries the ``version`` its sender last saw."""
ClientMessage = Annotated[AnyMessage, Field(discriminator="type")]
_ADAPTER: TypeAdapter[AnyMessage] = TypeAdapter(ClientMessage)


def describe_error(exc: ValidationError, what: str = N_("Message")) -> str:
    """One sentence for the first problem pydantic found."""
    err = exc.errors(include_url=False)[0]
    loc = ".".join(str(p) for p in err["loc"] if not isinstance(p, str) or p not in _TAGS)
    msg = str(err["msg"]).removeprefix("Value error, ")
    msg = msg[0].lower() + msg[1:] if msg else msg
    if not loc:
        return _("{what} is not valid: {problem}.", what=_(what), problem=msg)
    return _("{what} field {field!r} is not valid: {problem}.", what=_(what), field=loc, problem=msg)


_ROLL = '{"type": "roll"}'
_TAGS = {"hello", "language", "roll", "score", "start", "rematch", "undo", "redo", "hint", "analysis", "challenge"}
_TAGS |= {"ping", "chat"}


def parse_message(text: str | bytes) -> AnyMessage:
    """Validate one WebSocket message; raises :class:`MessageError` with a clear sentence."""
    if len(text) > MAX_MESSAGE:
        raise MessageError(
            ngettext(
                "Message of {length} character is too long; expected at most {limit}.",
                "Message of {length} characters is too long; expected at most {limit}.",
                len(text),
                length=len(text),
                limit=MAX_MESSAGE,
            )
        )
    try:
        data: Any = json.loads(text)
    except RecursionError:
        raise MessageError(_("Message nests too deeply; expected an object like {example}.", example=_ROLL)) from None
    except ValueError:  # not JSON, not UTF-8, or a number of thousands of digits
        raise MessageError(_("Message is not valid JSON; expected an object like {example}.", example=_ROLL)) from None
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        raise MessageError(
            _("Message is not a JSON object with a string 'type'; expected e.g. {example}.", example=_ROLL)
        )
    try:
        return _ADAPTER.validate_python(data)
    except ValidationError as exc:
        if exc.errors()[0]["type"] == "union_tag_invalid":
            raise MessageError(_("Message type {kind!r} is unknown.", kind=data["type"][:30])) from None
        raise MessageError(describe_error(exc)) from None


class CreateRoom(BaseModel):
    """A new room: rule set and options, the creator's name, seats, hints, undo and turn timer."""

    model_config = ConfigDict(extra="forbid", strict=True)

    rules: Annotated[str, Field(min_length=1, max_length=40)] = "yahtzee"
    options: Annotated[
        dict[Annotated[str, Field(max_length=30)], Annotated[str, Field(max_length=30)]], Field(max_length=10)
    ] = Field(default_factory=dict)
    name: Name
    humans: Annotated[int, Field(ge=1, le=MAX_SEATS)] = 2
    local: Annotated[list[Name], Field(max_length=MAX_SEATS - 1)] = Field(default_factory=list)
    """The other people playing on the creator's device (pass and play): they take seats 2, 3, ... and the
    creator gets all their tokens; the remaining ``humans`` seats stay open for invites."""
    computers: Annotated[list[Level], Field(max_length=MAX_SEATS)] = Field(default_factory=list)
    hints: bool = True
    undo: bool = False
    timer: Annotated[int, AfterValidator(_timer)] | None = None
    """Seconds each turn may take (up to seven days), None for no limit."""
    away: Literal["wait", "computer", "forfeit"] = "wait"
    """When a turn's time runs out: wait for the player, the computer plays the turn, or the computer plays
    it and the seat forfeits after ``forfeit_after`` missed turns (:mod:`fivedice.web.timeouts`)."""
    forfeit_after: Annotated[int, Field(ge=FORFEIT_AFTER[0], le=FORFEIT_AFTER[1])] = 3
    public: bool = False
    """List the room in the lobby, for anyone to join or watch."""
    first: Literal["rolloff", "host"] = "rolloff"
    """Who starts: the winner of the table's roll-off, or the host (seat 1) without one."""
    challenge: Annotated[str, Field(min_length=1, max_length=80)] | None = None
    """A challenge code (``daily`` for today's): the dice come from the challenge's tape, so every
    player of the challenge meets the same dice, in this room or any other."""

    @model_validator(mode="after")
    def _seats(self) -> CreateRoom:
        if len(self.local) >= self.humans:
            raise ValueError(
                _(
                    "{local} players on this device and the host make more than the {humans} people playing",
                    local=len(self.local),
                    humans=self.humans,
                )
            )
        if self.humans + len(self.computers) > MAX_SEATS:
            raise ValueError(
                _(
                    "{humans} players and {computers} computers make too many seats; expected at most {limit}",
                    humans=self.humans,
                    computers=len(self.computers),
                    limit=MAX_SEATS,
                )
            )
        return self


class JoinRoom(BaseModel):
    """Take an open seat (or watch, with ``spectator``)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    name: Name | None = None
    spectator: bool = False
