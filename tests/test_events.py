"""Table events: one class per kind, their plain data (the shape older records have) and their one narrator."""

from __future__ import annotations

import ast
import json
import random
import typing
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from fivedice.engine.actions import Roll, Score
from fivedice.i18n import language
from fivedice.rules import RuleSet, parse_spec
from fivedice.services.chancejobs import ChanceKind
from fivedice.table import Table
from fivedice.table.events import (
    Event,
    EventFormatError,
    EventKind,
    RollRedone,
    Scored,
    ScoreUndone,
    Tied,
    from_data,
    message,
    narrate,
)
from fivedice.table.steps import Automatic, By, GameOver, Move, Think

OLD_RECORDS: list[tuple[str, dict[str, Any], str]] = [
    # (rule set, an event's plain data as tables wrote it before the event classes, its English words)
    ("yacht", {"kind": "rolloff", "seat": 0, "fields": {"player": "Ann", "dice": [6, 6, 6, 6, 6], "total": 30}},
     "Ann rolls off: 6 6 6 6 6 (30)."),
    ("yacht", {"kind": "rolloff_all_tie", "seat": None, "fields": {"players": ["Ann", "Bob", "Cy"], "total": 30}},
     "Everyone ties at 30: all roll off again."),
    ("yacht", {"kind": "rolloff_tie", "seat": None, "fields": {"players": ["Bob", "Cy"], "total": 10}},
     "Tie at 10: Bob, Cy roll off again."),
    ("yacht", {"kind": "starts", "seat": 1, "fields": {"player": "Bob"}}, "Bob starts."),
    ("yacht", {"kind": "turn", "seat": 1, "fields": {"player": "Bob", "round": 1, "rounds": 12}},
     "Round 1 of 12: Bob to play."),
    ("yacht", {"kind": "rolled", "seat": 1,
               "fields": {"player": "Bob", "dice": [4, 4, 4, 4, 4], "kept": [], "roll": 1, "rolls": 3}},
     "Bob rolls 4 4 4 4 4 (roll 1 of 3)."),
    ("yahtzee", {"kind": "rolled", "seat": 0,
                 "fields": {"player": "Ann", "dice": [2, 5, 4, 6, 5], "kept": [2], "roll": 2, "rolls": 3}},
     "Ann keeps 2 and rolls 2 5 4 6 5 (roll 2 of 3)."),
    ("yahtzee", {"kind": "scored", "seat": 0,
                 "fields": {"player": "Ann", "box": "chance", "card": 0, "cards": 1, "points": 22}},
     "Ann scores 22 in Chance."),
    ("yahtzee cards=jetsi", {"kind": "scored", "seat": 0,
                             "fields": {"player": "Ann", "box": "chance", "card": 2, "cards": 3, "points": 19}},
     "Ann scores 19 in Chance on card 3."),
    ("yahtzee", {"kind": "upper_bonus", "seat": 1, "fields": {"player": "Bob", "points": 35}},
     "Bob earns the upper bonus: +35."),
    ("yahtzee cards=jetsi", {"kind": "yahtzee_bonus", "seat": 1,
                             "fields": {"player": "Bob", "box": "yahtzee", "points": 100}},
     "Bob earns a bonus for another Yahtzee: +100."),
    ("generala", {"kind": "instant_win", "seat": 0, "fields": {"player": "Ann", "box": "generala"}},
     "Ann wins at once with Generala on the first roll!"),
    ("yahtzee", {"kind": "undone", "seat": 0,
                 "fields": {"what": "score", "player": "Ann", "box": "chance", "points": 22}},
     "Undone: Ann's 22 in Chance."),
    ("yahtzee", {"kind": "undone", "seat": 0, "fields": {"what": "roll", "player": "Ann", "dice": [2, 5, 4, 6, 5]}},
     "Undone: Ann's roll (2 5 4 6 5)."),
    ("yahtzee", {"kind": "redone", "seat": 0,
                 "fields": {"what": "score", "player": "Ann", "box": "chance", "points": 22}},
     "Redone: Ann's 22 in Chance."),
    ("yahtzee", {"kind": "redone", "seat": 0, "fields": {"what": "roll", "player": "Ann", "dice": [2, 5, 4, 6, 5]}},
     "Redone: Ann's roll (2 5 4 6 5)."),
    ("yahtzee", {"kind": "won", "seat": 1, "fields": {"player": "Bob", "total": 121}}, "Game over: Bob wins with 121."),
    ("yahtzee", {"kind": "finished", "seat": 0, "fields": {"player": "Ann", "total": 78}},
     "Game over: Ann finishes with 78."),
    ("yahtzee", {"kind": "tied", "seat": None, "fields": {"players": ["Bob", "Cy"], "total": 217}},
     "Game over: Bob, Cy tie with 217."),
    ("yahtzee", {"kind": "stand_in", "seat": 0, "fields": {"player": "Ann"}},
     "Time ran out for Ann: the computer plays for them."),
]  # fmt: skip

EVENT_CLASSES = typing.get_args(Event)


def old_message(data: Mapping[str, Any], rules: RuleSet) -> tuple[str, dict[str, Any]]:
    """The web's message of an event as the narrator worded it before the event classes: the text of its kind
    (refined by its fields), and each field the text names, in the record's order."""
    kind, fields = str(data["kind"]), dict(data["fields"])
    if kind == "scored" and fields.get("cards", 1) > 1:
        kind += "_card"
    elif kind == "rolled" and fields.get("kept"):
        kind += "_keeping"
    elif kind in ("undone", "redone"):
        kind += "_" + str(fields.get("what", "score"))
    text = OLD_TEXTS[kind]
    args: dict[str, Any] = {}
    for name, value in fields.items():
        if "{" + name not in text:
            continue
        if name == "box":
            value = rules.box(value).label
        elif name == "card":
            value = int(value) + 1
        elif name in ("dice", "kept"):
            value = " ".join(map(str, value))
        elif name == "players":
            value = ", ".join(value)
        args[name] = value
    return text, args


OLD_TEXTS = {
    "rolloff": "{player} rolls off: {dice} ({total}).",
    "rolloff_tie": "Tie at {total}: {players} roll off again.",
    "rolloff_all_tie": "Everyone ties at {total}: all roll off again.",
    "starts": "{player} starts.",
    "turn": "Round {round} of {rounds}: {player} to play.",
    "rolled": "{player} rolls {dice} (roll {roll} of {rolls}).",
    "rolled_keeping": "{player} keeps {kept} and rolls {dice} (roll {roll} of {rolls}).",
    "scored": "{player} scores {points} in {box}.",
    "scored_card": "{player} scores {points} in {box} on card {card}.",
    "upper_bonus": "{player} earns the upper bonus: +{points}.",
    "yahtzee_bonus": "{player} earns a bonus for another {box}: +{points}.",
    "instant_win": "{player} wins at once with {box} on the first roll!",
    "undone_score": "Undone: {player}'s {points} in {box}.",
    "undone_roll": "Undone: {player}'s roll ({dice}).",
    "redone_score": "Redone: {player}'s {points} in {box}.",
    "redone_roll": "Redone: {player}'s roll ({dice}).",
    "won": "Game over: {player} wins with {total}.",
    "finished": "Game over: {player} finishes with {total}.",
    "tied": "Game over: {players} tie with {total}.",
    "stand_in": "Time ran out for {player}: the computer plays for them.",
}
"""The English text of each kind of event before the event classes (the web's message keys)."""


class Fixed:
    """Dice from a list, then random ones."""

    def __init__(self, rolls: Sequence[tuple[int, ...]]) -> None:
        self.rolls = list(rolls)
        self.rng = random.Random(0)

    def roll(self, n: int) -> tuple[int, ...]:
        return self.rolls.pop(0)[:n] if self.rolls else tuple(self.rng.randint(1, 6) for _ in range(n))


def played(spec: str, seats: list[str], seed: int) -> Table:
    """A game to its end with the human seats acting at random: rolls, scores, undos, redos, a stand-in now and then."""
    rng = random.Random(seed)
    table = Table(parse_spec(spec), seats, seed=seed, undo="any" if len(seats) == 1 else None)
    while not isinstance(step := table.next_step(), GameOver):
        if isinstance(step, Automatic):
            table.commit(Move.of(step))
        elif isinstance(step, Think):
            table.commit(Move(step.state, table.think(step), step.by))
        else:
            state, r = table.state, rng.random()
            if r < 0.08 and table.can_undo(state.current):
                table.undo(state.current)
            elif r < 0.12 and table.can_redo():
                table.redo()
            else:
                by = By.TIMER if rng.random() < 0.05 else By.SEAT
                if state.rolls_left > 0 and rng.random() < 0.6:
                    table.play(Roll(tuple(p for p in range(state.rules.dice - 1) if rng.random() < 0.4)), by)
                else:
                    card, box = rng.choice(sorted(state.options()))
                    table.play(Score(box, card), by)
    return table


def tables() -> list[Table]:
    """Games whose events hold every kind: random ones, a roll-off with ties, an instant win, undo and redo."""
    three = ["Ann", "Bob:greedy", "Cy:greedy"]
    out = [played("yahtzee", three, 1), played("yahtzee cards=jetsi", three, 7), played("yacht", three[:2], 2)]
    out.append(played("yahtzee", ["Ann"], 0))
    ties = Fixed([(6,) * 5] * 3 + [(1,) * 5, (2,) * 5, (2,) * 5, (3,) * 5, (1,) * 5, (4,) * 5])
    out.append(Table("yacht", ["Ann", "Bob", "Cy"], rng=ties))
    out[-1].run_automatic()
    out.append(Table("generala", ["Ann", "Bob"], rng=Fixed([(6,) * 5, (1,) * 5, (5,) * 5])))
    out[-1].run_automatic()
    out[-1].score("generala")
    out.append(Table("yahtzee", ["Ann"], seed=3, undo="any"))
    out[-1].run_automatic()
    out[-1].roll((0,))
    out[-1].undo()
    out[-1].redo()
    out[-1].score("chance")
    out[-1].undo()
    out[-1].redo()
    return out


@pytest.fixture(scope="module")
def heard() -> list[tuple[RuleSet, Event]]:
    return [(table.rules, event) for table in tables() for event in table.events]


def test_the_games_hold_every_kind_of_event(heard: list[tuple[RuleSet, Event]]) -> None:
    assert {type(e) for _rules, e in heard} == set(EVENT_CLASSES)
    assert {e.kind for _rules, e in heard} == set(EventKind)


def test_every_event_survives_json_and_keeps_the_plain_shape(heard: list[tuple[RuleSet, Event]]) -> None:
    for _rules, event in heard:
        data = json.loads(json.dumps(event.to_data()))
        assert from_data(data) == event
        assert list(data) == ["kind", "seat", "fields"]
        assert data["kind"] == event.kind
        assert data["fields"] == json.loads(json.dumps(event.fields))


def test_the_web_message_of_every_event_is_the_one_of_older_releases(heard: list[tuple[RuleSet, Event]]) -> None:
    for rules, event in heard:
        text, args = message(event, rules)
        old_text, old_args = old_message(event.to_data(), rules)
        assert (text, list(args.items())) == (old_text, list(old_args.items()))  # the same fields in the same order


@pytest.mark.parametrize(("spec", "data", "words"), OLD_RECORDS, ids=[f"{d['kind']}-{i}" for i, (_s, d, _w) in
                                                                      enumerate(OLD_RECORDS)])  # fmt: skip
def test_an_old_record_loads_and_reads_as_it_did(spec: str, data: dict[str, Any], words: str) -> None:
    event = from_data(data)
    rules = parse_spec(spec)
    assert narrate(event, rules) == words
    assert event.to_data() == data
    assert message(event, rules) == old_message(data, rules)


def test_old_records_load_as_their_classes() -> None:
    loaded = [from_data(data) for _spec, data, _words in OLD_RECORDS]
    assert loaded[7] == Scored(seat=0, player="Ann", box="chance", card=0, cards=1, points=22)
    assert loaded[12] == ScoreUndone(seat=0, player="Ann", box="chance", points=22)
    assert loaded[15] == RollRedone(seat=0, player="Ann", dice=(2, 5, 4, 6, 5))
    assert loaded[18] == Tied(players=("Bob", "Cy"), total=217)
    assert {type(e) for e in loaded} == set(EVENT_CLASSES)


def test_narration_is_in_the_readers_language() -> None:
    scored = from_data(OLD_RECORDS[7][1])
    with language("it"):
        assert narrate(scored, parse_spec("yahtzee")) == "Ann segna 22 in Chance."


KNOWN = (
    "rolloff, rolloff_tie, rolloff_all_tie, starts, turn, rolled, scored, upper_bonus, yahtzee_bonus, instant_win, "
    "won, finished, tied, stand_in, undone/score, undone/roll, redone/score, redone/roll"
)


@pytest.mark.parametrize(
    ("data", "says"),
    [
        ({"kind": "over", "seat": None, "fields": {}}, f"Event kind 'over' is unknown; expected one of: {KNOWN}."),
        ({"kind": "undone", "seat": 0, "fields": {"what": "turn", "player": "Ann"}},
         f"Event kind 'undone/turn' is unknown; expected one of: {KNOWN}."),
        ({"seat": 0}, f"Event kind None is unknown; expected one of: {KNOWN}."),
        ({"kind": "scored", "seat": 0, "fields": {"player": "Ann"}},
         "Event {'kind': 'scored', 'seat': 0, 'fields': {'player': 'Ann'}} does not fit its kind; "
         "expected the fields seat, player, box, card, cards, points."),
        ({"kind": "starts", "fields": {"player": "Ann"}},
         "Event {'kind': 'starts', 'fields': {'player': 'Ann'}} does not fit its kind; "
         "expected the fields seat, player."),
        ({"kind": "starts", "seat": 0, "fields": {"player": "Ann", "x": 1}},
         "Event {'kind': 'starts', 'seat': 0, 'fields': {'player': 'Ann', 'x': 1}} does not fit its kind; "
         "expected the fields seat, player."),
        ({"kind": "starts", "seat": "0", "fields": {"player": "Ann"}},
         "Event {'kind': 'starts', 'seat': '0', 'fields': {'player': 'Ann'}} does not fit its kind; "
         "expected the fields seat, player."),
        ({"kind": "tied", "seat": 1, "fields": {"players": ["A"], "total": 3}},
         "Event {'kind': 'tied', 'seat': 1, 'fields': {'players': ['A'], 'total': 3}} does not fit its kind; "
         "expected the fields seat, players, total."),
        ({"kind": "rolloff", "seat": 0, "fields": {"player": "A", "dice": [1, True], "total": 2}},
         "Event {'kind': 'rolloff', 'seat': 0, 'fields': {'player': 'A', 'dice': [1, True], 'total': 2}} does not fit "
         "its kind; expected the fields seat, player, dice, total."),
        ({"kind": "starts", "seat": 0, "fields": "Ann"},
         "Event {'kind': 'starts', 'seat': 0, 'fields': 'Ann'} does not fit its kind; "
         "expected the fields seat, player."),
    ],
)  # fmt: skip
def test_plain_data_that_is_no_event_is_refused_in_one_sentence(data: dict[str, Any], says: str) -> None:
    with pytest.raises(EventFormatError) as refused:
        from_data(data)
    assert str(refused.value) == says


def test_a_seat_is_optional_only_for_events_of_no_seat() -> None:
    assert from_data({"kind": "tied", "fields": {"players": ["A", "B"], "total": 3}}) == Tied(
        players=("A", "B"), total=3
    )


def _kind_compared_to_text(tree: ast.AST) -> list[int]:
    """Lines where an ``x.kind`` is compared with a string literal that is an event kind's or a chance kind's value."""
    values = {k.value for k in EventKind} | {k.value for k in ChanceKind}
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Compare) and isinstance(node.left, ast.Attribute) and node.left.attr == "kind"):
            continue
        literals = [
            elt
            for right in node.comparators
            for elt in (right.elts if isinstance(right, ast.Tuple | ast.List | ast.Set) else [right])
            if isinstance(elt, ast.Constant) and isinstance(elt.value, str)
        ]
        if any(lit.value in values for lit in literals):
            found.append(node.lineno)
    return found


def test_the_front_ends_tell_events_apart_by_their_class_not_by_text() -> None:
    """An event is matched by its class (``isinstance``, ``match``) and a chance kind by its enum member, never
    by comparing a kind with a string: a renamed kind would then go unnoticed by the type checker."""
    src = Path(__file__).resolve().parents[1] / "src" / "fivedice"
    found = [
        f"{path.relative_to(src)}:{line}"
        for path in sorted(src.rglob("*.py"))
        for line in _kind_compared_to_text(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert found == []
    assert _kind_compared_to_text(ast.parse('if event.kind in ("undone", "redone"): pass')) == [1]


_WEB_TEXTS = {"human", "computer", "lobby", "playing", "over"}
"""The stored seat kinds and room statuses, which web code names by ``SeatKind`` and ``RoomStatus`` members."""


def _kind_or_status_compared_to_text(tree: ast.AST) -> list[int]:
    """Lines where an ``x.kind`` or ``x.status`` is compared with a seat kind's or room status's text."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Compare):
            continue
        sides = [node.left, *node.comparators]
        if not any(isinstance(side, ast.Attribute) and side.attr in ("kind", "status") for side in sides):
            continue
        literals = [
            elt
            for side in sides
            for elt in (side.elts if isinstance(side, ast.Tuple | ast.List | ast.Set) else [side])
            if isinstance(elt, ast.Constant) and isinstance(elt.value, str)
        ]
        if any(lit.value in _WEB_TEXTS for lit in literals):
            found.append(node.lineno)
    return found


def test_the_web_tells_seat_kinds_and_room_statuses_apart_by_enum_member_not_by_text() -> None:
    """Web code compares a seat's kind with ``SeatKind`` members and a room's status with ``RoomStatus`` members,
    so a renamed value is caught by the type checker rather than silently never matching."""
    web = Path(__file__).resolve().parents[1] / "src" / "fivedice" / "web"
    found = [
        f"{path.relative_to(web)}:{line}"
        for path in sorted(web.rglob("*.py"))
        for line in _kind_or_status_compared_to_text(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert found == []
    assert _kind_or_status_compared_to_text(ast.parse('if room.status != "lobby" or s.kind == "human": pass')) == [1, 1]
    assert _kind_or_status_compared_to_text(ast.parse("if room.status != RoomStatus.LOBBY: pass")) == []
