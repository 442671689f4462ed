"""The plain line mode as a thin view over the table: fair undo, computer seats, 1-based positions."""

from __future__ import annotations

import io
import re
from collections.abc import Iterable

from fivedice.cli.plain import PlainSession
from fivedice.table import Table


def run(table: Table, lines: Iterable[str], physical: bool = False) -> tuple[int, str]:
    out = io.StringIO()
    feed = iter(lines)

    def read(prompt: str) -> str | None:
        line = next(feed, None)
        out.write(f"{prompt}{line}\n")  # as the command line echoes piped input
        return line

    code = PlainSession(table, out, read, physical).run()
    return code, out.getvalue()


def test_undo_is_never_a_free_reroll() -> None:
    """The bug of issue 11: ``printf 'undo\\nroll\\n'`` used to show new dice."""
    _code, out = run(Table("yahtzee", ["Ann"], seed=3), ["roll", "undo", "roll", "undo", "roll", "quit"])
    rolls = re.findall(r"Ann (?:keeps .* and )?rolls (\d \d \d \d \d) \(roll 2 of 3\)", out)
    assert len(rolls) == 3
    assert len(set(rolls)) == 1
    assert "Undone: Ann's roll (" in out


def test_undo_names_the_score_it_took_back_in_words() -> None:
    table = Table("yacht", ["Ann"], seed=3)
    _code, out = run(table, ["choice", "undo", "quit"])
    points = table.state.options()[(0, "choice")]
    assert f"Undone: Ann's {points} in Choice." in out


def test_positions_are_spoken_from_one() -> None:
    _code, out = run(Table("yacht", ["Ann"], seed=1), ["hold 6", "hold 0", "hold two", "hold 1 1", "quit"])
    assert "Error: Die position 6 is not a die; expected 1 to 5." in out
    assert "Error: Die position 0 is not a die; expected 1 to 5." in out
    assert "Error: Die position 'two' is not a die; expected 1 to 5." in out
    assert "Error: Die positions 1 1 name a die twice; expected distinct positions." in out


def test_a_computer_takes_its_seat_and_a_level_that_cannot_play_is_refused() -> None:
    table = Table("yacht", ["Ann", "Max:greedy"], starter=1, seed=2)
    code, out = run(table, ["quit"])
    assert code == 0
    assert "Yacht (yacht) for Ann, Max (greedy)." in out
    assert "Max scores " in out  # the computer played its turn before Ann's prompt


def test_the_physical_dice_prompt_takes_the_usual_commands(tmp_path: object) -> None:
    table = Table("yacht", ["Ann"])
    path = f"{tmp_path}/g.json"
    code, out = run(table, ["card", "help", f"save {path}", "1 2 3 4 5", "choice", "undo", "quit"], physical=True)
    assert code == 0
    assert "[1] type the 5 dice rolled> card" in out
    assert "Commands:" in out
    assert f"Saved to {path}." in out
    assert "Ann rolls 1 2 3 4 5 (roll 1 of 3)." in out
    assert "Undone: Ann's 15 in Choice." in out
    assert Table.load(path).state.dice is None


def test_hints_come_from_the_advisor() -> None:
    _code, out = run(Table("yacht", ["Ann"], seed=5), ["hint", "quit"])
    assert re.search(r"\n(keep [\d ]+|reroll all|score [A-Za-z ]+ \(\d+\)): [\d.]+ points to come, loses 0\.00\n", out)


def test_a_typo_in_physical_dice_asks_again() -> None:
    """Issue 28: ``7 7 7 7 7`` at the physical-dice prompt ended the game (exit 2, nothing saved)."""
    table = Table("yacht", ["Ann"])
    code, out = run(table, ["7 7 7 7 7", "1 2 3", "1 2 3 4 5", "quit"], physical=True)
    assert code == 0
    assert "Error: Die value 7 is not a whole number from 1 to 6." in out
    assert "[2] type the 5 dice rolled> 1 2 3" in out
    assert "[3] type the 5 dice rolled> 1 2 3 4 5" in out
    assert "Ann rolls 1 2 3 4 5 (roll 1 of 3)." in out


def test_a_misspelt_command_is_named_and_keep_alone_is_refused() -> None:
    """Issue 28: ``kep 5`` was read as a box name; ``keep`` and ``hold`` alone rerolled every die."""
    table = Table("yacht", ["Ann"], seed=1)
    _code, out = run(table, ["kep 5", "keep", "hold", "rol", "quit"])
    assert "Error: Command 'kep' is unknown; did you mean 'keep'?" in out
    assert "Error: Say which dice to keep, e.g. 'keep 3 3 5'; 'roll' rolls them all." in out
    assert "Error: Say which dice to hold by position, e.g. 'hold 1 4'; 'roll' rolls them all." in out
    assert "Error: Command 'rol' is unknown; did you mean 'roll'?" in out
    assert table.state.rolls == 1  # nothing was rolled again


def test_a_zero_is_filled_only_after_a_yes() -> None:
    """Issue 28: a bare box name scored at once; against a computer a 0 in Yacht could never be taken back."""
    table = Table("yacht", ["Ann", "Hal:greedy"], starter=0, seed=1)
    _code, out = run(table, ["yacht", "no", "yacht", "quit"])
    dice = " ".join(map(str, table.state.dice or ()))
    assert table.state.options()[(0, "yacht")] == 0, dice
    assert "Score 0 in Yacht? yes or no> no\nNot scored." in out
    assert "[4] Score 0 in Yacht? yes or no> quit\nNot scored." in out
    assert table.state.cards[0][0].get("yacht") is None
    _code, out = run(table, ["yacht", "yes", "quit"])
    assert "Ann scores 0 in Yacht." in out


def test_a_box_far_below_the_best_is_confirmed_unless_told_not_to() -> None:
    table = Table("yacht", ["Ann"])
    code, out = run(table, ["6 6 6 6 5", "fives", "no", "sixes", "quit"], physical=True)
    assert code == 0
    assert "Score 5 in Fives? yes or no> no\nNot scored." in out  # 24 below Choice's 29
    assert "Ann scores 24 in Sixes." in out  # 5 below the best: not asked
    assert "Score 24" not in out
    table = Table("yacht", ["Ann"])
    code, out = run(table, ["6 6 6 6 6", "ones", "no", "quit"], physical=True)
    assert "Score 0 in Ones? yes or no> no" in out
    table = Table("yacht", ["Ann"])
    out_io = io.StringIO()
    feed = iter(["6 6 6 6 6", "ones", "quit"])
    PlainSession(table, out_io, lambda prompt: next(feed, None), physical=True, confirm=False).run()
    assert "Ann scores 0 in Ones." in out_io.getvalue()
