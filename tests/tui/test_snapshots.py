"""Pictures of the main screens at 80x24 (pytest-textual-snapshot; update with --snapshot-update)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from fivedice import rules
from fivedice.tui import Config, FiveDiceApp, Seat, Session
from fivedice.tui.demo import demo_config, demo_session, fallback_strategy, screenshot
from fivedice.tui.session import GreedyFallback

SIZE = (80, 24)


def finished() -> Session:
    session = Session.new(
        rules.get("yahtzee"),
        [Seat("Ann"), Seat("Robo", "computer", "greedy")],
        seed=2,
        strategy_factory=fallback_strategy,
    )
    player = GreedyFallback(session.game.rules, 2)
    while not session.game.is_over:
        session.game.play(player.choose(session.state))
    return session


async def keep_and_hint(pilot: Pilot[Any]) -> None:
    await pilot.press("2", "4", "h")
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def test_start_screen(snap_compare: Any, tmp_path: Path) -> None:
    seats = [Seat("Ann"), Seat("Robo", "computer", "greedy")]
    app = FiveDiceApp(Config(use_store=False, saves=tmp_path, seats=seats, pace=0.8, reasoning=False, theme="dark"))
    assert snap_compare(app, terminal_size=SIZE)


def test_game_screen_with_kept_dice_and_a_hint(snap_compare: Any) -> None:
    assert snap_compare(FiveDiceApp(demo_config()), terminal_size=SIZE, run_before=keep_and_hint)


def test_game_screen_light_theme(snap_compare: Any) -> None:
    assert snap_compare(FiveDiceApp(demo_config(demo_session(rounds=9), theme="light")), terminal_size=SIZE)


def test_help_screen(snap_compare: Any) -> None:
    assert snap_compare(FiveDiceApp(demo_config()), terminal_size=SIZE, press=["question_mark"])


def test_end_screen(snap_compare: Any) -> None:
    app = FiveDiceApp(demo_config(finished()))
    assert snap_compare(app, terminal_size=SIZE)


def test_readme_screenshot_is_an_svg_of_the_game(tmp_path: Path) -> None:
    path = screenshot(tmp_path / "game.svg")
    text = path.read_text()
    assert text.startswith("<svg")
    assert "Ann" in text
    assert "Robo" in text
