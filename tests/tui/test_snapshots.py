"""Pictures of the main screens at 80x24 (pytest-textual-snapshot; update with --snapshot-update)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from fivedice.table.seat import Seat, SeatKind
from fivedice.tui import Config, FiveDiceApp, Session
from fivedice.tui.demo import demo_config, demo_session, screenshot
from tests.tui.helpers import finish, session_of

SIZE = (80, 24)


def finished() -> Session:
    return finish(session_of("yahtzee", [Seat("Ann"), Seat("Robo", SeatKind.COMPUTER, "greedy")], seed=2))


async def keep_and_hint(pilot: Pilot[Any]) -> None:
    await pilot.press("2", "4", "h")
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


def start_app(tmp_path: Path, theme: str = "dark") -> FiveDiceApp:
    seats = [Seat("Ann"), Seat("Robo", SeatKind.COMPUTER, "greedy")]
    return FiveDiceApp(Config(use_store=False, saves=tmp_path, seats=seats, pace=0.8, reasoning=False, theme=theme))


def test_start_screen(snap_compare: Any, tmp_path: Path) -> None:
    assert snap_compare(start_app(tmp_path), terminal_size=SIZE)


def test_light_theme_dropdown_is_readable(snap_compare: Any, tmp_path: Path) -> None:
    async def open_kinds(pilot: Pilot[Any]) -> None:
        pilot.app.screen.query_one("#kind-1").focus()
        await pilot.press("enter")
        await pilot.pause()

    assert snap_compare(start_app(tmp_path, "light"), terminal_size=SIZE, run_before=open_kinds)


def test_game_screen_with_kept_dice_and_a_hint(snap_compare: Any) -> None:
    assert snap_compare(FiveDiceApp(demo_config()), terminal_size=SIZE, run_before=keep_and_hint)


def test_game_screen_light_theme(snap_compare: Any) -> None:
    assert snap_compare(FiveDiceApp(demo_config(demo_session(rounds=9), theme="light")), terminal_size=SIZE)


def test_jetsi_game_screen(snap_compare: Any) -> None:
    from fivedice import rules

    session = session_of(rules.get("yahtzee", cards="jetsi"), [Seat("Ann"), Seat("Bo")], seed=3, starter=0)
    assert snap_compare(FiveDiceApp(demo_config(session)), terminal_size=SIZE, press=["space"])


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
