"""The full-screen terminal game (Textual): ``fivedice play``.

A thin view over a :class:`~fivedice.table.Table`: a start screen (rules and options, players
remembered from last time, human or computer with a level, a challenge, resume or delete a saved
game), large dice kept with keys 1-5 or the mouse, every player's score card side by side with the
points each open box would score, undo and redo as the table allows them, computer turns at a
chosen pace with their reasoning, hints from the advisor in a worker, and the end-of-game ranking,
analysis and challenge comparison. Finished games go to :class:`fivedice.storage.Store`.
"""

from __future__ import annotations

from fivedice.table.seat import Seat
from fivedice.tui.app import Config, FiveDiceApp
from fivedice.tui.session import Session

__all__ = ["Config", "FiveDiceApp", "Seat", "Session"]
