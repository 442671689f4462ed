"""A simulation's statistics as counts that add up: runs on many machines merge into one.

:class:`SimSummary` keeps, per seat, the histogram of final scores and the counts behind every
rate (zeros per box, upper bonuses, extra Yahtzees, shared first places). Every statistic of
:class:`SeatStats` follows from them, so the summaries of shards of one run (``simulate
--shard I/N``) or of independent runs merge exactly (:func:`merge`), and ``simulate --json``
carries them (:meth:`SimSummary.to_json`, read back by :meth:`SimSummary.from_json`).

>>> a = SimSummary("yacht", ("greedy",), 1, 0, 2, "python", 0.0, (SeatCounts({10: 1, 20: 1}),))
>>> b = SimSummary("yacht", ("greedy",), 1, 0, 1, "python", 0.0, (SeatCounts({20: 1}),), shard=(1, 2))
>>> merged = merge([a.with_shard((0, 2)), b])
>>> merged.games, merged.stats()[0].mean, merged.stats()[0].median
(3, 16.666666666666668, 20.0)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from fivedice.errors import FiveDiceError
from fivedice.i18n import _

__all__ = ["FORMAT", "PERCENTILES", "MergeError", "SeatCounts", "SeatStats", "SimSummary", "merge", "wilson"]

PERCENTILES = (1, 5, 25, 75, 95, 99)
"""The percentiles of the final score that the statistics report."""

FORMAT = 1
"""The version of the counts in ``simulate --json`` (``"format"``)."""


class MergeError(FiveDiceError):
    """Simulation results that cannot be merged, or a file that is not one."""


def wilson(p: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval (95% by default) of a rate ``p`` seen over ``n`` trials.

    >>> [round(x, 4) for x in wilson(0.5, 100)]
    [0.4038, 0.5962]
    """
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass(frozen=True, slots=True)
class SeatStats:
    """Statistics of one seat's final scores over a run.

    ``zero_rate[box]`` is how often the box was scored zero (per card); ``upper_bonus_rate``
    how often a card earned its upper bonus; ``yahtzee_bonus_rate`` how often a game had at
    least one extra-Yahtzee bonus, ``yahtzee_bonus_mean`` their mean number per game. With
    several seats, ``win_rate`` counts a shared first place as a fraction and ``win_ci`` is
    its 95% confidence interval (Wilson score interval).
    """

    seat: int
    strategy: str
    games: int
    mean: float
    std: float
    median: float
    percentiles: dict[int, float]
    zero_rate: dict[str, float]
    upper_bonus_rate: float
    yahtzee_bonus_rate: float
    yahtzee_bonus_mean: float
    win_rate: float | None = None
    win_ci: tuple[float, float] | None = None
    wins: int | None = None
    ties: int | None = None

    @property
    def mean_ci(self) -> tuple[float, float]:
        """The 95% confidence interval of the mean."""
        half = 1.96 * self.std / math.sqrt(max(self.games, 1))
        return (self.mean - half, self.mean + half)


@dataclass(frozen=True, slots=True)
class SeatCounts:
    """The sufficient statistics of one seat: ``histogram[total]`` games; ``zeros[box]`` cards
    with a zero there; ``upper_bonus`` cards with an upper bonus; ``extra_games`` games with an
    extra-Yahtzee bonus and ``extra`` their number; ``firsts[k]`` games this seat shared first
    place with ``k - 1`` others (``k = 1``: won alone)."""

    histogram: dict[int, int]
    zeros: dict[str, int] = field(default_factory=dict)
    upper_bonus: int = 0
    extra_games: int = 0
    extra: int = 0
    firsts: dict[int, int] = field(default_factory=dict)

    def __add__(self, other: SeatCounts) -> SeatCounts:
        return SeatCounts(
            _add(self.histogram, other.histogram),
            _add(self.zeros, other.zeros),
            self.upper_bonus + other.upper_bonus,
            self.extra_games + other.extra_games,
            self.extra + other.extra,
            _add(self.firsts, other.firsts),
        )

    @property
    def games(self) -> int:
        """Games counted."""
        return sum(self.histogram.values())

    def percentile(self, q: float) -> float:
        """The ``q``-th percentile of the totals, interpolated as ``numpy.percentile`` does."""
        n = self.games
        position = q / 100 * (n - 1)
        low = math.floor(position)
        below, above = self._order(low), self._order(min(low + 1, n - 1))
        return below + (above - below) * (position - low)

    def _order(self, k: int) -> int:
        """The ``k``-th smallest total (0-based)."""
        seen = 0
        for total in sorted(self.histogram):
            seen += self.histogram[total]
            if seen > k:
                return total
        raise IndexError(k)


def _add(a: Mapping[Any, int], b: Mapping[Any, int]) -> dict[Any, int]:
    out = dict(a)
    for key, count in b.items():
        out[key] = out.get(key, 0) + count
    return out


@dataclass(frozen=True, slots=True)
class SimSummary:
    """What a run (or merged runs) counted; ``shard`` is ``(i, n)`` for shard ``i`` of ``n``
    of a run, None for a whole run. ``boxes`` names the boxes, ``cards`` counts cards per seat."""

    rules: str
    strategies: tuple[str, ...]
    cards: int
    seed: int | None
    games: int
    engine: str
    seconds: float
    seats: tuple[SeatCounts, ...]
    boxes: tuple[str, ...] = ()
    upper_bonus_rule: bool = True
    labels: tuple[str, ...] = ()
    yahtzee_bonus_rule: bool = False
    shard: tuple[int, int] | None = None
    shards: tuple[tuple[int, int], ...] = ()

    def with_shard(self, shard: tuple[int, int] | None) -> SimSummary:
        """The same counts marked as shard ``shard``."""
        return replace(self, shard=shard)

    def stats(self) -> list[SeatStats]:
        """Statistics for every seat."""
        return [self._seat(s) for s in range(len(self.strategies))]

    def reach(self, target: int) -> list[float]:
        """Per seat, the share of games finishing with at least ``target`` points."""
        return [sum(c for t, c in seat.histogram.items() if t >= target) / max(self.games, 1) for seat in self.seats]

    def _seat(self, s: int) -> SeatStats:
        counts = self.seats[s]
        n = counts.games
        total = sum(t * c for t, c in counts.histogram.items())
        mean = total / n
        var = sum(c * (t - mean) ** 2 for t, c in counts.histogram.items()) / n
        cards = max(1, self.cards) * n
        win: dict[str, Any] = {}
        if len(self.strategies) > 1:
            p = sum(c / k for k, c in sorted(counts.firsts.items())) / n
            win = {
                "win_rate": p,
                "win_ci": wilson(p, n),
                "wins": counts.firsts.get(1, 0),
                "ties": sum(c for k, c in counts.firsts.items() if k > 1),
            }
        return SeatStats(
            seat=s,
            strategy=self.strategies[s],
            games=n,
            mean=mean,
            std=math.sqrt(var),
            median=counts.percentile(50),
            percentiles={q: counts.percentile(q) for q in PERCENTILES},
            zero_rate={box: counts.zeros.get(box, 0) / cards for box in self.boxes},
            upper_bonus_rate=counts.upper_bonus / cards if self.upper_bonus_rule else 0.0,
            yahtzee_bonus_rate=counts.extra_games / n,
            yahtzee_bonus_mean=counts.extra / n,
            **win,
        )

    # -- JSON ----------------------------------------------------------------------------------
    def to_json(self, reach: Sequence[int] = ()) -> dict[str, Any]:
        """The run, its statistics and its counts as JSON-ready data (``reach``: per seat, the share
        of games reaching each of those targets)."""
        seats = []
        for stats, counts in zip(self.stats(), self.seats, strict=True):
            data = _json_stats(stats)
            for target in reach:
                data.setdefault("reach", {})[str(target)] = self.reach(target)[stats.seat]
            data["histogram"] = {str(t): c for t, c in sorted(counts.histogram.items())}
            data["counts"] = {
                "zeros": counts.zeros,
                "upper_bonus": counts.upper_bonus,
                "extra_games": counts.extra_games,
                "extra": counts.extra,
                "firsts": {str(k): c for k, c in sorted(counts.firsts.items())},
            }
            seats.append(data)
        out: dict[str, Any] = {
            "format": FORMAT,
            "rules": self.rules,
            "games": self.games,
            "seed": self.seed,
            "strategies": list(self.strategies),
            "engine": self.engine,
            "seconds": round(self.seconds, 3),
            "cards": self.cards,
            "boxes": list(self.boxes),
            "labels": list(self.labels),
            "upper_bonus_rule": self.upper_bonus_rule,
            "yahtzee_bonus_rule": self.yahtzee_bonus_rule,
            "seats": seats,
        }
        if self.shard is not None:
            out["shard"] = list(self.shard)
        if self.shards:
            out["shards"] = [list(s) for s in self.shards]
        return out

    @classmethod
    def from_json(cls, data: object, where: str = "input") -> SimSummary:
        """A summary from :meth:`to_json`'s data; :class:`MergeError` names what is wrong."""
        try:
            assert isinstance(data, dict)
            if data.get("format") != FORMAT:
                raise MergeError(
                    _("{where} is not simulate --json output of format {format}.", where=where, format=FORMAT)
                )
            seats = []
            for seat in data["seats"]:
                c = seat["counts"]
                seats.append(
                    SeatCounts(
                        {int(t): _count(n) for t, n in seat["histogram"].items()},
                        {str(b): _count(n) for b, n in c["zeros"].items()},
                        _count(c["upper_bonus"]),
                        _count(c["extra_games"]),
                        _count(c["extra"]),
                        {int(k): _count(n) for k, n in c["firsts"].items()},
                    )
                )
            shard = data.get("shard")
            summary = cls(
                str(data["rules"]),
                tuple(str(s) for s in data["strategies"]),
                _count(data["cards"]),
                None if data["seed"] is None else int(data["seed"]),
                _count(data["games"]),
                str(data["engine"]),
                float(data["seconds"]),
                tuple(seats),
                tuple(str(b) for b in data["boxes"]),
                bool(data["upper_bonus_rule"]),
                tuple(str(b) for b in data["labels"]),
                bool(data["yahtzee_bonus_rule"]),
                (int(shard[0]), int(shard[1])) if shard is not None else None,
                tuple((int(i), int(n)) for i, n in data.get("shards", ())),
            )
        except MergeError:
            raise
        except (AssertionError, KeyError, TypeError, ValueError, IndexError):
            raise MergeError(
                _("{where} is not simulate --json output: a field is missing or of the wrong type.", where=where)
            ) from None
        if len(summary.seats) != len(summary.strategies) or any(s.games != summary.games for s in summary.seats):
            raise MergeError(_("{where} does not add up: its seats' counts disagree with its games.", where=where))
        return summary


def _count(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(value)
    return value


def _json_stats(stats: SeatStats) -> dict[str, Any]:
    data: dict[str, Any] = {
        "seat": stats.seat,
        "strategy": stats.strategy,
        "games": stats.games,
        "mean": stats.mean,
        "std": stats.std,
        "median": stats.median,
        "percentiles": {str(k): v for k, v in stats.percentiles.items()},
        "zero_rate": stats.zero_rate,
        "upper_bonus_rate": stats.upper_bonus_rate,
        "yahtzee_bonus_rate": stats.yahtzee_bonus_rate,
        "yahtzee_bonus_mean": stats.yahtzee_bonus_mean,
        "win_rate": stats.win_rate,
        "win_ci": list(stats.win_ci) if stats.win_ci is not None else None,
        "wins": stats.wins,
        "ties": stats.ties,
        "mean_ci": list(stats.mean_ci),
    }
    return data


def merge(summaries: Sequence[SimSummary]) -> SimSummary:
    """One summary of several runs of the same rules and strategies: shards of one run (each once)
    or independent runs. The seed is kept when every part has the same one."""
    if not summaries:
        raise MergeError(_("Nothing to merge; expected at least one simulation result."))
    first = summaries[0]
    seen: set[tuple[int | None, tuple[int, int]]] = set()
    for part in summaries:
        if (part.rules, part.strategies) != (first.rules, first.strategies):
            raise MergeError(
                _(
                    "Results of {rules} with {strategies} cannot be merged with {other} with {others}.",
                    rules=part.rules,
                    strategies=",".join(part.strategies),
                    other=first.rules,
                    others=",".join(first.strategies),
                )
            )
        for shard in (part.shard,) if part.shard is not None else part.shards:
            key = (part.seed, shard)
            if key in seen:
                raise MergeError(
                    _("Shard {i}/{n} of seed {seed} is given twice.", i=shard[0] + 1, n=shard[1], seed=part.seed)
                )
            seen.add(key)
    seats = first.seats
    for part in summaries[1:]:
        seats = tuple(a + b for a, b in zip(seats, part.seats, strict=True))
    seeds = {p.seed for p in summaries}
    shards = tuple(sorted(s for _seed, s in seen))
    return SimSummary(
        first.rules,
        first.strategies,
        first.cards,
        first.seed if len(seeds) == 1 else None,
        sum(p.games for p in summaries),
        first.engine if len({p.engine for p in summaries}) == 1 else "mixed",
        sum(p.seconds for p in summaries),
        seats,
        first.boxes,
        first.upper_bonus_rule,
        first.labels,
        first.yahtzee_bonus_rule,
        None,
        shards,
    )
