"""Move notation (text and JSON) and JSON saves."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from fivedice import Game, notation, rules, saves
from fivedice.engine.actions import Roll, RollOff, Score
from fivedice.errors import NotationError, SaveFormatError


def played(spec: str = "yahtzee", players: tuple[str, ...] = ("Ann", "Bob"), moves: int = 60, seed: int = 2) -> Game:
    game = Game(rules.parse_spec(spec), players, rng=random.Random(seed))
    pick = random.Random(seed + 1)
    while not game.is_over and len(game.log) < moves:
        game.play(pick.choice(game.state.legal_actions()))
    return game


@pytest.mark.parametrize(
    ("record", "token"),
    [
        (RollOff(1, (3, 4, 5, 6, 1)), "O2=34561"),
        (Roll((), (3, 1, 5, 6, 2)), "R=31562"),
        (Roll((1, 4), (3, 1, 4, 6, 2)), "R25=31462"),
        (Score("full_house", 0, 25), "@full_house=25"),
        (Score("chance", 2, 21), "@3.chance=21"),
    ],
)
def test_text_tokens(record: RollOff | Roll | Score, token: str) -> None:
    assert notation.to_text(record) == token
    assert notation.from_text(token) == record
    assert notation.from_json(json.loads(json.dumps(notation.to_json(record)))) == record


@pytest.mark.parametrize("token", ["", "X=1", "R=7", "@Chance=3", "O=123", "R12"])
def test_bad_tokens(token: str) -> None:
    with pytest.raises(NotationError, match="not in fivedice notation"):
        notation.from_text(token)


@pytest.mark.parametrize(
    "data",
    [[], {"type": "jump"}, {"type": "roll", "held": [], "dice": "12345"}, {"type": "score", "box": 3, "card": 0}],
)
def test_bad_json_moves(data: object) -> None:
    with pytest.raises(NotationError):
        notation.from_json(data)


def test_intents_have_no_notation() -> None:
    with pytest.raises(NotationError, match="only records"):
        notation.to_text(Roll((1,)))


@pytest.mark.parametrize("spec", ["yahtzee", "yahtzee cards=jetsi", "kismet", "generala", "yatzy forced=yes"])
def test_text_log_replays_identically(spec: str) -> None:
    game = played(spec, moves=10_000)
    assert game.is_over
    text = notation.log_to_text(game.log)
    again = Game.replay(game.rules, game.players, notation.log_from_text(text))
    assert again.state == game.state


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    game = played()
    game.undo(3)
    path = tmp_path / "game.json"
    saves.save(game, path)
    loaded = saves.load(path)
    assert loaded.state == game.state
    assert loaded.log == game.log
    assert loaded.redo_stack == game.redo_stack
    loaded.redo(3)
    game.redo(3)
    assert loaded.state == game.state


def test_custom_rule_set_saves_its_definition(tmp_path: Path) -> None:
    rs = rules.from_data({"name": "mini", "boxes": [{"name": "sixes", "kind": "face", "face": 6}]})
    game = Game(rs, ["Ann"], seed=1)
    game.roll()
    game.score("sixes")
    loaded = saves.loads(saves.dumps(game))
    assert loaded.rules == rs
    assert loaded.is_over


def _tamper(text: str, change: str) -> str:
    data = json.loads(text)
    if change == "dice":
        data["log"][2]["dice"] = [6, 6, 6, 6, 6]
    elif change == "dice+checksum":
        data["log"][2]["dice"] = [6, 6, 6, 6, 6]
        body = {k: v for k, v in data.items() if k != "sha256"}
        data["sha256"] = saves._digest(body)
    elif change == "version":
        data["version"] = 99
    elif change == "format":
        data["format"] = "other"
    return json.dumps(data)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("dice", "checksum does not match"),
        ("dice+checksum", "does not replay|totals do not match"),
        ("version", "Save version 99 is not supported"),
        ("format", "not a fivedice save"),
    ],
)
def test_damaged_or_tampered_saves_fail_clearly(change: str, message: str) -> None:
    text = saves.dumps(played())
    with pytest.raises(SaveFormatError, match=message):
        saves.loads(_tamper(text, change))


def test_truncated_and_missing_files(tmp_path: Path) -> None:
    text = saves.dumps(played())
    with pytest.raises(SaveFormatError, match="not valid JSON"):
        saves.loads(text[: len(text) // 2])
    with pytest.raises(SaveFormatError, match="cannot be read"):
        saves.load(tmp_path / "missing.json")
