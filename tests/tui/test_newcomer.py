"""The terminal game as a newcomer met it (issue 28 item 4), each bug driven through the pilot at a size."""

from __future__ import annotations

import io
from datetime import date
from pathlib import Path

import pytest
from textual.widgets import Input, Static

from fivedice import rules
from fivedice.cli.plain import PlainSession
from fivedice.players import get as get_strategy
from fivedice.storage import Store
from fivedice.table import Table
from fivedice.table.seat import Seat, SeatKind
from fivedice.tui import Config, FiveDiceApp
from fivedice.tui.end import EndScreen
from fivedice.tui.play import GameScreen
from fivedice.tui.start import ScoresScreen
from fivedice.tui.widgets import CardLine, Die, ScoreCardView
from tests.tui.helpers import (
    SIZE,
    config_from_command_line,
    finish,
    no_analysis,
    session_of,
    solo,
    text_of,
    wait_for_human,
)


@pytest.mark.asyncio
async def test_the_end_screen_names_each_computers_level(tmp_path: Path) -> None:
    session = finish(session_of("yacht", [Seat("Ann"), Seat("Hal", SeatKind.COMPUTER, "greedy")], seed=3))
    app = FiveDiceApp(Config(use_store=False, saves=tmp_path, session=session, analyser=no_analysis))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, EndScreen)
        assert "Hal (computer · greedy)" in text_of(app, "#ranking")


@pytest.mark.asyncio
async def test_the_high_scores_notes_stay_on_their_row_at_80x24(tmp_path: Path) -> None:
    db = str(tmp_path / "s.db")
    seats = [Seat("Annabelle"), Seat("Hal", SeatKind.COMPUTER, "greedy")]
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


@pytest.mark.asyncio
async def test_at_60x20_every_die_is_whole_and_smaller_terminals_are_told(tmp_path: Path) -> None:
    app = FiveDiceApp(Config(use_store=False, saves=tmp_path, session=solo(rule_set="yahtzee"), analyser=no_analysis))
    async with app.run_test(size=(60, 20)) as pilot:
        await wait_for_human(pilot, app)
        await pilot.press("space")
        await pilot.pause()
        dice = list(app.screen.query(Die))
        assert len(dice) == 5
        assert all(die.region.width == 7 and die.region.right <= 60 for die in dice)  # the fifth was cut at 59
        assert not app.screen.query_one("#too-small").display
        await pilot.resize_terminal(50, 14)
        await pilot.pause()
        assert app.screen.query_one("#too-small").display
        assert "The terminal is 50x14; the game needs at least " in text_of(app, "#too-small")
        await pilot.resize_terminal(100, 30)
        await pilot.pause()
        assert not app.screen.query_one("#too-small").display
        assert app.screen.query_one(ScoreCardView).widths == (16, 7)  # the widest cards again


@pytest.mark.asyncio
async def test_jetsi_with_two_players_shows_both_players_cards_at_80x24(tmp_path: Path) -> None:
    session = session_of(rules.get("yahtzee", cards="jetsi"), [Seat("Ann"), Seat("Bob")])
    app = FiveDiceApp(Config(use_store=False, saves=tmp_path, session=session, analyser=no_analysis))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_human(pilot, app)
        await pilot.press("space")
        await pilot.pause()
        scroll = app.screen.query_one("#card-scroll")
        assert scroll.max_scroll_x == 0  # all six columns in view: Bob's three were scrolled away
        header = app.screen.query_one("#line-0", CardLine)
        assert "Bob" in header.render_line(0).text
        totals = [line for line in app.screen.query(CardLine) if str(line.render()).startswith("Total")]
        assert str(totals[0].render()).split()[1:] == ["0", "0"]  # each player's total
        assert all(die.region.right <= SIZE[0] for die in app.screen.query(Die))


def test_daily_on_the_command_line_reaches_the_start_screen_as_daily(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 28: the start screen got the date and remembered it, so the next day's casual Start replayed it."""
    args = ["play", "--players", "Ann", "--challenge", " Daily "]
    assert config_from_command_line(monkeypatch, args).challenge == "daily"


@pytest.mark.asyncio
async def test_the_start_screen_remembers_daily_and_plays_the_days_challenge(tmp_path: Path) -> None:
    db = str(tmp_path / "s.db")
    app = FiveDiceApp(Config(db=db, saves=tmp_path, challenge="daily", analyser=no_analysis))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.screen.query_one("#challenge", Input).value == "daily"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, GameScreen)
        assert app.screen.table.challenge == date.today().isoformat()
    with Store(db) as store:
        assert store.get_setting("challenge") == "daily"  # not the date: tomorrow's Start plays tomorrow's


@pytest.mark.asyncio
async def test_kept_dice_are_still_set_aside_after_save_and_resume(tmp_path: Path) -> None:
    app = FiveDiceApp(Config(use_store=False, saves=tmp_path, session=solo(rule_set="yacht"), analyser=no_analysis))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_human(pilot, app)
        await pilot.press("space", "2", "4", "q")
        await pilot.pause()
    [path] = list(tmp_path.glob("*.json"))
    app = FiveDiceApp(Config(use_store=False, saves=tmp_path, load=path, analyser=no_analysis))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_human(pilot, app)
        screen = app.screen
        assert isinstance(screen, GameScreen)
        assert screen.kept == {1, 3}
        assert [die.has_class("kept") for die in screen.query(Die)] == [False, True, False, True, False]
        dice = screen.table.state.dice
        await pilot.press("space")
        await pilot.pause()
        after = screen.table.state.dice
        assert dice is not None
        assert after is not None
        assert (after[1], after[3]) == (dice[1], dice[3])  # the resumed roll kept them


@pytest.mark.asyncio
async def test_a_challenge_is_played_without_hints_and_the_board_says_so(tmp_path: Path) -> None:
    """Issue 28: the daily challenge gave hints in the terminal (the web plays it without) and did not say so."""
    session = solo(rule_set="yacht", challenge="2026-12-01")
    app = FiveDiceApp(Config(use_store=False, saves=tmp_path, session=session, analyser=no_analysis))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_human(pilot, app)
        assert "A challenge is played without hints" in text_of(app, "#status")
        await pilot.press("space", "h")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "A challenge is played without hints" in text_of(app, "#status")
        assert session.table.hints == []
        assert text_of(app, "#panel") == ""


def test_the_line_mode_gives_no_hints_in_a_challenge() -> None:
    out = io.StringIO()
    feed = iter(["hint", "quit"])
    table = Table("yacht", ["Ann"], seed=1, challenge="2026-12-01")
    PlainSession(table, out, lambda prompt: next(feed, None)).run()
    assert "Error: A challenge is played without hints, as on the web: its leaderboard compares" in out.getvalue()
    assert table.hints == []


@pytest.mark.asyncio
async def test_the_end_screens_challenge_board_ranks_first_unassisted_attempts(tmp_path: Path) -> None:
    """Issue 28: the terminal's challenge board listed every game, hinted ones and computers too."""
    db = str(tmp_path / "s.db")
    player = get_strategy("greedy", rules.get("yacht"), seed=1)
    with Store(db) as store:
        hinted = session_of("yacht", [Seat("Zed")], seed=1, challenge="2026-12-01").table
        while not hinted.is_over:
            hinted.run_automatic()
            if hinted.state.dice is not None and not hinted.hints:
                hinted.hints.append((0, len(hinted.game.log)))  # as the web's hint leaves it, where hints are on
            if not hinted.is_over:
                hinted.play(player.choose(hinted.state))
        store.record_table(hinted)
    session = finish(session_of("yacht", [Seat("Ann")], seed=1, challenge="2026-12-01"))
    app = FiveDiceApp(Config(db=db, saves=tmp_path, session=session, analyser=no_analysis))
    async with app.run_test(size=(100, 40)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, EndScreen)
        board = text_of(app, "#challenge").split("Challenge 2026-12-01\n")[1]
        assert "Ann" in board
        assert "Zed" not in board  # hinted: practice, not ranked
        assert "Ranked: each player's first attempt, without hints or computer players." in board
