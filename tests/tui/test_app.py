"""Whole games driven through the Textual pilot: keys to keep, roll, score, undo, save and resume."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from textual.pilot import Pilot
from textual.widgets import Input, Select, Static

from fivedice import rules, saves
from fivedice.actions import Roll, Score
from fivedice.cli import main
from fivedice.errors import FiveDiceError
from fivedice.storage import PlayerProfile, Store
from fivedice.tui import Config, FiveDiceApp, Seat, Session
from fivedice.tui.demo import demo_config, fake_advisor, fallback_strategy
from fivedice.tui.end import EndScreen
from fivedice.tui.play import DiceEntry, GameScreen, HelpScreen
from fivedice.tui.start import ScoresScreen, StartScreen

pytestmark = pytest.mark.asyncio

SIZE = (80, 24)


def no_analysis(game: object) -> str:
    return "no analysis in tests"


def solo(name: str = "Ann", rule_set: str = "yacht", seed: int = 5) -> Session:
    return Session.new(rules.get(rule_set), [Seat(name)], seed=seed, advisor=fake_advisor)


def near_end(session: Session, rounds_left: int = 2) -> Session:
    """Play a solo session with the stand-in computer until ``rounds_left`` rounds remain."""
    player = fallback_strategy("greedy", session.game.rules, 1)
    while session.state.rules.rounds - session.state.filled(0) > rounds_left:
        session.game.play(player.choose(session.state))
    return session


def text_of(app: FiveDiceApp, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


async def play_to_end(pilot: Pilot[Any], app: FiveDiceApp, keep: int = 0) -> None:
    """Play the humans' turns with keys: in the first ``keep`` rounds keep the commonest face and
    roll again; then score the highlighted box."""
    for _ in range(2000):
        screen = app.screen
        if not isinstance(screen, GameScreen):
            return
        session = screen.session
        if session.computer_to_move:
            await pilot.pause(0.01)
            continue
        state = session.state
        if state.dice is None:
            await pilot.press("space")
        elif state.round <= keep and state.rolls == 1:
            face = max(range(1, 7), key=lambda f: (state.dice or ()).count(f))
            keys = [str(p + 1) for p, v in enumerate(state.dice) if v == face and p not in screen.kept]
            await pilot.press(*keys, "space")
        else:
            await pilot.press("enter")
    raise AssertionError("the game did not end")


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
        await pilot.click("#start")
        await pilot.pause()
        assert isinstance(app.screen, GameScreen)
        game = app.screen.session.game
        await play_to_end(pilot, app, keep=3)
        assert isinstance(app.screen, EndScreen)
        assert game.is_over
        winner = game.state.standings()[0]
        assert f"1. {winner.name}" in text_of(app, "#ranking")
        assert "Stored as game 1" in text_of(app, "#stored")
        assert any(isinstance(a, Roll) and a.held for a in game.log)  # keys kept dice
        await pilot.press("n", "f2")  # a new game's start screen shows the high scores
        assert isinstance(app.screen, ScoresScreen)
        assert "Robo (computer greedy)" in text_of(app, "#scores-text")
        await pilot.press("escape")
        assert isinstance(app.screen, StartScreen)
    out = CliRunner().invoke(main, ["scores", "--db", db])
    assert out.exit_code == 0, out.output
    assert "Robo (computer greedy)" in out.output
    ann = next(line for line in out.output.splitlines() if " Ann " in line)
    assert f" {game.state.total(0)} " in ann
    with Store(db) as store:
        assert store.load_game(1).log == game.log
        assert store.last_players() == [PlayerProfile("Ann"), PlayerProfile("Robo", "computer", "greedy")]


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
        await pilot.press("ctrl+r")
        assert game.log[-1] == scored
        assert game.state.dice is None


async def test_clicking_a_box_scores_it_and_the_card_shows_engine_points(tmp_path: Path) -> None:
    session = solo(rule_set="yacht", seed=2)
    app = FiveDiceApp(demo_config(session, saves=tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("space")
        state = session.state
        line = app.screen.query_one("#box-choice", Static)
        assert f"({state.options()[(0, 'choice')]})" in str(line.render())
        await pilot.click("#box-choice", offset=(20, 0))
        assert session.game.log[-1] == Score("choice", 0, sum(state.dice or ()))


async def test_a_computer_opponent_plays_visibly_and_undo_skips_its_moves(tmp_path: Path) -> None:
    config = demo_config(saves=tmp_path, reasoning=True)
    config.session = Session.new(
        rules.get("yahtzee"),
        [Seat("Ann"), Seat("Robo", "computer", "greedy")],
        seed=4,
        strategy_factory=fallback_strategy,
        advisor=fake_advisor,
        starter=0,
    )
    app = FiveDiceApp(config)
    async with app.run_test(size=SIZE) as pilot:
        game = config.session.game
        await pilot.press("space", "enter")
        for _ in range(100):
            if game.state.current == 0:
                break
            await pilot.pause(0.01)
        assert game.state.current == 0
        assert isinstance(game.log[1], Score)
        assert isinstance(game.log[-1], Score)
        assert len(game.log) > 3  # Robo rolled and scored
        assert "Robo weighs" in text_of(app, "#panel")
        await pilot.press("u")
        assert len(game.log) == 1  # Ann's roll: her score and Robo's turn are taken back
        assert game.state.current == 0
        first = game.log[0]
        assert isinstance(first, Roll)
        assert game.state.dice == first.dice


async def test_hints_come_from_a_worker_and_are_recorded(tmp_path: Path) -> None:
    session = solo()
    app = FiveDiceApp(demo_config(session, saves=tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("h")
        assert "Roll first" in text_of(app, "#status")
        await pilot.press("space", "h")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "keep 5 5 5" in text_of(app, "#panel")
        assert session.hint_counts == {0: 1}

    def no_solver(state: object) -> list[Any]:
        raise FiveDiceError("Hints need the solver (fivedice.solver), which is not installed.")

    session = Session.new(rules.get("yacht"), [Seat("Bo")], seed=1, advisor=no_solver)
    app = FiveDiceApp(demo_config(session, saves=tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("space", "h")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "Hints need the solver" in text_of(app, "#panel")
        assert session.hints == []


async def test_save_quit_and_resume_from_the_start_screen(tmp_path: Path) -> None:
    folder = tmp_path / "saves"
    session = near_end(solo(rule_set="generala"))
    app = FiveDiceApp(demo_config(session, saves=folder))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("space", "2", "space", "enter", "space")
        log = session.game.log
        await pilot.press("q")
    assert app.return_code == 0
    [path] = [p for p in folder.glob("*.json") if not p.name.endswith(".seats.json")]
    app = FiveDiceApp(Config(use_store=False, saves=folder, pace=0.0, analyser=no_analysis))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.screen.query_one("#saved", Select).value == str(path)
        await pilot.click("#resume")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, GameScreen)
        assert screen.session.game.log == log
        await play_to_end(pilot, app)
        assert isinstance(app.screen, EndScreen)
    assert list(folder.iterdir()) == []  # a finished game's save and seats file are removed

    saves.save(session.game, tmp_path / "plain.json")  # --load takes a plain engine save
    app = FiveDiceApp(Config(use_store=False, saves=folder, load=tmp_path / "plain.json", analyser=no_analysis))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, GameScreen)
        assert app.screen.session.game.log == log


async def test_a_damaged_database_still_plays_and_offers_the_log_as_json(tmp_path: Path) -> None:
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"not a database" * 200)
    config = Config(db=str(bad), saves=tmp_path, pace=0.0, seats=[Seat("Ann")], analyser=no_analysis, seed=3)
    config.session = near_end(Session.new(rules.get("generala"), [Seat("Ann")], seed=3))
    app = FiveDiceApp(config)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.store is None
        assert "damaged" in (app.store_error or "")
        await play_to_end(pilot, app)
        assert isinstance(app.screen, EndScreen)
        assert "not in the high scores" in text_of(app, "#stored")
        await pilot.press("j")
        [path] = list(tmp_path.glob("finished-*.json"))
        assert saves.load(path).log == config.session.game.log


async def test_start_screen_checks_the_form_and_remembers_players(tmp_path: Path) -> None:
    db = str(tmp_path / "s.db")
    with Store(db) as store:
        store.remember_players([PlayerProfile("Zoe"), PlayerProfile("Max", "computer", "random")])
    app = FiveDiceApp(Config(db=db, saves=tmp_path, analyser=no_analysis))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert screen.query_one("#name-0", Input).value == "Zoe"
        assert screen.query_one("#kind-1", Select).value == "computer:random"
        screen.query_one("#name-1", Input).value = "zoe"
        await pilot.click("#start")
        assert "given twice" in text_of(app, "#message")
        screen.query_one("#name-1", Input).value = "Max"
        screen.query_one("#options", Input).value = "joker=sometimes"
        await pilot.press("ctrl+s")
        assert "joker" in text_of(app, "#message")
        screen.query_one("#options", Input).value = "joker=free"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, GameScreen)
        assert app.screen.session.game.rules.spec == "yahtzee joker=free"
    with Store(db) as store:
        assert store.get_setting("rules") == "yahtzee joker=free"


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
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("x")
        assert isinstance(app.screen, GameScreen)
        assert app.theme == "textual-dark"
        await pilot.press("t")
        assert app.theme == "textual-light"


async def test_solo_players_see_their_best(tmp_path: Path) -> None:
    db = str(tmp_path / "s.db")
    with Store(db) as store:
        old = solo(rule_set="yacht", seed=9).game
        while not old.is_over:
            old.roll()
            old.score(next(iter(old.state.options()))[1])
        store.record_game(old)
        best = old.state.total(0)
    app = FiveDiceApp(Config(db=db, saves=tmp_path, session=solo(rule_set="yacht"), analyser=no_analysis))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert f"Beat your best: {best}" in text_of(app, "#roll")


async def test_end_screen_shows_the_analysis_and_stores_its_losses(tmp_path: Path) -> None:
    pytest.importorskip("fivedice.analysis")
    from fivedice.tui.end import analyse

    session = Session.new(rules.get("yacht"), [Seat("Ann")], seed=8)
    player = fallback_strategy("greedy", session.game.rules, 8)
    while not session.game.is_over:
        session.game.play(player.choose(session.state))
    db = str(tmp_path / "s.db")
    app = FiveDiceApp(Config(db=db, saves=tmp_path, session=session, analyser=analyse))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        text = text_of(app, "#analysis")
        assert "Ann: grade" in text
        assert "decisions" in text
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
    session = near_end(Session.new(rules.get("generala"), [Seat("Ann")], seed=4), rounds_left=1)
    app = FiveDiceApp(Config(db=db, saves=tmp_path, session=session, analyser=no_analysis))

    def locked(*args: object, **kwargs: object) -> int:
        raise StoreError("The score database 's.db' is locked by another program; try again when it is closed.")

    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        monkeypatch.setattr(app.store, "record_game", locked)
        await play_to_end(pilot, app)
        assert "could not be stored" in text_of(app, "#stored")
        assert "locked by another program" in text_of(app, "#stored")
        await pilot.press("j")
    [path] = list(tmp_path.glob("finished-*.json"))
    app = FiveDiceApp(Config(db=db, saves=tmp_path, load=path, analyser=no_analysis))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, EndScreen)
        assert "not stored again" in text_of(app, "#stored")
    with Store(db) as store:
        assert store.game_count() == 0


async def test_a_failing_computer_player_is_reported_and_the_game_goes_on(tmp_path: Path) -> None:
    def broken(level: str, rule_set: object, seed: int | None) -> Any:
        raise RuntimeError("no table")

    session = Session.new(
        rules.get("yacht"),
        [Seat("Ann"), Seat("Robo", "computer", "greedy")],
        seed=1,
        strategy_factory=broken,
        starter=1,
    )
    app = FiveDiceApp(demo_config(session, saves=tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "The computer player failed: RuntimeError: no table" in text_of(app, "#status")
        await pilot.press("s")
        assert "Saved to" in text_of(app, "#status")


async def test_four_players_fit_beside_the_dice_in_80_columns(tmp_path: Path) -> None:
    from fivedice.tui.widgets import COMPACT, ScoreCardView

    seats = [Seat("Ann"), Seat("Bob"), Seat("Cy"), Seat("Robo", "computer", "greedy")]
    session = Session.new(rules.get("yahtzee"), seats, seed=1, strategy_factory=fallback_strategy, starter=0)
    app = FiveDiceApp(demo_config(session, saves=tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("space")
        card = app.screen.query_one(ScoreCardView)
        assert card.widths == COMPACT
        dice = app.screen.query_one("#die-5")
        assert dice.region.right <= SIZE[0]
        assert card.region.right <= app.screen.query_one("#side").region.x
