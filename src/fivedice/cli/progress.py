"""Progress bars for the long commands (a solver or chance table to build, games to simulate, a game to
rate by the chance to win): a Rich bar on stderr when stderr is a terminal, nothing at all otherwise, so
output that goes to a file or a pipe stays as it was."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    TaskProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

if TYPE_CHECKING:
    from fivedice.services.chancejobs import Job

__all__ = ["count_bar", "follow", "share_bar"]

_TICK = 0.1
"""Seconds between looks at a preparation running in another thread."""


@contextmanager
def _bar(description: str, total: float, count: ProgressColumn) -> Iterator[Callable[[float], None] | None]:
    console = Console(stderr=True)
    if not console.is_terminal:
        yield None
        return
    columns = (TextColumn("{task.description}"), BarColumn(), count, TimeElapsedColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task(description, total=total)

        def report(done: float) -> None:
            bar.update(task, completed=min(total, max(0.0, done)))

        yield report


@contextmanager
def share_bar(description: str) -> Iterator[Callable[[float], None]]:
    """A bar for work that reports the share done (0 to 1); yields the callback to give that work."""
    with _bar(description, 1.0, TaskProgressColumn()) as report:
        yield report if report is not None else _ignore


@contextmanager
def count_bar(description: str, total: int) -> Iterator[Callable[[int], None]]:
    """A bar for ``total`` things done a few at a time; yields a callback taking how many were just done."""
    done = 0
    with _bar(description, float(total), MofNCompleteColumn()) as report:

        def advance(count: int) -> None:
            nonlocal done
            done += count
            if report is not None:
                report(float(done))

        yield advance


def follow(job: Job, description: str) -> None:
    """Wait for a chance preparation running in its own thread (:mod:`fivedice.services.chancejobs`),
    with a bar of its share done."""
    with share_bar(description) as report:
        while not job.done.wait(_TICK):
            report(job.share)
        report(1.0)


def _ignore(share: float) -> None:
    """No bar: the share is not shown."""
