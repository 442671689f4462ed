"""Simulation at scale: many games between strategies, their statistics and a histogram.

Games are split into fixed chunks of :data:`CHUNK` games; chunk ``c`` draws its players'
own randomness from seeds derived from ``(seed, c)`` and each of its games its dice from a
seed derived from ``(seed, c, game)``, and the chunks are put back together in order, so a
run gives the same numbers whatever the number of worker processes, and two runs with the
same seed roll the same dice in each game until their players' choices differ (common
random numbers for paired comparisons). The levels the solver's compiled simulator plays
(:data:`COMPILED`) go through it when numba is installed, thousands of games a second.

>>> from fivedice import rules
>>> result = simulate(rules.get("yacht"), ["greedy"], games=20, seed=1, workers=1)
>>> stats = result.stats()[0]
>>> stats.games, round(stats.mean, 2) == round(float(result.totals[:, 0].mean()), 2)
(20, True)
"""

from __future__ import annotations

import importlib
import os
import random
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from multiprocessing import get_context
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
import numpy.typing as npt

from fivedice.dice import RandomRoller
from fivedice.engine.actions import Roll, RollOff, Score
from fivedice.engine.state import GameState
from fivedice.errors import FiveDiceError
from fivedice.extras import needed_by
from fivedice.i18n import _
from fivedice.players import LEVELS, TARGET_LEVEL, UnknownStrategyError, check_level, get, prepare
from fivedice.players.levels import TARGET
from fivedice.rules.ruleset import RuleSet
from fivedice.services.simsummary import PERCENTILES, SeatCounts, SeatStats, SimSummary, wilson

if TYPE_CHECKING:
    from fivedice.solver.simulate import LevelPolicy

__all__ = [
    "CHUNK",
    "COMPILED",
    "PERCENTILES",
    "SeatStats",
    "SimResult",
    "SimSummary",
    "SimulationError",
    "plot_histogram",
    "policy_of",
    "simulate",
    "wilson",
]

CHUNK = 100
"""Games per chunk for the Python players (fixed, so results do not depend on workers)."""

IntArray = npt.NDArray[np.int64]


class SimulationError(FiveDiceError):
    """A simulation that cannot be run as asked."""


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
    shard: tuple[int, int] | None = None

    @property
    def games(self) -> int:
        """How many games were played."""
        return int(self.totals.shape[0])

    def summary(self) -> SimSummary:
        """The run's counts (histograms and the counts behind every rate), which merge with others'."""
        rules = self.rules
        seats = []
        for s in range(len(self.strategies)):
            values, counts = np.unique(self.totals[:, s], return_counts=True)
            boxes = self.boxes[:, s]
            extra = self.extra_yahtzees[:, s].sum(axis=1)
            share = self.win_share[:, s]
            sharing, games = np.unique(np.rint(1 / share[share > 0]).astype(np.int64), return_counts=True)
            seats.append(
                SeatCounts(
                    dict(zip(values.tolist(), counts.tolist(), strict=True)),
                    {b.name: int((boxes[:, :, i] == 0).sum()) for i, b in enumerate(rules.boxes)},
                    int((self.upper_bonus[:, s] > 0).sum()),
                    int((extra > 0).sum()),
                    int(extra.sum()),
                    dict(zip(sharing.tolist(), games.tolist(), strict=True)),
                )
            )
        return SimSummary(
            rules.spec,
            self.strategies,
            len(rules.cards),
            self.seed,
            self.games,
            self.engine,
            self.seconds,
            tuple(seats),
            rules.box_names,
            bool(rules.upper_bonus),
            tuple(b.label for b in rules.boxes),
            bool(rules.yahtzee_bonus),
            self.shard,
        )

    def stats(self) -> list[SeatStats]:
        """Statistics for every seat."""
        return self.summary().stats()

    def reach(self, target: int) -> list[float]:
        """Per seat, the share of games finishing with at least ``target`` points."""
        return [float(x) for x in (self.totals >= target).mean(axis=0)]

    def to_json(self, reach: Sequence[int] = ()) -> dict[str, Any]:
        """The run, its statistics and its counts as JSON-ready data (with ``reach``: per seat, the
        share of games reaching each of those targets); :func:`~fivedice.services.simsummary.merge`
        adds up several."""
        return self.summary().to_json(reach)


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


def shard_range(units: int, shard: tuple[int, int] | None) -> range:
    """The units (chunks or blocks) of shard ``(i, n)``: the ``i``-th of ``n`` near-equal runs of them.

    >>> list(shard_range(10, (1, 3))), list(shard_range(10, None))[-1]
    ([3, 4, 5], 9)
    """
    if shard is None:
        return range(units)
    i, n = shard
    return range(i * units // n, (i + 1) * units // n)


def check_shard(shard: tuple[int, int] | None, units: int) -> None:
    """Refuse a shard that is not one of its run's, or holds no games."""
    if shard is None:
        return
    i, n = shard
    if isinstance(i, bool) or isinstance(n, bool) or not 0 <= i < n:
        raise SimulationError(_("Shard {i}/{n} is not valid; expected I/N with 1 <= I <= N, e.g. 2/4.", i=i + 1, n=n))
    if n > units:
        raise SimulationError(
            _("{n} shards is too many for a run of {units} parts; expected at most {units}.", n=n, units=units)
        )


def simulate(
    rules: RuleSet,
    strategies: Sequence[str],
    games: int,
    seed: int = 0,
    *,
    workers: int | None = None,
    progress: Callable[[int], None] | None = None,
    fast: bool = True,
    shard: tuple[int, int] | None = None,
    dask: str | None = None,
) -> SimResult:
    """Play ``games`` games, seat ``s`` played by ``strategies[s]`` (a level name).

    ``workers`` processes share the work (default: every core); ``progress`` is called with
    the number of games just finished. Seats take turns to start (game ``g`` starts with
    seat ``g % seats``). ``fast`` lets the levels in :data:`COMPILED` (``optimal``, ``easy``,
    ``medium``, ``hard``, ``greedy``, ``random``) play solitaire games through the solver's compiled
    simulator (the Python players' statistics, other dice). ``shard=(i, n)``
    plays only the ``i``-th (0-based) of ``n`` parts of the run (whole chunks or blocks), so
    shards run anywhere merge into the very run. ``dask`` is the address of a Dask scheduler
    (``tcp://host:8786``) whose workers play the chunks (the ``dask`` extra; every worker needs
    fivedice); the result is the same as a local run's.
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
    if fast and compiled(rules, strategies):
        blocks = [(b, first, min(FAST_BLOCK, games - first)) for b, first in enumerate(range(0, games, FAST_BLOCK))]
        check_shard(shard, len(blocks))
        chosen = [blocks[b] for b in shard_range(len(blocks), shard)]
        totals, boxes, upper, extra = simulate_fast(rules, strategies[0], chosen, seed, workers, progress, dask)
        return SimResult(
            rules,
            strategies,
            seed,
            totals,
            boxes,
            upper,
            extra,
            np.ones((len(totals), 1)),
            time.perf_counter() - start,
            "numba",
            shard,
        )
    every = [
        (rules, strategies, seed, c, first, min(CHUNK, games - first)) for c, first in enumerate(range(0, games, CHUNK))
    ]
    check_shard(shard, len(every))
    jobs = [every[c] for c in shard_range(len(every), shard)]
    chunks: list[_Chunk | None] = [None] * len(jobs)

    def done_with(i: int, chunk: _Chunk) -> None:
        chunks[i] = chunk
        if progress is not None:
            progress(jobs[i][-1])

    if dask is not None:
        for i, chunk in _on_dask(dask, _run_chunk, jobs):
            done_with(i, chunk)
    else:
        prepare(strategies, rules, workers)
        if workers == 1 or len(jobs) == 1:
            for i, job in enumerate(jobs):
                done_with(i, _run_chunk(job))
        else:
            with ProcessPoolExecutor(max_workers=min(workers, len(jobs)), mp_context=get_context("fork")) as pool:
                futures: dict[Future[_Chunk], int] = {pool.submit(_run_chunk, job): i for i, job in enumerate(jobs)}
                for future in as_completed(futures):
                    done_with(futures[future], future.result())
    parts = [c for c in chunks if c is not None]
    return SimResult(
        rules,
        strategies,
        seed,
        np.concatenate([c.totals for c in parts]),
        np.concatenate([c.boxes for c in parts]),
        np.concatenate([c.upper_bonus for c in parts]),
        np.concatenate([c.extra_yahtzees for c in parts]),
        np.concatenate([c.win_share for c in parts]),
        time.perf_counter() - start,
        shard=shard,
    )


T = TypeVar("T")
J = TypeVar("J")


def _on_dask(address: str, task: Callable[[J], T], jobs: Sequence[J]) -> Iterator[tuple[int, T]]:
    """Run ``task`` on every job on the Dask cluster at ``address``; yields ``(job index, result)``
    as they finish."""
    with needed_by("'fivedice simulate --dask'"):
        distributed: Any = importlib.import_module("distributed")  # untyped: used through Any
    try:
        client = distributed.Client(address, timeout=30)
    except (OSError, TimeoutError) as exc:
        raise SimulationError(
            _("The Dask scheduler at {address} cannot be reached: {reason}", address=address, reason=str(exc))
        ) from None
    with client:
        futures = client.map(task, jobs, pure=False)
        index = {future.key: i for i, future in enumerate(futures)}
        for future in distributed.as_completed(futures):
            yield index[future.key], future.result()


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

COMPILED = frozenset({"optimal", "easy", "medium", "hard", "random", "greedy"})
"""The levels the solver's compiled simulator plays (``fivedice.solver.simulate.LevelPolicy``)."""


def compiled(rules: RuleSet, strategies: Sequence[str]) -> bool:
    """Whether the compiled simulator (the ``fast`` extra) plays these games: one seat of a level in
    :data:`COMPILED` and a rule set the solver handles. Games with several seats stay with the
    Python players, whose seats share one run of dice, so that runs with different strategies on
    the same seed stay paired (common random numbers)."""
    return len(strategies) == 1 and strategies[0] in COMPILED and rules.solver_refusal() is None


def policy_of(level: str) -> LevelPolicy:
    """The compiled simulator's policy of a level in :data:`COMPILED` (``easy``/``medium``/``hard``
    as calibrated in :data:`fivedice.players.solved.NOISE`).

    >>> policy_of("hard")
    LevelPolicy(temperature=0.6, blunder=0.002, greedy=False)
    """
    from fivedice.players.solved import NOISE
    from fivedice.solver.simulate import LevelPolicy  # numba: only for compiled runs

    if level in NOISE:
        return LevelPolicy(*NOISE[level])
    return {"optimal": LevelPolicy(), "random": LevelPolicy(blunder=1.0), "greedy": LevelPolicy(greedy=True)}[level]


_Block = tuple[RuleSet, str, int, int, int, int | None]


def _fast_block(args: _Block) -> tuple[npt.NDArray[np.int64], Any, Any, Any]:
    """Block ``b`` of ``count`` solitaire games of ``level`` in a run seeded ``seed``, on ``threads`` threads."""
    from fivedice.players.solved import solver_for
    from fivedice.solver.simulate import simulate_level  # numba: only for compiled runs

    rules, level, b, count, seed, threads = args
    block_seed, _unused = chunk_seeds(seed, b, 0)
    result = simulate_level(solver_for(rules), policy_of(level), count, block_seed >> 1, threads)  # 63 bits
    return (
        result.totals.astype(np.int64)[:, None],
        result.box_points[:, None, None, :],
        result.upper_bonus[:, None, None],
        result.yahtzee_bonuses[:, None, None],
    )


def simulate_fast(
    rules: RuleSet,
    level: str,
    blocks: Sequence[tuple[int, int, int]],
    seed: int,
    workers: int,
    progress: Callable[[int], None] | None,
    dask: str | None = None,
) -> tuple[npt.NDArray[np.int64], Any, Any, Any]:
    """Solitaire games of a :data:`COMPILED` level through the solver's compiled simulator, as arrays shaped like
    :class:`SimResult`'s. ``blocks`` are ``(b, first game, count)``.

    Block ``b`` of :data:`FAST_BLOCK` games is seeded from ``(seed, b)``; the simulator
    itself gives the same games whatever its thread count, so on Dask too.
    """
    jobs: list[_Block] = [(rules, level, b, count, seed, workers) for b, _first, count in blocks]
    parts: list[tuple[npt.NDArray[np.int64], Any, Any, Any] | None] = [None] * len(jobs)
    if dask is not None:
        found = _on_dask(dask, _fast_block, [(*job[:5], None) for job in jobs])
    else:
        from fivedice.players.solved import solver_for

        solver_for(rules)  # load once, before timing the blocks
        found = ((i, _fast_block(job)) for i, job in enumerate(jobs))
    for i, part in found:
        parts[i] = part
        if progress is not None:
            progress(jobs[i][3])
    done = [p for p in parts if p is not None]
    return tuple(np.concatenate([p[k] for p in done]) for k in range(4))  # type: ignore[return-value]
