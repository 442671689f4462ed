"""The terminal going away, and a polite kill, with real processes in a pseudo-terminal.

``make play`` is the README's first command. When its terminal is closed, make (the terminal's
own process) receives the hang-up and waits for its child without passing the signal on, so
the game has to notice by itself that its terminal is gone: it must save the game in progress
and end, not spin on a dead terminal for ever.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from fivedice import rules
from fivedice.table import Table
from fivedice.tui import Config, FiveDiceApp, Seat
from fivedice.tui.demo import demo_config
from fivedice.tui.play import GameScreen, HelpScreen
from fivedice.tui.session import Session, new_table, saved_games
from fivedice.tui.terminal import GuardedDriver, TerminalGone

FIVEDICE = Path(sys.executable).with_name("fivedice")
MAKEFILE = 'play:\n\t"$(FIVEDICE)" play $(ARGS)\n\nprobe:\n\t"$(PYTHON)" probe.py\n'
PROBE = """\
import os, signal
log = open("probe.log", "a")
signal.signal(signal.SIGHUP, lambda *_: (log.write("SIGHUP\\n"), log.flush()))
signal.signal(signal.SIGUSR1, signal.SIG_DFL)  # not ignored, so a SIGUSR1 sent while blocked waits for sigwait
signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGUSR1})
os.write(1, b"ready %d\\n" % os.getpid())
while True:
    try:
        data = os.read(0, 100)
    except OSError:
        log.write("EIO\\n")
        break
    if not data:
        log.write("EOF\\n")
        break
log.flush()
signal.sigwait({signal.SIGUSR1})  # ends when the test says: after make has been sent the hang-up
log.close()
"""
"""Reads its terminal until the end of input, then waits for SIGUSR1 to end (see :func:`taken`)."""
PLAYERS = ("--players", "Ann", "--seed", "7")
# The waits below end on events (output, a process ending); these are only how long a test waits for one
# before it fails, long enough for a machine under heavy load. A program that spins instead of ending
# fails on the CPU it used (CPU_AFTER_CLOSE), which load does not change.
STARTUP = 180.0  # seconds a start may take on a loaded machine (usually 1 to 4)
GONE = 120.0  # seconds within which every process must have ended once the terminal is closed (usually < 1)
CPU_AFTER_CLOSE = 1.5  # seconds of CPU the game may use meanwhile to save and end (spinning uses all it gets)
TICK = os.sysconf("SC_CLK_TCK")
DEFAULT_SIGNALS = tuple(getattr(signal, name) for name in ("SIGHUP", "SIGINT", "SIGQUIT", "SIGTERM"))
"""Signals a terminal's programs start with their default action: the suite may run with some ignored
(``nohup make test`` ignores SIGHUP, a shell's background job SIGINT and SIGQUIT), and an ignored
signal stays ignored across exec."""


def _take_terminal() -> None:
    """In the child, after ``setsid``: the stop signals back to their defaults, and the pseudo-terminal
    as its controlling terminal, as a terminal window does for its shell."""
    for signum in DEFAULT_SIGNALS:
        signal.signal(signum, signal.SIG_DFL)
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


class Terminal:
    """A pseudo-terminal with a command as its own process (a session leader whose controlling
    terminal it is); closing ``master`` is what closing a terminal window does."""

    def __init__(self, args: list[str], cwd: Path, env: dict[str, str]) -> None:
        try:
            self.master, slave = os.openpty()
        except OSError as exc:
            pytest.skip(f"no pseudo-terminal can be made here: {exc}")
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
        self.proc = subprocess.Popen(
            args,
            cwd=cwd,
            env=env,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            start_new_session=True,
            preexec_fn=_take_terminal,
        )
        os.close(slave)
        self.output = b""
        self.open = True

    def wait_for(self, text: bytes, since: int = 0, timeout: float = STARTUP) -> int:
        """Read what the program writes until ``text`` appears after offset ``since``; returns the
        offset after it."""
        end = time.monotonic() + timeout
        while (found := self.output.find(text, since)) < 0:
            left = end - time.monotonic()
            assert left > 0, f"{text!r} never appeared; the terminal shows {self.output[-600:]!r}"
            if select.select([self.master], [], [], min(left, 0.2))[0]:
                try:
                    self.output += os.read(self.master, 65536)
                except OSError:  # the program ended and closed the terminal
                    assert text in self.output[since:], f"{text!r} never appeared: {self.output[-600:]!r}"
        return found + len(text)

    def type(self, keys: bytes) -> None:
        """Type ``keys``."""
        os.write(self.master, keys)

    def drain(self, timeout: float) -> None:
        """Read what the program writes until it has closed the terminal (within ``timeout``)."""
        end = time.monotonic() + timeout
        while (left := end - time.monotonic()) > 0:
            if select.select([self.master], [], [], left)[0]:
                try:
                    chunk = os.read(self.master, 65536)
                except OSError:  # EIO: nothing has the terminal open any more
                    return
                if not chunk:
                    return
                self.output += chunk
        raise AssertionError(f"the terminal is still open {timeout} s later: {self.output[-300:]!r}")

    def close(self) -> None:
        """Close the terminal (the window goes away)."""
        if self.open:
            self.open = False
            os.close(self.master)

    def reap(self, timeout: float = GONE) -> float:
        """Wait for the command to end (within ``timeout``); returns the CPU seconds it used with every
        process it waited for (make and the game it ran), from the kernel's own count."""
        wait_for_pids([self.proc.pid], timeout)
        _pid, status, usage = os.wait4(self.proc.pid, 0)
        self.proc.returncode = os.waitstatus_to_exitcode(status)
        return usage.ru_utime + usage.ru_stime

    def end(self) -> None:
        """After the test: kill whatever is left of the session, close the terminal."""
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait(GONE)
        self.close()


def session_processes(sid: int) -> dict[int, tuple[str, int]]:
    """The live (not zombie) processes of session ``sid``: pid -> (command line, CPU ticks used by it
    and by the children it has waited for)."""
    found = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if int(stat[3]) == sid and stat[0] != "Z":
            found[int(entry)] = (cmdline, sum(int(t) for t in stat[11:15]))
    return found


def games_of(sid: int) -> dict[int, int]:
    """The fivedice processes of session ``sid`` and their CPU ticks."""
    return {pid: ticks for pid, (cmd, ticks) in session_processes(sid).items() if "fivedice" in cmd}


def wait_for_pids(pids: list[int], timeout: float) -> None:
    """Wait until every process of ``pids`` has ended, asleep on their pidfds (no polling); asserts it
    happens within ``timeout`` seconds."""
    fds = []
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            fds.append(os.pidfd_open(pid))
    try:
        end = time.monotonic() + timeout
        pending = set(fds)
        while pending:
            left = end - time.monotonic()
            assert left > 0, f"still running {timeout} s later: {pids}"
            pending -= set(select.select(list(pending), [], [], left)[0])
    finally:
        for fd in fds:
            os.close(fd)


def taken(pid: int, signum: int, timeout: float = GONE) -> None:
    """Wait until process ``pid`` has taken the signal ``signum`` sent to it (no longer pending: its handler
    runs). The probe under make ends only then: the hang-up wakes the terminal's readers before the kernel
    signals make, and a make that reaps its child before it takes the signal fails in its handler ("wait: No
    child processes", exit 2) instead of dying of the hang-up."""
    bit = 1 << (signum - 1)
    end = time.monotonic() + timeout
    while True:
        lines = Path(f"/proc/{pid}/status").read_text().splitlines()
        status = dict(line.split(":", 1) for line in lines if ":" in line)
        if not (int(status["SigPnd"], 16) | int(status["ShdPnd"], 16)) & bit:
            return
        assert time.monotonic() < end, f"process {pid} did not take signal {signum} within {timeout} s"
        time.sleep(0.01)


def wait_until_gone(sid: int) -> None:
    """Wait until no process of session ``sid`` is left (asserting it happens within ``GONE`` seconds)."""
    end = time.monotonic() + GONE
    while left := session_processes(sid):
        wait_for_pids(list(left), max(0.0, end - time.monotonic()))


def close_and_watch(term: Terminal) -> float:
    """Close the terminal; wait until the command and every process of its session have ended (within
    ``GONE`` seconds) and return the CPU seconds they used meanwhile."""
    sid = term.proc.pid
    assert games_of(sid), f"no game is running: {session_processes(sid)}"
    before = sum(ticks for _cmd, ticks in session_processes(sid).values()) / TICK
    term.close()
    used = term.reap()
    wait_until_gone(sid)
    return used - before


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A folder with the Makefile and the probe."""
    (tmp_path / "Makefile").write_text(MAKEFILE)
    (tmp_path / "probe.py").write_text(PROBE)
    return tmp_path


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """The environment of a new user: English, a data folder of its own, not inside a make."""
    keep = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "USER", "LOGNAME", "SHELL", "PYTHONPATH")}
    homes = {name: str(tmp_path / name.lower()) for name in ("XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME")}
    return {**keep, **homes, "TERM": "xterm-256color", "LANG": "C.UTF-8", "PYTHONUNBUFFERED": "1"}


@pytest.fixture
def terminals() -> Iterator[list[Terminal]]:
    """Terminals opened by a test; whatever they still run is killed afterwards."""
    opened: list[Terminal] = []
    yield opened
    for term in opened:
        term.end()


def saved_game(data: Path, moves: int, plain: bool = False) -> Session:
    """The one game saved in the data folder, checked: written whole, listed by the start
    screen's Resume, and the game that was played: ``moves`` rolls with seed 7 for Ann (the plain
    mode rolls from its table's dice tape)."""
    saves = data / "fivedice" / "saves"
    files = sorted(p.name for p in saves.iterdir())
    assert not [name for name in files if name.endswith(".tmp")], files
    games = [saves / name for name in files if name.startswith("game-") and not name.endswith(".seats.json")]
    assert len(games) == 1, files
    assert [path for path, _text in saved_games(saves)] == games
    session = Session.load(games[0])
    table = Table(session.game.rules, ["Ann"], seed=7)  # both modes roll from their table's dice tape
    for _ in range(moves):
        table.roll(())
    assert session.game.log == table.game.log
    assert not session.state.is_over
    return session


def start_game(term: Terminal) -> None:
    """From the start screen (Ann filled in): start a game and roll once."""
    at = term.wait_for(b"Resume")
    term.type(b"\r")
    at = term.wait_for(b"Space: roll", at)
    term.type(b" ")
    term.wait_for(b"Ann rolls", at)


def test_make_does_not_pass_the_hangup_on(folder: Path, env: dict[str, str], terminals: list[Terminal]) -> None:
    """Why the game must watch its terminal: under make it gets end of input, never SIGHUP."""
    term = Terminal(["make", "-s", f"PYTHON={sys.executable}", "probe"], folder, env)
    terminals.append(term)
    at = term.wait_for(b"ready ")
    probe = int(term.output[at : term.wait_for(b"\r\n", at) - 2])
    term.close()  # returns once the kernel has sent make the hang-up (the probe may have seen the end before)
    taken(term.proc.pid, signal.SIGHUP)
    os.kill(probe, signal.SIGUSR1)  # only now may the probe end: make waits for it, then dies of the hang-up
    term.reap()
    wait_until_gone(term.proc.pid)
    assert term.proc.returncode == -signal.SIGHUP, "make, the terminal's own process, gets the hang-up"
    # A read waiting when the terminal hangs up fails with EIO; any later one finds the end of input.
    assert (folder / "probe.log").read_text() in ("EIO\n", "EOF\n"), "its child never gets SIGHUP"


def test_closing_the_terminal_of_make_play_saves_the_game_and_leaves_nothing_running(
    folder: Path, env: dict[str, str], terminals: list[Terminal]
) -> None:
    term = Terminal(["make", "-s", f"FIVEDICE={FIVEDICE}", f"ARGS={' '.join(PLAYERS)}", "play"], folder, env)
    terminals.append(term)
    start_game(term)
    cpu = close_and_watch(term)
    assert cpu < CPU_AFTER_CLOSE, f"{cpu:.2f} s of CPU used after the terminal was closed"
    assert term.proc.returncode == -signal.SIGHUP
    session = saved_game(Path(env["XDG_DATA_HOME"]), moves=1)
    assert [seat.name for seat in session.seats] == ["Ann"]


def test_the_plain_line_mode_saves_the_game_when_its_terminal_is_closed(
    folder: Path, env: dict[str, str], terminals: list[Terminal]
) -> None:
    args = " ".join(("--plain", *PLAYERS))
    term = Terminal(["make", "-s", f"FIVEDICE={FIVEDICE}", f"ARGS={args}", "play"], folder, env)
    terminals.append(term)
    at = term.wait_for(b"roll 1 of 3> ")
    term.type(b"roll\r")
    term.wait_for(b"roll 2 of 3> ", at)
    cpu = close_and_watch(term)
    assert cpu < CPU_AFTER_CLOSE, f"{cpu:.2f} s of CPU used after the terminal was closed"
    assert Table.load(saved_game(Path(env["XDG_DATA_HOME"]), moves=2, plain=True).save_path).seats[0].name == "Ann"


def test_sigterm_saves_the_game_restores_the_terminal_and_says_where(
    folder: Path, env: dict[str, str], terminals: list[Terminal]
) -> None:
    term = Terminal([str(FIVEDICE), "play", *PLAYERS], folder, env)
    terminals.append(term)
    start_game(term)
    at = len(term.output)
    term.proc.send_signal(signal.SIGTERM)
    term.drain(GONE)
    assert term.proc.wait(GONE) == 128 + signal.SIGTERM
    tail = term.output[at:].decode(errors="replace")
    assert "\x1b[?1049l" in tail, "back from the alternate screen"
    session = saved_game(Path(env["XDG_DATA_HOME"]), moves=1)
    assert f"The game is saved in {session.save_path}; resume it from the start screen." in tail, tail[-300:]


# -- the same, in the process: the app's answer to the news, whatever screen is showing ----------------


@pytest.mark.asyncio
@pytest.mark.parametrize(("signum", "lost", "code"), [(signal.SIGTERM, False, 143), (None, True, 129)])
async def test_the_news_saves_the_game_under_a_dialog_and_ends(
    tmp_path: Path, signum: int | None, lost: bool, code: int
) -> None:
    session = Session(new_table(rules.get("yacht"), [Seat("Ann")], seed=5))
    app = FiveDiceApp(demo_config(session, saves=tmp_path))
    async with app.run_test() as pilot:
        await pilot.press("space", "question_mark")
        assert isinstance(app.screen, HelpScreen)
        log = session.game.log
        app.post_message(TerminalGone(signum, lost))
        await pilot.pause()
    assert app.return_value == code
    assert app.return_code == code
    [path] = [p for p in tmp_path.glob("game-*.json") if not p.name.endswith(".seats.json")]
    assert Session.load(path).game.log == log
    assert not list(tmp_path.glob("*.tmp"))
    assert app.farewell == (None if lost else f"The game is saved in {path}; resume it from the start screen.")


@pytest.mark.asyncio
async def test_the_news_goes_back_to_the_file_the_game_came_from(tmp_path: Path) -> None:
    session = Session(new_table(rules.get("yacht"), [Seat("Ann")], seed=5))
    session.table.roll()
    path = session.save(tmp_path / "mine.json")
    app = FiveDiceApp(Config(use_store=False, load=path, saves=tmp_path / "saves"))
    async with app.run_test() as pilot:
        await pilot.press("space")
        app.post_message(TerminalGone(signal.SIGHUP, lost=True))
        await pilot.pause()
    assert len(Session.load(path).game.log) == 2
    assert not (tmp_path / "saves").exists()


@pytest.mark.asyncio
async def test_without_a_game_in_progress_nothing_is_saved(tmp_path: Path) -> None:
    app = FiveDiceApp(Config(use_store=False, saves=tmp_path, seats=[Seat("Ann")]))
    async with app.run_test() as pilot:
        await pilot.press("enter")  # a new game, nothing played yet
        assert isinstance(app.screen, GameScreen)
        app.post_message(TerminalGone(signal.SIGTERM, lost=False))
        await pilot.pause()
    assert app.return_value == 143
    assert list(tmp_path.iterdir()) == []
    assert app.farewell is None


@pytest.mark.asyncio
async def test_a_save_that_fails_is_told(tmp_path: Path) -> None:
    blocked = tmp_path / "file"
    blocked.write_text("a file where the saves folder should be")
    session = Session(new_table(rules.get("yacht"), [Seat("Ann")], seed=5))
    app = FiveDiceApp(demo_config(session, saves=blocked / "saves"))
    async with app.run_test() as pilot:
        await pilot.press("space")
        app.post_message(TerminalGone(signal.SIGTERM, lost=False))
        await pilot.pause()
    assert app.return_value == 143
    assert app.farewell is not None
    assert app.farewell.startswith("The game could not be saved: ")


def test_the_terminal_game_runs_on_the_guarded_driver() -> None:
    assert issubclass(FiveDiceApp().get_driver_class(), GuardedDriver)


SLOW_GAME = """\
import os, sys, time
from fivedice import rules
from fivedice.engine.actions import Roll
from fivedice.tui import Config, FiveDiceApp, Seat, Session
from fivedice.tui.session import new_table

class Slow:
    moves = 0

    def choose(self, state):
        Slow.moves += 1
        if Slow.moves > 1:
            os.write(2, b"thinking")  # straight to the terminal: Textual captures print()
            time.sleep(120)  # a computer move that takes its time, in a thread that cannot be stopped
        return Roll()

seats = [Seat("Ann"), Seat("Robo", "computer", "greedy")]
session = Session(new_table(rules.get("yacht"), seats, seed=5, starter=1))
session.table._strategies[1] = Slow()  # the table's computer for seat 1: one that takes its time
app = FiveDiceApp(Config(session=session, use_store=False, pace=0.0, saves=__import__("pathlib").Path(sys.argv[1])))
code = app.run()
print(app.farewell, file=sys.stderr)
sys.exit(code)
"""


def test_a_computer_thinking_in_a_thread_does_not_keep_the_game_alive(
    folder: Path, env: dict[str, str], terminals: list[Terminal]
) -> None:
    (folder / "slow.py").write_text(SLOW_GAME)
    term = Terminal([sys.executable, "slow.py", str(folder / "saves")], folder, env)
    terminals.append(term)
    at = term.wait_for(b"thinking")
    term.proc.send_signal(signal.SIGTERM)
    term.drain(GuardedDriver.grace + GONE)
    assert term.proc.wait(GONE) == 128 + signal.SIGTERM
    tail = term.output[at:].decode(errors="replace")
    [path] = (folder / "saves").glob("game-*[0-9].json")
    assert len(Session.load(path).game.log) == 1
    assert "\x1b[?1049l" in tail, "back from the alternate screen"
    assert f"The game is saved in {path}; resume it from the start screen." in tail
