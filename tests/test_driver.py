"""The step API of the table (what happens next, as a typed value) and the one driver every front end runs."""

from __future__ import annotations

import asyncio

import pytest

from fivedice.engine.actions import Roll, RollOff
from fivedice.table import By, StaleStateError, Table
from fivedice.table.driver import Driver
from fivedice.table.steps import Automatic, GameOver, HumanTurn, Move, Step, Think


def test_each_step_is_a_typed_value_with_the_state_it_was_read_from() -> None:
    table = Table("yacht", ["Ann", "Max:greedy"], seed=3)
    step = table.next_step()
    assert isinstance(step, Automatic)
    assert isinstance(step.action, RollOff)
    assert step.state is table.state
    table.run_automatic()
    step = table.next_step()
    assert isinstance(step, HumanTurn | Think)
    if isinstance(step, HumanTurn):
        assert table.next_step(stand_in=True) == Think(step.state, step.seat, By.TIMER)
    else:
        assert step.by is By.COMPUTER
        assert table.seats[step.seat].is_computer


def test_thinking_changes_nothing_and_a_stale_commit_is_refused() -> None:
    table = Table("yacht", ["Max:greedy"], seed=4)
    step = table.next_step()
    assert isinstance(step, Think)
    before = table.state
    action = table.think(step)
    assert table.state is before
    assert isinstance(table.commit(Move(step.state, action, step.by)), Roll)
    with pytest.raises(StaleStateError, match=r"^The game moved on while the computer was thinking\.$"):
        table.commit(Move(step.state, action, step.by))


def test_the_driver_plays_until_a_human_is_to_act_and_the_sync_wrapper_runs_it() -> None:
    table = Table("yacht", ["Ann", "Max:greedy"], seed=7, starter=1)
    step = Driver(table).run_sync()
    assert isinstance(step, HumanTurn)
    assert step.seat == 0
    assert [by for _r, by in table.log] == [By.COMPUTER] * (len(table.log) - 1) + [By.AUTO]
    assert isinstance(table.log[-1][0], Roll)


def test_the_driver_plays_a_computer_game_to_its_end_and_the_stand_in_plays_for_a_person() -> None:
    table = Table("yacht", ["Ann", "Max:greedy"], seed=2)
    assert isinstance(Driver(table, stand_in=True).run_sync(), GameOver)
    assert table.is_over
    assert {by for _r, by in table.log} == {By.AUTO, By.COMPUTER, By.TIMER}


def test_a_move_made_while_the_computer_thinks_makes_the_driver_read_the_step_again() -> None:
    table = Table("yacht", ["Max:greedy"], seed=5)
    steps: list[Step] = []

    class Meddling(Driver):
        async def think(self, t: Table, step: Think) -> object:  # type: ignore[override]
            chosen = await super().think(t, step)
            if not steps:
                t.roll()  # someone else acted meanwhile: the chosen move is stale
            steps.append(step)
            return chosen

    asyncio.run(Meddling(table).step())
    assert len(table.log) == 1  # only the meddling roll: the stale choice was refused
    asyncio.run(Meddling(table).step())
    assert len(table.log) == 2
    assert steps[1].state is not steps[0].state


def test_the_actors_are_a_str_enum_with_the_stored_values() -> None:
    assert [b.value for b in By] == ["seat", "auto", "computer", "timer"]
    table = Table("yacht", ["Ann"], seed=1)
    table.play(table.automatic() or Roll(), "auto")  # the stored text still names an actor
    assert table.log[-1][1] is By.AUTO
    assert table.to_data()["table"]["by"] == ["auto"]
