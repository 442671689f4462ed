"""Saves: every field checked (even under a recomputed checksum), and a failed save that changes nothing."""

from __future__ import annotations

import errno
import json
import os
import random
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from fivedice import Game, i18n, notation, rules, saves
from fivedice.cli import main
from fivedice.errors import FiveDiceError, SaveError, SaveFormatError


def played(moves: int = 40) -> Game:
    game = Game(rules.get("yahtzee"), ("Ann", "Bob"), rng=random.Random(2))
    pick = random.Random(3)
    while not game.is_over and len(game.log) < moves:
        game.play(pick.choice(game.state.legal_actions()))
    return game


def resealed(data: dict[str, Any]) -> str:
    """The save as someone would forge it: edited, then its checksum recomputed."""
    body = {k: v for k, v in data.items() if k != "sha256"}
    return json.dumps({**body, "sha256": saves._digest(body)})


def test_the_field_table_is_the_save() -> None:
    from fivedice.table import Table

    assert [f.name for f in saves.FIELDS if f.name != "table"] == list(saves.to_data(played()))
    table = Table("yahtzee", ["Ann", "Max:greedy"], rng=random.Random(1))
    table.roll()
    table.kept = (0,)  # written only while dice are set aside
    data = table.to_data()
    assert [f.name for f in saves.FIELDS] == list(data)
    assert [f.name for f in saves.TABLE_FIELDS] == list(data["table"])


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("players", "Ab", "Save field 'players' is \"Ab\"; expected a list of player names."),
        ("players", ["Ann", 7], "Save field 'players' is [\"Ann\", 7]; expected a list of player names."),
        ("version", True, "Save version true is not supported; expected 1."),
        ("version", 1.0, "Save version 1.0 is not supported; expected 1."),
        ("format", 1, "Format 1 is not a fivedice save; expected 'fivedice-game'."),
        ("starter", "0", "Save field 'starter' is \"0\"; expected a seat number or null."),
        ("starter", False, "Save field 'starter' is false; expected a seat number or null."),
        ("over", "no", "Save field 'over' is \"no\"; expected true or false."),
        ("over", 0, "Save field 'over' is 0; expected true or false."),
        ("totals", [1, "2"], "Save field 'totals' is [1, \"2\"]; expected a list of whole numbers, one per player."),
        ("totals", [True, 3], "Save field 'totals' is [true, 3]; expected a list of whole numbers, one per player."),
        ("log", {"type": "roll"}, 'Save field \'log\' is {"type": "roll"}; expected a list of moves, each an object.'),
        ("redo", None, "Save field 'redo' is null; expected a list of moves, each an object."),
        ("notation", ["R=12345"], "Save field 'notation' is [\"R=12345\"]; expected the moves in fivedice notation"),
        ("rules", "yahtzee", "Save field 'rules' is \"yahtzee\"; expected an object holding a rule-set 'spec'"),
        (
            "rules",
            {"spec": "yahtzee", "definition": {}},
            'Save field \'rules\' is {"spec": "yahtzee", "definition": {}};',
        ),
        ("players", list(range(30)), "Save field 'players' is [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, …;"),
        ("rules", {"spec": 5}, "Save field 'rules' is {\"spec\": 5}; expected an object"),
    ],
)
def test_a_field_of_the_wrong_type_is_refused_under_a_recomputed_checksum(
    field: str, value: object, message: str
) -> None:
    data = saves.to_data(played())
    data[field] = value
    with pytest.raises(SaveFormatError) as caught:
        saves.loads(resealed(data))
    assert str(caught.value).startswith(message)


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("undos", True, "Save field 'table.undos' is true; expected a whole number."),
        ("hints", [["0", 1]], "Save field 'table.hints' is [[\"0\", 1]]; expected a list of [seat, move] pairs."),
        ("seats", "Ann", "Save field 'table.seats' is \"Ann\"; expected a list of seats, each an object."),
        ("by", [1], "Save field 'table.by' is [1]; expected a list of who made each move."),
        ("tape", {}, "Save field 'table.tape' is {}; expected a list of dice-tape entries."),
        ("challenge", 7, "Save field 'table.challenge' is 7; expected a challenge code or null."),
        ("cheat", 1, "The saved game has an unknown field 'table.cheat'; expected only: table.seats, table.by,"),
    ],
)
def test_the_tables_fields_are_checked_too(field: str, value: object, message: str) -> None:
    from fivedice.table import Table

    table = Table("yacht", ["Ann", "Max:greedy"], rng=random.Random(1))
    table.roll()
    data = table.to_data()
    data["table"][field] = value
    with pytest.raises(SaveFormatError) as caught:
        Table.from_data(json.loads(resealed(data)))
    assert str(caught.value).startswith(message)


def test_a_table_field_may_be_missing_only_if_optional() -> None:
    from fivedice.table import Table

    table = Table("yacht", ["Ann", "Max:greedy"], rng=random.Random(1))
    table.roll()
    data = table.to_data()
    del data["table"]["undos"]
    with pytest.raises(SaveFormatError, match=r"lacks the field 'table\.undos' \(a whole number\)"):
        Table.from_data(json.loads(resealed(data)))
    data = table.to_data()
    del data["table"]["challenge"]
    assert Table.from_data(json.loads(resealed(data))).state == table.state


def test_a_missing_or_unknown_field_is_refused() -> None:
    data = saves.to_data(played())
    del data["redo"]
    with pytest.raises(SaveFormatError, match="The saved game lacks the field 'redo' \\(a list of moves"):
        saves.loads(resealed(data))
    data = saves.to_data(played())
    data["cheat"] = True
    with pytest.raises(SaveFormatError, match="unknown field 'cheat'; expected only: format, version, rules"):
        saves.loads(resealed(data))


def test_an_edited_notation_is_refused() -> None:
    game = played()
    data = saves.to_data(game)
    tokens = data["notation"].split()
    index = next(i for i, t in enumerate(tokens) if t.startswith("@"))
    box, points = tokens[index].split("=")
    tokens[index] = f"{box}={int(points) + 10}"
    data["notation"] = " ".join(tokens)
    with pytest.raises(SaveFormatError) as caught:
        saves.loads(resealed(data))
    assert str(caught.value) == (
        f"The saved notation disagrees with the saved moves at move {index + 1}: "
        f"'{tokens[index]}' where the moves give '{box}={points}'."
    )
    data["notation"] = " ".join(tokens[:index] + tokens[index + 1 :])
    with pytest.raises(SaveFormatError, match=f"at move {index + 1}"):
        saves.loads(resealed(data))
    data["notation"] = notation.log_to_text(game.log)  # the true notation loads
    assert saves.loads(resealed(data)).state == game.state


def test_save_refusals_are_translated() -> None:
    data = saves.to_data(played())
    data["players"] = "Ab"
    with i18n.language("it"), pytest.raises(SaveFormatError) as caught:
        saves.loads(resealed(data))
    assert str(caught.value) == (
        "Il campo 'players' del salvataggio vale \"Ab\"; atteso: una lista di nomi di giocatori."
    )


# -- writing ------------------------------------------------------------------------------
def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


@pytest.mark.parametrize(
    ("target", "message"),
    [
        (
            "missing/game.json",
            "The game cannot be saved to '{folder}/missing/game.json': folder '{folder}/missing' does not exist.",
        ),
        (".", "The game cannot be saved to '{folder}': it is a folder; expected a file name such as 'game.json'."),
        (
            "afile/game.json",
            "The game cannot be saved to '{folder}/afile/game.json': part of its folder path is a file.",
        ),
    ],
)
def test_a_save_that_cannot_be_written_is_one_sentence_and_changes_nothing(
    tmp_path: Path, target: str, message: str
) -> None:
    (tmp_path / "afile").write_text("x")
    game = played()
    state, log = game.state, game.log
    path = tmp_path / target if target != "." else tmp_path
    with pytest.raises(SaveError) as caught:
        saves.save(game, path)
    assert str(caught.value) == message.format(folder=tmp_path)
    assert isinstance(caught.value, FiveDiceError)
    assert isinstance(caught.value, OSError)  # callers that catch OSError around file writes still do
    assert caught.value.errno in (errno.ENOENT, errno.EISDIR, errno.ENOTDIR)
    assert (game.state, game.log) == (state, log)
    assert _leftovers(tmp_path) == []
    saves.save(game, tmp_path / "game.json")  # the game goes on and saves where it can
    assert saves.load(tmp_path / "game.json").state == state


def test_a_failed_write_leaves_the_old_save_and_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "game.json"
    first = played(10)
    saves.save(first, path)
    before = path.read_bytes()

    def full(src: object, dst: object) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "replace", full)
    with pytest.raises(SaveError, match="the disk is full"):
        saves.save(played(), path)
    assert path.read_bytes() == before
    assert _leftovers(tmp_path) == []


def test_plain_mode_says_why_a_save_failed_and_plays_on(tmp_path: Path) -> None:
    lines = ["Ann", f"save {tmp_path}/nope/g.json", f"save {tmp_path}", "chance", f"save {tmp_path}/g.json", "quit"]
    result = CliRunner().invoke(main, ["play", "--plain", "--seed", "3"], input="\n".join(lines) + "\n")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert (
        f"Error: The game cannot be saved to '{tmp_path}/nope/g.json': folder '{tmp_path}/nope' does not exist.\n"
        in out
    )
    assert f"Error: The game cannot be saved to '{tmp_path}': it is a folder;" in out
    assert "Traceback" not in out
    assert "Ann scores " in out
    assert f"Saved to {tmp_path}/g.json." in out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.json"]
