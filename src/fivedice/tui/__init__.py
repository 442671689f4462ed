"""The full-screen terminal game (Textual): ``fivedice play``.

A start screen (rules, players remembered from last time, human or computer with a level,
resume a saved game), large dice kept with keys 1-5 or the mouse, every player's score card
side by side with the points each open box would score, undo and redo, computer turns at a
chosen pace with their reasoning, hints from the solver in a worker, and the end-of-game
ranking and analysis. Finished games go to :class:`fivedice.storage.Store`.
"""

from __future__ import annotations

from fivedice.tui.app import Config, FiveDiceApp
from fivedice.tui.session import Seat, Session

__all__ = ["Config", "FiveDiceApp", "Seat", "Session", "parse_seats"]


def parse_seats(names: list[str]) -> list[Seat]:
    """Seats from command-line names: ``Ann`` is a human, ``Robo:greedy`` a computer of that level.

    >>> parse_seats(["Ann", "Robo:hard"])
    [Seat(name='Ann', kind='human', level=None), Seat(name='Robo', kind='computer', level='hard')]
    """
    seats = []
    for entry in names:
        name, sep, level = entry.partition(":")
        seats.append(Seat(name.strip(), "computer", level.strip() or "greedy") if sep else Seat(name.strip()))
    return seats
