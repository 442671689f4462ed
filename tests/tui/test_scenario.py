"""The shared scenario (tests/scenario.py) played with keys and clicks in the terminal game, and undo that
never re-rolls luck there."""

from __future__ import annotations

from typing import Any

import pytest
from textual.pilot import Pilot

from fivedice.engine import notation
from fivedice.table.seat import parse_seats
from fivedice.tui import FiveDiceApp
from fivedice.tui.demo import demo_config
from fivedice.tui.play import GameScreen
from fivedice.tui.session import Session, new_table
from tests.scenario import CHALLENGE, SEATS, STEPS, Step, reference_log, rules
from tests.tui.helpers import SIZE, solo, text_of, wait_for_human

pytestmark = pytest.mark.asyncio


async def set_kept(pilot: Pilot[Any], screen: GameScreen, want: set[int]) -> None:
    """Press 1-5 until exactly ``want`` (0-based positions) are kept."""
    for p in range(screen.table.rules.dice):
        if (p in want) != (p in screen.kept):
            await pilot.press(str(p + 1))
    assert screen.kept == want


async def score_with_keys(pilot: Pilot[Any], screen: GameScreen, box: str) -> None:
    """Move the box cursor to ``box`` with the arrow keys, then Enter."""
    state = screen.table.state
    keys = sorted(state.options(), key=lambda k: (state.rules.box_index(k[1]), k[0]))
    assert screen.cursor is not None
    steps = (keys.index((0, box)) - keys.index(screen.cursor)) % len(keys)
    await pilot.press(*(["down"] * steps))
    assert screen.cursor == (0, box)
    await pilot.press("enter")


async def test_the_terminal_game_plays_the_scenario_to_the_same_move_log() -> None:
    table = new_table(rules(), parse_seats(list(SEATS)), challenge=CHALLENGE, starter=0)
    app = FiveDiceApp(demo_config(Session(table)))
    scored = 0
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, GameScreen)
        for step in STEPS:
            await wait_for_human(pilot, app)
            await play_step(pilot, screen, step, scored)
            scored += step[0] == "score"
            if step[0] in ("undo", "redo"):
                assert text_of(app, "#status").startswith(("Undone: Ann's ", "Redone: Ann's "))
        await wait_for_human(pilot, app)
        assert table.is_over
    assert [notation.to_text(r) for r in table.game.log] == reference_log()
    assert table.undos == sum(1 for s in STEPS if s[0] == "undo")


async def play_step(pilot: Pilot[Any], screen: GameScreen, step: Step, scored: int) -> None:
    kind = step[0]
    if kind == "roll" and len(step) > 1 and screen.table.state.dice is None:
        await pilot.press("space")  # the reference made this first roll by itself; here the player does
    if kind == "roll":
        await set_kept(pilot, screen, {int(p) for p in step[1:]} if screen.table.state.dice is not None else set())
        await pilot.press("space")
    elif kind == "score" and scored % 2:
        await pilot.click(f"#box-{step[1]}")  # a click on the label scores on the player's card
    elif kind == "score":
        await score_with_keys(pilot, screen, step[1])
    elif kind == "undo":
        await pilot.press("u")
    else:
        await pilot.press("ctrl+r")


async def test_undo_never_rerolls_luck_in_the_terminal_game() -> None:
    session = solo(rule_set="yacht", seed=17)
    table = session.table
    app = FiveDiceApp(demo_config(session))
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, GameScreen)
        await pilot.press("space")
        first = table.state.dice
        await pilot.press("u", "space")  # the first roll taken back and made again: the same dice
        assert table.state.dice == first
        await set_kept(pilot, screen, {0, 1})
        await pilot.press("space")
        second = table.state.dice
        assert second is not None
        await pilot.press("u")
        assert table.state.dice == first
        assert screen.kept == {0, 1}  # the keep taken back is shown again
        await set_kept(pilot, screen, {0})
        await pilot.press("space")
        again = table.state.dice
        assert again is not None
        assert again[2:] == second[2:]  # positions rolled both times show the dice already seen
        await pilot.press("u", "ctrl+r")
        assert table.state.dice == again
        await pilot.press("enter", "u", "u", "u", "space")
        assert table.state.dice == first
        await pilot.press("space")  # every die rolled: only the one never rolled on roll 2 is new
        now = table.state.dice
        assert now is not None
        assert now[1:] == again[1:]
        assert table.undos >= 5


async def test_in_a_game_of_several_players_a_seen_roll_cannot_be_taken_back() -> None:
    session = Session(new_table(rules(), parse_seats(["Ann", "Bob"]), seed=3, starter=0))
    app = FiveDiceApp(demo_config(session))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("space", "1", "space")
        dice = session.state.dice
        await pilot.press("u")
        assert "Only a score can be taken back" in text_of(app, "#status")
        assert session.state.dice == dice
        assert session.table.undos == 0
