"""The terminal game's driver: Textual's Linux driver, told what to do when the terminal goes away.

Textual's own driver reads the terminal in a thread that waits with ``select`` and reads what
is there. Once the terminal is hung up (its window closed, its ssh connection lost), ``select``
says "readable" at once and every read returns nothing, so that thread goes round without
pause and burns a core; the first write then fails with EIO and kills the writing thread, after
which the app blocks as soon as its output queue is full. The game dies only if it receives
SIGHUP, which the kernel sends to the terminal's own process, not to a game started by
``make play``.

:class:`GuardedDriver` adds three things: a watcher thread woken by the hang-up (it never
reads the terminal and sleeps while nothing happens), output that drops what it cannot write
instead of dying, and handlers for SIGHUP and SIGTERM. Each reports one :class:`TerminalGone`
message to the app, which saves the game in progress and exits; should the app not have ended
:attr:`GuardedDriver.grace` seconds later (a computer move still thinking in a thread), the
process ends anyway, the save already written.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import termios
import threading
from typing import IO, Any

from textual.drivers.linux_driver import LinuxDriver
from textual.message import Message

from fivedice import hangup

__all__ = ["GuardedDriver", "TerminalGone"]

RESET = "\x1b[<u\x1b[?1049l\x1b[?25h\x1b[?1004l\x1b[?1000l\x1b[?1003l\x1b[?1015l\x1b[?1006l\x1b[?2004l\x1b[?7h"
"""What leaving the game writes to a terminal that is still there: back from the alternate
screen, cursor shown, mouse and key reporting off, line wrap on."""


class TerminalGone(Message):
    """The terminal went away (``lost``), or a signal asks the game to stop (``signum``)."""

    def __init__(self, signum: int | None, lost: bool) -> None:
        super().__init__()
        self.signum = signum
        self.lost = lost

    @property
    def exit_code(self) -> int:
        """The exit status to end with: 128 + the signal's number (129 for a terminal that went away)."""
        return hangup.exit_code(signal.SIGHUP if self.lost and self.signum is None else self.signum)


class _Output:
    """The terminal's output for Textual's writer thread: a write that fails (EIO: the terminal
    is gone) is dropped and reported instead of killing the thread, and so is all that follows."""

    def __init__(self, file: IO[str], failed: Any) -> None:
        self._file = file
        self._failed = failed
        self.closed = False

    def write(self, text: str) -> None:
        if self.closed:
            return
        try:
            self._file.write(text)
        except OSError:
            self.closed = True
            self._failed()

    def flush(self) -> None:
        if self.closed:
            return
        try:
            self._file.flush()
        except OSError:
            self.closed = True
            self._failed()

    def fileno(self) -> int:
        return self._file.fileno()


class GuardedDriver(LinuxDriver):
    """Textual's Linux driver that notices a terminal that went away and SIGHUP or SIGTERM, and
    tells the app (once) with a :class:`TerminalGone` message."""

    grace = 3.0
    """Seconds the app has to save and end after the news before the process ends anyway."""

    def __init__(self, app: Any, **kwargs: Any) -> None:
        super().__init__(app, **kwargs)
        self._output = _Output(self._file, self._output_failed)  # type: ignore[arg-type]
        self._file = self._output  # type: ignore[assignment]
        self._ttys = [fd for fd in (1, 2) if os.isatty(fd)]  # muted once the terminal is gone
        self._reported = False
        self._stop_watching = threading.Event()
        self._watcher: threading.Thread | None = None

    def start_application_mode(self) -> None:
        """Start Textual's terminal mode, then watch the terminal and the signals (once)."""
        super().start_application_mode()  # type: ignore[no-untyped-call]
        if self._watcher is not None:
            return  # back from a suspension: already watching
        for signum in hangup.STOP_SIGNALS:
            self._loop.add_signal_handler(signum, self._report, signum)
        self._watcher = threading.Thread(target=self._watch, name="fivedice-terminal", daemon=True)
        self._watcher.start()

    def close(self) -> None:
        """Stop watching; then Textual's clean-up."""
        self._stop_watching.set()
        if self._watcher is not None and not self._loop.is_closed():
            for signum in hangup.STOP_SIGNALS:
                self._loop.remove_signal_handler(signum)
        super().close()

    def _watch(self) -> None:
        """Wait for the terminal to hang up (or the app to end)."""
        if hangup.wait_for_hangup(self.fileno, self._stop_watching):
            self._tell(None)

    def _output_failed(self) -> None:
        """A write to the terminal failed (in the writer thread)."""
        self._tell(None)

    def _tell(self, signum: int | None) -> None:
        """Report from another thread."""
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: the app is ending anyway
            self._loop.call_soon_threadsafe(self._report, signum)

    def _report(self, signum: int | None) -> None:
        """In the app's loop: if the terminal is gone, stop reading and writing it; tell the app
        once; make sure the process ends."""
        if self._reported:
            return
        self._reported = True
        lost = signum is None or hangup.terminal_gone(self.fileno)
        if lost:
            self._output.closed = True
            self.exit_event.set()  # Textual's reading thread leaves its loop instead of spinning
            hangup.mute(self._ttys)
        message = TerminalGone(signum, lost)
        self._app.post_message(message)
        timer = threading.Timer(self.grace, self._end_now, (message.exit_code, lost))
        timer.daemon = True
        timer.start()

    def _end_now(self, code: int, lost: bool) -> None:
        """The app did not end in time: put a terminal that is still there back in order, print
        the app's ``farewell`` (where the game was saved), and end."""
        if not lost:
            farewell = getattr(self._app, "farewell", None)
            text = RESET + (f"{farewell}\n" if farewell else "")
            try:
                if self.attrs_before is not None:
                    termios.tcsetattr(self.fileno, termios.TCSANOW, self.attrs_before)
                os.write(sys.__stderr__.fileno() if sys.__stderr__ else 2, text.encode())
            except (OSError, termios.error):
                pass
        os._exit(code)
