"""Simulation at scale: many games between strategies, their statistics and a histogram.

Games are split into fixed chunks of :data:`CHUNK` games; chunk ``c`` draws its players'
own randomness from seeds derived from ``(seed, c)`` and each of its games its dice from a
seed derived from ``(seed, c, game)``, and the chunks are put back together in order, so a
run gives the same numbers whatever the number of worker processes, and two runs with the
same seed roll the same dice in each game until their players' choices differ (common
random numbers for paired comparisons). Solitaire ``optimal`` play goes through the
solver's compiled simulator.

>>> from fivedice import rules
>>> result = simulate(rules.get("yacht"), ["greedy"], games=20, seed=1, workers=1)
>>> stats = result.stats()[0]
>>> stats.games, round(stats.mean, 2) == round(float(result.totals[:, 0].mean()), 2)
(20, True)
"""

from __future__ import annotations

import math
import os
import random
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass
from multiprocessing import get_context
from typing import Any

import numpy as np
import numpy.typing as npt

from fivedice.dice import RandomRoller
from fivedice.engine.actions import Roll, RollOff, Score
from fivedice.engine.state import GameState
from fivedice.errors import FiveDiceError
from fivedice.i18n import _
from fivedice.players import LEVELS, TARGET_LEVEL, UnknownStrategyError, check_level, get, prepare
from fivedice.players.levels import TARGET
from fivedice.rules.ruleset import RuleSet

__all__ = ["CHUNK", "PERCENTILES", "SeatStats", "SimResult", "SimulationError", "plot_histogram", "simulate"]

CHUNK = 100
"""Games per chunk for the Python players (fixed, so results do not depend on workers)."""
PERCENTILES = (1, 5, 25, 75, 95, 99)
"""The percentiles of the final score that the statistics report."""

IntArray = npt.NDArray[np.int64]


class SimulationError(FiveDiceError):
    """A simulation that cannot be run as asked."""


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


@dataclass(frozen=True, slots=True, eq=False)
class SimResult:
    """Every game's outcome, by game and seat.

    ``boxes[g, s, k, i]`` is the points in box ``i`` of card ``k``; ``upper_bonus`` and
    ``extra_yahtzees`` are per card; ``win_share[g, s]`` is 1 for a sole winner, ``1/n``
    for ``n`` sharing first place.
    """

    rules: RuleSet
    strategies: tuple[str, ...]
    seed: int
    totals: IntArray
    boxes: npt.NDArray[np.int16]
    upper_bonus: npt.NDArray[np.int16]
    extra_yahtzees: npt.NDArray[np.int16]
    win_share: npt.NDArray[np.float64]
    seconds: float = 0.0
    engine: str = "python"

    @property
    def games(self) -> int:
        """How many games were played."""
        return int(self.totals.shape[0])

    def stats(self) -> list[SeatStats]:
        """Statistics for every seat."""
        return [self._seat_stats(s) for s in range(len(self.strategies))]

    def _seat_stats(self, seat: int) -> SeatStats:
        totals = self.totals[:, seat].astype(np.float64)
        n = len(totals)
        boxes = self.boxes[:, seat]
        zero = {b.name: float((boxes[:, :, i] == 0).mean()) for i, b in enumerate(self.rules.boxes)}
        extra = self.extra_yahtzees[:, seat].sum(axis=1)
        win: dict[str, Any] = {}
        if len(self.strategies) > 1:
            share = self.win_share[:, seat]
            p = float(share.mean())
            win = {
                "win_rate": p,
                "win_ci": wilson(p, n),
                "wins": int((share == 1).sum()),
                "ties": int(((share > 0) & (share < 1)).sum()),
            }
        return SeatStats(
            seat=seat,
            strategy=self.strategies[seat],
            games=n,
            mean=float(totals.mean()),
            std=float(totals.std()),
            median=float(np.median(totals)),
            percentiles={q: float(v) for q, v in zip(PERCENTILES, np.percentile(totals, PERCENTILES), strict=True)},
            zero_rate=zero,
            upper_bonus_rate=float((self.upper_bonus[:, seat] > 0).mean()) if self.rules.upper_bonus else 0.0,
            yahtzee_bonus_rate=float((extra > 0).mean()),
            yahtzee_bonus_mean=float(extra.mean()),
            **win,
        )

    def reach(self, target: int) -> list[float]:
        """Per seat, the share of games finishing with at least ``target`` points."""
        return [float(x) for x in (self.totals >= target).mean(axis=0)]

    def to_json(self, reach: Sequence[int] = ()) -> dict[str, Any]:
        """The run and its statistics as JSON-ready data (with ``reach``: per seat, the share of
        games reaching each of those targets)."""
        seats = [_json_stats(s) for s in self.stats()]
        for target in reach:
            for seat, share in zip(seats, self.reach(target), strict=True):
                seat.setdefault("reach", {})[str(target)] = share
        return {
            "rules": self.rules.spec,
            "games": self.games,
            "seed": self.seed,
            "strategies": list(self.strategies),
            "engine": self.engine,
            "seconds": round(self.seconds, 3),
            "seats": seats,
        }


def _json_stats(stats: SeatStats) -> dict[str, Any]:
    data = asdict(stats)
    data["percentiles"] = {str(k): v for k, v in stats.percentiles.items()}
    data["mean_ci"] = list(stats.mean_ci)
    if stats.win_ci is not None:
        data["win_ci"] = list(stats.win_ci)
    return data


def wilson(p: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval (95% by default) of a rate ``p`` seen over ``n`` trials.

    >>> [round(x, 4) for x in wilson(0.5, 100)]
    [0.4038, 0.5962]
    """
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


# -- running -------------------------------------------------------------------------------
def chunk_seeds(seed: int, chunk: int, seats: int) -> tuple[int, list[int]]:
    """The dice seed and the players' seeds of chunk ``chunk`` of a run seeded ``seed``."""
    state = np.random.SeedSequence(entropy=seed, spawn_key=(chunk,)).generate_state(1 + seats, dtype=np.uint64)
    return int(state[0]), [int(v) for v in state[1:]]


@dataclass(frozen=True, slots=True)
class _Chunk:
    totals: IntArray
    boxes: npt.NDArray[np.int16]
    upper_bonus: npt.NDArray[np.int16]
    extra_yahtzees: npt.NDArray[np.int16]
    win_share: npt.NDArray[np.float64]


def play_chunk(rules: RuleSet, strategies: Sequence[str], seed: int, chunk: int, first: int, count: int) -> _Chunk:
    """Play games ``first`` to ``first + count - 1`` (chunk ``chunk``) and record them."""
    seats = len(strategies)
    dice_seed, player_seeds = chunk_seeds(seed, chunk, seats)
    players = [get(level, rules, seed=s) for level, s in zip(strategies, player_seeds, strict=True)]
    ncards, nbox = len(rules.cards), len(rules.boxes)
    totals = np.zeros((count, seats), dtype=np.int64)
    boxes = np.zeros((count, seats, ncards, nbox), dtype=np.int16)
    upper = np.zeros((count, seats, ncards), dtype=np.int16)
    extra = np.zeros((count, seats, ncards), dtype=np.int16)
    share = np.zeros((count, seats))
    names = tuple(f"P{s + 1}" for s in range(seats))
    for g in range(count):
        state = GameState.new(rules, names, starter=(first + g) % seats)
        roller = RandomRoller(random.Random(f"{dice_seed}:{g}"))
        while not state.is_over:
            action = players[state.current].choose(state)
            if not isinstance(action, Roll | RollOff | Score):
                raise SimulationError(_("Strategy returned {action!r}, which is not a move.", action=action))
            state = state.step(action, roller)[0]
        totals[g] = state.totals
        for s in range(seats):
            for k, card in enumerate(state.cards[s]):
                boxes[g, s, k] = [e or 0 for e in card.entries]
                upper[g, s, k] = card.upper_bonus
                extra[g, s, k] = card.yahtzee_bonuses
        winners = [st.seat for st in state.standings() if st.place == 1]
        share[g, winners] = 1.0 / len(winners)
    return _Chunk(totals, boxes, upper, extra, share)


def _run_chunk(args: tuple[RuleSet, tuple[str, ...], int, int, int, int]) -> _Chunk:
    return play_chunk(*args)


def simulate(
    rules: RuleSet,
    strategies: Sequence[str],
    games: int,
    seed: int = 0,
    *,
    workers: int | None = None,
    progress: Callable[[int], None] | None = None,
    fast: bool = True,
) -> SimResult:
    """Play ``games`` games, seat ``s`` played by ``strategies[s]`` (a level name).

    ``workers`` processes share the work (default: every core); ``progress`` is called with
    the number of games just finished. Seats take turns to start (game ``g`` starts with
    seat ``g % seats``). ``fast`` lets solitaire ``optimal`` use the solver's compiled
    simulator.
    """
    strategies = tuple(s.strip().lower() for s in strategies)
    if not strategies:
        raise SimulationError(_("A simulation needs at least one strategy; none were given."))
    for level in strategies:
        if level not in LEVELS and not level.startswith(TARGET):
            known = ", ".join([*LEVELS, *TARGET_LEVEL])
            raise UnknownStrategyError(
                _("Strategy {level!r} is unknown; expected one of: {known}.", level=level, known=known)
            )
    strategies = tuple(check_level(level, rules) for level in strategies)
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise SimulationError(
            _("Number of games {games!r} is not valid; expected a whole number of at least 1.", games=games)
        )
    workers = max(1, os.cpu_count() or 1) if workers is None else workers
    if workers < 1:
        raise SimulationError(_("Number of workers {workers!r} is not valid; expected at least 1.", workers=workers))
    start = time.perf_counter()
    if fast and strategies == ("optimal",):
        totals, boxes, upper, extra = simulate_optimal_fast(rules, games, seed, workers, progress)
        share = np.ones((games, 1))
        return SimResult(
            rules, strategies, seed, totals, boxes, upper, extra, share, time.perf_counter() - start, "numba"
        )
    prepare(strategies, rules, workers)
    jobs = [
        (rules, strategies, seed, c, first, min(CHUNK, games - first)) for c, first in enumerate(range(0, games, CHUNK))
    ]
    chunks: list[_Chunk | None] = [None] * len(jobs)
    if workers == 1 or len(jobs) == 1:
        for i, job in enumerate(jobs):
            chunks[i] = _run_chunk(job)
            if progress is not None:
                progress(job[-1])
    else:
        with ProcessPoolExecutor(max_workers=min(workers, len(jobs)), mp_context=get_context("fork")) as pool:
            futures: dict[Future[_Chunk], int] = {pool.submit(_run_chunk, job): i for i, job in enumerate(jobs)}
            for future in as_completed(futures):
                i = futures[future]
                chunks[i] = future.result()
                if progress is not None:
                    progress(jobs[i][-1])
    done = [c for c in chunks if c is not None]
    return SimResult(
        rules,
        strategies,
        seed,
        np.concatenate([c.totals for c in done]),
        np.concatenate([c.boxes for c in done]),
        np.concatenate([c.upper_bonus for c in done]),
        np.concatenate([c.extra_yahtzees for c in done]),
        np.concatenate([c.win_share for c in done]),
        time.perf_counter() - start,
    )


# -- plotting ------------------------------------------------------------------------------
def plot_histogram(result: SimResult, path: str | os.PathLike[str]) -> None:
    """Write a histogram of the final scores (one outline per seat) to ``path`` (PNG, SVG, PDF)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=120)
    low, high = int(result.totals.min()), int(result.totals.max())
    width = max(1, (high - low) // 120 + 1)
    bins = np.arange(low, high + width + 1, width).tolist()
    for s, stats in enumerate(result.stats()):
        label = f"seat {s + 1}: {stats.strategy} (mean {stats.mean:.1f}, sd {stats.std:.1f})"
        ax.hist(result.totals[:, s], bins=bins, histtype="step" if len(result.strategies) > 1 else "stepfilled",
                density=True, label=label, alpha=0.9)  # fmt: skip
    ax.set_xlabel("final score")
    ax.set_ylabel("share of games per point")
    ax.set_title(f"{result.rules.spec}: {result.games:,} games")
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


FAST_BLOCK = 50_000
"""Games per call of the compiled simulator (fixed, so results do not depend on threads)."""


def simulate_optimal_fast(
    rules: RuleSet, games: int, seed: int, workers: int, progress: Callable[[int], None] | None
) -> tuple[npt.NDArray[np.int64], Any, Any, Any]:
    """Solitaire optimal games through the solver's compiled simulator, as arrays shaped like
    :class:`SimResult`'s.

    Block ``b`` of :data:`FAST_BLOCK` games is seeded from ``(seed, b)``; the simulator
    itself gives the same games whatever its thread count.
    """
    from fivedice.players.solved import solver_for
    from fivedice.solver.simulate import simulate_optimal  # numba: only for optimal runs

    solver = solver_for(rules)
    totals, boxes, upper, extra = [], [], [], []
    for b, first in enumerate(range(0, games, FAST_BLOCK)):
        count = min(FAST_BLOCK, games - first)
        block_seed, _unused = chunk_seeds(seed, b, 0)
        result = simulate_optimal(solver, count, block_seed >> 1, threads=workers)  # 63 bits fit a signed int
        totals.append(result.totals.astype(np.int64)[:, None])
        boxes.append(result.box_points[:, None, None, :])
        upper.append(result.upper_bonus[:, None, None])
        extra.append(result.yahtzee_bonuses[:, None, None])
        if progress is not None:
            progress(count)
    return np.concatenate(totals), np.concatenate(boxes), np.concatenate(upper), np.concatenate(extra)
