"""Hints and the computer's reasoning: the advisor's ranked options as language-neutral values.

:func:`advise` asks the exact solver where it can (single-card rule sets: every keep and every box,
each with its expected final points and its loss against the best) and otherwise ranks the open
boxes by the points they score now. Views word an option with :func:`describe`.

>>> from fivedice import GameState, rules
>>> from fivedice.engine.actions import Roll
>>> state = GameState.new(rules.get("yahtzee", cards="jetsi"), ("Ann",)).apply(Roll((), (6, 6, 6, 2, 2)))
>>> advice = advise(state)
>>> advice.source.value, describe(advice.options[0], state.rules)
('points', 'score Full House (25) on card 1')
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from fivedice.engine.actions import Action, Roll, Score
from fivedice.engine.state import GameState, Phase
from fivedice.errors import FiveDiceError
from fivedice.i18n import _, box_label, format_number
from fivedice.players.solvers import SolverCache
from fivedice.rules import RuleSet
from fivedice.services.chancejobs import ChanceKind

if TYPE_CHECKING:
    from fivedice.solver.advisor import Solver

__all__ = [
    "Advice", "AdviceSource", "HintOption", "advise", "beat_chances", "describe", "describe_action", "preparing",
    "solver", "win_chances",
]  # fmt: skip


WIN = ChanceKind.WIN
""":attr:`Advice.chances` when the options carry their chance to win."""
BEAT = ChanceKind.BEAT
""":attr:`Advice.chances` when the options carry their chance of finishing above the goal."""


class AdviceSource(enum.StrEnum):
    """What an :class:`Advice`'s ``value`` is (the values are those the web sends)."""

    SOLVER = "solver"
    """The expected points still to come under optimal play."""
    POINTS = "points"
    """The points the box scores now (no solver for these rules)."""


@dataclass(frozen=True, slots=True)
class HintOption:
    """One option: the intent that carries it out, the faces it keeps (a roll) or the points it scores
    (a box), its ``value`` and its ``loss`` against the best option; ``win`` is its chance to win and
    ``beat`` its best chance of finishing above the advice's ``goal``, where known."""

    action: Action
    kept: tuple[int, ...] = ()
    points: int | None = None
    value: float = 0.0
    loss: float = 0.0
    win: float | None = None
    beat: float | None = None


@dataclass(frozen=True, slots=True)
class Advice:
    """Ranked options, best first. ``source`` says what ``value`` is: ``"solver"``, the expected points
    still to come under optimal play; ``"points"``, the points the box scores now. ``goal`` is the
    final score that the options' ``beat`` chances are for (solitaire)."""

    source: AdviceSource
    options: tuple[HintOption, ...]
    goal: int | None = None

    @property
    def chances(self) -> ChanceKind | None:
        """Which chance the options carry: ``"win"``, ``"beat"`` or None."""
        if not self.options:
            return None
        top = self.options[0]
        return WIN if top.win is not None else BEAT if top.beat is not None else None

    @property
    def best(self) -> HintOption:
        """The top option."""
        return self.options[0]


def advise(state: GameState, goal: int | None = None, *, chances: bool = True, exact: bool = True) -> Advice:
    """The ranked options of the player to act (the solver's when it handles the rule set, unless ``exact``
    is False: then the boxes by their points now, as where it does not), with each one's chance to win
    (rivals) or to finish above ``goal`` (alone) once those are prepared (:mod:`fivedice.services.chancejobs`);
    ``chances=False`` leaves them out."""
    if state.phase is not Phase.PLAY or state.dice is None:
        raise FiveDiceError(_("Roll first: hints are for the dice showing."))
    if exact and state.rules.solver_refusal() is None:
        return _solver_advice(state, goal, chances)
    ranked = sorted(state.options().items(), key=lambda kv: (-kv[1], kv[0][0], state.rules.box_index(kv[0][1])))
    best = ranked[0][1] if ranked else 0
    options = tuple(
        HintOption(Score(box, card), points=p, value=float(p), loss=float(best - p)) for (card, box), p in ranked
    )
    return Advice(AdviceSource.POINTS, options)


_SOLVERS = SolverCache(jit=False)
"""The hints' solvers, one per rule set for the whole process (numba-free: quick to load, quick enough for hints)."""


def solver(rules: RuleSet, progress: Callable[[float], None] | None = None) -> Solver:
    """The advisor's solver of ``rules``, loaded once per process (its table from the cache or shipped
    with fivedice, else built now, calling ``progress(share_done)``); numba-free answers, quick enough
    for hints. May take long when a build is needed (:func:`preparing` says beforehand): call it in a
    worker."""
    return _SOLVERS.get(rules, progress)


def preparing(rules: RuleSet) -> str | None:
    """What a view says while the first hint of ``rules`` waits for a solver build ("Preparing the
    solver for Kismet (once, about 20 s)..."), or None when the advice comes at once."""
    if rules.solver_refusal() is not None or rules in _SOLVERS:
        return None
    from fivedice.solver import readiness

    ready = readiness(rules)
    if ready.ready:
        return None
    return _(
        "Preparing the solver for {rules} (once, about {seconds} s)...",
        rules=_(rules.title) if not rules.options else rules.spec,
        seconds=format_number(max(1, round(ready.seconds))),
    )


def _solver_advice(state: GameState, goal: int | None, chances: bool) -> Advice:
    assert state.dice is not None
    card = state.cards[state.current][0]
    options = solver(state.rules).advise(card, state.dice, state.rolls_left)
    wins = win_chances(state) if chances else None
    beats = None if wins is not None or goal is None or not chances else beat_chances(state, goal)
    sure = goal is not None and card.total > goal  # every option beats it
    out = []
    for o in options:
        win = None if wins is None else wins.get(o.key)
        beat = None if beats is None else 1.0 if sure else beats.get(o.key)
        value, loss = float(o.value), float(o.loss)
        if o.action == "keep":
            action: Action = Roll(state.positions_of(list(o.dice)))
            out.append(HintOption(action, kept=tuple(o.dice), value=value, loss=loss, win=win, beat=beat))
        else:
            assert o.box is not None
            out.append(HintOption(Score(o.box, 0), points=o.points, value=value, loss=loss, win=win, beat=beat))
    return Advice(AdviceSource.SOLVER, tuple(out), goal if beats is not None else None)


def win_chances(state: GameState) -> dict[tuple[str, object], float] | None:
    """With rivals, each option's chance to finish first, keyed ``("keep", dice)`` or ``("score", box)``
    (see :mod:`fivedice.players.win`: exact once every rival is done); None when alone or while the
    chances are being prepared (:func:`fivedice.services.chancejobs.note` starts that)."""
    from fivedice.services import chancejobs

    wanted = chancejobs.need(state, None)
    if wanted is None or wanted.kind != ChanceKind.WIN or state.dice is None or not chancejobs.ready(wanted):
        return None
    from fivedice.players import win

    return win.option_chances(state, solver(state.rules))


def beat_chances(state: GameState, goal: int) -> dict[tuple[str, object], float] | None:
    """Alone, each option's best chance of finishing above ``goal`` (threshold play, the fast chances:
    :func:`fivedice.solver.fast.fast_options`), keyed as
    in :func:`win_chances` (empty once the card's total is above it: every chance is 1); None with
    rivals or while the chances are being prepared."""
    from fivedice.services import chancejobs

    wanted = chancejobs.need(state, goal)
    if wanted is None or wanted.kind != ChanceKind.BEAT or state.dice is None or not chancejobs.ready(wanted):
        return None
    card = state.cards[state.current][0]
    if card.total > goal:
        return {}  # every option is sure to beat it: a chance of 1 each
    from fivedice.solver.fast import fast_options

    options = fast_options(solver(state.rules), card, state.dice, state.rolls_left, goal + 1)
    return {o.key: float(o.value) for o in options}


def describe(option: HintOption, rules: RuleSet) -> str:
    """An option in a few words of the current language: ``keep 3 3 5``, ``score Full House (25)``."""
    action = option.action
    if isinstance(action, Roll):
        return _("keep {dice}", dice=" ".join(map(str, option.kept))) if option.kept else _("reroll all")
    assert isinstance(action, Score)
    box = box_label(rules.box(action.box))
    if len(rules.cards) > 1:
        return _("score {box} ({points}) on card {card}", box=box, points=option.points, card=action.card + 1)
    return _("score {box} ({points})", box=box, points=option.points)


def describe_action(rules: RuleSet, action: Action, dice: tuple[int, ...] | None = None) -> str:
    """An action in a few words: ``roll all``, ``keep 3 3 5`` (with the dice it was made on), ``score Chance``."""
    if isinstance(action, Roll):
        if not action.held or dice is None:
            return _("roll all")
        return _("keep {dice}", dice=" ".join(str(dice[p]) for p in action.held))
    if isinstance(action, Score):
        box = box_label(rules.box(action.box))
        if len(rules.cards) > 1:
            return _("score {box} (card {card})", box=box, card=action.card + 1)
        return _("score {box}", box=box)
    return _("roll off")
