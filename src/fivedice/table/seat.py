"""Who plays a seat: one small value shared by the table, the front ends and the score store.

>>> parse_seats("Ann, Max:optimal")
(Seat(name='Ann', kind=SeatKind.HUMAN, level=None), Seat(name='Max', kind=SeatKind.COMPUTER, level='optimal'))
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from fivedice.errors import FiveDiceError
from fivedice.i18n import _

__all__ = ["KINDS", "Seat", "SeatKind", "parse_seats"]


class SeatKind(enum.StrEnum):
    """Who plays a seat (the values are those saves and databases hold)."""

    HUMAN = "human"
    """A human at this screen."""
    COMPUTER = "computer"
    """A computer player of some level."""
    REMOTE = "remote"
    """A human playing from elsewhere (the web)."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}.{self.name}"


KINDS = tuple(SeatKind)
"""Every seat kind."""


@dataclass(frozen=True, slots=True)
class Seat:
    """Who plays a seat: a human (here or ``remote``), or a computer of some ``level``."""

    name: str
    kind: SeatKind = SeatKind.HUMAN
    level: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise FiveDiceError(
                _("Seat kind {kind!r} is unknown; expected one of: {kinds}.", kind=self.kind, kinds=", ".join(KINDS))
            )
        object.__setattr__(self, "kind", SeatKind(self.kind))
        if self.kind is SeatKind.COMPUTER and not self.level:
            object.__setattr__(self, "level", "greedy")

    @property
    def is_computer(self) -> bool:
        """Whether a computer plays this seat."""
        return self.kind is SeatKind.COMPUTER

    @property
    def is_human(self) -> bool:
        """Whether a person plays this seat (here or remotely)."""
        return self.kind is not SeatKind.COMPUTER

    def to_data(self) -> dict[str, Any]:
        """JSON form."""
        return {"name": self.name, "kind": self.kind.value, "level": self.level}

    @classmethod
    def from_data(cls, data: object) -> Seat:
        """From :meth:`to_data`; raises :class:`FiveDiceError` on anything else."""
        if (
            not isinstance(data, dict)
            or not isinstance(data.get("name"), str)
            or not isinstance(data.get("kind", "human"), str)
            or not isinstance(data.get("level"), str | None)
        ):
            raise FiveDiceError(_("Seat {seat!r} is not a name, a kind and a level.", seat=data))
        return cls(data["name"], data.get("kind", "human"), data.get("level"))


def parse_seats(text: str | Iterable[str]) -> tuple[Seat, ...]:
    """Seats from ``"Ann,Max:optimal"`` (or a list of such entries): ``Name:level`` is a computer."""
    entries = text.split(",") if isinstance(text, str) else list(text)
    seats = []
    for entry in entries:
        name, sep, level = entry.partition(":")
        if not name.strip() and not sep:
            continue
        seats.append(Seat(name.strip(), SeatKind.COMPUTER, level.strip() or "greedy") if sep else Seat(name.strip()))
    return tuple(seats)
