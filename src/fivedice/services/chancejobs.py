"""Chances next to the hints, prepared in the background.

Two chances can stand beside a hint's expected points:

- **to win** (two or more players): each option's chance to finish first (the ``win`` level's rating,
  :func:`fivedice.players.win.option_chances`), from the rule set's beat table;
- **to beat a goal** (solitaire, e.g. the player's best): each option's best chance of finishing
  above it (threshold play, exact), from a target table.

A table takes a few minutes and a few hundred MB to build the first time, then loads from the user
cache in about a second. A view never waits for it: :func:`note` starts its preparation (once per
process, in a daemon thread, one build at a time) and says what is happening; the hints carry the
chances once :func:`ready` says so.

>>> from fivedice import rules
>>> from fivedice.engine.state import GameState
>>> need(GameState.new(rules.get("yacht"), ("Ann", "Bo")), None).kind
ChanceKind.WIN
>>> need(GameState.new(rules.get("yacht"), ("Ann",)), 250).kind
ChanceKind.BEAT
"""

from __future__ import annotations

import enum
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from fivedice.engine.state import GameState
from fivedice.i18n import N_, _, format_percent
from fivedice.rules import RuleSet

__all__ = [
    "ChanceKind", "Job", "Need", "describe", "for_level", "job", "message", "need", "needs_build", "note", "ready",
    "start", "wait",
]  # fmt: skip


class ChanceKind(enum.StrEnum):
    """Which chance stands beside a hint (the values are those the web sends)."""

    WIN = "win"
    """To finish first (two or more players)."""
    BEAT = "beat"
    """To finish above a goal (alone)."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}.{self.name}"


@dataclass(frozen=True, slots=True)
class Need:
    """What a hint's chances need: ``kind`` :attr:`ChanceKind.WIN` (the beat table of ``rules``) or
    :attr:`ChanceKind.BEAT` (a target table covering final scores above ``goal``)."""

    kind: ChanceKind
    rules: RuleSet
    goal: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", ChanceKind(self.kind))


@dataclass(slots=True, eq=False)
class Job:
    """A preparation: ``share`` of it done, ``error`` (one sentence) if it failed, ``done`` when over."""

    need: Need
    share: float = 0.0
    error: str | None = None
    done: threading.Event = field(default_factory=threading.Event)

    @property
    def ok(self) -> bool:
        """Whether it finished without error."""
        return self.done.is_set() and self.error is None


_JOBS: dict[Need, Job] = {}
_LOCK = threading.Lock()
_BUILD = threading.Lock()
"""One build at a time in a process: each holds a few hundred MB while it runs."""


def need(state: GameState, goal: int | None) -> Need | None:
    """What the chances of ``state``'s hints need (``goal``: the score a solitaire player plays to
    beat), or None when there are none to show (no exact solver for these rules, or alone without a goal)."""
    if state.rules.solver_refusal() is not None:
        return None
    if len(state.players) > 1:
        return Need(ChanceKind.WIN, state.rules)
    if goal is not None:
        return Need(ChanceKind.BEAT, state.rules, goal)
    return None


def job(need: Need) -> Job | None:
    """The preparation of ``need`` started in this process, if any."""
    with _LOCK:
        return _JOBS.get(need)


def ready(need: Need) -> bool:
    """Whether ``need`` is prepared (its tables in memory): hints may carry its chances at once."""
    found = job(need)
    return found is not None and found.ok


def start(need: Need) -> Job:
    """Start preparing ``need`` (once per process; a later call returns the same job)."""
    with _LOCK:
        found = _JOBS.get(need)
        if found is not None:
            return found
        new = _JOBS[need] = Job(need)
    threading.Thread(target=_run, args=(new,), name="fivedice-chances", daemon=True).start()
    return new


def wait(need: Need, timeout: float | None = None) -> Job:
    """Start preparing ``need`` and wait for it (at most ``timeout`` seconds)."""
    found = start(need)
    found.done.wait(timeout)
    return found


def _run(job: Job) -> None:
    def progress(share: float) -> None:
        job.share = min(1.0, max(job.share, share))

    try:
        with _BUILD:
            _prepare(job.need, progress)
    except Exception as exc:  # a failed preparation leaves the hints without chances, the game goes on
        error, message = type(exc).__name__, str(exc)
        job.error = _("The chances could not be prepared: {error}: {message}", error=error, message=message)
    finally:
        job.share = 1.0
        job.done.set()


def _prepare(need: Need, progress: Callable[[float], None]) -> None:
    from fivedice.players.solved import solver_for

    solver_for(need.rules)
    if need.kind is ChanceKind.WIN:
        from fivedice.players.win import prepare_win

        prepare_win(need.rules, progress)
    else:
        from fivedice.players.target import target_table

        assert need.goal is not None
        target_table(need.rules, need.goal + 1, progress)


def for_level(level: str, state: GameState) -> Need | None:
    """What a computer level needs prepared to play ``state``'s game: ``win`` with rivals, the beat
    table; ``target:T``, a target table; else None."""
    from fivedice.players.levels import check_level, target_of

    if state.rules.solver_refusal() is not None:
        return None
    key = check_level(level, state.rules)  # "Target:0300" is target:300
    if key == "win":
        return Need(ChanceKind.WIN, state.rules) if len(state.players) > 1 else None
    target = target_of(key)
    return Need(ChanceKind.BEAT, state.rules, target - 1) if target else None


def needs_build(need: Need) -> bool:
    """Whether preparing ``need`` would build a table (minutes for Yahtzee): it is neither in memory nor
    in the user cache. Looks, builds nothing."""
    from fivedice.players.solved import solver_for
    from fivedice.players.win import beat_cap
    from fivedice.solver.chances import is_cached, target_cap

    solver = solver_for(need.rules)
    if need.kind is ChanceKind.WIN:
        return not is_cached(solver, beat_cap(need.rules), 0.5)
    assert need.goal is not None
    return not is_cached(solver, target_cap(solver, need.goal + 1), 1.0)


def note(state: GameState, goal: int | None) -> str | None:
    """What a view says beside the hints while their chances are being prepared (starting that
    preparation), the failure if it failed, or None (ready, or no chances for this game)."""
    wanted = need(state, goal)
    if wanted is None or ready(wanted):
        return None
    return describe(start(wanted))


def describe(job: Job) -> str:
    """A preparation in one sentence: its share done, or its failure."""
    if job.error is not None:
        return job.error
    text, fields = message(job)
    return _(text, **fields)


def message(job: Job) -> tuple[str, dict[str, object]]:
    """A preparation under way as its untranslated sentence and fields, for a view that translates for
    each reader (the web's notices); :func:`describe` says it in the current language."""
    done = format_percent(job.share, 0)
    if job.need.kind is ChanceKind.WIN:
        return N_("Preparing the chances to win (once, a few minutes): {done} done."), {"done": done}
    text = N_("Preparing the chances to beat {goal} (once, a few minutes): {done} done.")
    return text, {"goal": job.need.goal, "done": done}
