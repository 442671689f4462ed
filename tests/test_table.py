"""The table controller: seats, the dice tape, the one undo policy, automations, events, saving."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fivedice.engine import saves
from fivedice.engine.actions import Roll, RollOff, Score
from fivedice.errors import FiveDiceError, IllegalActionError, SaveFormatError
from fivedice.i18n import language
from fivedice.table import StaleStateError, Table, UndoPolicy, UndoRefusedError
from fivedice.table.events import StoodIn, message, narrate
from fivedice.table.seat import Seat, SeatKind


def seen_dice(table: Table, shown: dict[tuple[int, int, int, int], int]) -> None:
    """Check every roll of the game line against the first value ever shown at its tape place, and note new ones."""
    state = table.game.initial
    for record in table.game.log:
        if isinstance(record, Roll):
            assert record.dice is not None
            for p in range(len(record.dice)):
                if p in record.held:
                    continue
                key = (state.current, state.round, state.rolls + 1, p)
                assert shown.setdefault(key, record.dice[p]) == record.dice[p], key
        state = state.apply(record)


SPECS = ["yacht", "yahtzee", "yahtzee cards=jetsi", "kismet"]


@settings(max_examples=60, deadline=None)
@given(
    spec=st.sampled_from(SPECS),
    players=st.integers(1, 3),
    seed=st.integers(0, 10**6),
    script=st.lists(st.tuples(st.sampled_from(["roll", "score", "undo", "redo", "save"]), st.integers(0, 10**6))),
)
def test_no_sequence_of_actions_shows_different_dice_for_the_same_roll(
    spec: str, players: int, seed: int, script: list[tuple[str, int]], tmp_path_factory: pytest.TempPathFactory
) -> None:
    from fivedice.rules import parse_spec

    names = [f"P{i}" for i in range(players)]
    table = Table(parse_spec(spec), names, seed=seed, undo=UndoPolicy.ANY)
    shown: dict[tuple[int, int, int, int], int] = {}
    pick = random.Random(seed)
    for op, n in script:
        if table.is_over:
            break
        table.run_automatic()
        state = table.state
        try:
            if op == "roll" and state.dice is not None:
                keep = tuple(p for p in range(len(state.dice)) if (n >> p) & 1)
                if table.can_roll(keep):
                    table.roll(keep)
            elif op == "roll":
                table.roll()
            elif op == "score" and state.options():
                card, box = pick.choice(sorted(state.options()))
                table.score(box, card)
            elif op == "undo" and table.can_undo():
                table.undo()
            elif op == "redo" and table.why_not_redo() is None:
                table.redo()
            elif op == "save":
                path = tmp_path_factory.mktemp("save") / "g.json"
                table.save(path)
                table = Table.load(path)
        except IllegalActionError:
            pass
        seen_dice(table, shown)


def test_solitaire_undo_takes_back_any_decision_and_the_dice_stay() -> None:
    table = Table("yahtzee", ["Ann"], seed=3)
    (first,) = table.run_automatic()
    assert isinstance(first, Roll)
    second = table.roll((0, 1))
    assert table.policy is UndoPolicy.ANY
    assert table.undo() == (second,)
    assert table.state.dice == first.dice
    again = table.roll((0, 1))
    assert again == second  # no free re-roll
    table.score("chance")
    undone = table.undo()
    assert undone == (Score("chance", 0, sum(again.dice or ())),)
    assert table.undos == 2
    assert [e.kind for e in table.events][-2:] == ["scored", "undone"]


def test_the_automatic_first_roll_goes_with_the_score_it_follows() -> None:
    table = Table("yacht", ["Ann"], seed=11)
    table.run_automatic()
    table.score("chance")
    nxt = table.run_automatic()  # the next turn's first roll is made for her
    assert len(nxt) == 1
    undone = table.undo()  # takes back the score and the automatic roll after it
    assert [type(r) for r in undone] == [Roll, Score]
    assert table.redo() == (undone[1], undone[0])
    assert isinstance(nxt[0], Roll)
    assert table.state.dice == nxt[0].dice


def test_several_players_may_take_back_their_own_last_score_until_the_next_roll() -> None:
    table = Table("yacht", ["Ann", "Bob"], starter=0, seed=5)
    assert table.policy is UndoPolicy.LAST_SCORE
    table.run_automatic()
    table.roll((0,))
    with pytest.raises(UndoRefusedError, match="Only a score can be taken back"):
        table.undo()  # a roll seen is never taken back
    table.score("chance")
    assert table.automatic() is None  # Bob's first roll waits while Ann may take back her score
    assert table.why_not_undo(1) == "Bob can only take back their own score, before anyone else acts."
    table.undo(0)
    table.score("chance")
    table.roll()  # Bob rolls: Ann's score is final
    assert table.why_not_undo(0) == "Only a score can be taken back, and only before the next roll is seen."


def test_undo_can_be_turned_off_and_the_end_is_final() -> None:
    table = Table("yacht", ["Ann"], seed=1, undo="none")
    table.run_automatic()
    table.score("chance")
    with pytest.raises(UndoRefusedError, match="turned off"):
        table.undo()
    solo = Table("yacht", ["Ann"], seed=1)
    while not solo.is_over:
        solo.run_automatic()
        box = next(iter(solo.state.options()))[1]
        solo.score(box)
    assert solo.why_not_undo() == "The game is over; its scores are final."


def test_computer_seats_play_through_the_table_and_levels_are_checked() -> None:
    table = Table("yacht", ["Ann", "Max:greedy", Seat("Rob", SeatKind.COMPUTER, "random")], starter=1, seed=2)
    done = table.advance()
    assert table.human_to_move
    assert table.state.current == 0
    assert {table.log[i][1] for i in range(len(done))} <= {"computer", "auto"}
    assert sum(isinstance(r, Score) for r in done) == 2
    with pytest.raises(
        FiveDiceError, match=r"^Computer level 'hard' needs the solver: .* Choose random, greedy, tali\.$"
    ):
        Table(_jetsi(), ["Ann", "Max:hard"])  # type: ignore[arg-type]
    with pytest.raises(FiveDiceError, match="Computer level 'genius' is unknown"):
        Table("yacht", ["Ann", "Max:genius"])


def _jetsi() -> object:
    from fivedice.rules import get

    return get("yahtzee", cards="jetsi")


def test_a_computer_move_chosen_for_an_old_state_is_refused() -> None:
    table = Table("yacht", ["Max:greedy"], seed=4)
    state = table.state
    intent = table.computer_intent(state)
    table.play_computer(intent, state)
    with pytest.raises(StaleStateError):
        table.play_computer(intent, state)


def test_physical_dice_are_asked_only_where_the_tape_has_none() -> None:
    table = Table("yacht", ["Ann"], rng=random.Random(0))
    assert table.dice_needed() == 5
    table.roll(typed=(1, 2, 3, 4, 5))
    assert table.dice_needed((0, 1)) == 3
    table.roll((0, 1), typed=(6, 6, 6))
    table.undo()
    assert table.dice_needed((0, 1)) == 0  # those dice were seen: they come back, nothing is asked
    assert table.roll((0, 1)).dice == (1, 2, 6, 6, 6)
    table.undo()
    assert table.dice_needed((2,)) == 2  # positions 1 and 2 were never rerolled on roll 2
    with pytest.raises(FiveDiceError, match="3 values given; expected exactly 2"):
        table.roll((2,), typed=(1, 2, 3))
    assert table.state.rolls == 1


def test_roll_off_ties_are_told_and_everyone_tying_is_said() -> None:
    class Fixed:
        def __init__(self, rolls: list[tuple[int, int, int, int, int]]) -> None:
            self.rolls = rolls

        def roll(self, n: int) -> tuple[int, ...]:
            return self.rolls.pop(0)[:n]

    table = Table(
        "yacht",
        ["Ann", "Bob", "Cy"],
        rng=Fixed([(6, 6, 6, 6, 6)] * 3 + [(1,) * 5, (2,) * 5, (2,) * 5, (3,) * 5, (1,) * 5, (4,) * 5]),
    )
    table.run_automatic()
    kinds = [e.kind for e in table.events]
    assert "rolloff_all_tie" in kinds
    assert "rolloff_tie" in kinds
    assert "starts" in kinds
    texts = [narrate(e, table.rules) for e in table.events if e.kind.startswith("rolloff_")]
    assert texts[0] == "Everyone ties at 30: all roll off again."
    assert texts[1] == "Tie at 10: Bob, Cy roll off again."


def test_events_are_records_that_each_language_words() -> None:
    table = Table("yahtzee", ["Ann"], seed=9)
    table.run_automatic()
    table.score("chance")
    scored = next(e for e in table.events if e.kind == "scored")
    assert message(scored, table.rules)[0] == "{player} scores {points} in {box}."
    assert narrate(scored, table.rules).startswith("Ann scores ")
    with language("it"):
        assert "Probabilità" in narrate(scored, table.rules) or "Chance" in narrate(scored, table.rules)
    assert json.dumps(scored.to_data())  # plain data: it travels as JSON


def test_a_saved_table_keeps_its_tape_seats_and_undo_count(tmp_path: Path) -> None:
    table = Table("yacht", ["Ann"], seed=6)
    table.run_automatic()
    shown = table.roll((0,))
    table.undo()
    path = tmp_path / "g.json"
    table.save(path)
    back = Table.load(path, rng=random.Random(99))
    assert back.undos == 1
    assert back.seats == table.seats
    assert back.roll((0,)) == shown  # the loaded game cannot be re-rolled either
    assert saves.load(path).log == table.game.log  # every tool still loads the plain game
    data = json.loads(path.read_text())
    data["table"]["tape"][0][3] = "".join(str(7 - int(c)) if c != "0" else c for c in data["table"]["tape"][0][3])
    body = {k: v for k, v in data.items() if k != "sha256"}
    data["sha256"] = saves._digest(body)
    with pytest.raises(SaveFormatError, match="showed"):
        Table.from_data(data)


def test_a_challenge_gives_every_player_the_same_dice() -> None:
    a = Table("yahtzee", ["Ann"], challenge="2026-12-01")
    b = Table("yahtzee", ["Bob"], challenge="2026-12-01")
    assert a.policy is UndoPolicy.LAST_SCORE
    assert a.run_automatic() == b.run_automatic()
    a.roll((0,))
    b.roll((0, 1))
    assert a.state.dice[2:] == b.state.dice[2:]  # type: ignore[index]
    a.score("chance")
    b.score("ones")
    assert a.roll() == b.roll()  # the next round's first roll is the same for both
    other = Table("yahtzee", ["Ann"], challenge="another")
    assert other.run_automatic() != Table("yahtzee", ["Ann"], challenge="2026-12-01").run_automatic()


def test_rolloff_records_are_not_undone() -> None:
    table = Table("yacht", ["Ann", "Bob"], seed=1, undo="any")
    records = table.run_automatic()
    assert isinstance(records[0], RollOff)
    assert isinstance(records[-1], Roll)
    assert table.why_not_undo() == "There is nothing to undo."  # chance alone is never taken back


def test_a_stand_in_plays_a_timed_out_turn_and_says_so() -> None:
    table = Table("yacht", ["Ann", "Bob"], starter=0, seed=8)
    table.run_automatic()
    while table.state.current == 0:
        table.play(table.stand_in_intent(), by="timer")
    stood_in = next(e for e in table.events if isinstance(e, StoodIn))
    assert stood_in == StoodIn(seat=0, player="Ann")
    assert narrate(stood_in, table.rules) == "Time ran out for Ann: the computer plays for them."
    assert table.why_not_undo(0) is not None  # a stand-in's score is not Ann's to take back


def test_a_stand_in_is_announced_once_per_turn_not_before_each_action() -> None:
    table = Table("yacht", ["Ann", "Bob"], starter=0, seed=8, auto_first_roll=False)
    table.run_automatic()
    for seat in (0, 1, 0):  # three timed-out turns in a row, each several actions long
        actions = 0
        while table.state.current == seat:
            table.play(table.stand_in_intent(), by="timer")
            actions += 1
        assert actions > 1
    said = [e.player for e in table.events if isinstance(e, StoodIn)]
    assert said == ["Ann", "Bob", "Ann"]


def test_hints_say_beforehand_when_the_solver_must_be_prepared(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from fivedice.players.solvers import SolverCache
    from fivedice.rules import get
    from fivedice.services import advice

    monkeypatch.setenv("FIVEDICE_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("FIVEDICE_SHIPPED_TABLES", "0")
    house = get("yacht", four_kind="four_dice")
    monkeypatch.setattr(advice, "_SOLVERS", SolverCache(jit=False))
    text = advice.preparing(house)
    assert text is not None
    assert text.startswith("Preparing the solver for yacht four_kind=four_dice (once, about ")
    assert advice.preparing(get("yahtzee", cards="jetsi")) is None  # no solver for three cards: points at once
    shares: list[float] = []
    advice.solver(house, progress=shares.append)
    assert shares[-1] == 1.0
    assert advice.preparing(house) is None


def test_a_view_can_stop_listening() -> None:
    table = Table("yacht", ["Ann"], seed=1)
    heard: list[str] = []
    table.listen(lambda e: heard.append(e.kind))
    table.listen(listener := lambda e: heard.append("second"))
    table.run_automatic()
    table.unlisten(listener)
    table.score("choice")
    assert heard.count("second") == 2  # "turn" and "rolled", nothing after
    assert "scored" in heard


def test_the_dice_set_aside_are_saved_and_checked_on_load() -> None:
    table = Table("yacht", ["Ann"], seed=2)
    table.run_automatic()
    table.kept = (0, 2)
    data = table.to_data()
    assert Table.from_data(data).kept == (0, 2)
    data["table"]["kept"] = [5, 5]
    with pytest.raises(SaveFormatError, match=r"The saved kept dice \[5, 5\] are not distinct die positions 0 to 4\."):
        Table.from_data(saves.to_data(Table.from_data(table.to_data()).game, table=data["table"]))
    table.kept = ()
    assert "kept" not in table.to_data()["table"]  # saves without a selection stay as they were
