"""The controller: one game at one table (:class:`Table`), with its seats (:mod:`~fivedice.table.seat`),
the dice tape (:mod:`~fivedice.table.tape`), events (:mod:`~fivedice.table.events`) and challenges
(:mod:`~fivedice.table.challenge`). Every front end drives a :class:`Table`; none decides a rule."""

from __future__ import annotations

from fivedice.table.table import BY, StaleStateError, Table, UndoPolicy, UndoRefusedError, default_policy

__all__ = ["BY", "StaleStateError", "Table", "UndoPolicy", "UndoRefusedError", "default_policy"]
