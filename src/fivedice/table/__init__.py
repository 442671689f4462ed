"""The controller: one game at one table (:class:`Table`), with its seats (:mod:`~fivedice.table.seat`),
the dice tape (:mod:`~fivedice.table.tape`), events (:mod:`~fivedice.table.events`), challenges
(:mod:`~fivedice.table.challenge`), the step API (:mod:`~fivedice.table.steps`) and the one driver every
front end runs (:mod:`~fivedice.table.driver`). Every front end drives a :class:`Table`; none decides a rule."""

from __future__ import annotations

from fivedice.table.steps import By, StaleStateError
from fivedice.table.table import BY, Table, UndoPolicy, UndoRefusedError, default_policy

__all__ = ["BY", "By", "StaleStateError", "Table", "UndoPolicy", "UndoRefusedError", "default_policy"]
