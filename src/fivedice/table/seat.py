"""Who plays a seat: one small value shared by the table, the front ends and the score store.

>>> parse_seats("Ann, Max:optimal")
(Seat(name='Ann', kind='human', level=None), Seat(name='Max', kind='computer', level='optimal'))
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from fivedice.errors import FiveDiceError
from fivedice.i18n import _

__all__ = ["KINDS", "Seat", "parse_seats"]

KINDS = ("human", "computer", "remote")
"""A human at this screen, a computer player of some level, or a human playing from elsewhere (the web)."""


@dataclass(frozen=True, slots=True)
class Seat:
    """Who plays a seat: a human (here or ``remote``), or a computer of some ``level``."""

    name: str
    kind: str = "human"
    level: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise FiveDiceError(
                _("Seat kind {kind!r} is unknown; expected one of: {kinds}.", kind=self.kind, kinds=", ".join(KINDS))
            )
        if self.kind == "computer" and not self.level:
            object.__setattr__(self, "level", "greedy")

    @property
    def is_computer(self) -> bool:
        """Whether a computer plays this seat."""
        return self.kind == "computer"

    @property
    def is_human(self) -> bool:
        """Whether a person plays this seat (here or remotely)."""
        return self.kind != "computer"

    def to_data(self) -> dict[str, Any]:
        """JSON form."""
        return {"name": self.name, "kind": self.kind, "level": self.level}

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
        seats.append(Seat(name.strip(), "computer", level.strip() or "greedy") if sep else Seat(name.strip()))
    return tuple(seats)
