"""The command line: rules, score, play --plain, and exit codes."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from fivedice.cli import main
from fivedice.engine import saves

DATA = Path(__file__).parent / "data"


def run(*args: str, input: str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), input=input)
    return result.exit_code, result.stdout, result.stderr


def test_score_prints_integer() -> None:
    assert run("score", "yacht", "four of a kind", "4", "4", "4", "4", "1") == (0, "17\n", "")
    assert run("score", "yahtzee", "LARGE-straight", "2", "3", "4", "5", "6")[1] == "40\n"
    assert run("score", "yacht", "four_of_a_kind", "4", "4", "4", "4", "1", "-o", "four_kind=four_dice")[1] == "16\n"
    assert run("score", "generala", "full", "2", "2", "3", "3", "3", "--roll", "1")[1] == "35\n"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["score", "yatch", "chance", "1", "2", "3", "4", "5"], "Rule set 'yatch' is unknown"),
        (["score", "yacht", "chancy", "1", "2", "3", "4", "5"], "Box 'chancy' is not in the yacht rule set"),
        (["score", "yacht", "choice", "1", "2", "3", "4"], "Dice '1 2 3 4': 4 values given; expected exactly 5."),
        (["score", "yacht", "choice", "1", "2", "3", "4", "7"], "Die value 7 is not a whole number from 1 to 6"),
        (["score", "yacht", "choice", "1", "2", "3", "4", "x"], "Die value 'x'"),
        (["score", "yacht", "choice", "1", "2", "3", "4", "5", "-o", "joker=free"], "not an option of yacht"),
        (["score", "yacht", "choice", "1", "2", "3", "4", "5", "-o", "joker"], "not of the form key=value"),
        (["score", "yacht", "choice", "1", "2", "3", "4", "5", "--roll", "4"], "Roll number 4 is not valid"),
        (["rules", "nope"], "Rule set 'nope' is unknown"),
    ],
)
def test_bad_input_exits_2_with_a_clear_message(args: list[str], message: str) -> None:
    code, out, err = run(*args)
    assert code == 2
    assert out == ""
    assert message in err
    assert err.startswith("Error: ")


def test_rules_list_and_card() -> None:
    code, out, _ = run("rules")
    assert code == 0
    for name in ("yahtzee", "yacht", "yatzy", "kismet", "generala"):
        assert name in out
    assert "joker=forced|free|none" in out
    code, out, _ = run("rules", "kismet")
    assert code == 0
    assert "Full House Same Colour" in out
    assert "+35 at 63, +55 at 71, +75 at 78" in out
    code, out, _ = run("rules", "yahtzee", "--option", "cards=jetsi")
    assert "card 3: bottom to top" in out
    assert "39 rounds" in out


def test_play_plain_whole_two_player_game_from_answers_file(tmp_path: Path) -> None:
    answers = (DATA / "answers.txt").read_text()
    code, out, _ = run("play", "--plain", "--no-confirm", "--seed", "1", input=answers)
    assert code == 0, out
    assert "Game over: Bob wins with 52." in out
    assert "1. " in out
    assert "2. " in out
    assert out.count("scores ") == 26
    assert "[1] " in out, "prompts are numbered"
    assert "The game is stored with the high scores." in out
    code, table, _ = run("scores")
    assert code == 0
    assert "Ann" in table
    assert "Bob" in table


def test_play_plain_input_ends_early_exits_1() -> None:
    code, out, _ = run("play", "--plain", "--players", "Ann", "--seed", "3", input="chance\n")
    assert code == 1
    assert "Input ended before the game finished." in out


def test_play_plain_save_and_resume(tmp_path: Path) -> None:
    path = tmp_path / "g.json"
    code, out, _ = run("play", "--plain", "--players", "Ann", "--seed", "3", input=f"chance\nsave {path}\nquit\n")
    assert code == 0
    assert path.exists()
    game = saves.load(path)
    assert game.state.cards[0][0].get("chance") is not None
    code, out, _ = run("play", "--plain", "--load", str(path), input="card\nquit\n")
    assert code == 0
    assert "Chance" in out


def test_play_plain_physical_dice() -> None:
    script = "\n".join(["6 6 6 6 6", "yacht", "1 2 3 4 5", "keep 1 2 3 4", "6", "large straight", "yes", "quit"]) + "\n"
    code, out, _ = run("play", "--plain", "--players", "Ann", "--physical", "--rules", "yacht", input=script)
    assert code == 0
    assert "Ann scores 50 in Yacht." in out
    assert "Ann scores 0 in Large Straight." in out  # 1 2 3 4 6 is no Yacht large straight
