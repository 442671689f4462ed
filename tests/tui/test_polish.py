"""The terminal game's rough edges (issue 17), each driven through the pilot as a player meets it."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from textual.widgets import Button, Input, Select

from fivedice import i18n, rules
from fivedice.engine.actions import Roll
from fivedice.services.advice import Advice
from fivedice.table import Table
from fivedice.table.seat import Seat, SeatKind
from fivedice.tui import Config, FiveDiceApp
from fivedice.tui.demo import demo_config
from fivedice.tui.end import EndScreen
from fivedice.tui.play import GameScreen, HelpScreen
from fivedice.tui.start import StartScreen
from fivedice.tui.widgets import CardLine, Die
from tests.tui.helpers import SIZE, near_end, no_analysis, session_of, settled_click, solo, text_of, wait_for_human

pytestmark = pytest.mark.asyncio


def card_text(app: FiveDiceApp) -> str:
    return "\n".join(str(line.render()) for line in app.screen.query(CardLine))


def shown_line(app: FiveDiceApp, selector: str, y: int = 0) -> str:
    """The text a widget's line ``y`` shows on screen (cut and ellipsis included)."""
    return app.screen.query_one(selector).render_line(y).text


async def test_f1_then_esc_on_the_start_screen_closes_the_help_only(tmp_path: Path) -> None:
    app = FiveDiceApp(Config(use_store=False, saves=tmp_path, analyser=no_analysis))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, StartScreen)
        assert app.is_running
        assert app.return_code is None


async def test_the_last_rule_set_and_options_are_remembered(tmp_path: Path) -> None:
    db = str(tmp_path / "s.db")
    app = FiveDiceApp(Config(db=db, saves=tmp_path, analyser=no_analysis))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        app.screen.query_one("#rules", Select).value = "yatzy"
        await pilot.pause()
        app.screen.query_one("#options", Input).value = "forced=yes"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(app.screen, GameScreen)
    app = FiveDiceApp(Config(db=db, saves=tmp_path, analyser=no_analysis))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.screen.query_one("#rules", Select).value == "yatzy"
        assert app.screen.query_one("#options", Input).value == "forced=yes"


async def test_the_options_are_explained_in_sentences_and_wrap_at_80x24(tmp_path: Path) -> None:
    app = FiveDiceApp(Config(use_store=False, saves=tmp_path, analyser=no_analysis))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        app.screen.query_one("#rules", Select).value = "yahtzee"
        await pilot.pause()
        info = app.screen.query_one("#rules-info")
        text = text_of(app, "#rules-info")
        for builtin_option in rules.BUILTINS["yahtzee"].options:
            assert f"Option {builtin_option.name} (" in text
            assert builtin_option.help in text
        assert "jetsi: three cards at once" in text
        assert info.region.right <= SIZE[0]
        assert info.region.height >= 6  # wrapped, not cut to one or two lines
        shown = "".join(shown_line(app, "#rules-info", y) for y in range(info.region.height))
        assert "jetsi" in shown
        assert app.screen.query_one("#start", Button).region.bottom <= SIZE[1]  # the buttons stay in view


async def test_saved_to_shows_the_path_and_q_says_where_and_how_to_resume(tmp_path: Path) -> None:
    folder = tmp_path / "a-rather-long-folder-name-for-the-saved-games"
    app = FiveDiceApp(demo_config(solo(), saves=folder))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("space", "s")
        [path] = list(folder.glob("*.json"))
        status = app.screen.query_one("#status")
        shown = "".join(shown_line(app, "#status", y) for y in range(status.region.height))
        assert str(path) in shown.replace(" ", "") or str(path) in text_of(app, "#status")
        assert status.region.height * status.region.width >= len(f"Saved to {path}")
        await pilot.press("q")
    assert app.farewell == (
        f"Saved to {path}. Resume it from the start screen (Resume), or: fivedice play --load {path}"
    )


async def test_saved_games_can_be_deleted_from_resume(tmp_path: Path) -> None:
    first, second = solo("Ann"), solo("Bob")
    keep = first.save(folder=tmp_path)
    gone = second.save(folder=tmp_path)
    app = FiveDiceApp(Config(use_store=False, saves=tmp_path, analyser=no_analysis))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        app.screen.query_one("#saved", Select).value = str(gone)
        await pilot.click("#delete")
        assert gone.exists()  # the first press asks to confirm
        assert "again" in text_of(app, "#message")
        await settled_click(pilot, app, "#delete")  # the message may move the buttons
        await pilot.pause()
        assert not gone.exists()
        assert keep.exists()
        saved = app.screen.query_one("#saved", Select)
        assert saved.value == str(keep)
        assert f"Deleted {gone}." in text_of(app, "#message")


async def test_the_end_screen_scrolls_by_keys_and_j_saves_nothing(tmp_path: Path) -> None:
    session = near_end(solo(rule_set="yacht"), 0)
    long = "\n".join(f"line {n}" for n in range(80))
    app = FiveDiceApp(Config(use_store=False, saves=tmp_path, session=session, analyser=lambda game: long))
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert isinstance(app.screen, EndScreen)
        side = app.screen.query_one("#end-side")
        assert side.scroll_y == 0
        await pilot.press("j", "j", "down")
        await pilot.pause()
        assert side.scroll_y == 3
        await pilot.press("end")
        await pilot.pause()
        assert side.scroll_y == side.max_scroll_y > 3
        await pilot.press("k", "home")
        await pilot.pause()
        assert side.scroll_y == 0
    assert list(tmp_path.iterdir()) == []  # j scrolled; it saved no file


async def test_hints_light_up_the_dice_to_keep_and_a_applies_the_top_one_by_position(tmp_path: Path) -> None:
    session = solo(rule_set="yacht", seed=12)
    table = session.table
    app = FiveDiceApp(demo_config(session, saves=tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("space", "h")
        await app.workers.wait_for_complete()
        await pilot.pause()
        advice = table.advice()
        best = advice.best.action
        assert isinstance(best, Roll)
        lit = {die.index for die in app.screen.query(Die) if die.has_class("hinted")}
        assert lit == set(best.held)
        if best.held:
            assert "dice " + " ".join(str(p + 1) for p in best.held) in text_of(app, "#panel")
        before = table.state.dice
        await pilot.press("a")
        record = table.log[-1][0]
        assert isinstance(record, Roll)
        assert record.held == best.held  # positions kept, as keys 1-5 would
        assert record.dice is not None
        assert before is not None
        assert all(record.dice[p] == before[p] for p in best.held)
        assert not any(die.has_class("hinted") for die in app.screen.query(Die))  # the old hint is gone


async def test_a_hint_that_needs_a_new_solver_table_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FIVEDICE_CACHE_DIR", str(tmp_path / "empty-cache"))
    release = threading.Event()
    real = Table.advice

    def slow(self: Table, state: object = None) -> Advice:
        release.wait(10)
        return Advice("points", real(self, state).options[:0] or ())  # type: ignore[arg-type]

    monkeypatch.setattr(Table, "advice", slow)
    app = FiveDiceApp(demo_config(solo(rule_set=rules.get("kismet", tali="yes")), saves=tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("space", "h")
        for _ in range(100):
            await pilot.pause(0.02)
            if "Preparing" in text_of(app, "#panel"):
                break
        assert "Preparing the solver for kismet tali=yes (once, about " in text_of(app, "#panel")
        release.set()
        await app.workers.wait_for_complete()


async def test_status_lines_never_go_stale(tmp_path: Path) -> None:
    app = FiveDiceApp(demo_config(solo(rule_set="yacht"), saves=tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("space", "1", "2", "3", "4", "5")
        keys = text_of(app, "#keys")
        assert "other 0" not in keys
        assert keys == "Keeping every die · ↑↓ Enter: score a box"
        await pilot.press("5", "space")
        assert "Space rolls the last die" in text_of(app, "#keys")
        await pilot.press("space")
        assert "Keeping" not in text_of(app, "#keys")  # the last roll: nothing more to keep
        assert text_of(app, "#keys") == "↑↓ Enter: score a box · u undo"

    seats = [Seat("Ann"), Seat("Robo", SeatKind.COMPUTER, "greedy")]
    session = session_of("yahtzee", seats, seed=2, starter=1)
    app = FiveDiceApp(demo_config(session, saves=tmp_path, pace=0.05))
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, GameScreen)
        seen = []
        while not session.table.human_to_move:
            seen.append((text_of(app, "#keys"), screen.pending is not None))
            await pilot.pause(0.01)
        assert any(pending for _text, pending in seen)
        assert all(pending for text, pending in seen if "keeps" in text)  # never while it scores


async def test_title_and_log_end_in_an_ellipsis_at_80_columns_with_4_players(tmp_path: Path) -> None:
    seats = [Seat("Annabelle"), Seat("Bartholomew"), Seat("Christabel"), Seat("Robo", SeatKind.COMPUTER, "greedy")]
    session = session_of(rules.get("yahtzee"), seats, seed=1, starter=1, challenge="friday night")
    app = FiveDiceApp(demo_config(session, saves=tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for_human(pilot, app)
        await pilot.press("space", "1", "space")  # "Bartholomew keeps 3 and rolls ... (roll 2 of 3)."
        assert shown_line(app, "#turn").rstrip().endswith("…")
        events = app.screen.query_one("#events")
        lines = [shown_line(app, "#events", y).rstrip() for y in range(events.region.height)]
        assert any(line.endswith("…") for line in lines)


async def test_jetsi_cards_are_labelled_and_jetsi_is_named(tmp_path: Path) -> None:
    session = session_of(rules.get("yahtzee", cards="jetsi"), [Seat("Ann")])
    session.save(folder=tmp_path)
    app = FiveDiceApp(demo_config(session, saves=tmp_path))
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        card = card_text(app)
        for label in ("Fill order", "free", "top↓", "bot↑"):
            assert label in card
        assert text_of(app, "#turn").startswith("Jetsi · round 1/39")
    app = FiveDiceApp(Config(use_store=False, saves=tmp_path, analyser=no_analysis))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        saved = app.screen.query_one("#saved", Select)
        assert any("Jetsi: Ann" in str(prompt) for prompt, _value in saved._options)


async def test_kismet_shows_which_faces_share_a_colour(tmp_path: Path) -> None:
    session = solo(rule_set="kismet", seed=3)
    app = FiveDiceApp(demo_config(session, saves=tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("space")
        assert text_of(app, "#colours") == "Colours: 1 6 black · 2 5 red · 3 4 green"
        colours = {1: "black", 6: "black", 2: "red", 5: "red", 3: "green", 4: "green"}
        for die, face in zip(app.screen.query(Die), session.state.dice or (), strict=True):
            assert die.has_class(f"colour-{colours[face]}")
    app = FiveDiceApp(demo_config(solo(rule_set="yahtzee"), saves=tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("space")
        assert not app.screen.query_one("#colours").display


async def test_l_cycles_through_the_languages_in_the_readmes_order(tmp_path: Path) -> None:
    app = FiveDiceApp(demo_config(solo(), saves=tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        seen = [i18n.current_language()]
        for _ in range(5):
            await pilot.press("l")
            seen.append(i18n.current_language())
    assert seen == ["en", "it", "hr", "su", "co", "en"]
