"""Challenges in the terminal game: the start screen's field (remembered), the title, the undo policy, the
solitaire goal, and the end screen's comparison with the benchmark player and the leaderboard."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from textual.widgets import Input, Select

from fivedice.rules import get
from fivedice.storage import Store
from fivedice.table.challenge import replay_on_tape
from fivedice.tui import Config, FiveDiceApp
from fivedice.tui.end import EndScreen
from fivedice.tui.play import GameScreen
from fivedice.tui.start import StartScreen
from tests.tui.helpers import SIZE, config_from_command_line, no_analysis, play_to_end, text_of


@pytest.mark.asyncio
async def test_a_daily_challenge_from_the_start_screen_to_its_leaderboard(tmp_path: Path) -> None:
    db = str(tmp_path / "scores.db")
    today = date.today().isoformat()
    goal = replay_on_tape(get("yacht"), today).state.total(0)
    app = FiveDiceApp(Config(db=db, saves=tmp_path, pace=0.0, analyser=no_analysis))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, StartScreen)
        screen.query_one("#name-0", Input).value = "Ann"
        screen.query_one("#name-1", Input).value = ""
        screen.query_one("#rules", Select).value = "yacht"
        screen.query_one("#challenge", Input).value = "Daily"
        await pilot.press("ctrl+s")
        await pilot.pause()
        game = app.screen
        assert isinstance(game, GameScreen)
        table = game.table
        assert table.challenge == today
        assert f"challenge {today}" in text_of(app, "#turn")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert f"Goal: beat {goal} (optimal on these dice)" in text_of(app, "#roll")
        await pilot.press("space", "1", "space", "u")  # a challenge's roll, once seen, stays
        assert "Only a score can be taken back" in text_of(app, "#status")
        await play_to_end(pilot, app)
        assert isinstance(app.screen, EndScreen)
        await app.workers.wait_for_complete()
        await pilot.pause()
        text = text_of(app, "#challenge")
        assert f"Challenge {today}: on the same dice, the optimal player scored {goal}." in text
        assert f"Ann: {table.state.total(0)}; your decisions cost " in text
        assert f"Challenge {today}\n" in text  # the leaderboard
        assert "challenge " + today in text
    with Store(db) as store:
        assert store.get_setting("challenge") == "Daily"
        [row] = store.high_scores(challenge=today)
        assert row.name == "Ann"
    app = FiveDiceApp(Config(db=db, saves=tmp_path, analyser=no_analysis))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.screen.query_one("#challenge", Input).value == "Daily"  # remembered like other settings


@pytest.mark.asyncio
async def test_a_bad_code_is_refused_in_one_sentence(tmp_path: Path) -> None:
    app = FiveDiceApp(Config(use_store=False, saves=tmp_path, analyser=no_analysis))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        app.screen.query_one("#challenge", Input).value = "x" * 64 + "\x07"
        await pilot.press("ctrl+s")
        assert isinstance(app.screen, StartScreen)
        assert "is not usable" in text_of(app, "#message")


def test_challenge_on_the_command_line_reaches_the_full_screen_game(monkeypatch: pytest.MonkeyPatch) -> None:
    args = ["play", "--players", "Ann", "--challenge", " Friday  Night "]
    assert config_from_command_line(monkeypatch, args).challenge == "friday night"


@pytest.mark.asyncio
async def test_a_resumed_solo_challenge_keeps_its_goal(tmp_path: Path) -> None:
    from fivedice.table import Table
    from fivedice.table.challenge import goal
    from fivedice.tui.demo import demo_config
    from fivedice.tui.session import Session

    table = Table(get("yacht"), ["Ann"], challenge="resumed goal")
    table.run_automatic()
    table.roll((0,))
    table.save(tmp_path / "challenge.json")
    bench = goal(get("yacht"), "resumed goal").total
    session = Session.load(tmp_path / "challenge.json")
    app = FiveDiceApp(demo_config(session, saves=tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert f"Goal: beat {bench} (optimal on these dice)" in text_of(app, "#roll")
        assert session.table.goal == bench
