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
from contextlib import AbstractContextManager
from typing import Any, TypeVar

__all__ = ["Workers"]

T = TypeVar("T")
_Call = tuple[
    asyncio.AbstractEventLoop, "asyncio.Future[Any]", contextvars.Context, Callable[..., Any], tuple[Any, ...], bool
]
_Outcome = tuple["asyncio.Future[Any]", Any, BaseException | None]
_Done = list[_Outcome]


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
    With one thread, the calls queued when it looks are run one after the other and settled in one hop; the
    ``grouped`` ones among them (writes) within one ``group()`` block (see :meth:`Writes.group
    <fivedice.web.writes.Writes.group>`: one transaction), whose ``failed`` error, if it has one when the block
    ends, fails each of them that had not failed on its own."""

    def __init__(self, threads: int, name: str, group: Callable[[], AbstractContextManager[Any]] | None = None) -> None:
        self.threads = threads
        self.name = name
        self.group = group if threads == 1 else None
        self._queue: queue.SimpleQueue[_Call | None] = queue.SimpleQueue()
        self._started: list[threading.Thread] = []
        self._lock = threading.Lock()
        self._closed = False

    def run(self, fn: Callable[..., T], *args: Any, grouped: bool = False) -> asyncio.Future[T]:
        """Run ``fn(*args)`` in a worker thread, in the caller's context (a copy: its language, its deadline);
        ``grouped``: it may share a group with the others queued (a write, see the class's text)."""
        if self._closed:
            raise RuntimeError("the database workers were shut down")
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T] = loop.create_future()
        self._queue.put((loop, future, contextvars.copy_context(), fn, args, grouped))
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
            grouped = [c for c in calls if c[5]] if self.group is not None else []
            if len(grouped) > 1:
                for outcome in self._grouped(grouped):
                    if outcome is not None:
                        by_loop.setdefault(outcome[0].get_loop(), []).append(outcome)
                calls = [c for c in calls if not c[5]]
            for call in calls:
                outcome = self._call(call)
                if outcome is not None:
                    by_loop.setdefault(call[0], []).append(outcome)
            for loop, done in by_loop.items():
                with contextlib.suppress(RuntimeError):  # a closed loop: nobody waits any more
                    loop.call_soon_threadsafe(_deliver, done)

    def _grouped(self, calls: list[_Call]) -> list[_Outcome | None]:
        """Run ``calls`` within one group; those that seemed done fail with the group's error if it has one."""
        assert self.group is not None
        done: list[_Outcome | None] = []
        ended: BaseException | None = None
        try:
            with self.group() as group:
                for call in calls:
                    done.append(self._call(call))
        except BaseException as exc:  # the group's own end failed: none of it is known to be committed
            ended = exc
        out: list[_Outcome | None] = []
        for outcome in done:
            if outcome is not None and outcome[2] is None:  # it seemed done: unless its group was rolled back
                error = ended if ended is not None else group.error()
                if error is not None:
                    outcome = (outcome[0], None, error)
            out.append(outcome)
        for call in calls[len(done) :]:  # the group could not be begun: these were not made
            out.append((call[1], None, ended or RuntimeError("the database group did not begin")))
        return out

    @staticmethod
    def _call(call: _Call) -> _Outcome | None:
        """Run one call: its future and its result or error (None: its caller gave up before it began)."""
        _loop, future, context, fn, args, _grouped = call
        if future.cancelled():
            return None
        try:
            return (future, context.run(fn, *args), None)
        except BaseException as exc:  # handed to the caller, as an executor would
            return (future, None, exc)

    def shutdown(self, wait: bool = True) -> None:
        """Let the queued calls run, then stop the threads (waiting for them if ``wait``)."""
        self._closed = True
        for _thread in self._started:
            self._queue.put(None)
        if wait:
            for thread in self._started:
                if thread is not threading.current_thread():
                    thread.join()
