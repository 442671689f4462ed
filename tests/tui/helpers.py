"""Shared helpers of the terminal-game tests: sessions on a table, and driving a game with keys."""

from __future__ import annotations

import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from textual.pilot import Pilot
from textual.widgets import Static

from fivedice import rules
from fivedice.cli import main
from fivedice.players import get as get_strategy
from fivedice.rules import RuleSet
from fivedice.storage import Store
from fivedice.table.seat import Seat
from fivedice.tui import Config, FiveDiceApp
from fivedice.tui.play import GameScreen
from fivedice.tui.session import Session, new_table

SIZE = (80, 24)


def no_analysis(game: object) -> str:
    return "no analysis in tests"


def session_of(rule_set: str | RuleSet, seats: list[Seat], seed: int = 5, **kwargs: Any) -> Session:
    chosen = rules.get(rule_set) if isinstance(rule_set, str) else rule_set
    return Session(new_table(chosen, seats, seed=seed, **kwargs))


def solo(name: str = "Ann", rule_set: str | RuleSet = "yacht", seed: int = 5, **kwargs: Any) -> Session:
    return session_of(rule_set, [Seat(name)], seed, **kwargs)


def near_end(session: Session, rounds_left: int = 2) -> Session:
    """Play the game on with a greedy player for every seat until ``rounds_left`` rounds remain for seat 0."""
    table = session.table
    player = get_strategy("greedy", table.rules, seed=1)
    while True:
        table.run_automatic()
        state = table.state
        if state.rules.rounds - state.filled(0) <= rounds_left and state.current == 0 and state.dice is None:
            return session
        table.play(player.choose(state))


def finish(session: Session) -> Session:
    """Play the whole game with greedy players."""
    near_end(session, 0)
    return session


def text_of(app: FiveDiceApp, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


async def settled_click(pilot: Pilot[Any], app: FiveDiceApp, selector: str) -> None:
    """Click ``selector`` as a person would a moment later: once its place is unchanged over two
    pauses (a message that wraps moves the buttons below it) and its press effect is over (a button
    takes no second click within its 0.2 s press effect: a double click is one press)."""
    place = None
    for _ in range(500):
        await pilot.pause(0.01)
        widget = app.screen.query_one(selector)
        if widget.region == place and not widget.has_class("-active"):
            break
        place = widget.region
    await pilot.click(selector)


async def until(pilot: Pilot[Any], done: Callable[[], bool], what: str) -> None:
    """Let the app work until ``done()`` (a screen pushed, a worker's text shown): on a loaded machine a key's
    effects can take longer than the pilot's one pause."""
    for _ in range(1000):
        if done():
            return
        await pilot.pause(0.01)
    raise AssertionError(f"{what} never came")


async def wait_for_human(pilot: Pilot[Any], app: FiveDiceApp) -> None:
    """Let the roll-off and the computers play until a human is to act (or the screen changes)."""
    for _ in range(500):
        screen = app.screen
        if not isinstance(screen, GameScreen) or screen.table.human_to_move or screen.table.is_over:
            return
        await pilot.pause(0.01)
    raise AssertionError("no human's turn came")


async def play_to_end(pilot: Pilot[Any], app: FiveDiceApp, keep: int = 0) -> None:
    """Play the humans' turns with keys: in the first ``keep`` rounds keep the commonest face and
    roll again; then score the highlighted box."""
    for _ in range(2000):
        screen = app.screen
        if not isinstance(screen, GameScreen):
            return
        if not screen.table.human_to_move:
            await pilot.pause(0.01)
            continue
        state = screen.table.state
        if state.dice is None:
            await pilot.press("space")
        elif state.round <= keep and state.rolls == 1:
            face = max(range(1, 7), key=lambda f: (state.dice or ()).count(f))
            keys = [str(p + 1) for p, v in enumerate(state.dice) if v == face and p not in screen.kept]
            await pilot.press(*keys, "space")
        else:
            await pilot.press("enter")
    raise AssertionError("the game did not end")


def app_with_a_best(tmp_path: Path) -> tuple[FiveDiceApp, int]:
    """A solo Yacht game for Ann whose score store already holds one finished game of hers; and its total."""
    db = str(tmp_path / "s.db")
    with Store(db) as store:
        old = solo(rule_set="yacht", seed=9)
        near_end(old, 0)
        store.record_table(old.table)
    return FiveDiceApp(Config(db=db, saves=tmp_path, session=solo(rule_set="yacht"), analyser=no_analysis)), (
        old.state.total(0)
    )


def config_from_command_line(monkeypatch: pytest.MonkeyPatch, args: list[str]) -> Config:
    """The :class:`Config` the full-screen game gets from ``fivedice <args>`` on a terminal (the app is not run)."""
    seen: list[Config] = []

    def run(self: FiveDiceApp) -> int:
        seen.append(self.config)
        return 0

    tty = types.SimpleNamespace(isatty=lambda: True)
    monkeypatch.setattr("fivedice.cli.app.sys", types.SimpleNamespace(stdin=tty, stdout=tty, exit=sys.exit))
    monkeypatch.setattr(FiveDiceApp, "run", run)
    out = CliRunner().invoke(main, args)
    assert out.exit_code == 0, out.output
    assert len(seen) == 1, out.output
    return seen[0]
