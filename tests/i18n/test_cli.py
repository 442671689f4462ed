"""The command line and the plain line mode in every language; English stays as it was."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping

import pytest
from click.testing import CliRunner

from fivedice import i18n
from fivedice.cli import main

CLEAN = {"LANGUAGE": None, "LC_ALL": None, "LC_MESSAGES": None, "LANG": None}


def run(*args: str, env: Mapping[str, str | None] | None = None, input: str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), env={**CLEAN, **(env or {})}, input=input)
    return result.exit_code, result.stdout, result.stderr


def test_lang_it_prints_the_italian_score_card() -> None:
    """The issue's 'done when': LANG=it_IT.UTF-8 fivedice rules yahtzee, in a real process."""
    env = {k: v for k, v in os.environ.items() if k not in CLEAN} | {"LANG": "it_IT.UTF-8"}
    command = [sys.executable, "-c", "from fivedice.cli import main; main()", "rules", "yahtzee"]
    out = subprocess.run(command, env=env, capture_output=True, text=True, check=True).stdout
    lines = out.splitlines()
    assert lines[0].startswith("Yahtzee (yahtzee): Yahtzee: 13 caselle")
    assert lines[2].split() == ["Casella", "Nome", "Richiede", "Punti"]
    rows = {line[:15].strip(): line[15:].split()[0] for line in lines[3:16]}
    assert rows == {
        "Assi": "aces", "Due": "twos", "Tre": "threes", "Quattro": "fours", "Cinque": "fives", "Sei": "sixes",
        "Tris": "three_of_a_kind", "Poker": "four_of_a_kind", "Full": "full_house",
        "Scala piccola": "small_straight", "Scala grande": "large_straight", "Yahtzee": "yahtzee", "Chance": "chance",
    }  # fmt: skip
    assert "Regola del Joker: obbligato" in out
    assert out.endswith("5 dadi, fino a 3 lanci per turno, 13 round.\n")


@pytest.mark.parametrize(
    ("env", "args", "expected"),
    [
        ({"LANG": "hr_HR.UTF-8"}, ["rules", "yahtzee"], "Puna kuća"),
        ({"LANG": "it_IT.UTF-8", "LANGUAGE": "su"}, ["rules", "yahtzee"], "Lempeng Gedé"),
        ({"LANG": "it_IT.UTF-8"}, ["--lang", "hr", "rules", "yahtzee"], "Veliki niz"),
        ({"LANG": "su_ID.UTF-8"}, ["--lang", "co", "rules", "yacht"], "Quattru di un tipu"),
        ({"LANG": "it_IT.UTF-8"}, ["--lang", "en", "rules", "yahtzee"], "Three of a Kind"),
        ({}, ["rules", "yahtzee"], "Three of a Kind"),
    ],
)
def test_language_from_lang_option_and_environment(env: dict[str, str], args: list[str], expected: str) -> None:
    code, out, _err = run(*args, env=env)
    assert code == 0
    assert expected in out


def test_english_output_is_unchanged() -> None:
    code, out, _err = run("rules", "generala")
    assert code == 0
    assert out.startswith("Generala (generala): Generala: 10 boxes, extra points on the first roll")
    assert "Straight  straight  1-2-3-4-5 or 2-3-4-5-6                20 (25 on the first roll)" in out
    assert "Instant win: generala made on a turn's first roll wins the game at once." in out
    code, out, _err = run("rules")
    assert "--option joker=forced|free|none: what five alike may do once the Yahtzee box is filled" in out


def test_errors_are_translated_and_exit_2() -> None:
    code, out, err = run("--lang", "it", "score", "yacht", "chancy", "1", "2", "3", "4", "5")
    assert (code, out) == (2, "")
    assert err == (
        "Errore: La casella 'chancy' non è nel regolamento yacht; attesa una tra: Uno, Due, Tre, Quattro, Cinque, "
        "Sei, Full, Poker, Scala piccola, Scala grande, Scelta, Yacht.\n"
    )
    code, _out, err = run("score", "yacht", "choice", "1", "2", "3", "4", "7", env={"LANG": "hr_HR.UTF-8"})
    assert code == 2
    assert err == "Greška: Vrijednost kockice 7 nije cijeli broj od 1 do 6.\n"
    code, _out, err = run("--lang", "su", "rules", "nope")
    assert err.startswith("Kasalahan: Aturan 'nope' teu dipikawanoh")


def test_unknown_language_is_a_usage_error() -> None:
    code, _out, err = run("--lang", "xx", "rules")
    assert code == 2
    assert "Language 'xx' is not available; expected one of: co, en, hr, it, su." in err


def test_help_is_translated() -> None:
    code, out, _err = run("--lang", "it", "--help")
    assert code == 0
    assert out.startswith("Uso: main [OPTIONS] COMMAND [ARGS]...")  # CliRunner names the program main
    assert "Opzioni:" in out
    assert "Comandi:" in out
    assert "Mostra questo messaggio ed esci." in out
    code, out, _err = run("play", "--help", env={"LANG": "hr_HR.UTF-8"})
    assert "Igraj igru" in out
    assert "Jednostavni način redaka" in out
    code, out, _err = run("--help")
    assert "Show this message and exit." in out


def test_the_language_is_restored_after_a_command() -> None:
    i18n.set_language("en")
    run("--lang", "it", "rules", "yahtzee")
    assert i18n.current_language() == "en"


def test_plain_game_in_italian_takes_italian_box_names() -> None:
    lines = ["Ann", "tris", "sì", "scala piccola", "si", "full house", "s", "chance", "nope", "quit"]
    code, out, _err = run("--lang", "it", "play", "--plain", "--seed", "3", input="\n".join(lines) + "\n")
    assert code == 0
    assert "Giocatori (nomi separati da virgole; Nome:livello per un computer) [Giocatore]> " in out
    assert "Yahtzee (yahtzee) per Ann. Scrivi 'aiuto' per i comandi." in out
    assert "Round 1 di 13: tocca a Ann." in out
    assert "Caselle possibili: assi 0, due 4, tre 3, quattro 0, cinque 10, sei 0, tris 0," in out
    assert "Segnare 0 in Tris? sì o no> sì\nAnn segna 0 in Tris." in out  # a zero is confirmed, in Italian
    assert "Ann segna 0 in Scala piccola." in out
    assert "Ann segna 0 in Full." in out  # English names still work
    assert "Totale superiore" in out
    assert "Errore: La casella 'nope' non è nel regolamento yahtzee" in out
    assert out.rstrip().endswith("Arrivederci.")


def test_plain_game_in_croatian_to_the_end() -> None:
    boxes = ["asovi", "dvojke", "trojke", "četvorke", "petice", "šestice", "3 vrste", "4 vrste", "puna kuća"]
    boxes += ["mali niz", "veliki niz", "yahtzee", "šansa"]
    args = ("--lang", "hr", "play", "--plain", "--no-confirm", "--seed", "5", "--players", "Ivo")
    code, out, _err = run(*args, input="\n".join(boxes))
    assert code == 0
    assert out.count("Ivo upisuje ") == 13
    assert "Kraj igre: Ivo završava s " in out
    assert "Ukupno" in out
    assert "1. Ivo: " in out


def test_plain_commands_in_the_players_language() -> None:
    lines = ["Ann", "tieni 5 5", "segna tris", "opzioni", "fissa 1", "cartella", "aiuto", "keep 5", "esci"]
    code, out, _err = run("--lang", "it", "play", "--plain", "--seed", "3", input="\n".join(lines) + "\n")
    assert code == 0
    assert "[1] Ann, lancio 1 di 3> tieni 5 5\nAnn tiene 5 5 e lancia 5 5 5 4 6 (lancio 2 di 3).\n" in out
    assert "Ann segna 25 in Tris." in out
    assert "[3] Ann, lancio 1 di 3> opzioni\nCaselle possibili: assi 2," in out
    assert "[4] Ann, lancio 1 di 3> fissa 1\nAnn tiene 5 e lancia 5 " in out
    assert "Comandi (vanno bene anche le parole inglesi tra parentesi):" in out
    assert "> keep 5\nAnn tiene 5 e lancia " in out  # English words work in every language
    assert out.rstrip().endswith("Arrivederci.")


def test_a_box_name_wins_over_a_command_word() -> None:
    """Sundanese 'pilihan' lists the options; 'pilihan bébas' is Yacht's Choice box."""
    lines = ["Asep", "pilihan", "pilihan bebas", "kaluar"]
    code, out, _err = run("--lang", "su", "play", "--plain", "--rules", "yacht", "--seed", "1", input="\n".join(lines))
    assert code == 0
    assert "> pilihan\nPilihan: " in out
    assert "Asep nyitak " in out
    assert " dina Pilihan Bébas." in out
    assert out.rstrip().endswith("Wilujeng tepang deui.")


@pytest.mark.parametrize("code", ["it", "hr", "su", "co"])
def test_command_words_are_not_box_names(code: str) -> None:
    from fivedice import rules
    from fivedice.cli.plain import local_commands

    with i18n.language(code):
        words = set(local_commands())
        for name, _description in rules.available():
            labels = {i18n.fold(i18n.box_label(b)) for b in rules.get(name).boxes}
            assert not words & labels, name
