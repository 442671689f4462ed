"""Every message the server sends on a room's WebSocket, as pydantic models: the contract of the page.

The room snapshot (:class:`RoomSnapshot`, sent in a :class:`StateMessage` after every change) is built
through these models (:meth:`fivedice.web.rooms.Room.snapshot`), and carries the current ``turn`` id that
the page keys its kept dice by. :func:`schema` is their JSON Schema (``python -m fivedice.web.messages``
prints it); the tests validate recorded frames against it and check that every field the page reads of
a room is in it.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from fivedice.web.db import RoomStatus

__all__ = [
    "Ack",
    "AckData",
    "BoxInfo",
    "CardData",
    "DeltaMessage",
    "ErrorMessage",
    "EventKey",
    "EventsDelta",
    "GameData",
    "NoticeMessage",
    "OptionData",
    "Pong",
    "PresenceMessage",
    "RoomSnapshot",
    "RulesInfo",
    "SeatInfo",
    "ServerMessage",
    "StandingData",
    "StateMessage",
    "schema",
]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class BoxInfo(_Model):
    """A box of the rule set: its identifier, English label and section."""

    name: str
    label: str
    section: str


class RulesInfo(_Model):
    """What the page needs of the rule set (it decides no rule)."""

    spec: str
    title: str
    dice: int
    rolls: int
    cards: list[str]
    upper_bonus: bool
    yahtzee_bonus: int
    boxes: list[BoxInfo]


class SeatInfo(_Model):
    """A seat: its player (None: open), kind, computer level, and whether it is taken and online."""

    seat: int
    name: str | None
    kind: Literal["human", "computer"]
    level: str | None
    taken: bool
    online: bool
    forfeited: bool = False
    """It missed too many turns under the ``forfeit`` policy (:mod:`fivedice.web.timeouts`)."""


class CardData(_Model):
    """One score card: its entries (None: open) and totals."""

    order: str
    entries: list[int | None]
    upper_total: int
    upper_bonus: int
    yahtzee_bonus: int
    total: int


class OptionData(_Model):
    """A box that may be filled now, on a card, and its points."""

    card: int
    box: str
    points: int


class StandingData(_Model):
    """A place in the final standings (shared on a tie)."""

    place: int
    seat: int
    name: str
    total: int
    forfeited: bool | None = Field(default=None, exclude_if=lambda v: v is None)
    """True for a seat that forfeited (ranked after every other); absent otherwise."""


class GameData(_Model):
    """The engine's state of the room's game and what may be done in it."""

    phase: Literal["rolloff", "play", "over"]
    current: int
    dice: list[int] | None
    rolls: int
    rolls_left: int
    round: int
    rounds: int
    rolloff: list[list[int]]
    contenders: list[int]
    cards: list[list[CardData]]
    totals: list[int]
    options: list[OptionData]
    standings: list[StandingData] | None
    undo_by: int | None
    redo_by: int | None
    moves: int


class EventKey(_Model):
    """An event as the page translates it: the English text with ``{fields}`` and the fields."""

    msg: str
    args: dict[str, Any]


class RoomSnapshot(_Model):
    """The whole room as every client of it receives it."""

    code: str
    version: int
    status: RoomStatus
    game_no: int
    turn: str | None = Field(description="The current turn's id (the same between a turn's rolls); None outside play.")
    rules: RulesInfo
    settings: dict[str, Any]
    seats: list[SeatInfo]
    spectators: list[str | None]
    deadline: float | None
    watchers: int
    game: GameData | None
    challenge: str | None
    goal: dict[str, Any] | None
    best: int | None
    events: list[str]
    event_keys: list[EventKey]


class AckData(_Model):
    """The confirmation of an accepted intent: its ``id``, the room version it made, the game and its last move."""

    id: int | None
    version: int
    game_no: int
    seq: int


class StateMessage(_Model):
    """The room after a change, for the connection of seat ``you`` (None: a spectator)."""

    type: Literal["state"]
    you: int | None
    seats: list[int] | None = None
    """Every seat a pass-and-play connection plays (absent for one seat)."""
    ack: AckData | None = None
    """On a connection that takes deltas: the confirmation of its own intent that made this state."""
    state: RoomSnapshot


class EventsDelta(_Model):
    """The event lines of a delta: ``drop`` lines gone from the front, ``add`` lines (and their ``keys``) at the end."""

    drop: int
    add: list[str]
    keys: list[EventKey]


class DeltaMessage(_Model):
    """What changed since the state of version ``from`` that the connection has (it asked for deltas in its
    hello): top-level keys of the snapshot whole (``state``), keys of its ``game`` (``game``), event lines
    (``events``); ``ack`` as in a :class:`StateMessage`."""

    model_config = ConfigDict(populate_by_name=True)

    type: Literal["delta"]
    you: int | None
    seats: list[int] | None = None
    ack: AckData | None = None
    since: int = Field(alias="from")
    state: dict[str, Any]
    game: dict[str, Any] | None = None
    events: EventsDelta | None = None


class Ack(_Model):
    """The sender's own confirmation of an accepted intent, after the state it caused (a connection that takes
    deltas gets it in that state's message instead)."""

    type: Literal["ack"]
    id: int | None
    version: int
    game_no: int
    seq: int


class PresenceMessage(_Model):
    """Someone connected or left."""

    type: Literal["presence"]
    online: list[int]
    watchers: int
    spectators: list[str | None]


class NoticeMessage(_Model):
    """A notice to the whole room: English text, and the message with its fields to translate."""

    type: Literal["notice"]
    text: str
    msg: str
    args: dict[str, Any]


class ErrorMessage(_Model):
    """A refusal in one sentence (in the connection's language)."""

    type: Literal["error"]
    message: str
    id: int | None = None


class Pong(_Model):
    """The answer to a ping."""

    type: Literal["pong"]
    id: int | None


ServerMessage = StateMessage | DeltaMessage | Ack | PresenceMessage | NoticeMessage | ErrorMessage | Pong
"""The messages of the room's contract (chat, hints, analyses and challenge results are sent beside them)."""

_ADAPTER: TypeAdapter[ServerMessage] = TypeAdapter(ServerMessage)


def validate(frame: str | dict[str, Any]) -> ServerMessage:
    """A sent frame as its model; raises pydantic's ``ValidationError`` if it breaks the contract."""
    return _ADAPTER.validate_json(frame) if isinstance(frame, str) else _ADAPTER.validate_python(frame)


def schema() -> dict[str, Any]:
    """The JSON Schema of :data:`ServerMessage`."""
    return _ADAPTER.json_schema()


if __name__ == "__main__":
    print(json.dumps(schema(), indent=2))
