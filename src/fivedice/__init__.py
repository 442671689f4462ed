"""fivedice: Yahtzee and its family of five-dice games, with exact rules and optimal play.

>>> import fivedice
>>> rules = fivedice.rules.get("yacht")
>>> rules.score("four_of_a_kind", (4, 4, 4, 4, 1))
17
"""

from __future__ import annotations

import importlib
import importlib.machinery
import sys
import types
import warnings
from typing import TYPE_CHECKING

from fivedice import rules
from fivedice.dice import Dice
from fivedice.engine import notation, saves
from fivedice.engine.actions import Action, Roll, RollOff, Score
from fivedice.engine.game import Game
from fivedice.engine.scorecard import Scorecard
from fivedice.engine.state import GameState, Phase
from fivedice.errors import (
    DiceError,
    FiveDiceError,
    IllegalActionError,
    NotationError,
    RuleSetError,
    SaveFormatError,
)
from fivedice.rules import RuleSet

__version__ = "0.1.0"

__all__ = [
    "Action",
    "Dice",
    "DiceError",
    "FiveDiceError",
    "Game",
    "GameState",
    "IllegalActionError",
    "NotationError",
    "Phase",
    "Roll",
    "RollOff",
    "RuleSet",
    "RuleSetError",
    "SaveFormatError",
    "Score",
    "Scorecard",
    "__version__",
    "notation",
    "rules",
    "saves",
]

MOVED = {
    "fivedice.actions": "fivedice.engine.actions",
    "fivedice.scorecard": "fivedice.engine.scorecard",
    "fivedice.state": "fivedice.engine.state",
    "fivedice.game": "fivedice.engine.game",
    "fivedice.notation": "fivedice.engine.notation",
    "fivedice.saves": "fivedice.engine.saves",
    "fivedice.render": "fivedice.engine.render",
    "fivedice.tape": "fivedice.table.tape",
    "fivedice.seat": "fivedice.table.seat",
    "fivedice.events": "fivedice.table.events",
    "fivedice.challenge": "fivedice.table.challenge",
    "fivedice.advice": "fivedice.services.advice",
    "fivedice.chancejobs": "fivedice.services.chancejobs",
    "fivedice.analysis": "fivedice.services.analysis",
    "fivedice.sim": "fivedice.services.sim",
    "fivedice.clickutil": "fivedice.cli.clickutil",
    "fivedice.usage": "fivedice.cli.usage",
    "fivedice.sim_cli": "fivedice.cli.simulate",
    "fivedice.plain": "fivedice.cli.plain",
    "fivedice.solver.cli": "fivedice.cli.solve",
    "fivedice.storage.cli": "fivedice.cli.scores",
    "fivedice.web.cli": "fivedice.cli.serve",
}
"""Modules that moved into the layer packages: the old name still imports (with a DeprecationWarning)."""


if TYPE_CHECKING:
    from importlib.abc import Loader as _Loader
else:
    _Loader = object


class _Moved(_Loader):
    """Imports a moved module under its old name: the same module object, so state is shared (a finder
    and loader by protocol; importlib.abc would cost every ``import fivedice`` 0.1 s)."""

    def find_spec(
        self, fullname: str, path: object = None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in MOVED:
            return None
        return importlib.machinery.ModuleSpec(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        new = MOVED[spec.name]
        warnings.warn(f"{spec.name} moved to {new}; import it from there.", DeprecationWarning, stacklevel=2)
        return importlib.import_module(new)

    def exec_module(self, module: types.ModuleType) -> None:
        """The module is already loaded under its new name."""


sys.meta_path.append(_Moved())
