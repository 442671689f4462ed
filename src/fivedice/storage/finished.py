"""Recording a finished game: the one function the line mode, the terminal game and the web call.

>>> from fivedice.table import Table
>>> from fivedice.table.driver import Driver
>>> table = Table("yacht", ["Ann"], seed=2)
>>> _step = Driver(table, stand_in=True).run_sync()   # the stand-in plays Ann's whole game
>>> with Store("sqlite://") as store:
...     recorded = record_finished(store, table, "plain")
>>> recorded.new_best                                  # her first game is her best
True
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from dataclasses import dataclass

from fivedice.i18n import _
from fivedice.storage.store import Store, StoreError
from fivedice.table import Table
from fivedice.table.challenge import aim_kind

__all__ = ["Recorded", "record_finished"]


@dataclass(frozen=True, slots=True)
class Recorded:
    """A finished game in the store: its ``game_id``, and whether a player alone made a ``new_best``."""

    game_id: int
    new_best: bool


def record_finished(
    store: Store,
    table: Table,
    source: str,
    places: Mapping[int, int] | None = None,
    origin: str | None = None,
) -> Recorded:
    """Put the finished game of ``table`` into the high scores and history (its seats' levels, hints, undo
    count, challenge and whole save) as played through ``source`` (``plain``, ``terminal``, ``web``); says
    whether a player alone (the players :func:`~fivedice.table.challenge.aim_kind` gives a goal) now has
    their best total under these rules. ``places``: seats whose place is not the engine's (a web room's
    forfeits); ``origin``: where the game was played, recorded once however often this is called (see
    :meth:`Store.record_game`). Raises a one-sentence :class:`StoreError`, storing nothing."""
    if not table.is_over:
        raise StoreError(_("Only a finished game can be recorded; this one is still being played."))
    game_id = store.record_table(table, source=source, places=places, origin=origin)
    new_best = False
    if aim_kind(table) is not None:
        with contextlib.suppress(StoreError):  # the game is stored; the comparison is a nicety
            new_best = store.best(table.seats[0].name, table.rules) == table.state.total(0)
    return Recorded(game_id, new_best)
