"""The terminal game in other languages: an Italian game, switching mid-game, the remembered choice."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Button, Input, Select, Static
from textual.widgets._footer import FooterKey

from fivedice import i18n
from fivedice.storage import Store
from fivedice.tui import Config, FiveDiceApp, Seat
from fivedice.tui.demo import demo_config, demo_session
from fivedice.tui.end import EndScreen
from fivedice.tui.play import GameScreen
from fivedice.tui.start import StartScreen
from fivedice.tui.widgets import CardLine
from tests.tui.helpers import config_from_command_line, near_end, solo

SIZE = (100, 30)


def no_analysis(game: object) -> str:
    return "no analysis in tests"


def text_of(app: FiveDiceApp, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


def card_text(app: FiveDiceApp) -> str:
    return "\n".join(str(line.render()) for line in app.screen.query(CardLine))


def footer_text(app: FiveDiceApp) -> str:
    return " ".join(key.description for key in app.screen.query(FooterKey))


async def play_out(pilot: Pilot[Any], app: FiveDiceApp, seen: list[str]) -> None:
    """Roll once and score the highlighted box until the game ends, noting every screen's text."""
    for _ in range(200):
        screen = app.screen
        if not isinstance(screen, GameScreen):
            return
        seen.append(text_of(app, "#turn") + "\n" + text_of(app, "#roll") + "\n" + text_of(app, "#events"))
        await pilot.press("space" if screen.session.state.dice is None else "enter")
    raise AssertionError("the game did not end")


@pytest.mark.asyncio
async def test_a_whole_game_in_italian(tmp_path: Path) -> None:
    db = str(tmp_path / "scores.db")
    config = Config(db=db, saves=tmp_path, seats=[Seat("Ann")], seed=4, language="it", analyser=no_analysis)
    app = FiveDiceApp(config)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, StartScreen)
        assert i18n.current_language() == "it"
        labels = " ".join(str(label.render()) for label in app.screen.query("Label"))
        assert "Giocatori (un nome vuoto lascia libero il posto)" in labels
        assert "Regole" in labels
        assert str(app.screen.query_one("#start", Button).label) == "Inizia"
        assert app.screen.query_one("#language", Select).value == "it"
        app.screen.query_one("#rules", Select).value = "yahtzee"
        await pilot.click("#start")
        await pilot.pause()
        assert isinstance(app.screen, GameScreen)
        card = card_text(app)
        for label in ("Tris", "Poker", "Full", "Scala piccola", "Scala grande", "Totale"):
            assert label in card
        assert "Three of a Kind" not in card
        assert "Tira" in footer_text(app)
        assert "Roll" not in footer_text(app)
        seen: list[str] = []
        await play_out(pilot, app, seen)
        assert isinstance(app.screen, EndScreen)
        shown = "\n".join(seen)
        assert "round 1/13" in shown
        assert "Lancio 1 di 3" in shown
        assert "Ann segna " in shown  # the table's events in the reader's language (one narrator)
        assert "Ann lancia " in shown
        assert " in Chance." in shown or " in Tris." in shown or " in Full." in shown or " in Poker." in shown
        assert "to play" not in shown
        assert "Roll 1 of" not in shown
        assert text_of(app, "#ranking").startswith("Partita finita\n1. Ann ")
        assert "Registrata come partita 1" in text_of(app, "#stored")
        assert "Nuova partita" in footer_text(app)
    with Store(db) as store:
        assert store.history("Ann").count == 1


@pytest.mark.asyncio
async def test_switching_language_mid_game_keeps_the_game(tmp_path: Path) -> None:
    db = str(tmp_path / "scores.db")
    app = FiveDiceApp(demo_config(demo_session(rounds=3)))
    app.config.use_store = True
    app.config.db = db
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, GameScreen)
        await pilot.press("2", "4")
        before = (screen.session.state, list(screen.session.game.log), set(screen.kept), screen.cursor)
        english = (text_of(app, "#turn"), text_of(app, "#keys"), card_text(app), footer_text(app))
        assert "Three of a Kind" in english[2]
        assert "Roll" in english[3]
        codes = []
        for _ in range(len(i18n.available_languages())):
            await pilot.press("l")
            await pilot.pause()
            codes.append(i18n.current_language())
            assert id(app.screen) == id(screen)
            after = (screen.session.state, list(screen.session.game.log), set(screen.kept), screen.cursor)
            assert after == before
            if codes[-1] == "it":
                assert "Tris" in card_text(app)
                assert "Three of a Kind" not in card_text(app)
                assert "Tieni" in text_of(app, "#keys")
                assert "Tira" in footer_text(app)
                assert "Consiglio" in footer_text(app)
                assert "round 3/13" in text_of(app, "#turn")
            if codes[-1] == "hr":
                assert "3 vrste" in card_text(app)
                assert "Baci" in footer_text(app)
        assert sorted(codes) == sorted(i18n.available_languages())
        assert codes[-1] == "en"
        assert (text_of(app, "#turn"), text_of(app, "#keys"), card_text(app), footer_text(app)) == english
        await pilot.press("l")  # the game goes on in the new language
        await pilot.pause()
        chosen = i18n.current_language()
        await pilot.press("space")
        assert len(screen.session.game.log) == len(before[1]) + 1
        assert i18n.current_language() == chosen
    with Store(db) as store:
        assert store.get_setting("language") == chosen


@pytest.mark.asyncio
async def test_the_language_chosen_is_used_at_the_next_start_unless_lang_says_otherwise(tmp_path: Path) -> None:
    db = str(tmp_path / "scores.db")
    with Store(db) as store:
        store.set_setting("language", "hr")
    app = FiveDiceApp(Config(db=db, saves=tmp_path, analyser=no_analysis))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert i18n.current_language() == "hr"
        assert str(app.screen.query_one("#start", Button).label) == "Počni"
    i18n.set_language("en")
    app = FiveDiceApp(Config(db=db, saves=tmp_path, analyser=no_analysis, language="it"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert i18n.current_language() == "it"
    with Store(db) as store:
        assert store.get_setting("language") == "hr"  # --lang is for this run; it does not change the profile


@pytest.mark.asyncio
async def test_the_start_screen_selector_switches_and_keeps_the_form(tmp_path: Path) -> None:
    app = FiveDiceApp(Config(use_store=False, saves=tmp_path, analyser=no_analysis))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, StartScreen)
        screen.query_one("#name-0", Input).value = "Zoe"
        screen.query_one("#kind-1", Select).value = "human"
        screen.query_one("#rules", Select).value = "yatzy"
        screen.query_one("#language", Select).value = "su"
        await pilot.pause()
        await pilot.pause()
        assert i18n.current_language() == "su"
        assert app.screen is screen
        assert str(screen.query_one("#start", Button).label) == "Mimitian"
        assert screen.query_one("#name-0", Input).value == "Zoe"
        assert screen.query_one("#kind-1", Select).value == "human"
        assert screen.query_one("#rules", Select).value == "yatzy"
        assert app.settings["language"] == "su"


@pytest.mark.asyncio
async def test_the_end_screen_follows_a_switch(tmp_path: Path) -> None:
    session = near_end(solo(rule_set="yacht", seed=3), 0)
    app = FiveDiceApp(Config(use_store=False, saves=tmp_path, session=session, analyser=no_analysis))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, EndScreen)
        assert "Game over" in text_of(app, "#ranking")
        app.switch_language("it")
        await pilot.pause()
        assert "Partita finita" in text_of(app, "#ranking")
        assert "nessun database dei punteggi in uso" in text_of(app, "#stored")
        assert "Totale" in card_text(app)


@pytest.mark.parametrize(("args", "expected"), [(["--lang", "it"], "it"), ([], None)])
def test_lang_on_the_command_line_reaches_the_game(
    monkeypatch: pytest.MonkeyPatch, args: list[str], expected: str | None
) -> None:
    assert config_from_command_line(monkeypatch, [*args, "play", "--players", "Ann"]).language == expected
