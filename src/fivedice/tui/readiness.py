"""Whether the solver must first prepare a rule set's table (once: it is cached on disk afterwards).

One small place for the check, so that it can follow the solver's own readiness API when there is one.
"""

from __future__ import annotations

from fivedice.i18n import _
from fivedice.rules import RuleSet
from fivedice.tui.session import rules_title

__all__ = ["preparing_note", "solver_ready", "solver_seconds"]

SECONDS_PER_STATE = 8e-6
"""Build time per state of the solver's table, measured on a loaded 2-core machine (Yahtzee: 8 s)."""


def solver_ready(rules: RuleSet) -> bool:
    """Whether the solver's table for ``rules`` is in its cache (reads the cache folder: not on the UI thread)."""
    from fivedice.solver.cache import cache_path

    return cache_path(rules).exists()


def solver_seconds(rules: RuleSet) -> int:
    """About how many seconds building the solver's table for ``rules`` takes (from its number of states).

    >>> from fivedice import rules
    >>> solver_seconds(rules.get("yahtzee")), solver_seconds(rules.get("kismet"))
    (8, 21)
    """
    units: int = max((t.threshold for t in rules.upper_bonus), default=0) + 1
    states: int = 2 ** len(rules.boxes) * units * (2 if rules.yahtzee_bonus else 1)
    return max(1, round(states * SECONDS_PER_STATE))


def preparing_note(rules: RuleSet) -> str | None:
    """``Preparing the solver for Kismet (once, about 21 s)…`` when the solver plays ``rules`` but has not
    built their table yet; None when it is ready or does not play them."""
    if rules.solver_refusal() is not None or solver_ready(rules):
        return None
    return _(
        "Preparing the solver for {game} (once, about {seconds} s)…",
        game=rules_title(rules),
        seconds=solver_seconds(rules),
    )
