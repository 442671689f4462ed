"""Whole games driven through the Textual pilot: keys to keep, roll, score, undo, save and resume."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from textual.widgets import Input, Select

from fivedice import rules
from fivedice.cli import main
from fivedice.engine import saves
from fivedice.engine.actions import Roll, Score
from fivedice.errors import FiveDiceError
from fivedice.storage import PlayerProfile, Store
from fivedice.table import Table
from fivedice.table.seat import SeatKind
from fivedice.table.steps import By
from fivedice.tui import Config, FiveDiceApp, Seat
from fivedice.tui.demo import demo_config
from fivedice.tui.end import EndScreen
from fivedice.tui.play import DiceEntry, GameScreen, HelpScreen
from fivedice.tui.start import ScoresScreen, StartScreen
from tests.tui.helpers import (
    SIZE,
    app_with_a_best,
    near_end,
    no_analysis,
    play_to_end,
    session_of,
    solo,
    text_of,
    until,
    wait_for_human,
)

pytestmark = pytest.mark.asyncio


async def test_two_player_game_with_a_computer_ends_in_the_high_scores(tmp_path: Path) -> None:
    db = str(tmp_path / "scores.db")
    app = FiveDiceApp(Config(db=db, saves=tmp_path / "saves", pace=0.0, seed=11, analyser=no_analysis))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, StartScreen)
        screen = app.screen
        screen.query_one("#name-0", Input).value = "Ann"
        screen.query_one("#kind-0", Select).value = "human"
        screen.query_one("#name-1", Input).value = "Robo"
        screen.query_one("#kind-1", Select).value = "computer:greedy"
        screen.query_one("#rules", Select).value = "yacht"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, GameScreen)
        table = app.screen.table
        await play_to_end(pilot, app, keep=3)
        assert isinstance(app.screen, EndScreen)
        assert table.is_over
        winner = table.state.standings()[0]
        assert f"1. {winner.name}" in text_of(app, "#ranking")
        assert "Stored as game 1" in text_of(app, "#stored")
        assert any(isinstance(a, Roll) and a.held and by == "seat" for a, by in table.log)  # keys kept dice
        assert any(by == "computer" for _a, by in table.log)
        await pilot.press("n", "f2")  # a new game's start screen shows the high scores
        await until(pilot, lambda: isinstance(app.screen, ScoresScreen), "the high scores screen")
        await until(pilot, lambda: "Robo (computer greedy)" in text_of(app, "#scores-text"), "Robo's score")
        await pilot.press("escape")
        assert isinstance(app.screen, StartScreen)
    out = CliRunner().invoke(main, ["scores", "--db", db])
    assert out.exit_code == 0, out.output
    assert "Robo (computer greedy)" in out.output
    ann = next(line for line in out.output.splitlines() if " Ann " in line)
    assert f" {table.state.total(0)} " in ann
    with Store(db) as store:
        assert store.load_game(1).log == table.game.log
        assert store.last_players() == [PlayerProfile("Ann"), PlayerProfile("Robo", SeatKind.COMPUTER, "greedy")]


async def test_keys_and_clicks_keep_roll_score_undo_and_redo(tmp_path: Path) -> None:
    session = solo(rule_set="yahtzee")
    app = FiveDiceApp(demo_config(session, saves=tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        game = session.game
        await pilot.press("1")
        assert "Roll first" in text_of(app, "#status")
        await pilot.press("space")
        first = game.state.dice
        assert first is not None
        assert "Roll 1 of 3" in text_of(app, "#roll")
        await pilot.press("1", "3")
        await pilot.click("#die-5")
        await pilot.press("space")
        second = game.state.dice
        assert second is not None
        assert game.log[-1] == Roll((0, 2, 4), second)
        assert [second[p] for p in (0, 2, 4)] == [first[p] for p in (0, 2, 4)]
        assert "Roll 2 of 3" in text_of(app, "#roll")
        await pilot.press("1", "2", "3", "4", "5")  # 1, 3, 5 released; 2, 4 kept
        screen = app.screen
        assert isinstance(screen, GameScreen)
        assert screen.kept == {1, 3}
        await pilot.press("space", "space")
        assert "used all 3 rolls" in text_of(app, "#status")
        options = sorted(game.state.options(), key=lambda k: rules.get("yahtzee").box_index(k[1]))
        start = screen.cursor
        assert start is not None
        await pilot.press("down", "down")
        chosen = options[(options.index(start) + 2) % len(options)]
        assert screen.cursor == chosen
        await pilot.press("enter")
        scored = game.log[-1]
        assert isinstance(scored, Score)
        assert (scored.box, scored.card) == (chosen[1], 0)
        assert game.state.cards[0][0].get(scored.box) == scored.points
        await pilot.press("u")
        assert game.state.cards[0][0].get(scored.box) is None
        assert game.state.rolls == 3
        assert text_of(app, "#status").startswith("Undone: Ann's ")  # says what undo took back, in words
        await pilot.press("ctrl+r")
        assert game.log[-1] == scored
        assert game.state.dice is None
        assert text_of(app, "#status").startswith("Redone: Ann's ")


async def test_clicking_a_box_scores_it_and_the_card_shows_engine_points(tmp_path: Path) -> None:
    session = solo(rule_set="yacht", seed=2)
    app = FiveDiceApp(demo_config(session, saves=tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("space")
        state = session.state
        line = app.screen.query_one("#box-choice")
        assert f"({state.options()[(0, 'choice')]})" in str(line.render())
        await pilot.click("#box-choice", offset=(20, 0))
        assert session.game.log[-1] == Score("choice", 0, sum(state.dice or ()))


async def test_a_computer_opponent_plays_visibly_and_a_score_is_final_once_it_rolls(tmp_path: Path) -> None:
    session = session_of("yahtzee", [Seat("Ann"), Seat("Robo", SeatKind.COMPUTER, "greedy")], seed=4, starter=0)
    app = FiveDiceApp(demo_config(session, saves=tmp_path, reasoning=True, pace=5.0))
    async with app.run_test(size=SIZE) as pilot:
        table = session.table
        await pilot.press("space", "enter")
        assert table.state.current == 1
        assert isinstance(table.log[-1][0], Score)
        await pilot.press("u")  # before the computer rolls, Ann may take back her score
        assert table.state.current == 0
        assert text_of(app, "#status").startswith("Undone: Ann's ")
        await pilot.press("enter")
        screen = app.screen
        assert isinstance(screen, GameScreen)
        app.save_setting("pace", 0.0)
        screen.cancel_computer()
        screen.schedule()
        await wait_for_human(pilot, app)
        assert table.state.current == 0
        assert [by for _a, by in table.log].count(By.COMPUTER) >= 2  # Robo rolled and scored
        assert "Robo weighs" in text_of(app, "#panel")
        await pilot.press("u")
        assert "Only a score can be taken back" in text_of(app, "#status") or "nothing to undo" in text_of(
            app, "#status"
        )
        assert table.state.current == 0


async def test_hints_come_from_a_worker_and_are_recorded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    session = solo()
    app = FiveDiceApp(demo_config(session, saves=tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("h")
        assert "Roll first" in text_of(app, "#status")
        await pilot.press("space", "h")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "to come" in text_of(app, "#panel")
        assert session.table.hint_counts == {0: 1}

    def no_advice(self: Table, state: object = None) -> object:
        raise FiveDiceError("The advisor has nothing to say here.")

    monkeypatch.setattr(Table, "advice", no_advice)
    session = solo("Bo", seed=1)
    app = FiveDiceApp(demo_config(session, saves=tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("space", "h")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "The advisor has nothing to say here." in text_of(app, "#panel")
        assert session.table.hints == []


async def test_save_quit_and_resume_from_the_start_screen(tmp_path: Path) -> None:
    folder = tmp_path / "saves"
    session = near_end(solo(rule_set="generala"))
    app = FiveDiceApp(demo_config(session, saves=folder))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("space", "2", "space", "enter", "space")
        log = session.game.log
        await pilot.press("q")
    assert app.return_code == 0
    [path] = list(folder.glob("*.json"))
    data = saves.read(path)
    assert isinstance(data, dict)
    assert "table" in data  # one file: the table's save
    app = FiveDiceApp(Config(use_store=False, saves=folder, pace=0.0, analyser=no_analysis))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.screen.query_one("#saved", Select).value == str(path)
        await pilot.click("#resume")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, GameScreen)
        assert screen.table.game.log == log
        assert screen.table.tape.to_data() == session.table.tape.to_data()
        await play_to_end(pilot, app)
        assert isinstance(app.screen, EndScreen)
    assert list(folder.iterdir()) == []  # a finished game's save is removed

    saves.save(session.game, tmp_path / "plain.json")  # --load takes a plain engine save
    app = FiveDiceApp(Config(use_store=False, saves=folder, load=tmp_path / "plain.json", analyser=no_analysis))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, GameScreen)
        assert app.screen.table.game.log == log


async def test_a_damaged_database_still_plays_and_offers_the_log_as_json(tmp_path: Path) -> None:
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"not a database" * 200)
    config = Config(db=str(bad), saves=tmp_path, pace=0.0, seats=[Seat("Ann")], analyser=no_analysis, seed=3)
    config.session = near_end(solo(rule_set="generala", seed=3))
    app = FiveDiceApp(config)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.store is None
        assert "damaged" in (app.store_error or "")
        await play_to_end(pilot, app)
        assert isinstance(app.screen, EndScreen)
        assert "Press s to save its log" in text_of(app, "#stored")
        await pilot.press("s")
        [path] = list(tmp_path.glob("finished-*.json"))
        assert saves.load(path).log == config.session.game.log


async def test_start_screen_checks_the_form_and_remembers_players(tmp_path: Path) -> None:
    db = str(tmp_path / "s.db")
    with Store(db) as store:
        store.remember_players([PlayerProfile("Zoe"), PlayerProfile("Max", SeatKind.COMPUTER, "random")])
    app = FiveDiceApp(Config(db=db, saves=tmp_path, analyser=no_analysis))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert screen.query_one("#name-0", Input).value == "Zoe"
        assert screen.query_one("#kind-1", Select).value == "computer:random"
        screen.query_one("#name-1", Input).value = "zoe"
        await pilot.press("ctrl+s")
        assert "given twice" in text_of(app, "#message")
        screen.query_one("#name-1", Input).value = "Max"
        screen.query_one("#options", Input).value = "joker=sometimes"
        await pilot.press("ctrl+s")
        assert "joker" in text_of(app, "#message")
        screen.query_one("#options", Input).value = "joker=free"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, GameScreen)
        assert app.screen.table.rules.spec == "yahtzee joker=free"
    with Store(db) as store:
        assert store.get_setting("rules") == "yahtzee joker=free"


async def test_a_level_that_cannot_play_the_rules_is_refused_in_one_sentence(tmp_path: Path) -> None:
    app = FiveDiceApp(Config(use_store=False, saves=tmp_path, analyser=no_analysis))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        screen.query_one("#name-0", Input).value = "Ann"
        screen.query_one("#name-1", Input).value = "Max"
        screen.query_one("#kind-1", Select).value = "computer:optimal"
        screen.query_one("#options", Input).value = "cards=jetsi"
        await pilot.press("ctrl+s")
        assert isinstance(app.screen, StartScreen)
        message = text_of(app, "#message")
        assert "optimal" in message
        assert message.count(".") <= 2


async def test_physical_dice_help_and_theme(tmp_path: Path) -> None:
    session = solo(rule_set="yacht")
    app = FiveDiceApp(demo_config(session, saves=tmp_path, physical=True))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("space")
        assert isinstance(app.screen, DiceEntry)
        await pilot.press("9", "enter")
        assert "expected exactly 5" in text_of(app, "#entry-error")
        app.screen.query_one("#entry", Input).value = "6 6 6 6 6"
        await pilot.press("enter")
        await pilot.pause()
        assert session.state.dice == (6, 6, 6, 6, 6)
        await pilot.press("1", "2", "3", "space")
        assert isinstance(app.screen, DiceEntry)  # two dice never seen: typed
        app.screen.query_one("#entry", Input).value = "1 2"
        await pilot.press("enter")
        await pilot.pause()
        assert session.state.dice == (6, 6, 6, 1, 2)
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("x")
        assert isinstance(app.screen, GameScreen)
        assert app.theme == "fivedice-dark"
        await pilot.press("t")
        assert app.theme == "fivedice-light"


async def test_solo_players_see_their_best(tmp_path: Path) -> None:
    app, best = app_with_a_best(tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert f"Beat your best: {best}" in text_of(app, "#roll")


async def test_end_screen_shows_the_analysis_and_stores_its_losses(tmp_path: Path) -> None:
    from fivedice.tui.end import analyse

    session = near_end(solo(rule_set="yacht", seed=8), 0)
    db = str(tmp_path / "s.db")
    app = FiveDiceApp(Config(db=db, saves=tmp_path, session=session, analyser=analyse))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        text = text_of(app, "#analysis")
        assert "Ann: grade" in text
        assert "decisions" in text
        assert "Luck and decisions" in text
        assert re.search(r"Ann: \d+ = 169\.8 expected [+−] [\d.]+ luck − [\d.]+ decisions", text)
    with Store(db) as store:
        history = store.history("Ann")
        assert history.games[0].decisions is not None
        assert history.games[0].decisions > 0
        assert history.mean_loss is not None


async def test_a_failed_write_offers_json_and_a_loaded_finished_game_is_not_stored_twice(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from fivedice.storage import StoreError

    db = str(tmp_path / "s.db")
    session = near_end(solo(rule_set="generala", seed=4), rounds_left=1)
    app = FiveDiceApp(Config(db=db, saves=tmp_path, session=session, analyser=no_analysis))

    def locked(*args: object, **kwargs: object) -> int:
        raise StoreError("The score database 's.db' is locked by another program; try again when it is closed.")

    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        monkeypatch.setattr(app.store, "record_table", locked)
        await play_to_end(pilot, app)
        assert "could not be stored" in text_of(app, "#stored")
        assert "locked by another program" in text_of(app, "#stored")
        await pilot.press("s")
    [path] = list(tmp_path.glob("finished-*.json"))
    app = FiveDiceApp(Config(db=db, saves=tmp_path, load=path, analyser=no_analysis))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, EndScreen)
        assert "not stored again" in text_of(app, "#stored")
    with Store(db) as store:
        assert store.game_count() == 0


async def test_a_failing_computer_player_is_reported_and_the_game_goes_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(self: Table, state: object = None) -> object:
        raise RuntimeError("no table")

    monkeypatch.setattr(Table, "computer_intent", broken)
    session = session_of("yacht", [Seat("Ann"), Seat("Robo", SeatKind.COMPUTER, "greedy")], seed=1, starter=1)
    app = FiveDiceApp(demo_config(session, saves=tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "The computer player failed: RuntimeError: no table" in text_of(app, "#status")
        await pilot.press("s")
        assert "Saved to" in text_of(app, "#status")


async def test_four_players_fit_beside_the_dice_in_80_columns(tmp_path: Path) -> None:
    from fivedice.tui.widgets import COMPACT, ScoreCardView

    seats = [Seat("Ann"), Seat("Bob"), Seat("Cy"), Seat("Robo", SeatKind.COMPUTER, "greedy")]
    session = session_of("yahtzee", seats, seed=1, starter=0)
    app = FiveDiceApp(demo_config(session, saves=tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("space")
        card = app.screen.query_one(ScoreCardView)
        assert card.widths == COMPACT
        dice = app.screen.query_one("#die-5")
        assert dice.region.right <= SIZE[0]
        assert card.region.right <= app.screen.query_one("#side").region.x
