"""The terminal game's own part around the table: saves (one file; older seats files still load), the
Resume list, the names of games."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from fivedice import rules
from fivedice.cli import main
from fivedice.engine import saves
from fivedice.errors import FiveDiceError, SaveFormatError
from fivedice.table.seat import SeatKind
from fivedice.tui import Seat, Session
from fivedice.tui.session import delete_save, rules_title, saved_games, sidecar
from tests.tui.helpers import near_end, session_of


def duel(seed: int = 3) -> Session:
    return session_of("yahtzee", [Seat("Ann"), Seat("Robo", SeatKind.COMPUTER, "greedy")], seed=seed)


def test_a_save_is_one_file_with_seats_tape_hints_and_undo_count(tmp_path: Path) -> None:
    session = duel()
    table = session.table
    table.advance()
    table.roll()
    table.hints.append((table.state.current, len(table.game.log)))
    path = session.save(folder=tmp_path)
    assert path.parent == tmp_path
    assert list(tmp_path.iterdir()) == [path]
    again = Session.load(path)
    assert again.game.log == session.game.log
    assert again.seats == session.seats
    assert again.table.hints == table.hints
    assert again.table.tape.to_data() == table.tape.to_data()
    assert again.save_path == path
    assert saves.load(path).log == session.game.log  # every tool loads it as a game
    assert [p for p, _ in saved_games(tmp_path)] == [path]


def test_an_older_save_with_a_seats_file_still_loads_and_is_saved_as_one_file(tmp_path: Path) -> None:
    session = duel()
    session.table.advance()
    session.table.roll()
    path = tmp_path / "old.json"
    saves.save(session.game, path)
    side = sidecar(path)
    old: dict[str, Any] = {
        "format": "fivedice-seats",
        "version": 1,
        "players": ["Ann", "Robo"],
        "seats": [s.to_data() for s in session.seats],
        "hints": [{"seat": 0, "move": len(session.game.log), "lines": [["keep 6", 1.0, 0.0]]}],
    }
    side.write_text(json.dumps(old))
    loaded = Session.load(path)
    assert loaded.seats == session.seats
    assert loaded.table.hints == [(0, len(session.game.log))]
    assert loaded.table.seat(1).is_computer
    loaded.save()
    assert not side.exists()
    assert Session.load(path).seats == session.seats
    # damage is refused with a clear message
    saves.save(session.game, path)
    old["seats"][0]["name"] = "Zed"
    side.write_text(json.dumps(old))
    with pytest.raises(SaveFormatError, match="differ from the saved game"):
        Session.load(path)
    side.write_text("{not json")
    with pytest.raises(SaveFormatError, match="damaged"):
        Session.load(path)
    delete_save(path)
    assert not path.exists()
    assert not side.exists()


def test_a_plain_engine_save_loads_with_every_seat_human(tmp_path: Path) -> None:
    session = duel()
    session.table.advance()
    plain = tmp_path / "plain.json"
    saves.save(session.game, plain)
    assert all(not s.is_computer for s in Session.load(plain).seats)


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes anywhere")
def test_an_unwritable_folder_is_one_sentence_and_leaves_nothing(tmp_path: Path) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        with pytest.raises(FiveDiceError, match="cannot be saved"):
            duel().save(folder=folder)
    finally:
        folder.chmod(0o700)
    assert list(folder.iterdir()) == []


def test_a_save_into_a_file_path_is_one_sentence_and_the_game_goes_on(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    session = duel()
    with pytest.raises(FiveDiceError, match=r"^The game cannot be saved to .*\.$"):
        session.save(folder=blocker)
    assert session.save_path is None
    assert session.save(folder=tmp_path).exists()


def test_games_are_named_as_players_know_them() -> None:
    assert rules_title(rules.get("yahtzee", cards="jetsi")) == "Jetsi"
    assert rules_title(rules.get("yahtzee")) == "Yahtzee"
    jetsi = session_of(rules.get("yahtzee", cards="jetsi"), [Seat("Ann")])
    assert jetsi.describe().startswith("Jetsi: Ann; round 1 of 39")
    challenge = session_of("yacht", [Seat("Ann")], challenge="2026-12-01")
    assert challenge.describe().startswith("Yacht, challenge 2026-12-01: Ann;")
    assert near_end(session_of("yacht", [Seat("Bo")]), 0).describe() == "Yacht: Bo; over"


def test_a_terminal_save_resumes_in_the_plain_line_mode(tmp_path: Path) -> None:
    session = duel()
    session.table.advance()
    session.table.roll()
    path = session.save(folder=tmp_path)
    out = CliRunner().invoke(main, ["play", "--plain", "--load", str(path)], input="card\nquit\n")
    assert out.exit_code == 0, out.output
    assert "Robo (greedy)" in out.output


def test_play_falls_back_to_the_plain_mode_outside_a_terminal() -> None:
    out = CliRunner().invoke(main, ["play", "--players", "Ann", "--seed", "3", "--rules", "yacht"], input="quit\n")
    assert out.exit_code == 0, out.output
    assert "Not a terminal: playing in the plain line mode." in out.output
    assert "Yacht (yacht) for Ann" in out.output
