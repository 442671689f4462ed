"""Who plays a seat: one small value shared by the terminal game and the score store."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["Seat"]


@dataclass(frozen=True, slots=True)
class Seat:
    """Who plays a seat: a human, or a computer of some ``level``."""

    name: str
    kind: str = "human"
    level: str | None = None

    @property
    def is_computer(self) -> bool:
        """Whether a computer plays this seat."""
        return self.kind == "computer"

    def to_data(self) -> dict[str, Any]:
        """JSON form."""
        return {"name": self.name, "kind": self.kind, "level": self.level}
