"""A player's story from their finished games: counts, wins, rivals, means and bests per rule set,
Yahtzees, the upper-bonus rate, decision loss and luck over time, personal bests, achievements and the
decision rating.

The same figures serve the local score store (``fivedice history PLAYER --json``) and the web server's
accounts (``GET /api/me/stats``, the profile page): both hand :func:`profile` a list of
:class:`PlayedGame`, oldest first.

>>> g = PlayedGame("1", 0.0, "yacht", 1, 150, 1, yahtzees=1, decisions=40, loss=8.0, optimal=169.77)
>>> p = profile([g])
>>> p.games, p.best, round(p.timeline[0].luck, 2), [str(a.kind) for a in p.achievements]
(1, 150, -11.77, ['yahtzee'])
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any

from fivedice.engine.actions import Score
from fivedice.engine.game import Game
from fivedice.i18n import N_
from fivedice.services.grades import grade

__all__ = [
    "ACHIEVEMENT_TITLES",
    "CHALLENGE_MARGIN",
    "RATING_GAMES",
    "Achievement",
    "AchievementKind",
    "DecisionRating",
    "PersonalBest",
    "PlayedGame",
    "Profile",
    "Rival",
    "RuleStats",
    "TimePoint",
    "count_yahtzees",
    "decision_rating",
    "profile",
]

RATING_GAMES = 20
"""The decision rating is over the last this many analysed games."""

CHALLENGE_MARGIN = 5
"""A challenge game within this many points of the benchmark (optimal) player earns an achievement."""


class AchievementKind(StrEnum):
    """What rewards play rather than grinding."""

    YAHTZEE = "yahtzee"
    UPPER_BONUS = "upper_bonus"
    FLAWLESS = "flawless"
    NEW_BEST = "new_best"
    CHALLENGE = "challenge"


ACHIEVEMENT_TITLES: dict[AchievementKind, str] = {
    AchievementKind.YAHTZEE: N_("Five alike: a Yahtzee scored"),
    AchievementKind.UPPER_BONUS: N_("Upper bonus earned"),
    AchievementKind.FLAWLESS: N_("A game without a mistake"),
    AchievementKind.NEW_BEST: N_("Beat your best"),
    AchievementKind.CHALLENGE: N_("A challenge within 5 points of optimal"),
}
"""Each achievement's title (translate with ``_`` where shown)."""


@dataclass(frozen=True, slots=True)
class PlayedGame:
    """One player's result in one finished game (``played_at`` in seconds since the epoch).

    ``loss`` and ``decisions`` come from the game's analysis (None where the solver cannot rate the rules),
    ``optimal`` is the rule set's optimal mean, so luck is ``total - optimal + loss``; ``opponents`` are the
    other players' ``(name, place)``; ``benchmark`` is a challenge's optimal total on the same dice."""

    game: str
    played_at: float
    rules: str
    players: int
    total: int
    place: int
    upper_bonus: int = 0
    has_upper_bonus: bool = True
    yahtzees: int = 0
    decisions: int | None = None
    loss: float | None = None
    optimal: float | None = None
    opponents: tuple[tuple[str, int], ...] = ()
    challenge: str | None = None
    benchmark: int | None = None
    replay: str | None = None

    @property
    def luck(self) -> float | None:
        """Points the dice gave against the optimal mean (None without an analysis)."""
        if self.loss is None or self.optimal is None:
            return None
        return self.total - self.optimal + self.loss

    @property
    def mean_loss(self) -> float | None:
        """Expected points lost per decision (None without an analysis)."""
        return self.loss / self.decisions if self.loss is not None and self.decisions else None

    def to_json(self) -> dict[str, Any]:
        """The game as JSON-ready data (with its luck and mean loss)."""
        return asdict(self) | {
            "opponents": [{"name": n, "place": p} for n, p in self.opponents],
            "luck": self.luck,
            "mean_loss": self.mean_loss,
            "grade": None if self.mean_loss is None else grade(self.mean_loss),
        }


@dataclass(frozen=True, slots=True)
class RuleStats:
    """Games, mean and best under one rule set."""

    rules: str
    games: int
    mean: float
    best: int


@dataclass(frozen=True, slots=True)
class Rival:
    """Games against one opponent and how many of them this player finished ahead of them."""

    name: str
    games: int
    wins: int

    @property
    def rate(self) -> float:
        """The share of those games won against this opponent."""
        return self.wins / self.games


@dataclass(frozen=True, slots=True)
class TimePoint:
    """One analysed game on the timeline: mean loss per decision, its grade, and the dice's luck."""

    game: str
    played_at: float
    rules: str
    mean_loss: float
    grade: str
    luck: float
    loss: float


@dataclass(frozen=True, slots=True)
class PersonalBest:
    """A new best total under a rule set (the first game sets one too)."""

    game: str
    played_at: float
    rules: str
    total: int


@dataclass(frozen=True, slots=True)
class Achievement:
    """An achievement: when it was first earned (which game) and how many games earned it."""

    kind: AchievementKind
    game: str
    played_at: float
    count: int


@dataclass(frozen=True, slots=True)
class DecisionRating:
    """Mean expected points lost per decision over the last analysed games, with a 95 % interval
    (None with fewer than two games); lower is better, and luck cannot move it."""

    mean: float
    low: float | None
    high: float | None
    games: int
    decisions: int

    @property
    def grade(self) -> str:
        """The grade of the mean."""
        return grade(self.mean)


@dataclass(frozen=True, slots=True)
class Profile:
    """Every figure of a player's profile."""

    games: int
    wins: int
    multiplayer: int
    best: int | None
    mean: float | None
    yahtzees: int
    bonus_rate: float | None
    per_rules: tuple[RuleStats, ...]
    rivals: tuple[Rival, ...]
    timeline: tuple[TimePoint, ...]
    bests: tuple[PersonalBest, ...]
    achievements: tuple[Achievement, ...]
    decision_rating: DecisionRating | None
    history: tuple[PlayedGame, ...] = field(default=())

    def to_json(self, history: int = 50) -> dict[str, Any]:
        """The profile as JSON-ready data, with the newest ``history`` games."""
        return {
            "games": self.games,
            "wins": self.wins,
            "multiplayer": self.multiplayer,
            "best": self.best,
            "mean": self.mean,
            "yahtzees": self.yahtzees,
            "bonus_rate": self.bonus_rate,
            "per_rules": [asdict(r) for r in self.per_rules],
            "rivals": [asdict(r) | {"rate": r.rate} for r in self.rivals],
            "timeline": [asdict(t) for t in self.timeline],
            "bests": [asdict(b) for b in self.bests],
            "achievements": [asdict(a) | {"kind": str(a.kind)} for a in self.achievements],
            "decision_rating": None
            if self.decision_rating is None
            else asdict(self.decision_rating) | {"grade": self.decision_rating.grade},
            "history": [g.to_json() for g in reversed(self.history[-history:] if history else ())],
        }


def count_yahtzees(game: Game, seat: int) -> int:
    """How many times ``seat`` scored five alike (a Yahtzee rolled, in whatever box it went)."""
    count, state = 0, game.initial
    for record in game.log:
        if isinstance(record, Score) and state.current == seat and state.dice is not None:
            count += len(set(state.dice)) == 1
        state = state.apply(record)
    return count


def decision_rating(games: Sequence[PlayedGame], last: int = RATING_GAMES) -> DecisionRating | None:
    """The decision rating over the last ``last`` analysed games (oldest first in ``games``): their points
    lost over their decisions, with a 95 % interval from the games' spread (a ratio estimate)."""
    rated = [g for g in games if g.loss is not None and g.decisions][-last:]
    if not rated:
        return None
    losses = [float(g.loss or 0.0) for g in rated]
    counts = [int(g.decisions or 0) for g in rated]
    total = sum(counts)
    mean = sum(losses) / total
    n = len(rated)
    if n < 2:
        return DecisionRating(mean, None, None, n, total)
    # the variance of a ratio estimator: residuals of each game's loss against its share of the mean
    spread = sum((loss - mean * d) ** 2 for loss, d in zip(losses, counts, strict=True)) / (n - 1)
    se = math.sqrt(n * spread) / total
    return DecisionRating(mean, max(0.0, mean - 1.96 * se), mean + 1.96 * se, n, total)


def profile(games: Sequence[PlayedGame]) -> Profile:
    """A player's profile from their games, oldest first."""
    ordered = sorted(games, key=lambda g: (g.played_at, g.game))
    totals = [g.total for g in ordered]
    multi = [g for g in ordered if g.players > 1]
    eligible = [g for g in ordered if g.has_upper_bonus]
    per: dict[str, list[int]] = {}
    rivals: dict[str, list[int]] = {}
    bests: list[PersonalBest] = []
    best_of: dict[str, int] = {}
    earned: dict[AchievementKind, list[PlayedGame]] = {k: [] for k in AchievementKind}
    timeline: list[TimePoint] = []
    for g in ordered:
        per.setdefault(g.rules, []).append(g.total)
        for name, place in g.opponents:
            rival = rivals.setdefault(name, [0, 0])
            rival[0] += 1
            rival[1] += g.place < place
        before = best_of.get(g.rules)
        if before is None or g.total > before:
            best_of[g.rules] = g.total
            bests.append(PersonalBest(g.game, g.played_at, g.rules, g.total))
            if before is not None:
                earned[AchievementKind.NEW_BEST].append(g)
        if g.yahtzees:
            earned[AchievementKind.YAHTZEE].append(g)
        if g.upper_bonus > 0:
            earned[AchievementKind.UPPER_BONUS].append(g)
        if g.decisions and g.loss is not None and g.loss <= 1e-9:
            earned[AchievementKind.FLAWLESS].append(g)
        if g.challenge is not None and g.benchmark is not None and g.total >= g.benchmark - CHALLENGE_MARGIN:
            earned[AchievementKind.CHALLENGE].append(g)
        mean_loss, luck = g.mean_loss, g.luck
        if mean_loss is not None and luck is not None:
            timeline.append(TimePoint(g.game, g.played_at, g.rules, mean_loss, grade(mean_loss), luck, g.loss or 0.0))
    return Profile(
        games=len(ordered),
        wins=sum(1 for g in multi if g.place == 1),
        multiplayer=len(multi),
        best=max(totals, default=None),
        mean=sum(totals) / len(totals) if totals else None,
        yahtzees=sum(g.yahtzees for g in ordered),
        bonus_rate=sum(1 for g in eligible if g.upper_bonus > 0) / len(eligible) if eligible else None,
        per_rules=tuple(RuleStats(r, len(t), sum(t) / len(t), max(t)) for r, t in sorted(per.items())),
        rivals=tuple(Rival(n, c, w) for n, (c, w) in sorted(rivals.items(), key=lambda kv: (-kv[1][0], kv[0]))),
        timeline=tuple(timeline),
        bests=tuple(bests),
        achievements=tuple(
            Achievement(kind, won[0].game, won[0].played_at, len(won)) for kind, won in earned.items() if won
        ),
        decision_rating=decision_rating(ordered),
        history=tuple(ordered),
    )
