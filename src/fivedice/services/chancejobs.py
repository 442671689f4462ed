"""Chances next to the hints, prepared in the background.

Two chances can stand beside a hint's expected points:

- **to win** (two or more players): each option's chance to finish first (the ``win`` level's rating,
  :func:`fivedice.players.win.option_chances`);
- **to beat a goal** (solitaire, e.g. the player's best): each option's best chance of finishing
  above it (threshold play).

Both come from the fast chances (:mod:`fivedice.solver.fast`): per-state moments shipped with fivedice
for every built-in rule set with its default options, read in a fraction of a second; nothing is
built while people play. Only a rule set with other options has its moments computed once (a
minute or less, then cached): a view never waits for that, :func:`note` starts it (once per process,
in a daemon thread, one at a time) and says what is happening; the hints carry the chances once
:func:`ready` says so. The exact tables (:mod:`fivedice.solver.chances`) are never built here.

>>> from fivedice import rules
>>> from fivedice.engine.state import GameState
>>> need(GameState.new(rules.get("yacht"), ("Ann", "Bo")), None).kind
'win'
>>> need(GameState.new(rules.get("yacht"), ("Ann",)), 250).kind
'beat'
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from fivedice.engine.state import GameState
from fivedice.i18n import N_, _, format_percent
from fivedice.rules import RuleSet

__all__ = [
    "Job", "Need", "describe", "for_level", "job", "message", "need", "needs_build", "note", "ready", "start", "wait",
]  # fmt: skip


@dataclass(frozen=True, slots=True)
class Need:
    """What a hint's chances need: ``kind`` ``"win"`` (the beat table of ``rules``) or ``"beat"`` (a
    target table covering final scores above ``goal``)."""

    kind: str
    rules: RuleSet
    goal: int | None = None


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
"""One build at a time in a process."""


def need(state: GameState, goal: int | None) -> Need | None:
    """What the chances of ``state``'s hints need (``goal``: the score a solitaire player plays to
    beat), or None when there are none to show (no exact solver for these rules, or alone without a goal)."""
    if state.rules.solver_refusal() is not None:
        return None
    if len(state.players) > 1:
        return Need("win", state.rules)
    if goal is not None:
        return Need("beat", state.rules, goal)
    return None


def job(need: Need) -> Job | None:
    """The preparation of ``need`` started in this process, if any."""
    with _LOCK:
        return _JOBS.get(need)


def ready(need: Need) -> bool:
    """Whether hints may carry ``need``'s chances at once: its preparation is done (and did not fail), or
    none ended yet and the moments are shipped, cached or in memory (a quick load, nothing built)."""
    from fivedice.solver.fast import ready_for

    found = job(need)
    if found is not None and found.done.is_set():
        return found.ok
    return ready_for(need.rules)


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
    from fivedice.solver.chances import check_target
    from fivedice.solver.fast import moments

    if need.goal is not None:
        check_target(need.goal + 1)  # the chance of finishing above the goal: of reaching one more
    moments(solver_for(need.rules), progress)


def for_level(level: str, state: GameState) -> Need | None:
    """What a computer level needs prepared to play ``state``'s game: ``win`` with rivals, the beat
    table; ``target:T``, a target table; else None."""
    from fivedice.players.levels import check_level, target_of

    if state.rules.solver_refusal() is not None:
        return None
    key = check_level(level, state.rules)  # "Target:0300" is target:300
    if key == "win":
        return Need("win", state.rules) if len(state.players) > 1 else None
    target = target_of(key)
    return Need("beat", state.rules, target - 1) if target else None


def needs_build(need: Need) -> bool:
    """Whether preparing ``need`` would compute the moments (a rule set with options that ship none):
    they are neither in memory, nor shipped, nor in the user cache. Looks, builds nothing."""
    return not ready(need)


def note(state: GameState, goal: int | None) -> str | None:
    """What a view says beside the hints while their chances are being prepared (starting that
    preparation), the failure if it failed, or None (ready, or no chances for this game)."""
    wanted = need(state, goal)
    if wanted is None or ready(wanted):
        return None
    found = start(wanted)
    return None if found.ok else describe(found)


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
    if job.need.kind == "win":
        return N_("Preparing the chances to win (once, a few minutes): {done} done."), {"done": done}
    text = N_("Preparing the chances to beat {goal} (once, a few minutes): {done} done.")
    return text, {"goal": job.need.goal, "done": done}
