"""Noticing that the terminal went away, or that a signal asks the program to stop.

Closing a terminal window (or losing an ssh connection) hangs the terminal up, and the kernel
sends SIGHUP to the terminal's own process only. A game started by another program, as
``make play`` does (make waits for its child and does not pass the signal on), learns it from
the terminal itself: reads find end of input, writes fail with EIO and ``poll`` reports POLLHUP.
The terminal game and the plain line mode use these helpers to save the game in progress and
end instead of reading a dead terminal for ever.
"""

from __future__ import annotations

import os
import select
import signal
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from types import FrameType

__all__ = ["STOP_SIGNALS", "exit_code", "mute", "on_signals", "terminal_gone", "wait_for_hangup"]

STOP_SIGNALS: tuple[signal.Signals, ...] = tuple(
    getattr(signal, name) for name in ("SIGHUP", "SIGTERM") if hasattr(signal, name)
)
"""The signals after which a game is saved before the program ends: the hang-up and a polite kill."""

_GONE = getattr(select, "POLLHUP", 0) | getattr(select, "POLLERR", 0) | getattr(select, "POLLNVAL", 0)


def exit_code(signum: int | None) -> int:
    """The exit status after ``signum``: 128 plus its number, as a shell reports it; a terminal
    that went away without a signal counts as a hang-up.

    >>> exit_code(signal.SIGTERM), exit_code(None)
    (143, 129)
    """
    return 128 + int(signum if signum is not None else getattr(signal, "SIGHUP", 1))


def terminal_gone(fd: int) -> bool:
    """Whether ``fd`` was hung up (its terminal closed, the other end of its pipe gone) or is not
    open at all; never blocks, never reads. Always False where ``poll`` is missing.

    >>> read_end, write_end = os.pipe()
    >>> terminal_gone(read_end)
    False
    >>> os.close(write_end)
    >>> terminal_gone(read_end)
    True
    >>> os.close(read_end)
    """
    if not hasattr(select, "poll"):
        return False
    poller = select.poll()
    poller.register(fd, 0)  # no events asked for: only a hang-up or an error is reported
    return any(events & _GONE for _fd, events in poller.poll(0))


def wait_for_hangup(fd: int, stop: threading.Event, pause: float = 0.05, longest: float = 1.0) -> bool:
    """Wait until ``fd`` hangs up (True) or ``stop`` is set (False), never reading it: asleep in
    ``poll`` until there is input or a hang-up (which wakes every reader), looking again ``pause``
    seconds after input (another thread's to read) and at least every ``longest`` seconds.

    >>> read_end, write_end = os.pipe()
    >>> os.close(write_end)
    >>> wait_for_hangup(read_end, threading.Event())
    True
    >>> os.close(read_end)
    """
    if not hasattr(select, "poll"):
        stop.wait()
        return False
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    while not stop.is_set():
        events = poller.poll(int(longest * 1000))
        if any(ev & _GONE for _fd, ev in events):
            return True
        if events:
            stop.wait(pause)
    return False


def mute(fds: Iterable[int]) -> None:
    """Point each of ``fds`` at the null device, so that what is still written for a terminal that
    went away is dropped instead of failing (at exit Python flushes stdout and stderr)."""
    null = os.open(os.devnull, os.O_RDWR)
    try:
        for fd in fds:
            os.dup2(null, fd)
    finally:
        os.close(null)


@contextmanager
def on_signals(handler: Callable[[int], None], signums: Iterable[int] = STOP_SIGNALS) -> Iterator[None]:
    """Call ``handler(signum)`` on each of ``signums`` while the block runs, then restore the
    handlers before. Only the main thread may set handlers; elsewhere nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def call(signum: int, _frame: FrameType | None) -> None:
        handler(signum)

    before = {signum: signal.signal(signum, call) for signum in signums}
    try:
        yield
    finally:
        for signum, old in before.items():
            signal.signal(signum, old)
