"""The computer levels, the strategy protocol and the one check of a level against a rule set (a leaf
module: the players' own modules import it, never the package)."""

from __future__ import annotations

from functools import cache
from itertools import combinations_with_replacement
from typing import Protocol, runtime_checkable

from fivedice.dice import counts_of
from fivedice.engine.actions import Action
from fivedice.engine.state import GameState
from fivedice.errors import FiveDiceError
from fivedice.i18n import N_, _
from fivedice.rules.ruleset import RuleSet

__all__ = [
    "LEVELS",
    "SOLVER_LEVELS",
    "TARGET",
    "TARGET_LEVEL",
    "Strategy",
    "UnknownStrategyError",
    "check_level",
    "most_points",
    "target_of",
]


@runtime_checkable
class Strategy(Protocol):
    """Anything that picks a move: ``choose(state)`` returns an intent for ``state.current``."""

    @property
    def name(self) -> str:
        """The level's name, e.g. ``"greedy"``."""
        ...

    def choose(self, state: GameState) -> Action:
        """The move to make in ``state``."""
        ...


class UnknownStrategyError(FiveDiceError):
    """A strategy level that does not exist."""


LEVELS: dict[str, str] = {
    "random": N_("picks uniformly among the legal moves"),
    "greedy": N_("maximises this turn's points (rerolls for their expectation), a classic baseline"),
    "tali": N_("GNOME Tali's computer: Monte Carlo rerolls rated by a one-step table"),
    "optimal": N_("the solver's best move: maximises the expected final score"),
    "easy": N_("the solver's values with much noise and blunders (mean near 180 in Yahtzee)"),
    "medium": N_("the solver's values with moderate noise (mean near 220 in Yahtzee)"),
    "hard": N_("the solver's values with a little noise (mean near 245 in Yahtzee)"),
    "win": N_("plays to finish first: the chance of beating the others, from the solver's values"),
}
"""Every built-in level with a one-line description."""

TARGET_LEVEL = {"target:T": N_("plays for the best chance of finishing with at least T points, e.g. target:300")}
"""The threshold levels: ``target:T`` for any whole ``T`` (not in :data:`LEVELS`, which lists fixed names)."""

TARGET = "target:"
"""Prefix of the threshold levels: ``target:300`` plays for the best chance of at least 300 points."""


def target_of(key: str) -> int | None:
    """The target of a checked ``target:T`` level key, else None."""
    return int(key[len(TARGET) :]) if key.startswith(TARGET) else None


SOLVER_LEVELS = frozenset({"optimal", "easy", "medium", "hard", "win"})
"""Levels that need the solver (and so a rule set it handles)."""


@cache
def most_points(rules: RuleSet) -> int:
    """An upper bound of a player's final total under ``rules`` (exact for the built-in rule sets: 1575 in
    Yahtzee): every box at its best value on every card, the top upper bonus on each, and an extra-Yahtzee
    bonus on every turn but the first. Cheap (no solver): a target above it is refused before any work.

    >>> from fivedice import rules
    >>> most_points(rules.get("yahtzee")), most_points(rules.get("yacht"))
    (1575, 305)
    """
    throws = [counts_of(faces) for faces in combinations_with_replacement(range(1, 7), rules.dice)]
    rolls = (1, 2) if rules.rolls > 1 else (1,)  # a box scores alike on every roll but the first
    best = sum(max(box.full_value(c, r) for c in throws for r in rolls) for box in rules.boxes)
    bonus = max((tier.points for tier in rules.upper_bonus), default=0)
    extra = rules.yahtzee_bonus * (rules.rounds - 1) if rules.yahtzee_box is not None else 0
    return len(rules.cards) * (best + bonus) + extra


def check_level(level: str, rules: RuleSet) -> str:
    """The level's key if a player of ``level`` can play ``rules`` (cheap: builds nothing); otherwise
    raises :class:`UnknownStrategyError` in one sentence. Never a silent substitute."""
    key = level.strip().lower()
    if key.startswith(TARGET):
        number = key[len(TARGET) :].strip()
        if not (number.isascii() and number.isdigit()):
            raise UnknownStrategyError(
                _(
                    "Computer level {level!r} needs a whole number of points, 0 or more, after 'target:', "
                    "e.g. 'target:300'.",
                    level=level,
                )
            )
        if len(number) > 9 or int(number) > most_points(rules):
            raise UnknownStrategyError(
                _(
                    "Computer level {level!r} aims above what {rules} can score; expected a target from 0 to "
                    "{most} points.",
                    level=level[:40],
                    rules=rules.spec,
                    most=most_points(rules),
                )
            )
        key = TARGET + str(int(number))
    elif key not in LEVELS:
        known = ", ".join([*LEVELS, *TARGET_LEVEL])
        raise UnknownStrategyError(
            _("Computer level {level!r} is unknown; expected one of: {known}.", level=level, known=known)
        )
    reason = rules.solver_refusal() if key in SOLVER_LEVELS or key.startswith(TARGET) else None
    if reason is not None:
        plain = ", ".join(k for k in LEVELS if k not in SOLVER_LEVELS)
        raise UnknownStrategyError(
            _(
                "Computer level {level!r} needs the solver: {reason} Choose {levels}.",
                level=key,
                reason=reason,
                levels=plain,
            )
        )
    return key
