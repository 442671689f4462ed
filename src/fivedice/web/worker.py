"""The worker threads of the database calls: each call's result is handed to the event loop in one hop.

``loop.run_in_executor`` makes a ``concurrent.futures.Future`` (with its own lock and condition) per call, chains
it to an asyncio future through two callbacks, and wakes the event loop once per call; that took about 22 us
of CPU per call (12 with many calls queued). Here a call is an asyncio future and a queue entry; a thread that
finds several calls queued runs them all and hands their results to the loop in one wake-up (about 13 us a
call, 2 with many queued), which is how the room service's single SQLite thread meets a busy server.

>>> import asyncio
>>> async def demo() -> list[int]:
...     workers = Workers(1, "demo")
...     try:
...         return list(await asyncio.gather(*(workers.run(pow, 2, n) for n in range(4))))
...     finally:
...         workers.shutdown()
>>> asyncio.run(demo())
[1, 2, 4, 8]
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import queue
import threading
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["Workers"]

T = TypeVar("T")
_Call = tuple[
    asyncio.AbstractEventLoop, "asyncio.Future[Any]", contextvars.Context, Callable[..., Any], tuple[Any, ...]
]
_Done = list[tuple["asyncio.Future[Any]", Any, BaseException | None]]


def _deliver(done: _Done) -> None:
    """On the event loop: settle the futures of calls that ran (those whose caller gave up stay as they are)."""
    for future, result, error in done:
        if future.done():
            continue
        if error is None:
            future.set_result(result)
        else:
            future.set_exception(error)


class Workers:
    """``threads`` worker threads (named ``name``-N, started on first use) that run calls for the event loop.
    With one thread, the calls queued when it looks are run one after the other and settled in one hop."""

    def __init__(self, threads: int, name: str) -> None:
        self.threads = threads
        self.name = name
        self._queue: queue.SimpleQueue[_Call | None] = queue.SimpleQueue()
        self._started: list[threading.Thread] = []
        self._lock = threading.Lock()
        self._closed = False

    def run(self, fn: Callable[..., T], *args: Any) -> asyncio.Future[T]:
        """Run ``fn(*args)`` in a worker thread, in the caller's context (a copy: its language, its deadline)."""
        if self._closed:
            raise RuntimeError("the database workers were shut down")
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        self._queue.put((loop, future, contextvars.copy_context(), fn, args))
        if len(self._started) < self.threads:
            self._start()
        return future

    def _start(self) -> None:
        with self._lock:
            while len(self._started) < self.threads:
                thread = threading.Thread(target=self._work, name=f"{self.name}-{len(self._started)}", daemon=True)
                thread.start()
                self._started.append(thread)

    def _work(self) -> None:
        get = self._queue.get
        drain = self.threads == 1  # several threads each take one call, so that a slow one holds up no other
        while True:
            call = get()
            if call is None:
                return
            calls = [call]
            while drain:
                try:
                    more = self._queue.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    self._queue.put(None)  # stop after these
                    break
                calls.append(more)
            by_loop: dict[asyncio.AbstractEventLoop, _Done] = {}
            for loop, future, context, fn, args in calls:
                if future.cancelled():  # the caller gave up before the call began: it is not made
                    continue
                try:
                    outcome: tuple[Any, BaseException | None] = (context.run(fn, *args), None)
                except BaseException as exc:  # handed to the caller, as an executor would
                    outcome = (None, exc)
                by_loop.setdefault(loop, []).append((future, *outcome))
            for loop, done in by_loop.items():
                with contextlib.suppress(RuntimeError):  # a closed loop: nobody waits any more
                    loop.call_soon_threadsafe(_deliver, done)

    def shutdown(self, wait: bool = True) -> None:
        """Let the queued calls run, then stop the threads (waiting for them if ``wait``)."""
        self._closed = True
        for _thread in self._started:
            self._queue.put(None)
        if wait:
            for thread in self._started:
                if thread is not threading.current_thread():
                    thread.join()
