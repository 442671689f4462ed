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
ChanceKind.WIN
>>> need(GameState.new(rules.get("yacht"), ("Ann",)), 250).kind
ChanceKind.BEAT
"""

from __future__ import annotations

import enum
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass, field

from fivedice.engine.state import GameState
from fivedice.i18n import N_, _, format_percent
from fivedice.rules import RuleSet

__all__ = [
    "BUILD_MB", "Budget", "ChanceKind", "Job", "Need", "configure", "describe", "for_level", "job", "message", "need",
    "needs_build", "note", "ready", "resident_mb", "start", "wait",
]  # fmt: skip


class ChanceKind(enum.StrEnum):
    """What a preparation is for (:attr:`Need.kind`; the chance values are those the web sends)."""

    WIN = "win"
    """The chance to finish first (two or more players): the beat table."""
    BEAT = "beat"
    """The chance to finish above a goal (alone): a target table."""
    SOLVER = "solver"
    """The solver of a rule set alone (a hint or a computer level needs it)."""

    def __repr__(self) -> str:
        return f"{type(self).__name__}.{self.name}"


@dataclass(frozen=True, slots=True)
class Need:
    """What a hint's chances need: ``kind`` ``"win"`` (the beat table of ``rules``) or ``"beat"`` (a
    target table covering final scores above ``goal``); ``"solver"`` is the solver of ``rules`` alone (a
    hint or a computer level needs it, and it is not shipped or cached)."""

    kind: ChanceKind
    rules: RuleSet
    goal: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "kind", ChanceKind(self.kind))


@dataclass(slots=True, eq=False)
class Job:
    """A preparation: ``share`` of it done, ``error`` (one sentence) if it failed, ``done`` when over.
    ``refusal`` (an untranslated sentence and its fields) when the process's :class:`Budget` refused to start
    it: such a job is not kept, and asking again later may start it."""

    need: Need
    share: float = 0.0
    error: str | None = None
    done: threading.Event = field(default_factory=threading.Event)
    refusal: tuple[str, dict[str, object]] | None = None

    @property
    def ok(self) -> bool:
        """Whether it finished without error."""
        return self.done.is_set() and self.error is None


@dataclass(frozen=True, slots=True)
class Budget:
    """What one process may spend on preparations (a server sets it; the terminal has no limit): at most
    ``builds`` queued or running at once, and none started while the process's resident memory plus
    :data:`BUILD_MB` would pass ``memory_mb``."""

    builds: int | None = None
    memory_mb: int | None = None


BUILD_MB = 1280
"""The most memory one preparation may take (Kismet's largest chance table holds 1.19 GiB)."""

_BUDGET = [Budget()]


def configure(budget: Budget) -> None:
    """Set this process's :class:`Budget` (``fivedice serve``'s ``--chance-builds`` and ``--chance-memory``)."""
    _BUDGET[0] = budget


def resident_mb() -> int:
    """This process's resident memory in MB (Linux's ``/proc``; elsewhere its peak)."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 2**20
    except (OSError, ValueError, IndexError):
        import resource

        return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) // 1024


def _refusal() -> tuple[str, dict[str, object]] | None:
    """Why the budget refuses a new preparation now (called under ``_LOCK``), or None."""
    budget = _BUDGET[0]
    pending = sum(1 for j in _JOBS.values() if not j.done.is_set())
    if budget.builds is not None and pending >= budget.builds:
        text = N_("The server is preparing {count} tables, its limit; chances and solver levels wait for one to end.")
        return text, {"count": pending}
    if budget.memory_mb is not None:
        used = resident_mb()
        if used + BUILD_MB > budget.memory_mb:
            text = N_(
                "The server holds {used} MB and a preparation may take {more} MB more, above its limit of {limit} MB; "
                "chances and solver levels wait."
            )
            return text, {"used": used, "more": BUILD_MB, "limit": budget.memory_mb}
    return None


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
        return Need(ChanceKind.WIN, state.rules)
    if goal is not None:
        return Need(ChanceKind.BEAT, state.rules, goal)
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
    return need.kind is not ChanceKind.SOLVER and ready_for(need.rules)


def start(need: Need) -> Job:
    """Start preparing ``need`` (once per process; a later call returns the same job)."""
    with _LOCK:
        found = _JOBS.get(need)
        if found is not None:
            return found
        refusal = _refusal()
        if refusal is not None:  # not kept: asked again once the budget allows, it starts
            refused = Job(need, share=1.0, error=_(refusal[0], **refusal[1]), refusal=refusal)
            refused.done.set()
            return refused
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

    solver = solver_for(need.rules)
    if need.kind is ChanceKind.SOLVER:
        return
    if need.goal is not None:
        check_target(need.goal + 1)  # the chance of finishing above the goal: of reaching one more
    moments(solver, progress)


def for_level(level: str, state: GameState) -> Need | None:
    """What a computer level needs prepared to play ``state``'s game: ``win`` with rivals, the beat
    table; ``target:T``, a target table; else None."""
    from fivedice.players.levels import SOLVER_LEVELS, check_level, target_of

    if state.rules.solver_refusal() is not None:
        return None
    key = check_level(level, state.rules)  # "Target:0300" is target:300
    if key == "win" and len(state.players) > 1:
        return Need(ChanceKind.WIN, state.rules)
    target = target_of(key)
    if target:
        return Need(ChanceKind.BEAT, state.rules, target - 1)
    return solver_need(state.rules) if key in SOLVER_LEVELS or key == "win" else None


def solver_need(rules: RuleSet) -> Need | None:
    """The solver of ``rules`` as a preparation when it is neither loaded nor ready to load (shipped or in the
    user cache), else None: building it takes seconds to minutes, never on a request's path."""
    if rules in _SOLVER_READY or rules.solver_refusal() is not None:
        return None
    from fivedice.solver import readiness

    if readiness(rules).ready:  # looks at the cache folder once per rule set
        _SOLVER_READY.add(rules)
        return None
    return Need(ChanceKind.SOLVER, rules)


_SOLVER_READY: set[RuleSet] = set()


def needs_build(need: Need) -> bool:
    """Whether preparing ``need`` would build something: the solver, or the moments (a rule set with
    options that ship none: neither in memory, nor shipped, nor in the user cache). Looks, builds nothing."""
    if need.kind is ChanceKind.SOLVER:
        return True  # asked for only when the solver is neither loaded nor ready to load
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
    if job.refusal is not None:
        return job.refusal
    done = format_percent(job.share, 0)
    if job.need.kind is ChanceKind.SOLVER:
        return N_("Preparing the solver for these rules (once, up to a few minutes): {done} done."), {"done": done}
    if job.need.kind is ChanceKind.WIN:
        return N_("Preparing the chances to win (once, a few minutes): {done} done."), {"done": done}
    text = N_("Preparing the chances to beat {goal} (once, a few minutes): {done} done.")
    return text, {"goal": job.need.goal, "done": done}
