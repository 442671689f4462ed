"""Challenges: every player of a challenge meets the same dice (duplicate play, as in bridge).

A challenge is a code (a date, ``daily`` for today's, or any word); with the rule set it fixes
the dice tape (see :mod:`fivedice.table.tape`): the dice depend only on the code, the rule set, the
round, the roll number and the positions rerolled (and, for the challenges a server hosts, on the
server's secret key, so that their dice cannot be worked out from the code offline; the codes friends
play in the terminal stay public). So every first roll of every round is the same
for every player, the same choices always meet the same dice, and what the optimal player made of
the same dice is the optimal strategy replayed on the same tape.

>>> challenge_code("  Friday Night ")
'friday night'
>>> len(challenge_code("daily")) == 10
True
"""

from __future__ import annotations

import enum
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from functools import lru_cache

from fivedice.errors import FiveDiceError
from fivedice.i18n import N_, _, format_decimal
from fivedice.rules import RuleSet
from fivedice.table.seat import Seat, SeatKind
from fivedice.table.table import Table

__all__ = [
    "DAILY",
    "NO_HINTS",
    "RANKED",
    "Aim",
    "AimKind",
    "ChallengeError",
    "ChallengeReport",
    "Goal",
    "PlayerReport",
    "aim_for",
    "aim_kind",
    "benchmark_level",
    "challenge_code",
    "check_open",
    "goal",
    "replay_on_tape",
    "report",
    "report_lines",
]

DAILY = "daily"
"""The code that stands for today's challenge (the local date, ``YYYY-MM-DD``)."""

NO_HINTS = N_("A challenge is played without hints, as on the web: its leaderboard compares your own decisions.")
"""Why the terminal game and the line mode give no hints in a challenge (show it as ``_(NO_HINTS)``)."""
RANKED = N_("Ranked: each player's first attempt, without hints or computer players.")
"""What a challenge's leaderboard (``Store.challenge_board``) ranks, said under it."""

MAX_LENGTH = 64

BENCHMARKS = ("optimal", "tali")
"""The benchmark level where the solver plays the rule set, and where it does not (several cards)."""


class ChallengeError(FiveDiceError):
    """A challenge code that cannot be used."""


def challenge_code(text: str, today: date | None = None) -> str:
    """The canonical form of a challenge code: ``daily`` becomes today's date; other codes are
    trimmed, spaces collapsed, Unicode-normalised and case-folded (``Friday`` and ``friday`` are one)."""
    code = " ".join(unicodedata.normalize("NFC", text).split()).casefold()
    if code == DAILY:
        return (today or date.today()).isoformat()
    if not code or len(code) > MAX_LENGTH or not code.isprintable():
        raise ChallengeError(
            _(
                "Challenge code {code!r} is not usable; expected a word or date of 1 to {most} printable characters.",
                code=text[:80],
                most=MAX_LENGTH,
            )
        )
    return code


def check_open(code: str, today: date | None = None) -> str:
    """``code`` if it may be played now: a date later than ``today`` is refused, so that nobody plays (and
    ranks on) tomorrow's daily before it opens.

    >>> check_open("2026-12-01", date(2026, 12, 1))
    '2026-12-01'
    >>> check_open("2026-12-02", date(2026, 12, 1))
    Traceback (most recent call last):
    ...
    fivedice.table.challenge.ChallengeError: Challenge 2026-12-02 opens on that day; today is 2026-12-01.
    """
    try:
        day = date.fromisoformat(code) if len(code) == 10 else None
    except ValueError:
        day = None
    now = today or date.today()
    if day is not None and day > now:
        text = _("Challenge {code} opens on that day; today is {today}.", code=code, today=now.isoformat())
        raise ChallengeError(text)
    return code


def benchmark_level(rules: RuleSet) -> str:
    """The player a challenge compares with: ``optimal`` where the solver plays the rule set, else ``tali``
    (the strongest level that plays several cards)."""
    return BENCHMARKS[rules.solver_refusal() is not None]


def replay_on_tape(rules: RuleSet, code: str, level: str | None = None, key: bytes | None = None) -> Table:
    """The game a computer of ``level`` (default :func:`benchmark_level`) plays on challenge ``code``'s dice
    tape (sealed by ``key`` on a server): the same dice a player met wherever it makes the same choices,
    replayed, not simulated anew."""
    level = level or benchmark_level(rules)
    table = Table(rules, [Seat(level.capitalize(), SeatKind.COMPUTER, level)], challenge=code, challenge_key=key)
    table.advance()
    return table


@dataclass(frozen=True, slots=True)
class Goal:
    """What a challenge's benchmark player (``level``) scored on its dice tape: the ``total`` to beat."""

    total: int
    level: str


@lru_cache(maxsize=64)
def goal(rules: RuleSet, code: str, key: bytes | None = None) -> Goal:
    """The score to beat on challenge ``code``: the :func:`benchmark_level` player's total on its dice tape
    (sealed by ``key`` on a server; replayed once per process: a solo game shows it at the start and
    compares with it at the end)."""
    level = benchmark_level(rules)
    return Goal(replay_on_tape(rules, code, level, key).state.total(0), level)


class AimKind(enum.StrEnum):
    """What a player alone plays to beat."""

    BENCHMARK = "benchmark"
    """A solo challenge: what the benchmark player scored on the same dice (:func:`goal`)."""
    BEST = "best"
    """A solo game: the player's best total under these rules (from the high scores)."""


@dataclass(frozen=True, slots=True)
class Aim:
    """The score a player alone plays to beat: its ``kind``, the ``total`` and the benchmark's ``level``."""

    kind: AimKind
    total: int
    level: str | None = None


def aim_kind(table: Table) -> AimKind | None:
    """The goal rule, the one place it is written: a solo challenge plays to beat the benchmark, a solo game
    one's best, anything else (several players, a computer alone) nothing."""
    if not table.solitaire or table.seats[0].is_computer:
        return None
    return AimKind.BENCHMARK if table.challenge is not None else AimKind.BEST


def aim_for(table: Table, best: Callable[[str, RuleSet], int | None] | None = None) -> Aim | None:
    """The goal of ``table`` by :func:`aim_kind` (whether it is new or resumed), or None; ``best`` looks up a
    player's best total (the high scores'; None: not kept). The benchmark is replayed once per process
    (slow the first time: call it in a worker). The hints' chances are of beating it: set ``table.goal``."""
    kind = aim_kind(table)
    if kind is AimKind.BENCHMARK:
        assert table.challenge is not None
        bench = goal(table.rules, table.challenge, table.challenge_key)
        return Aim(kind, bench.total, bench.level)
    if kind is AimKind.BEST and best is not None:
        total = best(table.seats[0].name, table.rules)
        return Aim(kind, total) if total is not None else None
    return None


@dataclass(frozen=True, slots=True)
class PlayerReport:
    """One player of a challenge: their total and, where the advisor rates the game, what their decisions
    cost in expected points and the grade that gives."""

    seat: int
    name: str
    total: int
    loss: float | None
    grade: str | None


@dataclass(frozen=True, slots=True)
class ChallengeReport:
    """How a challenge game went, next to what ``level`` made of the same dice."""

    code: str
    level: str
    benchmark: int
    players: tuple[PlayerReport, ...]


def report(table: Table) -> ChallengeReport:
    """Each player's total and decision cost next to the benchmark player's total on the same tape."""
    if table.challenge is None:
        raise ChallengeError(_("This game is not a challenge; it has no dice tape to compare on."))
    bench = goal(table.rules, table.challenge, table.challenge_key)
    losses: dict[int, tuple[float, str]] = {}
    if table.rules.solver_refusal() is None:
        from fivedice.services.analysis import analyze  # the solver: only when a challenge ends

        for p in analyze(table.game).players:
            losses[p.seat] = (p.total_loss, p.grade)
    players = tuple(
        PlayerReport(
            seat,
            seat_.name,
            table.state.total(seat),
            losses[seat][0] if seat in losses else None,
            losses[seat][1] if seat in losses else None,
        )
        for seat, seat_ in enumerate(table.seats)
        if not seat_.is_computer
    )
    return ChallengeReport(table.challenge, bench.level, bench.total, players)


def report_lines(rep: ChallengeReport) -> list[str]:
    """The report in sentences of the current language (the one narrator of challenge results)."""
    lines = [
        _(
            "Challenge {code}: on the same dice, the {level} player scored {total}.",
            code=rep.code,
            level=rep.level,
            total=rep.benchmark,
        )
    ]
    for p in rep.players:
        if p.loss is None:
            lines.append(_("{player}: {total}.", player=p.name, total=p.total))
        else:
            lines.append(
                _(
                    "{player}: {total}; your decisions cost {loss} expected points (grade {grade}).",
                    player=p.name,
                    total=p.total,
                    loss=format_decimal(p.loss, 1),
                    grade=p.grade,
                )
            )
    return lines
