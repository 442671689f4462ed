"""The terminal game's hints with chances: to beat the solo player's best, to win against rivals."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from fivedice import rules
from fivedice.services import chancejobs
from fivedice.services.chancejobs import ChanceKind, Need
from fivedice.table.seat import Seat, SeatKind
from fivedice.tui import FiveDiceApp
from fivedice.tui.demo import demo_config
from fivedice.tui.play import GameScreen
from tests.tui.helpers import SIZE, app_with_a_best, session_of, text_of

YACHT = rules.get("yacht")
YACHT4 = rules.get("yacht", four_kind="four_dice")
pytestmark = pytest.mark.asyncio


async def test_a_solo_hint_shows_the_chance_of_beating_the_best_at_once(tmp_path: Path) -> None:
    app, best = app_with_a_best(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("space", "h")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert chancejobs.job(Need(ChanceKind.BEAT, YACHT, best)) is None  # shipped: nothing to prepare (issue 27)
        for _ in range(100):  # the panel refreshes itself once the chances are ready
            await pilot.pause(0.05)
            await app.workers.wait_for_complete()
            if re.search(rf"loss\s+beat {best}", text_of(app, "#panel")):
                break
        panel = text_of(app, "#panel")
        assert re.search(rf"option\s+to come\s+loss\s+beat {best}", panel)
        assert len(re.findall(r"\d+\.\d%", panel)) == 5
        assert "Preparing" not in panel
        screen = app.screen
        assert isinstance(screen, GameScreen)
        assert screen.table.hint_counts == {0: 1}  # the refresh is not a second hint


async def test_against_a_computer_the_hint_shows_the_chance_to_win(tmp_path: Path) -> None:
    assert chancejobs.wait(Need(ChanceKind.WIN, YACHT), timeout=120).ok
    session = session_of("yacht", [Seat("Ann"), Seat("Max", SeatKind.COMPUTER, "greedy")], starter=0)
    app = FiveDiceApp(demo_config(session, saves=tmp_path, chances=True))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("space", "h")
        await app.workers.wait_for_complete()
        await pilot.pause()
        panel = text_of(app, "#panel")
        assert re.search(r"option\s+to come\s+loss\s+win", panel)
        assert len(re.findall(r"\d+\.\d%", panel)) == 5


async def test_a_computer_playing_for_a_target_shows_its_preparation_then_plays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from fivedice.solver import fast

    monkeypatch.setenv("FIVEDICE_CACHE_DIR", str(tmp_path / "cache"))  # options that ship no moments: prepared
    monkeypatch.setattr(fast, "_MOMENTS", {})
    session = session_of(YACHT4, [Seat("Max", SeatKind.COMPUTER, "target:139"), Seat("Ann")], starter=0)
    chancejobs._JOBS.pop(Need(ChanceKind.BEAT, YACHT4, 138), None)  # whatever an earlier test of this process prepared
    app = FiveDiceApp(demo_config(session, saves=tmp_path))
    with chancejobs._BUILD:  # another build holds the machine: the preparation waits, the note shows
        async with app.run_test(size=SIZE) as pilot:
            for _ in range(200):
                await pilot.pause(0.05)
                if "Preparing the chances to beat 138" in text_of(app, "#panel"):
                    break
            assert "Preparing the chances to beat 138 (once, a few minutes): 0% done." in text_of(app, "#panel")
            chancejobs._BUILD.release()
            try:
                for _ in range(400):
                    await pilot.pause(0.05)
                    if session.table.state.current == 1:
                        break
                assert session.table.state.current == 1  # Max played his turn
            finally:
                chancejobs._BUILD.acquire()
