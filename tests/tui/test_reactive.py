"""The game screen draws again only what a change concerns: its reactive attributes' watchers update the
widgets that show them (a key that keeps a die redraws that die and the key line, nothing else)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from textual.visual import VisualType
from textual.widgets import Static

from fivedice.tui import FiveDiceApp
from fivedice.tui.demo import demo_config
from fivedice.tui.play import GameScreen
from tests.tui.helpers import SIZE, solo

pytestmark = pytest.mark.asyncio


def count_updates(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Count every widget's draws of new content from now on, by id."""
    drawn: Counter[str] = Counter()
    update = Static.update

    def counted(self: Static, content: VisualType = "", *, layout: bool = True) -> None:
        drawn[self.id or type(self).__name__] += 1
        update(self, content, layout=layout)

    monkeypatch.setattr(Static, "update", counted)
    return drawn


async def test_a_change_draws_only_the_widgets_that_show_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app = FiveDiceApp(demo_config(solo(rule_set="yahtzee"), saves=tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, GameScreen)
        await pilot.press("space")  # the first roll
        await pilot.pause()
        drawn = count_updates(monkeypatch)
        await pilot.press("1")  # keep the first die
        await pilot.pause()
        assert screen.kept == {0}
        assert dict(drawn) == {"die-1": 1, "keys": 1}
        drawn.clear()
        before = screen.cursor
        await pilot.press("down")  # the highlight moves to the next open box: its line and the one it left
        await pilot.pause()
        assert screen.cursor != before
        assert before is not None
        assert screen.cursor is not None
        assert dict(drawn) == {f"box-{before[1]}": 1, f"box-{screen.cursor[1]}": 1}


async def test_a_roll_draws_the_dice_and_lines_it_changes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    app = FiveDiceApp(demo_config(solo(rule_set="yahtzee"), saves=tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        drawn = count_updates(monkeypatch)
        await pilot.press("space")
        await pilot.pause()
        assert {"turn", "status", "panel", "colours"}.isdisjoint(drawn)  # the same round and player, no note
        assert drawn["roll"] == 1
        assert drawn["keys"] == 1
        assert all(drawn[f"die-{n}"] == 1 for n in range(1, 6))  # five faces rolled


async def test_the_board_keeps_only_the_three_events_it_shows(tmp_path: Path) -> None:
    """Every event used to be appended to a list kept for the whole game; only the last three are shown."""
    app = FiveDiceApp(demo_config(solo(rule_set="yahtzee"), saves=tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, GameScreen)
        for _turn in range(3):
            await pilot.press("space", "enter")  # roll, then score the highlighted box
            await pilot.pause()
        assert len(screen.table.events) > 3
        assert list(screen.events) == list(screen.table.events[-3:])
        assert screen.recent == tuple(screen.table.events[-3:])
