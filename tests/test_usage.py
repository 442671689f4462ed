"""Command-line usage errors are one sentence in the reader's language (exit 2); options given twice
are refused; the plain mode says when everyone ties in the roll-off."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from fivedice import i18n, rules
from fivedice.cli import main
from fivedice.errors import RuleSetError

CLEAN = {"LANGUAGE": None, "LC_ALL": None, "LC_MESSAGES": None, "LANG": None}


def run(*args: str, input: str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), input=input, env=CLEAN, prog_name="fivedice")
    return result.exit_code, result.stdout, result.stderr


USAGE_ERRORS = [
    (
        ["score", "yahtzee", "chance", "-1", "2", "3", "4", "5"],
        "Error: Value '-1' is not valid for 'fivedice score': negative numbers are not accepted, and an argument "
        "starting with '-' is read as an option.",
    ),
    (
        ["score", "yahtzee", "chance", "1", "2", "3", "4", "5", "--rol", "2"],
        "Error: Option '--rol' is unknown to 'fivedice score'; expected one of: --roll, --option, -o, --help, -h.",
    ),
    (
        ["score", "yahtzee", "chance", "1", "2", "3", "4", "5", "--roll"],
        "Error: Option '--roll' of 'fivedice score' needs 1 value.",
    ),
    (
        ["score", "yahtzee", "chance", "1", "2", "3", "4", "5", "--roll", "two"],
        "Error: Value 'two' for --roll of 'fivedice score' is not valid; expected a whole number.",
    ),
    (["score", "yahtzee"], "Error: 'fivedice score' needs BOX (usage: fivedice score [OPTIONS] NAME BOX [DICE]...)."),
    (
        ["rules", "yahtzee", "extra"],
        "Error: 'fivedice rules' does not take the argument 'extra' (usage: fivedice rules [OPTIONS] [NAME]).",
    ),
    (["solve", "--json=yes", "yacht"], "Error: Option '--json' of 'fivedice solve' takes no value."),
    (
        ["play", "--plain", "--pace", "11"],
        "Error: Value '11' for --pace of 'fivedice play' is not valid; expected a number from 0 to 10.",
    ),
    (
        ["scores", "--limit", "0"],
        "Error: Value '0' for --limit of 'fivedice scores' is not valid; expected a whole number from 1 to 1000.",
    ),
    (
        ["roll"],
        "Error: Command 'roll' is unknown; expected one of: advise, analyze, history, merge, play, rules, score, "
        "scores, serve, simulate, solve.",
    ),
    (["--lang", "xx", "rules"], "Error: Language 'xx' is not available; expected one of: co, en, hr, it, su."),
    (["--lang", "it"], "Errore: Manca il comando."),
]


@pytest.mark.parametrize(("args", "line"), USAGE_ERRORS)
def test_a_usage_error_is_one_sentence_and_exit_2(args: list[str], line: str) -> None:
    assert run(*args) == (2, "", line + "\n")


@pytest.mark.parametrize("code", ["it", "hr", "su", "co"])
@pytest.mark.parametrize(("args", "line"), USAGE_ERRORS[:-2])
def test_usage_errors_in_every_language(code: str, args: list[str], line: str) -> None:
    status, out, err = run("--lang", code, *args)
    assert (status, out) == (2, "")
    assert err.count("\n") == 1
    with i18n.language(code):
        assert err.startswith(i18n._("Error: {message}", message=""))
    assert err != line + "\n"
    assert "Usage" not in err
    assert "Try " not in err


def test_an_option_given_twice_is_refused() -> None:
    code, out, err = run("rules", "yahtzee", "-o", "joker=free", "-o", "joker=none")
    assert (code, out) == (2, "")
    assert err == "Error: Option 'joker' is given twice ('free', then 'none'); expected it once.\n"
    code, _out, err = run("score", "yahtzee", "chance", "1", "2", "3", "4", "5", "-o", "order=free", "-o", "Order=free")
    assert (code, err) == (2, "Error: Option 'Order' is given twice ('free', then 'free'); expected it once.\n")
    code, _out, err = run("play", "--plain", "--seed", "1", "--seed", "2")
    assert (code, err) == (2, "Error: Option '--seed' is given twice to 'fivedice play'; expected it at most once.\n")
    code, _out, err = run("--lang", "it", "--lang", "hr", "rules")
    assert code == 2
    assert "'--lang'" in err
    with pytest.raises(RuleSetError, match="Option 'joker' is given twice"):
        rules.parse_spec("yahtzee joker=free joker=none")
    assert run("rules", "yahtzee", "-o", "joker=free", "-o", "order=top_down")[0] == 0


def test_the_plain_mode_prints_an_all_round_tie() -> None:
    script = ["Ann,Bob", "1 2 3 4 5", "5 4 3 2 1", "6 6 6 6 6", "1 1 1 1 1", "quit"]
    code, out, _err = run("play", "--plain", "--physical", "--rules", "yacht", input="\n".join(script) + "\n")
    assert code == 0
    assert "Bob rolls off: 5 4 3 2 1 (15).\nEveryone ties at 15: all roll off again.\n" in out
    assert "Bob rolls off: 1 1 1 1 1 (5).\nAnn starts.\n" in out
    code, out, _err = run("--lang", "co", "play", "--plain", "--physical", "--rules", "yacht", input="\n".join(script))
    assert "Pattu à 15: tutti tiranu torna.\n" in out
