"""fivedice: Yahtzee and its family of five-dice games, with exact rules and optimal play.

>>> import fivedice
>>> rules = fivedice.rules.get("yacht")
>>> rules.score("four_of_a_kind", (4, 4, 4, 4, 1))
17
"""

from __future__ import annotations

from fivedice import rules
from fivedice.actions import Action, Roll, RollOff, Score
from fivedice.dice import Dice
from fivedice.errors import (
    DiceError,
    FiveDiceError,
    IllegalActionError,
    NotationError,
    RuleSetError,
    SaveFormatError,
)
from fivedice.game import Game
from fivedice.rules import RuleSet
from fivedice.scorecard import Scorecard
from fivedice.state import GameState, Phase

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
    "rules",
]
