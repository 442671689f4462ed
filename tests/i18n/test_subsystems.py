"""The solver, simulation and analysis commands, the players and the RL environments in other languages."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from fivedice import Game, i18n, rules, saves
from fivedice.cli import main
from fivedice.errors import FiveDiceError
from fivedice.players import get, play_game

CLEAN = {"LANGUAGE": None, "LC_ALL": None, "LC_MESSAGES": None, "LANG": None}


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), env=CLEAN)
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(scope="module")
def saved_game(tmp_path_factory: pytest.TempPathFactory) -> Path:
    rs = rules.get("yacht")
    players = [get("greedy", rs, seed=1), get("random", rs, seed=2)]
    game = play_game(Game(rs, ["Ann", "Bob"], seed=5, starter=0), players)
    path = tmp_path_factory.mktemp("saves") / "duel.json"
    saves.save(game, path)
    return path


def test_analyze_in_italian(saved_game: Path) -> None:
    code, out, _err = run("--lang", "it", "analyze", str(saved_game))
    assert code == 0, _err
    for heading in ("yacht: decisioni", "riepilogo", "giocatore", "perdita totale", "voto", "punteggio"):
        assert heading in out
    assert "summary" not in out
    code, english, _err = run("analyze", str(saved_game))
    assert "summary" in english
    assert "riepilogo" not in english


def test_analyze_names_boxes_in_the_language(saved_game: Path) -> None:
    code, out, _err = run("--lang", "it", "analyze", "--all", str(saved_game))
    assert code == 0
    assert "segna " in out
    assert "tieni " in out or "ritira tutti" in out
    # losses use the Italian decimal comma
    assert any(cell.count(",") == 1 and cell.replace(",", "").isdigit() for cell in out.split())


def test_analyze_json_stays_machine_readable(saved_game: Path) -> None:
    code, out, _err = run("--lang", "it", "analyze", "--json", str(saved_game))
    assert code == 0
    data = json.loads(out)
    assert isinstance(data["players"][0]["total_loss"], float)


def test_simulate_in_italian_and_croatian() -> None:
    args = ("simulate", "yacht", "--strategies", "greedy,random", "--games", "40", "--workers", "1")
    code, out, _err = run("--lang", "it", *args)
    assert code == 0, _err
    for heading in ("40 partite, seme 0", "statistica", "media", "deviazione standard", "quota di vittorie"):
        assert heading in out
    assert "zero in Yacht" in out  # the box label, translated where it has a local name
    code, out, _err = run("--lang", "hr", *args)
    assert code == 0
    assert "prosjek" in out
    assert "udio pobjeda" in out
    assert "40 igara" in out
    code, out, _err = run("--lang", "it", *args, "--json")
    assert json.loads(out)["games"] == 40


def test_simulate_error_in_italian() -> None:
    code, _out, err = run("--lang", "it", "simulate", "yacht", "--strategy", "genius", "--games", "5")
    assert code == 2
    assert "La strategia 'genius' è sconosciuta" in err


def test_advise_in_italian() -> None:
    code, out, _err = run("--lang", "it", "advise", "yacht", "--dice", "1", "3", "3", "5", "6", "--rolls-left", "1")
    assert code == 0, _err
    assert "punteggio finale atteso con gioco ottimale:" in out
    assert "tieni 3 3 e lancia" in out
    code, out, _err = run("--lang", "su", "solve", "--help")
    assert "Citak hasilna salaku JSON." in out


def test_solver_and_player_errors_follow_the_language() -> None:
    from fivedice.solver.tables import check_supported

    with i18n.language("hr"), pytest.raises(FiveDiceError, match="rješavač"):
        check_supported(rules.get("yahtzee", cards="jetsi"))
    with i18n.language("it"), pytest.raises(FiveDiceError, match="è sconosciuto"):
        get("genius", rules.get("yacht"))


def test_rl_errors_follow_the_language() -> None:
    from fivedice.rl import SolitaireEnv

    with i18n.language("it"), pytest.raises(FiveDiceError, match="non è supportata"):
        SolitaireEnv("yacht", render_mode="human")
