"""The plain line mode when its input ends or a signal stops it: the game in progress is saved to
the saves folder (or back to the file it came from), written whole, and the session says where."""

from __future__ import annotations

import io
import os
import shlex
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from fivedice import rules
from fivedice.cli import main
from fivedice.cli.plain import PlainSession, play_plain
from fivedice.engine import saves
from fivedice.table import Table
from fivedice.tui.session import saved_games


def reader(lines: list[str], before: Callable[[int], None] = lambda n: None) -> Callable[[str], str | None]:
    """Answers the prompts with ``lines``, then None (end of input); ``before(n)`` runs as prompt n waits."""
    answers: Iterator[str] = iter(lines)
    count = 0

    def read(prompt: str) -> str | None:
        nonlocal count
        count += 1
        before(count)
        return next(answers, None)

    return read


def the_save() -> Path:
    [path] = saves.saves_dir().glob("game-*.json")
    assert not list(saves.saves_dir().glob("*.tmp"))
    return path


def test_input_ending_saves_the_game_where_resume_finds_it() -> None:
    out = io.StringIO()
    table = Table(rules.get("yacht"), ["Ann"], seed=3)
    assert PlainSession(table, out, reader(["roll", "chance"])).run() == 1
    path = the_save()
    text = out.getvalue()
    assert "Input ended before the game finished." in text
    assert f"The game is saved in {path}; resume it with: fivedice play --plain --load {path}" in text
    assert saves.load(path).log == table.game.log
    assert len(table.game.log) == 4  # roll, roll again, score, the next turn's automatic roll
    assert [p for p, _ in saved_games(saves.saves_dir())] == [path]  # the terminal game's Resume lists it


def test_a_resumed_game_is_saved_back_to_its_file(tmp_path: Path) -> None:
    out = io.StringIO()
    table = Table(rules.get("yacht"), ["Ann"], seed=3)
    table.roll(())
    path = tmp_path / "mine.json"
    table.save(path)
    assert play_plain(table.rules, None, out, reader(["chance"]), load=str(path)) == 1
    assert saves.load(path).state.cards[0][0].get("chance") is not None
    assert f"The game is saved in {path}" in out.getvalue()
    assert not saves.saves_dir().exists()


def test_a_game_nobody_moved_in_is_not_saved() -> None:
    out = io.StringIO()
    assert play_plain(rules.get("yacht"), "Ann", out, reader(["help", "card"]), seed=3) == 1
    assert "Input ended before the game finished." in out.getvalue()
    assert "saved" not in out.getvalue().split("Input ended")[1]
    assert not saves.saves_dir().exists()


def test_quit_does_not_save() -> None:
    out = io.StringIO()
    assert play_plain(rules.get("yacht"), "Ann", out, reader(["chance", "quit"]), seed=3) == 0
    assert not saves.saves_dir().exists()


def test_a_signal_while_waiting_saves_and_ends_with_its_exit_status() -> None:
    out = io.StringIO()
    table = Table(rules.get("yacht"), ["Ann"], seed=3)

    def signal_at_the_second_prompt(n: int) -> None:
        if n == 2:
            session.stop(signal.SIGTERM)  # as the signal's handler does

    session = PlainSession(table, out, reader(["roll"], before=signal_at_the_second_prompt))
    assert session.run() == 128 + signal.SIGTERM
    path = the_save()
    assert "Stopped by SIGTERM." in out.getvalue()
    assert saves.load(path).log == table.game.log
    assert len(table.game.log) == 2


def test_a_signal_during_a_command_lets_it_finish_first() -> None:
    table = Table(rules.get("yacht"), ["Ann"], seed=3)

    class Output(io.StringIO):
        def write(self, text: str) -> int:
            if "(roll 2 of 3)" in text:  # the command is being carried out
                session.stop(signal.SIGHUP)
            return super().write(text)

    session = PlainSession(table, Output(), reader(["roll", "roll"]))
    assert session.run() == 128 + signal.SIGHUP
    assert len(saves.load(the_save()).log) == 2, "the roll finished, the next prompt never came"


def test_an_output_that_fails_ends_the_session_and_saves(tmp_path: Path) -> None:
    class Gone(io.StringIO):
        def write(self, text: str) -> int:
            if "(roll 2 of 3)" in text:
                raise OSError(5, "Input/output error")
            return super().write(text)

    table = Table(rules.get("yacht"), ["Ann"], seed=3)
    assert PlainSession(table, Gone(), reader(["roll", "roll"])).run() == 129
    assert len(saves.load(the_save()).log) == 2


def test_the_command_line_resumes_the_saved_game(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["play", "--plain", "--players", "Ann", "--seed", "3"], input="chance\n")
    assert result.exit_code == 1
    path = the_save()
    assert f"--load {path}" in result.stdout
    result = CliRunner().invoke(main, ["play", "--plain", "--load", str(path)], input="card\nquit\n")
    assert result.exit_code == 0
    assert "Chance" in result.stdout


@pytest.mark.parametrize("name", ["SIGHUP", "SIGTERM"])
def test_the_handlers_are_only_there_while_the_game_runs(name: str) -> None:
    signum = getattr(signal, name)
    before = signal.getsignal(signum)
    seen = []

    def read(prompt: str) -> str | None:
        seen.append(signal.getsignal(signum))
        return None

    play_plain(rules.get("yacht"), "Ann", io.StringIO(), read, seed=3, stop_signals=[signum])
    assert seen
    assert seen[0] is not before
    assert signal.getsignal(signum) is before


def test_ctrl_c_saves_the_game_and_ends_without_a_traceback(tmp_path: Path) -> None:
    from fivedice.table import Table

    table = Table("yacht", ["Ann"], seed=2)
    lines = iter(["chance"])
    out = io.StringIO()

    def read(_prompt: str) -> str | None:
        line = next(lines, None)
        if line is None:
            raise KeyboardInterrupt
        return line

    target = tmp_path / "g.json"
    code = PlainSession(table, out, read, save_to=target).run()
    assert code == 130
    assert "Stopped by SIGINT." in out.getvalue()
    assert Table.load(target).game.log == table.game.log


def test_the_resume_hint_runs_as_printed_when_fivedice_is_not_on_the_path(tmp_path: Path) -> None:
    """``make play`` runs ``.venv/bin/fivedice``, which is not on the PATH: the hint names the program's
    full path (it said ``fivedice play ...``, "command not found")."""
    program = Path(sys.executable).with_name("fivedice")
    env = {k: v for k, v in os.environ.items() if k in ("HOME", "PYTHONPATH", "LANG")}
    env.update(PATH="/usr/bin:/bin", XDG_DATA_HOME=str(tmp_path), FIVEDICE_DB=str(tmp_path / "scores.db"))
    first = subprocess.run(
        [str(program), "play", "--plain", "--players", "Ann", "--seed", "3"],
        input="chance\n", capture_output=True, text=True, env=env, timeout=120, check=False,
    )  # fmt: skip
    assert first.returncode == 1, first.stderr
    command = first.stdout.rsplit("resume it with: ", 1)[1].strip()
    assert command.startswith(f"{program} play --plain --load ")
    again = subprocess.run(
        shlex.split(command), input="card\nquit\n", capture_output=True, text=True, env=env, timeout=120, check=False
    )
    assert again.returncode == 0, again.stderr
    assert "Chance" in again.stdout
