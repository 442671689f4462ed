"""The terminal game as a newcomer met it (issue 28 item 4), each bug driven through the pilot at a size."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static

from fivedice.players import get as get_strategy
from fivedice.storage import Store
from fivedice.table.seat import Seat
from fivedice.tui import Config, FiveDiceApp
from fivedice.tui.end import EndScreen
from fivedice.tui.start import ScoresScreen
from tests.tui.helpers import SIZE, finish, no_analysis, session_of, text_of

pytestmark = pytest.mark.asyncio


async def test_the_end_screen_names_each_computers_level(tmp_path: Path) -> None:
    session = finish(session_of("yacht", [Seat("Ann"), Seat("Hal", "computer", "greedy")], seed=3))
    app = FiveDiceApp(Config(use_store=False, saves=tmp_path, session=session, analyser=no_analysis))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, EndScreen)
        assert "Hal (computer · greedy)" in text_of(app, "#ranking")


async def test_the_high_scores_notes_stay_on_their_row_at_80x24(tmp_path: Path) -> None:
    db = str(tmp_path / "s.db")
    seats = [Seat("Annabelle"), Seat("Hal", "computer", "greedy")]
    session = session_of("yahtzee", seats, seed=4, challenge="daily")
    table = session.table
    table.run_automatic()
    while not table.human_to_move:
        table.play_computer()
        table.run_automatic()
    table.roll()
    card, box = next(iter(table.state.options()))
    table.score(box, card)
    table.undo()  # the notes then say "undo used 1 time" and name the challenge
    player = get_strategy("greedy", table.rules, seed=1)
    while not table.is_over:
        table.run_automatic()
        if not table.is_over:
            table.play(player.choose(table.state))
    with Store(db) as store:
        store.record_table(table)
    app = FiveDiceApp(Config(db=db, saves=tmp_path, analyser=no_analysis))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("f2")
        await pilot.pause()
        assert isinstance(app.screen, ScoresScreen)
        scores = app.screen.query_one("#scores-text", Static)
        written = str(scores.render()).splitlines()
        row = next(line for line in written if "Annabelle" in line)
        assert row.endswith(f"undo used 1 time; challenge {table.challenge}")
        shown = [scores.render_line(y).text.rstrip() for y in range(scores.size.height)]
        assert len(shown) == len(written)  # no line wrapped onto the next (into the # column)
        assert shown[written.index(row)].startswith(row[: scores.size.width].rstrip()[:40])
