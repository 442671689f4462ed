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
    _code, out = run(Table("yahtzee", ["Ann"], seed=3), ["roll", "undo", "roll", "undo", "keep", "quit"])
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
